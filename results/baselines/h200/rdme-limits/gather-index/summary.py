#!/usr/bin/env python3
"""summary.md from this folder's records: each build's thread instructions a site in the three
sweeps (Nsight Compute, bench/ncu-key-figures) and its ratios to fcbe08a (stagebench compare).
    python3 summary.py > summary.md    (from this folder)"""
import re

BUILDS = [
    ("fcbe08a", "the base", "candidates/call2/ab-ncu-base-key.md", None, None),
    ("full", "appends by counts, a loop a lane; the index lazy; the quad read again",
     "candidates/call2/ab-ncu-full-key.md", "candidates/call2/compare-rbc-full.txt",
     "candidates/call2/compare-min-full.txt"),
    ("noasm", "as full, the index hoisted", "candidates/call2/ab-ncu-noasm-key.md",
     "candidates/call2/compare-rbc-noasm.txt", "candidates/call2/compare-min-noasm.txt"),
    ("pred", "as full, an unrolled conditional store a site in place of the loop", "candidates/call3/ab-ncu-pred-key.md",
     "candidates/call3/compare-rbc-pred.txt", "candidates/call3/compare-min-pred.txt"),
    ("Bonly", "the index lazy; the quad read again", "candidates/call4/ab-ncu-Bonly-key.md",
     "candidates/call4/compare-rbc-Bonly.txt", "candidates/call4/compare-min-Bonly.txt"),
    ("ce14c15", "Bonly, but sweep_xy and the fused z-sweep as fcbe08a", "ce14c15/ab-ncu-new-key.md",
     "ce14c15/ab/compare-rbc.txt", "ce14c15/ab/compare-min.txt"),
]


def per_site(path, kernels=("sweep_quads",)):
    """the last column (thread instructions a site) of each kernel named like one of kernels"""
    cells = [[c.strip() for c in line.split("|")] for line in open(path)]
    return [c[-2] for c in cells if len(c) > 3 and c[2].startswith(kernels)]


def ratios(path):
    found = {}
    for line in open(path) if path else []:
        m = re.match(r"rdme/(\S+?)/\S+\s+\S+ \S+\s+\S+ \S+\s+([\d.]+)x", line)
        if m:
            found[m.group(1)] = m.group(2) + "×"
    return found


if __name__ == "__main__":
    print("| build | change | x-sweep | y-sweep | z-sweep | red blood cell `gpu` | `gpu-fused` "
          "| Min `gpu-graph` | `gpu-fused` |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, what, key, rbc, min_ in BUILDS:
        a, b = ratios(rbc), ratios(min_)
        print(f"| {name} | {what} | {' | '.join(per_site(key))} | {a.get('gpu', '—')} | "
              f"{a.get('gpu-fused', '—')} | {b.get('gpu-graph', '—')} | {b.get('gpu-fused', '—')} |")

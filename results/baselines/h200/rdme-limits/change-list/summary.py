#!/usr/bin/env python3
"""summary.md from this folder's records: each build's thread instructions a site in the three
sweeps and in react (Nsight Compute, bench/ncu-key-figures) and its step's ratio to the build
before it (stagebench compare, two processes of each alternating in one call).
    python3 summary.py > summary.md    (from this folder)"""
import importlib.util
import os

# the tables' readers of ../gather-index/summary.py
_spec = importlib.util.spec_from_file_location(
    "gather_index_summary", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                         "../gather-index/summary.py"))
_gather_index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_gather_index)
ratios = _gather_index.ratios

BUILDS = [
    ("ce14c15", "the base (gather-index/)", "../gather-index/ce14c15/ab-ncu-new-key.md", None, None),
    ("28c14a1", "sweep_quads without reactions gathers only the sites the moves change; against ce14c15",
     "28c14a1/ab-ncu-new-key.md", "28c14a1/ab/compare-rbc.txt", "28c14a1/ab/compare-min.txt"),
    ("c93a86c", "sweep_xy too; appends without a branch (a spare slot a thread); against 28c14a1",
     "c93a86c/ab-ncu-new-key.md", "c93a86c/ab/compare-rbc.txt", "c93a86c/ab/compare-min.txt"),
    ("f55ccb7", "react<packed32>'s list appended a warp at once; against c93a86c (reverted)",
     "f55ccb7/ab-ncu-new-key.md", "f55ccb7/ab/compare-rbc.txt", "f55ccb7/ab/compare-min.txt"),
]

print("| build | change | x-sweep | y-sweep | z-sweep | react | red blood cell `gpu` | `gpu-fused` "
      "| Min `gpu-graph` | `gpu-fused` |")
print("|---|---|---|---|---|---|---|---|---|---|")
for name, what, key, rbc, min_ in BUILDS:
    a, b = ratios(rbc), ratios(min_)
    print(f"| {name} | {what} | {' | '.join(_gather_index.per_site(key, ('sweep_quads', 'react')))} | {a.get('gpu', '—')} | "
          f"{a.get('gpu-fused', '—')} | {b.get('gpu-graph', '—')} | {b.get('gpu-fused', '—')} |")

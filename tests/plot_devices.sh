#!/bin/sh
# stagebench plot over records of two machines: a line per variant and machine, labelled
# variant@machine, each speed-up against its own machine's baseline; 17 variants in 17 colours, a
# dash per machine (77: gnuplot missing).
#   usage: sh tests/plot_devices.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"
command -v gnuplot >/dev/null 2>&1 || { echo "SKIPPED: gnuplot not installed"; exit 77; }

# The same three points on "GPU A" and "GPU B": cpu-reference at 10 ms, gpu at 1 ms on A and
# 0.5 ms on B (so the speed-ups are 10x and 20x, each against its machine's reference).
python3 - "$tmp" <<'PY' || fail "crafting records"
import json, sys
for machine, gpu_ms in (("GPU A", 1.0), ("GPU B", 0.5)):
    def entry(variant, ms, n):
        s = [ms * 1e-3] * 5
        return {"name": "w/%s/n:%d" % (variant, n), "run_type": "iteration", "real_time": ms,
                "time_unit": "ms",
                "stagebench": {"workload": "w", "variant": variant, "stage": 0 if variant == "cpu-reference" else 1,
                               "params": {"n": str(n)}, "status": "valid", "device": None if variant == "cpu-reference" else 0,
                               "time": {"median": ms * 1e-3, "min": ms * 1e-3, "max": ms * 1e-3, "samples": s}}}
    doc = {"context": {"stagebench": {"devices": [{"name": "NVIDIA " + machine}]}},
           "benchmarks": [entry(v, ms * n, n) for n in (1, 2, 3) for v, ms in (("cpu-reference", 10.0), ("gpu", gpu_ms))]}
    json.dump(doc, open("%s/%s.json" % (sys.argv[1], machine[-1]), "w"))
PY
expect 0 "time over two machines" "$sb" plot "$tmp/A.json" "$tmp/B.json" --x n --out "$tmp/t"
grep -q "# index .*: gpu@gpu-a" "$tmp/t.dat" || fail "a line for gpu on GPU A"
grep -q "# index .*: gpu@gpu-b" "$tmp/t.dat" || fail "a line for gpu on GPU B"
grep -q "cpu-reference@gpu-a" "$tmp/t.dat" || fail "the reference of each machine is a line of its own"
expect 0 "speed-up over two machines" "$sb" plot "$tmp/A.json" "$tmp/B.json" --x n --kind speedup \
    --baseline cpu-reference --out "$tmp/s"
python3 - "$tmp/s.dat" <<'PY' || fail "each machine's speed-up against its own baseline"
import sys
blocks, label = {}, None
for line in open(sys.argv[1]):
    if line.startswith("# index"):
        label = line.split(": ", 1)[1].strip()
        blocks[label] = []
    elif line.strip() and not line.startswith("#") and label:
        blocks[label].append(float(line.split()[1]))
assert blocks["gpu@gpu-a"] == [10.0] * 3, blocks
assert blocks["gpu@gpu-b"] == [20.0] * 3, blocks
PY
# One machine: plain variant names, as before.
expect 0 "one machine" "$sb" plot "$tmp/A.json" --x n --out "$tmp/one"
grep -q "# index .*: gpu$" "$tmp/one.dat" || fail "one machine: the line is the variant's name"
# 17 variants on two machines, then on one: each variant its own colour (gnuplot's default line
# colours repeat from the ninth), the same on both machines, solid on the first machine and
# dashed on the second; read from the SVG's lines (time and speed-up figures).
python3 - "$tmp" <<'PY' || fail "crafting records of 17 variants"
import json, sys
for machine in ("A", "B"):
    def entry(variant, stage, ms, n):
        return {"name": "w/%s/n:%d" % (variant, n), "run_type": "iteration", "real_time": ms,
                "time_unit": "ms",
                "stagebench": {"workload": "w", "variant": variant, "stage": stage,
                               "params": {"n": str(n)}, "status": "valid", "device": 0,
                               "time": {"median": ms * 1e-3, "min": ms * 1e-3, "max": ms * 1e-3,
                                        "samples": [ms * 1e-3] * 5}}}
    doc = {"context": {"stagebench": {"devices": [{"name": "NVIDIA GPU " + machine}]}},
           "benchmarks": [entry("v%02d" % k, k, 10.0 / (k + 1), n)
                          for n in (1, 2) for k in range(17)]}
    json.dump(doc, open("%s/many-%s.json" % (sys.argv[1], machine), "w"))
PY
lines_of() { # svg -> "label colour dashed" per line
    python3 - "$1" <<'PY'
import re, sys
svg = open(sys.argv[1]).read()
for g in re.split(r'<g id="gnuplot_plot_\d+"', svg)[1:]:
    label = re.search(r"<text>([^<]*)</text>", g).group(1)
    path = re.search(r"<path stroke='rgb\(([^)]*)\)'([^>]*)", g)
    print(label, path.group(1).replace(" ", ""), "dashed" if "dasharray" in path.group(2) else "solid")
PY
}
expect 0 "time of 17 variants on two machines" "$sb" plot "$tmp/many-A.json" "$tmp/many-B.json" \
    --x n --out "$tmp/many"
expect 0 "speed-up of 17 variants on two machines" "$sb" plot "$tmp/many-A.json" \
    "$tmp/many-B.json" --x n --kind speedup --baseline v00 --out "$tmp/many-s"
expect 0 "time of 17 variants on one machine" "$sb" plot "$tmp/many-A.json" --x n --out "$tmp/many1"
lines_of "$tmp/many.svg" > "$tmp/many.lines" || fail "reading many.svg's lines"
lines_of "$tmp/many-s.svg" > "$tmp/many-s.lines" || fail "reading many-s.svg's lines"
lines_of "$tmp/many1.svg" > "$tmp/many1.lines" || fail "reading many1.svg's lines"
python3 - "$tmp/many.lines" "$tmp/many-s.lines" "$tmp/many1.lines" <<'PY' || fail "colours and dashes of 17 variants: $(cat "$tmp/many.lines")"
import sys
for path, machines, variants in zip(sys.argv[1:], (2, 2, 1), (17, 16, 17)): # speed-up: not v00
    lines = [l.split() for l in open(path)]
    colour = {}
    for label, rgb, dash in lines:
        variant, _, machine = label.partition("@")
        assert colour.setdefault(variant, rgb) == rgb, (path, label, "its variant's colour")
        assert dash == ("dashed" if machine == "gpu-b" else "solid"), (path, label, dash)
    assert len(lines) == variants * machines, (path, len(lines))
    assert len(colour) == variants and len(set(colour.values())) == variants, (path, colour)
PY

# bench/scripts/cross-device over the committed H100 thesis study (6160632, the records beside the H200's
# in h100-vs-h200/) and a copy of it named as another GPU,
# its GPU times 0.9x: figs. 3.12-3.13 a line per stage and GPU, compare's device comparison.
h100=results/baselines/h100-vs-h200/thesis-study/h100-80gb-hbm3
mkdir -p "$tmp/other"
python3 - "$h100" "$tmp/other" <<'PY' || fail "crafting the other GPU's study"
import json, lzma, sys
for run in ("ut1", "dox"):
    d = json.load(lzma.open("%s/%s.json.xz" % (sys.argv[1], run), "rt"))
    for dev in d["context"]["stagebench"]["devices"]:
        dev["name"] = "NVIDIA Other GPU"
    for b in d["benchmarks"]:
        t = b["stagebench"]["time"]
        if b["stagebench"].get("device") is not None:
            t["median"] *= 0.9
            t["samples"] = [x * 0.9 for x in t["samples"]]
    json.dump(d, open("%s/%s.json" % (sys.argv[2], run), "w"))
PY
expect 0 "cross-device" sh bench/scripts/cross-device "$h100" "$tmp/other" "$tmp/x" "$sb"
for f in fig3.12a fig3.12b fig3.13a fig3.13b; do
    grep -q "# index .*: gpu-histogram@other-gpu" "$tmp/x/$f.dat" || fail "$f: a line for gpu-histogram on the other GPU"
    grep -q "# index .*: gpu-histogram@h100-80gb-hbm3" "$tmp/x/$f.dat" || fail "$f: a line for gpu-histogram on the H100"
done
grep -q "^\*\*device comparison\*\*: base ran on NVIDIA H100 80GB HBM3 (GPU-542d2b1e), new on NVIDIA Other GPU (GPU-542d2b1e)" "$tmp/x/compare-ut1.md" ||
    fail "compare-ut1.md: the device comparison"
grep -q "^| benchmark | base | new | ratio | 95 % interval | from | dram | sm x clock | fp64 | follows |$" "$tmp/x/compare-ut1.md" ||
    fail "compare-ut1.md: the table of measured and predicted ratios"
expect 2 "cross-device without records" sh bench/scripts/cross-device "$h100" "$tmp/none" "$tmp/y" "$sb"
grep -q "none/ut1.json missing" "$tmp/err" || fail "cross-device names the missing records"
echo "plot_devices: $n checks passed"

#!/bin/sh
# One device call: RDME's react<packed32> in several builds of the same commit, carried stripped
# as .carry/pack/react.tar.xz (.carry/sb/stagebench-NAME, lib/), the names in REACT_BUILDS
# (first call: base b8 s16 smem; second: base s16 s16b8 s16smem s16b8smem): base (6a5e0d1),
# b8 (__launch_bounds__(BLOCK, 8): 32 registers, 8 blocks an SM), s16 (16 sites a thread, not 8),
# smem (the listed sites' words kept in shared memory, not read again from the lattice), and
# their combinations (make-build.py applies them to kernels.cu). Everything the call writes is
# bundled into $OUT/react-out.tar.gz (the device returns only so many files).
# Each build's GPU stages against cpu-reference on two small lattices with reactions (1,839 and 102 fired); then the
# red blood cell at 8 nm (`gpu`, whose record times each kernel: "reactions per step"), two
# processes a build in turn; then Nsight Compute on one react launch of each build.
set -u
tar -xJf .carry/pack/react.tar.xz
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
out=/tmp/react-out
mkdir -p "$out"
builds=${REACT_BUILDS:-base b8 s16 smem}
trap 'tar -C "$out" -czf "${OUT:-/tmp}/react-out.tar.gz" .' EXIT
for b in $builds; do
    for lattice in "ecoli --param cell=ecoli --param spacing=16 --param steps=40" \
                   "reactions --param scenario=reactions --param reactions=8 --param steps=20"; do
        # shellcheck disable=SC2086
        set -- $lattice
        name=$1; shift
        .carry/sb/stagebench-$b run rdme "$@" --variant cpu-reference,gpu,gpu-graph,gpu-fused \
            --reference cpu-reference --warmup 0 --min-samples 1 --min-time 0 --metrics none \
            --out "$out/validate-$b-$name.json" > "$out/validate-$b-$name.log" 2>&1
        echo "validate $b $name: exit $? $(grep -c ' valid ' "$out/validate-$b-$name.log") valid lines"
    done
done
for i in 1 2; do
    for b in $builds; do
        .carry/sb/stagebench-$b run rdme --variant gpu --param cell=rbc --param spacing=8 \
            --param steps=20 --reference gpu --metrics none --quiet \
            --out "$out/rbc-$b-rep$i.json" > "$out/rbc-$b-rep$i.log" 2>&1
        echo "rbc $b rep$i: exit $?"
    done
done
python3 - "$out" $builds <<'PY'
import json, sys
out, builds = sys.argv[1], sys.argv[2:]
print(f"{'build':6} {'rep':4} {'step ms':>8} {'react ms':>9} {'x ms':>7} {'y ms':>7} {'z ms':>7} {'% floor':>8}")
for b in builds:
    for i in (1, 2):
        s = json.load(open(f"{out}/rbc-{b}-rep{i}.json"))["benchmarks"][0]["stagebench"]
        ph, st = s["phases"], s["steady"]
        print(f"{b:6} {i:4} {st['seconds'] / 20 * 1e3:8.3f} {ph['reactions per step'] * 1e3:9.3f}"
              f" {ph['x-sweep per step'] * 1e3:7.3f} {ph['y-sweep per step'] * 1e3:7.3f}"
              f" {ph['z-sweep per step'] * 1e3:7.3f} {st['pct_peak_dram']:8.2f}")
PY
ncu --version | tail -n 1
for b in $builds; do
    ncu --clock-control none --kernel-name regex:react --launch-skip 1 --launch-count 1 \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section InstructionStats --section LaunchStats --section Occupancy --section WarpStateStats \
        --csv --page details .carry/sb/stagebench-$b run rdme --param cell=rbc --param spacing=8 \
        --param steps=3 --variant gpu --reference gpu --metrics none --no-activity --warmup 0 \
        --min-samples 1 --min-time 0 --timeout 0.001 --out "$out/ncu-$b-record.json" > "$out/ncu-$b.log" 2>&1
    grep '^"' "$out/ncu-$b.log" > "$out/ncu-$b-details.csv"
    python3 bench/ncu-key-figures "$out/ncu-$b-details.csv" 250000000 --markdown > "$out/ncu-$b-key.md"
    echo "ncu $b: $(tail -n 1 "$out/ncu-$b-key.md")"
done

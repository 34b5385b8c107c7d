#!/bin/sh
# bench/ci-gate as a CI runner would call it, without a GPU: exit 77 (skipped) where there is
# none; then on records made up here in stagebench's shape (--records, no GPU needed): a calibrated
# baseline, an A-vs-A that passes (0), a 10 % slow-down and a now-invalid variant that fail (1),
# the markdown summary, a drift of 1 % a commit that only the history finds (1), errors (2), and
# --update-baseline.   usage: sh tests/ci_gate.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"
gate="sh bench/ci-gate"
export SB_STAGEBENCH="$sb"

# No GPU: skipped, never passed.
SB_NVIDIA_SMI=false expect 77 "no GPU" $gate --no-build
grep -q "skipped" "$tmp/out" || fail "the no-GPU message says skipped"
# nvidia-smi installed without a driver (Debian's CUDA toolkit brings it): its failure, printed
# on stdout, is not a GPU's name
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it couldn'"'"'t communicate with the NVIDIA driver."\nexit 9\n' > "$tmp/nvidia-smi"
chmod +x "$tmp/nvidia-smi"
SB_NVIDIA_SMI="$tmp/nvidia-smi" expect 77 "nvidia-smi without a driver" $gate --no-build
grep -q "skipped" "$tmp/out" || fail "the no-driver message says skipped"

# A session: one records file per suite line, 5 repetitions (each its own level, +-0.5 %) of
# two benchmarks; `scale` multiplies one benchmark, `status` is that benchmark's status.
session() { # dir seed scale status commit
    mkdir -p "$1"
    python3 - "$@" <<'PY' || fail "crafting records"
import json, random, sys
out, seed, scale, status, commit = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
rng = random.Random(seed)
def entries(variant, level, st):
    out = []
    for k in range(5):
        m = level * (1 + rng.uniform(-0.005, 0.005))
        samples = [m * (1 + 0.001 * ((7 * i + k) % 5)) for i in range(10)]
        out.append({"name": "w/%s/n:10" % variant, "run_type": "iteration", "repetitions": 5,
                    "repetition_index": k, "real_time": m * 1e3, "time_unit": "ms",
                    "stagebench": {"workload": "w", "variant": variant, "params": {"n": "10"},
                                   "device": 0, "status": st,
                                   "time": {"median": m, "noise": 0.001, "samples": samples}}})
    return out
doc = {"context": {"date": "2025-01-01T00:00:00+00:00",
                   "stagebench": {"git_commit": commit, "devices": [{"name": "Test GPU"}],
                                  "repetitions": {"asked": 5}}},
       "benchmarks": entries("fast", 1e-3 * scale, status) + entries("steady", 2e-3, "valid")}
json.dump(doc, open(out + "/01-w.json", "w"))
PY
}

base=$tmp/baseline
session "$base" 1 1 valid c0
for s in 2 3 4; do session "$tmp/cal$s" $s 1 valid c0; done
expect 0 "calibrate from sessions" "$sb" calibrate --from "$base" "$tmp/cal2" "$tmp/cal3" "$tmp/cal4" \
    --out "$base/calibration.json"
json "$base/calibration.json" 'b=d["benchmarks"]; assert len(b)==2 and all(x["between_df"]==3 for x in b)'

session "$tmp/same" 5 1 valid c1
expect 0 "A-vs-A passes" $gate --records "$tmp/same" --baseline "$base" --history "$tmp/h.sqlite" --commit c1
grep -q "Verdict: no regression" "$tmp/out" || fail "summary says no regression"
grep -q "| benchmark | base | new |" "$tmp/out" || fail "summary has the markdown table"
grep -q "Test GPU" "$tmp/out" || fail "summary names the device"
[ -f "$tmp/same/summary.md" ] || fail "summary.md written beside the records"

session "$tmp/slow" 6 1.10 valid c2
expect 1 "10 % slower fails" $gate --records "$tmp/slow" --baseline "$base" --history "$tmp/h2.sqlite" --commit c2
grep -q '`w/fast/n:10`.*\*\*SLOWER\*\*' "$tmp/out" || fail "the slow benchmark is SLOWER"
grep -q "Verdict: regression" "$tmp/out" || fail "summary says regression"

session "$tmp/invalid" 7 1 invalid c3
expect 1 "now invalid fails" $gate --records "$tmp/invalid" --baseline "$base" --history "$tmp/h3.sqlite" --commit c3
grep -q "NOW-INVALID" "$tmp/out" || fail "the invalid benchmark is NOW-INVALID"

# A drift of 1 % a commit, each step far under any compare threshold: no baseline, only the
# history finds it once the new level has a few commits.
drift=1 last=0
for c in $(seq 10 29); do
    scale=$(python3 -c "print(1.01 ** max(0, $c - 17))")
    session "$tmp/d$c" $c "$scale" valid "d$c"
    $gate --records "$tmp/d$c" --baseline "$tmp/none" --history "$tmp/drift.sqlite" --commit "d$c" \
        > "$tmp/out" 2> "$tmp/err"
    last=$?
    [ $last = 2 ] && fail "gate on drifting commit d$c"
    [ $c -le 17 ] && [ $last != 0 ] && fail "flat commit d$c failed the gate"
done
[ $last = 1 ] || fail "a 1 %/commit drift over 12 commits not found"
grep -q "A drift" "$tmp/out" || fail "summary names the drift"
grep -q "w/fast/n:10" "$tmp/out" || fail "the drift names its benchmark"

# Errors: exit 2, nothing compared.
mkdir -p "$tmp/empty"
expect 2 "records without a GPU's name" $gate --records "$tmp/empty" --history "$tmp/h4.sqlite"
expect 2 "unknown option" $gate --frobnicate

# --update-baseline: the run becomes the baseline, the calibration there is kept.
cp -r "$base" "$tmp/base2"
expect 0 "update the baseline" $gate --records "$tmp/same" --baseline "$tmp/base2" --history "$tmp/h5.sqlite" --update-baseline
cmp -s "$tmp/same/01-w.json" "$tmp/base2/01-w.json" || fail "the records were not made the baseline"
cmp -s "$base/calibration.json" "$tmp/base2/calibration.json" || fail "the calibration was not kept"
echo "ci_gate: $n checks passed"

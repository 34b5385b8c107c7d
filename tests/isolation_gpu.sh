#!/bin/sh
# Isolation (issue 23, part 1) with real GPU faults (77 without a GPU): the `faulty` workload's
# GPU variants (tests/faulty_kernels.cu) leave a sticky illegal-address error, fail a device-side
# assert, or hang in a kernel. run --isolate records each as that variant's failure with CUDA's
# own error or the time limit, and the correct GPU variant after them, in a fresh process and
# context, is valid; without isolation the sticky error spoils the GPU variant after it.
#   usage: sh tests/isolation_gpu.sh path/to/faulty_stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"

gpu="--metrics none --no-activity --min-samples 3 --min-time 0 --timeout 0.2"
"$sb" run faulty --variant gpu-ok $gpu --out "$tmp/probe.json" > "$tmp/out" 2> "$tmp/err"
rc=$?
if [ $rc = 2 ] && grep -q "needs a GPU" "$tmp/err"; then
    echo "SKIPPED: $(head -n 1 "$tmp/err")"
    exit 77
fi
n=1
[ $rc = 0 ] || fail "gpu-ok alone: exit $rc, expected 0"

records() { # file: "name status reason" per record, in order
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for b in d['benchmarks']: s=b['stagebench']; print(b['name'], s['status'], s['reason'])" "$1"
}

# Each fault in a process of its own, then a correct kernel in a fresh one.
start=$(date +%s)
expect 1 "run --isolate over the GPU faults" "$sb" run faulty \
    --variant ok,gpu-illegal-address,gpu-assert,gpu-hang,gpu-ok --isolate --variant-timeout 15 \
    $gpu --out "$tmp/iso.json"
records "$tmp/iso.json"
echo "isolated run: $(( $(date +%s) - start )) s"
json "$tmp/iso.json" '
st = {x["stagebench"]["variant"]: (x["stagebench"]["status"], x["stagebench"]["reason"])
      for x in d["benchmarks"]}
assert sorted(st) == ["gpu-assert", "gpu-hang", "gpu-illegal-address", "gpu-ok", "ok"], st
assert st["ok"] == ("valid", ""), st
assert st["gpu-illegal-address"][0] == "failed", st
assert "illegal memory access" in st["gpu-illegal-address"][1], st
assert st["gpu-assert"][0] == "failed" and "device-side assert" in st["gpu-assert"][1], st
assert st["gpu-hang"] == ("failed", "exceeded its 15 s time limit"), st
assert st["gpu-ok"] == ("valid", ""), st
b = {x["stagebench"]["variant"]: x for x in d["benchmarks"]}
assert b["gpu-ok"]["stagebench"]["validation"]["status"] == "passed", b["gpu-ok"]
assert b["gpu-ok"]["iterations"] >= 3, b["gpu-ok"]'
pgrep -f -- "$tmp/.isolated" > /dev/null && fail "a variant's process outlived its run"
ls -a "$tmp" | grep -q -e '^\.isolated-' -e '\.tmp\.' && fail "leftovers in $tmp: $(ls -a "$tmp")"

# The same in one process: the sticky error fails the GPU variant after it too (what isolation
# is for). Nothing valid comes after the fault, whether the run records it or ends.
"$sb" run faulty --variant ok,gpu-illegal-address,gpu-ok $gpu --out "$tmp/whole.json" \
    > "$tmp/out" 2> "$tmp/err"
rc=$?
n=$((n + 1))
[ $rc != 0 ] || fail "a run with a sticky error exited 0"
records "$tmp/whole.json"
json "$tmp/whole.json" '
st = {x["stagebench"]["variant"]: x["stagebench"]["status"] for x in d["benchmarks"]}
assert st.get("ok") == "valid" and st.get("gpu-illegal-address") == "failed", st
assert st.get("gpu-ok", "failed") == "failed", st'
echo "gpu_isolation: $n checks passed"

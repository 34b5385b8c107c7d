#!/bin/sh
# The copies workload (paper fig. 4) from the command line: its study file passes `study --check`;
# `bytes` out of its range is one line naming it, exit 2; the reference's output is the payload
# model.h defines (checked here by an independent formula, at an odd size); GPU variants are
# skipped without a GPU, the 2-GPU ones with fewer than 2 GPUs; a tiny study with the real
# study's figure line records bytes/s as items_per_second and draws the figure (77: gnuplot
# missing).   usage: sh tests/study_copies.sh path/to/stagebench
set -u
sb=$1
studies=$(cd "$(dirname "$0")/../bench/studies" && pwd)
. "$(dirname "$0")/shlib.sh"
has() { # text: stdout has it
    grep -qF -- "$1" "$tmp/out" || fail "stdout lacks '$1'"
}
quick="--min-samples 2 --min-time 0 --timeout 0.1 --metrics none"

# --check: the plan, nothing run
expect 0 "check copies-fig4" "$sb" study "$studies/copies-fig4.study" --check
has "run fig4: 15 points; variants host-to-gpu,gpu-host-gpu,gpu-peer,nccl; reference cpu-memcpy"
has "figure fig4: data from fig4, script copies-fig4.gp"

for bad in 3 17179869185 1.5; do
    expect 2 "bytes=$bad" "$sb" run copies --param bytes=$bad --out "$tmp/r.json"
    one_line_naming "parameter bytes"
done
[ ! -e "$tmp/r.json" ] || fail "a refused run wrote records"

# the payload: byte i = top byte of x ^ (x >> 29), x = (i + 1) * K1 ^ seed * K2 (mod 2^64)
expect 0 "payload dump" "$sb" run copies --variant cpu-memcpy --param bytes=1001 --param seed=7 \
    $quick --out "$tmp/d.json" --dump-output "$tmp/payload.bin"
python3 - "$tmp/payload.bin" <<'PY' || fail "the dumped payload is not model.h's formula"
import sys
got = open(sys.argv[1], "rb").read()
m = (1 << 64) - 1
def byte(i, seed):
    x = ((i + 1) * 0x9e3779b97f4a7c15 & m) ^ (seed * 0xc2b2ae3d27d4eb4f & m)
    return (x ^ (x >> 29)) >> 56
assert got == bytes(byte(i, 7) for i in range(1001)), len(got)
PY

# every variant at an odd size: GPU ones valid with the GPUs they need, skipped otherwise
# (the GPUs the run saw, from its context)
expect 0 "all variants" "$sb" run copies --param bytes=4099 $quick --out "$tmp/all.json"
json "$tmp/all.json" "
gpus = len(d['context']['stagebench']['devices'])
s = {b['stagebench']['variant']: b['stagebench'] for b in d['benchmarks']}
assert s['cpu-memcpy']['status'] == 'valid', s['cpu-memcpy']
assert s['host-to-gpu']['status'] == ('valid' if gpus >= 1 else 'skipped'), s['host-to-gpu']
for v in ('gpu-host-gpu', 'gpu-peer', 'nccl'):
    x = s[v]
    if gpus >= 2:
        assert x['status'] == 'valid', x
    elif gpus == 1:
        assert x['status'] == 'skipped' and 'needs 2 GPUs' in x['reason'], x
    else:
        assert x['status'] == 'skipped' and x['reason'].startswith('GPU variant skipped'), x
"

# a tiny study on the CPU reference with the real study's figure line
cat > "$tmp/tiny.study" <<STUDY
study tiny-copies
workload copies
option min-samples 2
option min-time 0
option timeout 0.1
option metrics none
run fig4
  sweep bytes=4,33,32768,1048576
  variants cpu-memcpy
STUDY
grep '^figure' "$studies/copies-fig4.study" >> "$tmp/tiny.study"
out="$tmp/tiny"
expect 0 "tiny study" "$sb" study "$tmp/tiny.study" --out "$out"
python3 - "$out/fig4.csv" <<'PY' || fail "the records' bytes and bandwidth"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
assert [int(r["bytes"]) for r in rows] == [4, 33, 32768, 1048576], rows
for r in rows:
    assert r["status"] == "valid" and float(r["items"]) == float(r["bytes"]), r
    bw = float(r["bytes"]) / float(r["median_s"])
    assert abs(float(r["items_per_second"]) / bw - 1) < 1e-6, r
PY
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "study_copies: $n checks passed; gnuplot not installed: figure skipped"
    exit 77
fi
has "figure fig4: $out/fig4.png"
[ -s "$out/fig4.png" ] && [ -s "$out/fig4.svg" ] || fail "figure fig4"
grep -q 'bandwidth (GB/s)' "$out/fig4.svg" && grep -q 'cpu-memcpy' "$out/fig4.svg" ||
    fail "fig4 has its bandwidth panel and a line per variant"
echo "study_copies: $n checks passed"

#!/bin/sh
# stagebench-gbench as Google Benchmark's users run it: its flags, our --param, validated CPU
# benchmarks in Google Benchmark's JSON, GPU variants skipped (with the reason) where there is no
# GPU, and Google's compare.py reading two runs.   usage: sh tests/gbench.sh path/to/stagebench-gbench
# Needs $SB_SHARED_DATA (the ProCell histograms; ctest sets it) and libbenchmark-tools.
set -u
gb=$1
compare=/usr/share/benchmark/compare.py
data=${SB_SHARED_DATA:-}
if [ ! -f "$compare" ]; then
    echo "SKIPPED: $compare is missing: install the Debian package libbenchmark-tools (bench/scripts/setup-deps does)"
    exit 77
fi
if [ -z "$data" ] || [ ! -d "$data" ]; then
    echo "SKIPPED: no ProCell data: set SB_SHARED_DATA to the directory of its histograms (now '$data')"
    exit 77
fi
. "$(dirname "$0")/shlib.sh"

# usage: bad arguments are one line naming them, exit 2, before anything runs
expect 0 "help" "$gb" --help
grep -q -- "--param" "$tmp/out" && grep -q -- "--benchmark_filter" "$tmp/out" || fail "--help shows ours and Google Benchmark's flags"
expect 2 "unknown parameter" "$gb" --param colour=red
one_line_naming "colour"
expect 2 "out-of-range parameter" "$gb" --param t_max=-5
one_line_naming "t_max"
expect 2 "unknown argument" "$gb" --frobnicate
one_line_naming "frobnicate"
expect 2 "bad device" "$gb" --device x
one_line_naming "device"

# two runs of the CPU variants. --benchmark_min_time as a plain number of seconds: 1.7.1 takes
# only that, 1.8.3 takes it too (or "0.01s").
quick="--benchmark_filter=procell/cpu- --benchmark_repetitions=3 --benchmark_min_time=0.01 --benchmark_format=json"
for run in a b; do
    expect 0 "cpu run $run" "$gb" $quick --benchmark_out="$tmp/$run.json"
    json "$tmp/$run.json" "
ctx = d['context']
assert ctx['stagebench_commit'] and ctx['timer'].startswith('cuda-event') and ctx['device'], ctx
runs = [b for b in d['benchmarks'] if b['run_type'] == 'iteration']
names = sorted({b['run_name'] for b in runs})
assert len(runs) == 6 and len(names) == 2, names  # cpu-reference and cpu-openmp, 3 repetitions
assert names[0].startswith('procell/cpu-openmp/histogram:AML9_Exp3_t10d_UT1_BM_GFPpos.txt/'), names
assert names[1].startswith('procell/cpu-reference/histogram:AML9_Exp3_t10d_UT1_BM_GFPpos.txt/'), names
for b in runs:
    assert not b.get('error_occurred'), b
    assert b['validated'] == 1 and b['items_per_second'] > 0 and b['real_time'] > 0, b
    assert b['h2d_bytes'] == 0 and b['d2h_bytes'] == 0 and b['device_peak_bytes'] == 0, b
assert {b['aggregate_name'] for b in d['benchmarks'] if b['run_type'] == 'aggregate'} >= {'mean', 'median', 'stddev'}
"
done

# GPU variants: skipped with the reason where there is no GPU (not a failure: exit 0), validated
# where there is one
expect 0 "gpu variants" "$gb" --benchmark_filter='procell/(host-loop|subtree-dfs)/' \
    --benchmark_min_time=0.01 --benchmark_format=json --benchmark_out="$tmp/gpu.json"
json "$tmp/gpu.json" "
runs = d['benchmarks']
assert sorted(b['run_name'].split('/')[1] for b in runs) == ['host-loop', 'subtree-dfs'], runs
for b in runs:
    if b.get('error_occurred'):
        assert b['error_message'].startswith('GPU variant skipped: '), b
    else:
        assert b['validated'] == 1 and b['items_per_second'] > 0, b
"

# Google's compare.py reads the two runs and prints its U test (Mann-Whitney) rows.
if ! /usr/bin/python3 -c "import scipy" 2>/dev/null; then
    echo "SKIPPED: compare.py needs scipy: install the Debian package python3-scipy (bench/scripts/setup-deps does)"
    exit 77
fi
expect 0 "compare.py" /usr/bin/python3 "$compare" benchmarks "$tmp/a.json" "$tmp/b.json"
grep -q "procell/cpu-reference/.*U Test, Repetitions: 3 vs 3" "$tmp/out" || fail "compare.py printed no U test row"
echo "gbench: all checks passed"

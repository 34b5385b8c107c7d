#!/bin/sh
# Repetitions in separate processes as a user runs them (CPU variants, no GPU needed): run
# --repetitions, a study's option repetitions, stagebench suite and calibrate (both modes), and
# their refusals.   usage: sh tests/repetitions.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"

printf '10 0\n12.5 40\n20 30\n35.5 25\n' > "$tmp/h.txt"
quick="--min-samples 3 --min-time 0 --timeout 0.2"

# run --repetitions: one entry per repetition (each its own process), the aggregates, a CSV row
# per repetition, no repetition's own file left behind.
expect 0 "run --repetitions 3" "$sb" run procell --variant cpu-reference --param histogram="$tmp/h.txt" \
    --param t_max=48 $quick --repetitions 3 --out "$tmp/r.json"
json "$tmp/r.json" '
it = [b for b in d["benchmarks"] if b["run_type"] == "iteration"]
ag = [b["aggregate_name"] for b in d["benchmarks"] if b["run_type"] == "aggregate"]
assert [b["repetition_index"] for b in it] == [0, 1, 2], it
assert all(b["repetitions"] == 3 for b in it)
assert ag == ["median", "mean", "stddev", "cv"], ag
r = d["context"]["stagebench"]["repetitions"]
assert r["asked"] == 3 and r["merged"] == 3 and r["how"] == "separate processes"
assert len(r["processes"]) == 3
assert d["context"]["stagebench"]["measurement"]["repetitions"] == 3
assert d["context"]["stagebench"]["measurement"]["cold"] == "kernel-level"
assert not any(b["stagebench"]["l2_flushed"] for b in it)'
[ "$(wc -l < "$tmp/r.csv")" = 4 ] || fail "the CSV has a header and 3 rows"
head -n 1 "$tmp/r.csv" | grep -q ',repetition$' || fail "the CSV's last column is repetition"
ls "$tmp" | grep -q 'rep[0-9]' && fail "a repetition's own file was left behind"
grep -q "separate processes" "$tmp/out" || fail "run prints the repetitions' table"

expect 2 "--repetitions 0" "$sb" run procell --param histogram="$tmp/h.txt" --repetitions 0
one_line_naming "repetitions"
expect 2 "a bad variant stops at the first repetition" "$sb" run procell --variant nosuch \
    --param histogram="$tmp/h.txt" --repetitions 3 --out "$tmp/bad.json"
[ -e "$tmp/bad.json" ] && fail "a refused run wrote records"

# compare over the repetitions: an A-vs-A of two such runs says which test it used. Its verdict
# is not checked, only that it gave one (0 or 1): the runs last 17 us, and beside other tests
# (ctest -j) the second came out 1.52x slower once.
"$sb" run procell --variant cpu-reference --param histogram="$tmp/h.txt" --param t_max=48 $quick \
    --repetitions 3 --out "$tmp/r2.json" --quiet > /dev/null 2>&1 || fail "second run"
n=$((n + 1))
"$sb" compare "$tmp/r.json" "$tmp/r2.json" --threshold 0.5 > "$tmp/out" 2> "$tmp/err"
rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "compare repetitions: exit $rc, expected a verdict (0 or 1)"
grep -q "welch" "$tmp/out" || fail "compare names Welch's test over repetitions"
grep -q "separate processes" "$tmp/out" || fail "compare says the repetitions were processes"

# A study's option repetitions.
cat > "$tmp/s.study" <<STUDY
study tiny
workload procell
option repetitions 2
option min-samples 3
option min-time 0
option timeout 0.2
run small
  param histogram=$tmp/h.txt
  sweep t_max=24,48
  variants cpu-reference
STUDY
expect 0 "study with repetitions" "$sb" study "$tmp/s.study" --out "$tmp/study"
json "$tmp/study/small.json" '
it = [b for b in d["benchmarks"] if b["run_type"] == "iteration"]
assert len(it) == 4 and sorted(b["repetition_index"] for b in it) == [0, 0, 1, 1]'
[ -e "$tmp/study/.repetitions" ] && fail "the repetitions' folders were left behind"

# stagebench suite: a line per run, ${NAME} from the environment.
cat > "$tmp/s.suite" <<'SUITE'
# two runs
procell --variant cpu-reference --param histogram=${SB_TEST_DIR}/h.txt --param t_max=24
procell --variant cpu-reference --param histogram=${SB_TEST_DIR}/h.txt --param t_max=48
SUITE
SB_TEST_DIR=$tmp expect 0 "suite" "$sb" suite "$tmp/s.suite" --repetitions 2 --out "$tmp/suite" $quick
[ -f "$tmp/suite/01-procell.json" ] && [ -f "$tmp/suite/02-procell.json" ] || fail "suite's records"
expect 2 "suite with an unset variable" env -u SB_TEST_DIR "$sb" suite "$tmp/s.suite" --out "$tmp/x"
one_line_naming "s.suite:2: \${SB_TEST_DIR} is not set"
printf 'procell --out x.json\n' > "$tmp/bad.suite"
expect 2 "suite line with --out" "$sb" suite "$tmp/bad.suite"
one_line_naming "bad.suite:1"

# calibrate: from records (two sessions), and the A-vs-A it runs itself.
expect 0 "calibrate --from" "$sb" calibrate --from "$tmp/r.json" "$tmp/r2.json" --out "$tmp/cal.json"
json "$tmp/cal.json" '
b = d["benchmarks"][0]
assert d["stagebench_calibration"] == 1 and b["repetitions"] == 6 and b["between_df"] == 1
assert b["threshold"] >= 0.01 and b["within"] >= 0 and b["between"] >= 0'
expect 0 "compare with the calibration" "$sb" compare "$tmp/r.json" "$tmp/r2.json" --calibration "$tmp/cal.json"
grep -q "t-cal" "$tmp/out" || fail "compare uses the calibration"
SB_TEST_DIR=$tmp expect 0 "calibrate a suite" "$sb" calibrate "$tmp/s.suite" --repetitions 2 \
    --records "$tmp/calrun" --out "$tmp/cal2.json" $quick
[ -d "$tmp/calrun/a" ] && [ -d "$tmp/calrun/b" ] || fail "the A-vs-A halves"
grep -q "A-vs-A" "$tmp/out" || fail "calibrate compares its halves"
expect 2 "calibrate without input" "$sb" calibrate --out "$tmp/c.json"
expect 2 "compare with a records file as calibration" "$sb" compare "$tmp/r.json" "$tmp/r2.json" \
    --calibration "$tmp/r.json"
one_line_naming "not a calibration file"
echo "repetitions: $n checks passed"

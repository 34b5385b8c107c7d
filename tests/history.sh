#!/bin/sh
# stagebench history as CI would run it: 25 commits' records added, a drift of 1 % a commit after
# the 10th found by check (exit 1) and marked by show while a flat noisy benchmark passes (exit
# 0); re-adding a commit; one-line errors that leave the history as it was; show --plot's
# figures (77: gnuplot missing, after everything else passed).
#   usage: sh tests/history.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"

# Records in the shape stagebench run writes (results/SCHEMA.md; fields history does not read
# left out): per commit, "drifting" (1 ms, +1 % a commit from the 11th on, +-0.3 % jitter) and
# "flat" (2 ms, +-1 % jitter).
python3 - "$tmp" <<'EOF' || fail "crafting records"
import json, random, sys

out = sys.argv[1]
rng = random.Random(7)

def entry(variant, median):
    return {"name": "w/%s/n:10" % variant, "run_type": "iteration", "repetitions": 1,
            "repetition_index": 0, "real_time": median * 1e3, "time_unit": "ms",
            "stagebench": {"workload": "w", "variant": variant, "params": {"n": "10"},
                           "device": 0, "status": "valid",
                           "time": {"median": median, "noise": 0.004, "samples": [median] * 5}}}

for c in range(25):
    drifting = 1e-3 * 1.01 ** max(0, c - 10) * (1 + rng.uniform(-0.003, 0.003))
    flat = 2e-3 * (1 + rng.uniform(-0.01, 0.01))
    doc = {"context": {"date": "2025-01-01T00:00:00+00:00",
                       "stagebench": {"git_commit": "c%02d%037d" % (c, 0),
                                      "devices": [{"name": "Test GPU"}]}},
           "benchmarks": [entry("drifting", drifting), entry("flat", flat)]}
    with open("%s/c%02d.json" % (out, c), "w") as f:
        json.dump(doc, f)
EOF

db=$tmp/history.db
# usage
expect 2 "no command" "$sb" history
expect 0 "help" "$sb" history --help
for command in add show check; do
    expect 0 "$command --help" "$sb" history $command --help
done
expect 2 "unknown command" "$sb" history frobnicate
one_line_naming "frobnicate"
expect 2 "add without records" "$sb" history add "$db"
one_line_naming "records files"
[ ! -e "$db" ] || fail "a refused add made $db"
expect 2 "show of a missing history" "$sb" history show "$db"
one_line_naming "$db"
[ ! -e "$db" ] || fail "show made $db"

# the first five commits in one add, the rest one by one
expect 0 "add five" "$sb" history add "$db" "$tmp"/c0[0-4].json
grep -q "10 rows from 5 records files (10 new, 0 replaced)" "$tmp/out" || fail "add's summary"
for c in $(seq 5 24); do
    expect 0 "add commit $c" "$sb" history add "$db" "$tmp/c$(printf %02d "$c").json"
done
# the same commit again: replaced, not doubled
expect 0 "re-add" "$sb" history add "$db" "$tmp/c24.json"
grep -q "(0 new, 2 replaced)" "$tmp/out" || fail "re-adding a commit replaces its rows"

expect 1 "check finds the drift" "$sb" history check "$db"
grep -q "^SLOWER w/drifting/n:10 on Test GPU" "$tmp/out" || fail "check names the drifting one"
grep -q "SLOWER w/flat" "$tmp/out" && fail "check flags the flat benchmark"
grep -q "^1 of 2 benchmarks slower" "$tmp/out" || fail "check's summary"
expect 0 "check the flat one" "$sb" history check "$db" --benchmark 'w/flat/*'
expect 0 "a drift under the threshold" "$sb" history check "$db" --threshold 0.5

expect 0 "show" "$sb" history show "$db"
grep -q "^w/drifting/n:10 on Test GPU: 25 rows" "$tmp/out" || fail "show's heading"
sed -n '/^w\/drifting/,/^$/p' "$tmp/out" | grep -q "<- change +" || fail "show marks the change"
grep -q " c2400000 " "$tmp/out" || fail "short commits"
expect 0 "show --last" "$sb" history show "$db" --benchmark 'w/drifting/*' --last 5
[ "$(grep -c '^ *[0-9][0-9]*  [0-9a-f]\{8\} ' "$tmp/out")" = 5 ] || fail "--last 5 shows 5 rows"

# errors: one line naming the input, exit 2, the history unchanged
cp "$db" "$tmp/before.db"
expect 2 "check with nothing matching" "$sb" history check "$db" --benchmark 'nosuch*'
one_line_naming "nosuch"
expect 2 "bad threshold" "$sb" history check "$db" --threshold 0
one_line_naming "threshold"
expect 2 "bad --last" "$sb" history show "$db" --last x
one_line_naming "last"
printf '{"benchmarks": []}' > "$tmp/empty.json"
expect 2 "records without a context" "$sb" history add "$db" "$tmp/c00.json" "$tmp/empty.json"
one_line_naming "empty.json"
cmp -s "$db" "$tmp/before.db" || fail "a refused add changed the history"
printf 'not a history\n' > "$tmp/notes.txt"
cp "$tmp/notes.txt" "$tmp/notes.before"
expect 2 "a text file as the history" "$sb" history add "$tmp/notes.txt" "$tmp/c00.json"
one_line_naming "notes.txt"
cmp -s "$tmp/notes.txt" "$tmp/notes.before" || fail "a refused history was changed"
expect 2 "show of a text file" "$sb" history show "$tmp/notes.txt"
one_line_naming "notes.txt"

# a history whose rows were deleted by hand: one line saying so, not a suggestion to list them
"$sb" history add "$tmp/emptied.db" "$tmp/c00.json" >/dev/null
python3 -c "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM records'); c.commit()" "$tmp/emptied.db"
expect 2 "show of an emptied history" "$sb" history show "$tmp/emptied.db"
one_line_naming "emptied.db"
grep -q "holds no records" "$tmp/err" || fail "an emptied history says it holds no records"

# --commit names the rows whatever the records say
expect 0 "add --commit" "$sb" history add "$tmp/ci.db" "$tmp/c00.json" --commit ci-tested
expect 0 "show the commit" "$sb" history show "$tmp/ci.db"
grep -q " ci-teste " "$tmp/out" || fail "--commit's rows"

# figures: one PNG (and its data) per benchmark
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "history: gnuplot not installed: figures skipped ($n checks passed)"
    exit 77
fi
expect 0 "show --plot" "$sb" history show "$db" --plot "$tmp/figures"
for b in w_drifting_n_10--Test_GPU w_flat_n_10--Test_GPU; do
    [ -s "$tmp/figures/$b.png" ] || fail "no figure $b.png"
    [ "$(awk '/^$/ {exit} !/^#/ {n++} END {print n}' "$tmp/figures/$b.dat")" = 25 ] ||
        fail "$b.dat holds 25 rows"
done
echo "history: $n checks passed"

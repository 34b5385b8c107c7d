#!/bin/sh
# Isolation (issue 23, part 1) with variants that really fault, on the CPU: the test executable
# faulty_stagebench is stagebench's main with a test-only workload `faulty` (ok, wrong,
# segfault, abort, exit, hang, slow; its GPU variants are tests/isolation_gpu.sh's). run
# --isolate records each fault as that variant's failure with its reason and still measures the
# others; without isolation a crash ends the run, with the records made before it complete;
# studies isolate by default and --resume keeps what was recorded.
#   usage: sh tests/isolation.sh path/to/faulty_stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"

quick="--min-samples 3 --min-time 0 --timeout 0.2"
records() { # file: "name status reason" per record, in order
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
for b in d['benchmarks']: s=b['stagebench']; print(b['name'], s['status'], s['reason'])" "$1"
}
no_leftovers() { # dir: no isolated processes' folder, no temporary file
    ls -a "$1" | grep -q -e '^\.isolated-' -e '\.tmp\.' && fail "leftovers in $1: $(ls -a "$1")"
    return 0
}
alive() { # pattern: processes whose command line holds it (a variant's process left running)
    pgrep -f -- "$1" > /dev/null
}

# Every CPU variant, each in a process of its own: one record per variant, with its reason
# (the GPU variants' faults: tests/isolation_gpu.sh).
start=$(date +%s)
expect 1 "run --isolate over faulting variants" "$sb" run faulty \
    --variant ok,wrong,segfault,abort,exit,hang,slow --isolate \
    --variant-timeout 2 $quick --out "$tmp/iso.json"
[ $(( $(date +%s) - start )) -le 10 ] || fail "the isolated run took more than 10 s (hang's limit is 2 s)"
json "$tmp/iso.json" '
b = {x["stagebench"]["variant"]: x for x in d["benchmarks"]}
assert [x["stagebench"]["variant"] for x in d["benchmarks"]] == \
    ["ok", "wrong", "segfault", "abort", "exit", "hang", "slow"], list(b)
st = {v: (x["stagebench"]["status"], x["stagebench"]["reason"]) for v, x in b.items()}
assert st["ok"] == ("valid", ""), st
assert st["slow"] == ("valid", ""), st
assert st["wrong"][0] == "invalid" and st["wrong"][1].startswith("output differs"), st
assert st["segfault"] == ("failed", "crashed: signal 11 (SIGSEGV)"), st
assert st["abort"] == ("failed", "crashed: signal 6 (SIGABRT)"), st
assert st["exit"] == ("failed", "exit 3 without a record"), st
assert st["hang"] == ("failed", "exceeded its 2 s time limit"), st
for v in ("ok", "slow"):  # timed
    assert b[v]["iterations"] >= 3 and b[v]["real_time"] > 0, b[v]
assert b["ok"]["stagebench"]["validation"]["status"] == "is-reference"
assert b["slow"]["stagebench"]["validation"] == {"status": "passed", "against": "ok", "detail": "",
                                                 "reference_output": "run"}
for v in ("segfault", "abort", "exit", "hang"):  # a failure with everything but a timing
    x = b[v]
    assert x["name"] == "faulty/" + v and x["error_occurred"] and x["iterations"] == 0, x
    s = x["stagebench"]
    assert s["workload"] == "faulty" and s["stage"] > 0 and s["params"]["n"] == "1000", s
    assert s["validation"]["against"] == "ok" and s["time"]["samples"] == [], s
m = d["context"]["stagebench"]["measurement"]
assert m["isolate"] is True and m["variant_timeout_s"] == 2, m'
[ "$(wc -l < "$tmp/iso.csv")" = 8 ] || fail "the CSV has a header and 7 rows"
grep -q '^faulty/hang,faulty,hang,5,,failed' "$tmp/iso.csv" || fail "the CSV row of hang"
grep -q "faulty/segfault .*crashed: signal 11 (SIGSEGV)" "$tmp/out" || fail "the run says the crash"
no_leftovers "$tmp"
alive "$tmp/.isolated" && fail "a variant's process outlived its run"

# The same faults without isolation: the segfault ends the run (the reason isolation exists);
# the records made before it are complete, in both views, and were said.
expect 139 "run without isolation: the segfault kills it" "$sb" run faulty \
    --variant ok,wrong,segfault,slow $quick --out "$tmp/whole.json"
[ "$(records "$tmp/whole.json" | cut -d' ' -f1,2 | tr '\n' ' ')" = "faulty/ok valid faulty/wrong invalid " ] ||
    fail "records before the crash: $(records "$tmp/whole.json")"
[ "$(wc -l < "$tmp/whole.csv")" = 3 ] || fail "the CSV holds the records before the crash"
grep -q "faulty/wrong .*invalid" "$tmp/out" || fail "the line of the record before the crash was lost"
no_leftovers "$tmp"

# The dump is the same either way (faulty's outputs are not cached: each isolated process makes
# the reference itself).
expect 1 "isolated run with a dump" "$sb" run faulty --variant segfault,ok --isolate $quick \
    --out "$tmp/d1.json" --dump-output "$tmp/d1.txt" --quiet
expect 0 "the same in one process" "$sb" run faulty --variant ok $quick --out "$tmp/d2.json" \
    --dump-output "$tmp/d2.txt" --quiet
cmp -s "$tmp/d1.txt" "$tmp/d2.txt" || fail "the isolated run's dump differs"
[ "$(records "$tmp/d1.json" | cut -d' ' -f1,2 | tr '\n' ' ')" = "faulty/ok valid faulty/segfault failed " ] ||
    fail "the reference first: $(records "$tmp/d1.json")"

# A parent killed (SIGKILL) takes its variant's process with it.
"$sb" run faulty --variant hang --isolate --variant-timeout 60 --out "$tmp/killed.json" --quiet \
    > /dev/null 2>&1 &
pid=$!
sleep 0.5
alive "$tmp/.isolated" || fail "the hanging variant's process did not start"
kill -9 $pid
wait $pid 2> /dev/null
sleep 0.3
alive "$tmp/.isolated" && fail "the variant's process outlived its parent's SIGKILL"
rm -rf "$tmp"/.isolated-*

# Repetitions isolate too: each repetition's process runs each variant in a process of its own.
expect 1 "repetitions of an isolated run" "$sb" run faulty --variant ok,abort --isolate $quick \
    --repetitions 2 --out "$tmp/reps.json" --quiet
json "$tmp/reps.json" '
it = [(b["stagebench"]["variant"], b["stagebench"]["status"], b["repetition_index"])
      for b in d["benchmarks"] if b["run_type"] == "iteration"]
assert it == [("ok", "valid", 0), ("abort", "failed", 0), ("ok", "valid", 1),
              ("abort", "failed", 1)], it'

# Refusals: one line, exit 2, nothing written.
expect 2 "--variant-timeout 0" "$sb" run faulty --isolate --variant-timeout 0 --out "$tmp/bad.json"
one_line_naming "variant-timeout"
expect 2 "--variant-timeout without a number" "$sb" run faulty --variant-timeout soon --out "$tmp/bad.json"
one_line_naming "variant-timeout soon"
OMPI_COMM_WORLD_SIZE=2 expect 2 "--isolate under mpirun" "$sb" run faulty --isolate --out "$tmp/bad.json"
one_line_naming "under mpirun"
expect 2 "a bad parameter is refused before any process starts" "$sb" run faulty --isolate \
    --param n=0 --out "$tmp/bad.json"
one_line_naming "n"
[ ! -e "$tmp/bad.json" ] || fail "a refused run wrote records"
expect 0 "--help says what isolation costs" "$sb" run --help
grep -q "reference" "$tmp/out" && grep -q -- "--variant-timeout" "$tmp/out" || fail "run --help"

# Studies isolate by default; --resume keeps valid, invalid and skipped records and runs the
# failed ones again, in the same file.
cat > "$tmp/f.study" <<'STUDY'
study faults
workload faulty
option min-samples 3
option min-time 0
option timeout 0.2
run a
  sweep n=100,200
  variants ok,segfault,wrong
STUDY
expect 1 "a study isolates by default" "$sb" study "$tmp/f.study" --out "$tmp/st"
want="faulty/ok/n:100 valid faulty/segfault/n:100 failed faulty/wrong/n:100 invalid faulty/ok/n:200 valid faulty/segfault/n:200 failed faulty/wrong/n:200 invalid "
[ "$(records "$tmp/st/a.json" | cut -d' ' -f1,2 | tr '\n' ' ')" = "$want" ] ||
    fail "the study's records: $(records "$tmp/st/a.json")"
json "$tmp/st/a.json" 'assert d["context"]["stagebench"]["measurement"]["isolate"] is True'
python3 -c "import json; d=json.load(open('$tmp/st/a.json')); print(d['benchmarks'][0]['stagebench']['time']['samples'])" > "$tmp/ok-samples"
expect 1 "study --resume" "$sb" study "$tmp/f.study" --out "$tmp/st" --resume
grep -q "4 records kept from" "$tmp/out" && grep -q "2 failed or cut off to run again" "$tmp/out" ||
    fail "resume says what it keeps"
want="faulty/ok/n:100 valid faulty/wrong/n:100 invalid faulty/ok/n:200 valid faulty/wrong/n:200 invalid faulty/segfault/n:100 failed faulty/segfault/n:200 failed "
[ "$(records "$tmp/st/a.json" | cut -d' ' -f1,2 | tr '\n' ' ' | tr -s ' ')" = "$(echo "$want" | tr -s ' ')" ] ||
    fail "after --resume (kept, then run again): $(records "$tmp/st/a.json")"
python3 -c "import json; d=json.load(open('$tmp/st/a.json')); print(d['benchmarks'][0]['stagebench']['time']['samples'])" |
    cmp -s - "$tmp/ok-samples" || fail "a kept record was measured again"
json "$tmp/st/a.json" '
r = d["context"]["stagebench"]["resumed"]
assert len(r) == 1 and r[0]["kept"] == 4 and r[0]["run_again"] == 2 and "--resume" in r[0]["command"], r'
[ "$(wc -l < "$tmp/st/a.csv")" = 7 ] || fail "the CSV after --resume: a header and 6 rows"
expect 2 "--resume without --out" "$sb" study "$tmp/f.study" --resume
one_line_naming "--resume needs --out"

# option no-isolate: the study's own process runs the variants, and the segfault ends it.
sed 's/^option timeout 0.2$/option timeout 0.2\noption no-isolate/' "$tmp/f.study" > "$tmp/g.study"
expect 139 "a study with option no-isolate dies with its segfault" "$sb" study "$tmp/g.study" --out "$tmp/st2"
[ "$(records "$tmp/st2/a.json" | cut -d' ' -f1,2 | tr '\n' ' ')" = "faulty/ok/n:100 valid " ] ||
    fail "records before the crash: $(records "$tmp/st2/a.json")"
printf 'study x\nworkload faulty\noption isolation\nrun a\n' > "$tmp/bad.study"
expect 2 "a misspelt option" "$sb" study "$tmp/bad.study" --out "$tmp/st3"
one_line_naming "no-isolate"
echo "isolation: $n checks passed"

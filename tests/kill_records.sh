#!/bin/sh
# Records under SIGKILL (issue 23, part 2): real runs killed at random moments, at least 50
# times in one to two minutes. After every kill each records file present must parse and be the
# previous complete version or a new complete one (never a truncated JSON), its CSV view must
# hold its rows, a temporary file left by a write the kill cut off must be ignored by readers,
# and no variant's process may outlive the run. A study killed again and again and resumed with
# --resume each time must end with the records an uninterrupted run makes.
#   usage: sh tests/kill_records.sh path/to/stagebench path/to/faulty_stagebench
set -u
sb=$1
faulty=$2
. "$(dirname "$0")/shlib.sh"

printf '10 0\n12.5 40\n20 30\n35.5 25\n' > "$tmp/h.txt"
cat > "$tmp/k.study" <<STUDY
study kill
workload procell
option min-samples 2
option min-time 0
option timeout 0.05
option warmup 0
option metrics none
option no-activity
run a
  param histogram=$tmp/h.txt
  sweep t_max=24,48,72,96,120,144
  variants cpu-reference,cpu-openmp
run b
  param histogram=$tmp/h.txt
  sweep t_max=24,48,72
  variants cpu-reference,cpu-openmp
STUDY

# The checker: every records file in DIR parses and is complete; in "grow" mode (a study
# resumed) no file lost records since the last check; in "replace" mode (a run rewriting one
# file) the file is byte for byte the previous version or a new complete one (the first records
# of a run, in its order). The CSV view is
# written before the JSON: it holds the JSON's rows and at most one more. Prints what it saw.
cat > "$tmp/check.py" <<'PY'
import csv, io, json, os, re, sys
mode, folder, state_path = sys.argv[1:4]
state = json.load(open(state_path)) if os.path.exists(state_path) else {}
seen = {"temporary": 0, "same": 0, "new": 0, "absent": 0, "records": 0}
for name in sorted(os.listdir(folder)):
    path = os.path.join(folder, name)
    if re.search(r"\.tmp\.\d+$", name):  # counted once each
        if name not in state.setdefault("_temporary", []):
            state["_temporary"].append(name)
            seen["temporary"] += 1
        continue
    if not name.endswith(".json"):
        continue
    text = open(path, "rb").read()
    d = json.loads(text)  # a truncated file fails here
    assert isinstance(d["context"]["stagebench"], dict), name
    names = []
    for b in d["benchmarks"]:
        assert b["stagebench"]["status"] in ("valid", "invalid", "failed", "skipped"), b
        assert b["run_type"] == "iteration" and b["stagebench"]["time"]["samples"] is not None
        names.append(b["name"])
    assert len(set(names)) == len(names), "a record twice in " + name
    with open(path[:-5] + ".csv", newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    assert head[:6] == ["name", "workload", "variant", "stage", "device", "status"], head
    si, mi = head.index("samples"), head.index("median_s")
    def row_of(b, r):  # the same record: name, samples and median as the CSV writes them
        s = b["stagebench"]
        median = "%.9g" % s["time"]["median"] if s["status"] == "valid" else ""
        return r[0] == b["name"] and int(r[si]) == b["iterations"] and r[mi] == median
    same_run = all(any(row_of(b, r) for r in rows[1:]) for b in d["benchmarks"]) and \
        len(names) <= len(rows) - 1 <= len(names) + 1
    before = state.get(name)
    old = open(path + ".previous", "rb").read() if mode == "replace" and before else None
    # the CSV is written first: it holds this file's rows and perhaps the next; or, when a run
    # rewrites the file and was killed between its first two writes, the new run's first row
    # beside the old JSON
    assert same_run or (text == old and len(rows) == 2), (name, names, [r[0] for r in rows])
    if mode == "grow":
        assert before is None or len(names) >= before["count"], (name, before, len(names))
        seen["new" if before is None or len(names) > before["count"] else "same"] += 1
    else:
        if text == old:
            seen["same"] += 1
        else:  # a new run's file: its records so far, in its variants' order
            seen["new"] += 1
            variants = [b["stagebench"]["variant"] for b in d["benchmarks"]]
            assert any(variants == run[:len(variants)] for run in
                       (["cpu-reference", "cpu-openmp"], ["ok", "slow", "wrong"])), variants
        open(path + ".previous", "wb").write(text)
    state[name] = {"count": len(names), "date": d["context"]["date"]}
    seen["records"] += len(names)
if mode == "replace" and not any(n.endswith(".json") for n in os.listdir(folder)):
    seen["absent"] += 1
json.dump(state, open(state_path, "w"))
print(" ".join("%s=%d" % kv for kv in seen.items()))
PY

rand_ms() { # a random number of milliseconds in [0, $1)
    echo $(( $(od -An -N2 -tu2 /dev/urandom) * $1 / 65536 ))
}
sleep_ms() {
    sleep "$(printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)))"
}
no_survivors() { # a variant's process of a killed run must die with it (PR_SET_PDEATHSIG)
    i=0
    while pgrep -f -- "$1/.isolated-" > /dev/null; do
        i=$((i + 1))
        [ $i -le 100 ] || fail "a variant's process outlived its killed parent by 1 s"
        sleep 0.01
    done
}
names_statuses() {
    python3 -c "import json,sys
for f in sys.argv[1:]:
    for b in json.load(open(f))['benchmarks']: print(b['name'], b['stagebench']['status'])" "$@"
}
tally() { # add the checker's counts to the totals
    for kv in $1; do
        eval "t_${kv%%=*}=\$((t_${kv%%=*} + ${kv#*=}))"
    done
}
t_temporary=0 t_same=0 t_new=0 t_absent=0 t_records=0

# The uninterrupted study: what every resumed one must end with, and how long it takes.
begin=$(date +%s%N)
expect 0 "uninterrupted study" "$sb" study "$tmp/k.study" --out "$tmp/ref" --quiet
whole_ms=$(( ($(date +%s%N) - begin) / 1000000 ))
names_statuses "$tmp/ref/a.json" "$tmp/ref/b.json" > "$tmp/ref.txt"
[ "$(wc -l < "$tmp/ref.txt")" = 18 ] || fail "the uninterrupted study's 18 records"

# Part 1: the study killed at a random moment, resumed, killed again... until it completes;
# then again from nothing. Each kill lands within 70 % of the time a whole study takes (a resumed
# one has less to do).
kills=0 cycles=0 resumes_done=0 late_kills=0
start=$(date +%s)
# (the time caps stop a loop only where the machine is too loaded to reach the counts: under
# ctest -j2 on two cores, 35 s and 40 s gave 47 kills)
while [ $kills -lt 30 ] && [ $(( $(date +%s) - start )) -lt 60 ]; do
    "$sb" study "$tmp/k.study" --out "$tmp/k" --quiet --resume > "$tmp/k.out" 2>&1 &
    pid=$!
    sleep_ms "$(rand_ms $((whole_ms * 7 / 10 + 20)))"
    if kill -9 $pid 2> /dev/null; then
        wait $pid 2> /dev/null
        kills=$((kills + 1))
        finished=0
    else
        wait $pid
        [ $? = 0 ] || { cat "$tmp/k.out"; fail "a resumed study failed"; }
        resumes_done=$((resumes_done + 1))
        finished=1
    fi
    no_survivors "$tmp/k"
    [ -d "$tmp/k" ] || continue
    seen=$(python3 "$tmp/check.py" grow "$tmp/k" "$tmp/k.state") || fail "after kill $kills of the study"
    tally "$seen"
    if [ "${seen##*records=}" = 18 ]; then
        # complete: the same records as the uninterrupted study, no temporary file left
        names_statuses "$tmp/k/a.json" "$tmp/k/b.json" | cmp -s - "$tmp/ref.txt" ||
            fail "the resumed study's records differ from the uninterrupted one's"
        [ "$(($(wc -l < "$tmp/k/a.csv") + $(wc -l < "$tmp/k/b.csv")))" = 20 ] || fail "the CSV views"
        # A run that finished leaves nothing behind. One killed after its last record's commit
        # point (an isolated variant's folder not yet removed) may; the next --resume removes
        # that and changes no record.
        if ls -a "$tmp/k" | grep -q -e '\.tmp\.' -e '^\.isolated'; then
            [ $finished = 1 ] && fail "leftovers after a study that finished"
            expect 0 "resume after a kill past the last record" \
                "$sb" study "$tmp/k.study" --out "$tmp/k" --quiet --resume
            ls -a "$tmp/k" | grep -q -e '\.tmp\.' -e '^\.isolated' &&
                fail "--resume left the leftovers of a study killed after its last record"
            names_statuses "$tmp/k/a.json" "$tmp/k/b.json" | cmp -s - "$tmp/ref.txt" ||
                fail "a resume after the last record changed the records"
            late_kills=$((late_kills + 1))
        fi
        cycles=$((cycles + 1))
        rm -rf "$tmp/k"
        python3 -c "import json,sys; s=json.load(open(sys.argv[1])); json.dump({'_temporary': s.get('_temporary', [])}, open(sys.argv[1], 'w'))" "$tmp/k.state"
    fi
done
study_kills=$kills

# A cut-off study's leftovers are ignored by readers and removed by --resume: one planted (a
# truncated JSON named as a write's temporary file) beside what the kills left.
expect 0 "resume" "$sb" study "$tmp/k.study" --out "$tmp/k" --quiet --resume
python3 -c "import sys; t=open(sys.argv[1]).read(); open(sys.argv[1]+'.tmp.4242','w').write(t[:len(t)//2])" "$tmp/k/a.json"
expect 0 "compare reads a folder with a temporary file in it" "$sb" compare "$tmp/k" "$tmp/k"
grep -q 'tmp' "$tmp/out" "$tmp/err" && fail "compare read the temporary file"
expect 2 "a temporary file named as records is refused" "$sb" compare "$tmp/k/a.json.tmp.4242" "$tmp/k/a.json"
one_line_naming "temporary file"
expect 2 "history refuses it" "$sb" history add "$tmp/h.db" "$tmp/k/a.json.tmp.4242"
one_line_naming "temporary file"
expect 2 "plot refuses it" "$sb" plot "$tmp/k/a.json.tmp.4242" --out "$tmp/fig"
one_line_naming "temporary file"
expect 0 "--resume removes it" "$sb" study "$tmp/k.study" --out "$tmp/k" --resume
grep -q "leftover temporary file" "$tmp/out" || fail "resume says it removed the leftovers"
[ -e "$tmp/k/a.json.tmp.4242" ] && fail "resume left the temporary file"
names_statuses "$tmp/k/a.json" "$tmp/k/b.json" | cmp -s - "$tmp/ref.txt" || fail "after the last resume"

# Part 2: runs rewriting one records file (a run replaces the file at its first record), killed
# at random moments: in one process, and isolated (the faulty workload's correct variants).
kills=0
start=$(date +%s)
rm -f "$tmp/r.state"
mkdir "$tmp/r"
while [ $kills -lt 20 ] || [ $((study_kills + kills)) -lt 50 ]; do
    [ $(( $(date +%s) - start )) -lt 90 ] || break
    if [ $((kills % 2)) = 0 ]; then
        "$sb" run procell --variant cpu-reference,cpu-openmp --param histogram="$tmp/h.txt" \
            --param t_max=96 --min-samples 2 --min-time 0 --timeout 0.05 --warmup 0 \
            --metrics none --no-activity --out "$tmp/r/run.json" --quiet > /dev/null 2>&1 &
    else
        "$faulty" run faulty --variant ok,slow,wrong --param n=2000 --isolate --min-samples 2 \
            --min-time 0 --timeout 0.05 --warmup 0 --out "$tmp/r/run.json" --quiet > /dev/null 2>&1 &
    fi
    pid=$!
    sleep_ms "$(rand_ms 400)"
    kill -9 $pid 2> /dev/null && kills=$((kills + 1))
    wait $pid 2> /dev/null
    no_survivors "$tmp/r"
    seen=$(python3 "$tmp/check.py" replace "$tmp/r" "$tmp/r.state") || fail "after kill $kills of a run"
    tally "$seen"
done
total=$((study_kills + kills))
echo "kill_records: $total kills ($study_kills of a resumed study, $cycles studies completed" \
    "through kills and resumes, $resumes_done resumed runs finished before their kill; $kills" \
    "of runs rewriting a file; $late_kills kills after a study's last record, their leftovers" \
    "removed by --resume); records files after a kill: $t_same unchanged, $t_new" \
    "changed and complete, $t_absent absent; $t_temporary temporary files left by writes cut" \
    "off, all ignored"
[ $total -ge 50 ] || fail "only $total kills in the time allowed (50 wanted)"
[ $cycles -ge 1 ] || fail "no study completed through kills and resumes"
echo "kill_records: $n checks passed"

#!/bin/sh
# stagebench gate, bench/scripts/ci-gate and bench/scripts/gate-bisect on stand-in builds (tests/gate/
# fake_stagebench.py: records in stagebench's shape at levels each build's JSON sets), no GPU:
# the processes' order (A B, B A, ...), SAME, SLOWER, FASTER, UNSURE with its added rounds,
# NOW-INVALID, a head that refuses its line, hygiene (a throttled round measured again), the
# replay and its disjoint decisions, gate-proof's series of live runs and their analysis, device-check
# proof's step, --benchmark's narrowed lines, not-gated lines in the summary, ci-gate's exit codes
# with --base-program/--head-program and --records, nothing written into the records it reads, and a
# bisect over a scratch history that finds the slow commit.
#   usage: sh tests/gate.sh path/to/stagebench
set -u
sb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
. "$here/shlib.sh"
fake=$here/gate/fake_stagebench.py

# The proof's patches still apply to this tree (bench/scripts/gate-proof build).
if git -C "$here/.." rev-parse --git-dir >/dev/null 2>&1; then
    for p in "$here"/gate-patches/*.patch; do
        git -C "$here/.." apply --check "$p" || fail "$p no longer applies: remake it on this tree"
    done
fi

# build NAME JSON: a stand-in program $tmp/NAME whose build is JSON
build() {
    printf '%s\n' "$2" > "$tmp/$1.json"
    printf '#!/bin/sh\nFAKE_BUILD=%s exec python3 %s "$@"\n' "$tmp/$1.json" "$fake" > "$tmp/$1"
    chmod +x "$tmp/$1"
}
levels='"levels": {"a": 1e-3, "b": 2e-3, "c": 5e-4}'
build base "{\"name\": \"base\", \"commit\": \"c0\", $levels, \"noise\": 0.003}"
build same "{\"name\": \"head\", \"commit\": \"c1\", $levels, \"noise\": 0.003}"
build slow "{\"name\": \"head\", \"commit\": \"c2\", $levels, \"noise\": 0.003, \"factor\": {\"a\": 1.05}}"
build fast "{\"name\": \"head\", \"commit\": \"c3\", $levels, \"noise\": 0.003, \"factor\": {\"c\": 0.95}}"
build noisy "{\"name\": \"head\", \"commit\": \"c4\", $levels, \"noise\": 0.02, \"factor\": {\"b\": 1.012}}"
build invalid "{\"name\": \"head\", \"commit\": \"c5\", $levels, \"noise\": 0.003, \"invalid\": [\"c\"]}"
build refuse "{\"name\": \"head\", \"commit\": \"c6\", $levels, \"refuse\": true}"
build throttled "{\"name\": \"head\", \"commit\": \"c7\", $levels, \"noise\": 0.003, \"throttle_every\": 4}"
cat > "$tmp/suite" <<'EOF'
w1 --variant a,b --param n=1
w2 --variant c
not-gated w3/* its level moves between processes
EOF
gate() { # head-build out-dir [options]
    h=$1 o=$2
    shift 2
    "$sb" gate "$tmp/suite" --base "$tmp/base" --head "$tmp/$h" --out "$tmp/g/$o" --quiet "$@"
}
verdict() { # dir benchmark verdict
    json "$tmp/g/$1/gate.json" "b=[x for x in d['benchmarks'] if x['name']=='$2'][0]; assert b['verdict']=='$3', b"
}

# A-vs-A: SAME everywhere after the first 6 rounds; the order of the processes alternates.
export FAKE_LOG=$tmp/order.log FAKE_CACHE_LOG=$tmp/cache.log
expect 0 "A-vs-A" gate same avsa
unset FAKE_LOG FAKE_CACHE_LOG
# both builds' processes are handed one reference cache (its keys hold each program), removed after
[ "$(cut -d' ' -f2,3 "$tmp/cache.log" | sort -u | wc -l)" = 1 ] && grep -q ' True$' "$tmp/cache.log" &&
    [ "$(cut -d' ' -f1 "$tmp/cache.log" | sort -u | tr '\n' ' ')" = "base head " ] ||
    fail "one reference cache for both builds' processes: $(sort -u "$tmp/cache.log")"
cache=$(head -n 1 "$tmp/cache.log" | cut -d' ' -f2)
[ ! -e "$cache" ] || fail "the gate's reference cache $cache is removed when the gate ends"
for b in w1/a/n:1 w1/b/n:1 w2/c/n:1; do verdict avsa $b SAME; done
json "$tmp/g/avsa/gate.json" 'assert all(b["rounds"]==6 for b in d["benchmarks"]); assert d["commits"]=={"base":"c0","head":"c1"}; assert d["device"]=="Fake GPU" and d["uuid"]=="GPU-fake"'
[ "$(awk '{print $1, $2}' "$tmp/order.log" | head -n 8 | tr '\n' ' ')" = \
  "base w1 head w1 base w2 head w2 head w1 base w1 head w2 base w2 " ] ||
    fail "processes alternate A B, then B A, a line at a time: $(head -n 8 "$tmp/order.log")"
[ "$(wc -l < "$tmp/order.log")" = 24 ] || fail "6 rounds x 2 lines x 2 builds = 24 processes"
grep -q "Verdict: no regression" "$tmp/out" || fail "summary says no regression"
grep -q '| benchmark | base | head | ratio | interval | rounds | mde |' "$tmp/out" || fail "summary's table"
grep -q 'Not gated:.*`w3/\*`: its level moves between processes' "$tmp/out" || fail "not-gated lines in the summary"
[ -f "$tmp/g/avsa/summary.md" ] && [ -f "$tmp/g/avsa/rounds.tsv" ] || fail "summary.md and rounds.tsv written"
[ "$(wc -l < "$tmp/g/avsa/rounds.tsv")" = 25 ] || fail "rounds.tsv: a row per process"
json "$tmp/g/avsa/head/01-w1.json" 'assert d["context"]["stagebench"]["repetitions"]["merged"]==6'
json "$tmp/g/avsa/base/02-w2.json" 'assert sum(1 for b in d["benchmarks"] if b["run_type"]=="iteration")==6'

# 5 % slower: SLOWER, exit 1; 5 % faster: FASTER, exit 0.
expect 1 "a 5 % slow-down" gate slow slow
verdict slow w1/a/n:1 SLOWER
verdict slow w1/b/n:1 SAME
grep -q '`w1/a/n:1`.*\*\*SLOWER\*\*' "$tmp/out" || fail "the slow benchmark is bold SLOWER"
grep -q "Verdict: regression" "$tmp/out" || fail "summary says regression"
expect 0 "a 5 % speed-up" gate fast fast
verdict fast w2/c/n:1 FASTER

# Noisy with a change near the threshold: UNSURE after more rounds (up to the cap), not failed.
expect 0 "UNSURE is not a failure" gate noisy noisy --max-rounds 12
verdict noisy w1/b/n:1 UNSURE
json "$tmp/g/noisy/gate.json" 'b=[x for x in d["benchmarks"] if x["name"]=="w1/b/n:1"][0]; assert b["rounds"]==12, b["rounds"]; assert all(x["rounds"]<=12 for x in d["benchmarks"])'
grep -q "UNSURE.*neither pass nor fail" "$tmp/out" || fail "the summary explains UNSURE"

# Invalid in the head: NOW-INVALID, exit 1. A head that refuses its line: exit 2.
expect 1 "now invalid" gate invalid invalid
verdict invalid w2/c/n:1 NOW-INVALID
expect 2 "the head refuses" gate refuse refuse
one_line_naming "refused suite line 1"

# Hygiene: every 4th process of the head runs throttled; those rounds are measured again.
expect 0 "throttled rounds redone" gate throttled throttled --redo 10
json "$tmp/g/throttled/gate.json" 's=d["session"]; assert s["redone"]>=2 and s["flagged_kept"]==0, s'
expect 0 "throttled rounds kept past the budget" gate throttled throttled0 --redo 0
json "$tmp/g/throttled0/gate.json" 'assert d["session"]["flagged_kept"]>=2; assert any(any(b["flagged"]) for b in d["benchmarks"])'

# --benchmark narrows the lines and their --variant.
export FAKE_LOG=$tmp/narrow.log
expect 0 "one benchmark" gate same narrow --benchmark 'w1/b/*'
unset FAKE_LOG
grep -q " w2 " "$tmp/narrow.log" && fail "--benchmark w1/b/* runs no line of w2"
grep -q "^base w1 b run w1 --variant b " "$tmp/narrow.log" || fail "--variant narrowed to b"
json "$tmp/g/narrow/gate.json" 'assert [b["name"] for b in d["benchmarks"]]==["w1/b/n:1"]'

# Replay: the same verdicts from the records, nothing written into them.
before=$(ls -R "$tmp/g/slow" | md5sum)
expect 1 "replay" "$sb" gate --replay "$tmp/g/slow"
grep -q '`w1/a/n:1`.*\*\*SLOWER\*\*' "$tmp/out" || fail "replay: SLOWER again"
[ "$(ls -R "$tmp/g/slow" | md5sum)" = "$before" ] || fail "a replay wrote into the records it read"
expect 1 "replay --out" "$sb" gate --replay "$tmp/g/slow" --out "$tmp/g/replayed"
[ -f "$tmp/g/replayed/replay.json" ] || fail "replay --out writes replay.json there"
# Disjoint decisions over a long pool (the proof's way): 18 rounds, decided 6 at a time.
expect 0 "a pool" gate same pool --rounds 18 --max-rounds 18
expect 0 "decisions over the pool" "$sb" gate --replay "$tmp/g/pool" --decisions 10
[ "$(wc -l < "$tmp/out")" = 3 ] || fail "18 rounds of SAME give 3 decisions of 6"
grep -q '"failed":false' "$tmp/out" || fail "decision lines in JSON"

# gate-proof runs: live gate runs one after another, none started past the seconds given; analyse
# takes a series (NAME.NN) as one row, its decisions one a run, a console's runs apart (records
# lost), a patch's catches by size.
proof() { SB_STAGEBENCH=$sb SB_GATE_SUITE=$tmp/suite SB_GATE_RUN_OPTIONS=' ' sh "$here/../bench/scripts/gate-proof" "$@"; }
export SB_PROOF_RUNS=2 SB_PROOF_PACK=$tmp/avsa9.tar.xz
expect 0 "gate-proof runs, A-vs-A" proof runs "$tmp/base" "$tmp/same" "$tmp/proof/avsa9" 600
unset SB_PROOF_PACK
[ -f "$tmp/proof/avsa9.02/gate.json" ] && [ ! -d "$tmp/proof/avsa9.03" ] || fail "gate-proof runs: DIR.01, DIR.02"
tar -tJf "$tmp/avsa9.tar.xz" | grep -q "^avsa9.02/gate.json$" || fail "SB_PROOF_PACK: both runs packed"
grep -q "^run .*avsa9.01: Fake GPU (GPU-fake), .* SAME$" "$tmp/out" || fail "gate-proof runs: a line a run"
SB_PROOF_RUNS=1
expect 0 "gate-proof runs, a patch" proof runs "$tmp/base" "$tmp/slow" "$tmp/proof/slow" 600 --benchmark 'w1/*'
unset SB_PROOF_RUNS
cp "$tmp/out" "$tmp/proof/console.txt" # as if its records were lost: the run's line counts
expect 0 "gate-proof runs, no time" proof runs "$tmp/base" "$tmp/slow" "$tmp/proof/none" 0
[ ! -d "$tmp/proof/none.01" ] || fail "gate-proof runs: none started after the seconds given"
expect 0 "gate-proof analyse a series" proof analyse "$tmp/proof/out" "$tmp"/proof/avsa9.[0-9][0-9] "$tmp/proof/slow.01" "$tmp/proof/console.txt"
grep -q "^| avsa9 | Fake GPU | GPU-fake | .* | 2 | 48 | 6 | 2 |$" "$tmp/out" ||
    fail "a series of 2 runs is one row, with a decision each"
grep -q "0 of 2 gate runs failed" "$tmp/out" || fail "the series' A-vs-A decisions counted"
grep -q "^| slow (GPU-fake), console | .* | 1 | 1 (100.0 %) | " "$tmp/out" || fail "a console's run counted apart"
grep -q "Changes of 3 % or more: caught in 2 of 2 tries" "$tmp/out" ||
    fail "the 5 % patch caught in its recorded run and its console's, counted by its size"

# device-check proof: the same runs from the proof builds carried as .carry/proof.tar.xz (a, b and
# a folder a patch: here stand-ins whose `gate` is this stagebench's), packed into $OUT after each
# run; a patch's series measures its workload's lines only; a series without a build refused.
device_check_root stagebench
mkdir -p "$tmp/pb/proof/data"
for side in a:base b:same w1-slow:slow; do
    mkdir -p "$tmp/pb/proof/${side%%:*}"
    printf '#!/bin/sh
[ "$1" = gate ] && exec "%s" "$@"
exec "%s" "$@"
' "$sb" "$tmp/${side#*:}" \
        > "$tmp/pb/proof/${side%%:*}/stagebench"
    chmod +x "$tmp/pb/proof/${side%%:*}/stagebench"
done
mkdir -p "$root/.carry" && tar -C "$tmp/pb" -cJf "$root/.carry/proof.tar.xz" proof
proof_step() { # series runs [SB_PROOF_END]
    rm -rf "$tmp/work" "$tmp/bundle"
    n=$((n + 1))
    (cd "$root" && PATH="$tmp/bin:$PATH" SB_WORK="$tmp/work" OUT="$tmp/bundle" SB_PROOF_BUILDS="$tmp/unpacked" \
        SB_PROOF_END=${3:-} \
        SB_PROOF_SERIES=$1 SB_PROOF_RUNS=$2 SB_PROOF_SECONDS=600 SB_GATE_SUITE="$tmp/suite" \
        SB_GATE_RUN_OPTIONS=' ' sh bench/scripts/device-check proof) > "$tmp/out" 2> "$tmp/err" ||
        fail "device-check proof $1: exit $?"
}
proof_step avsa 2
grep -q "^proof avsa: exit 0, 2 runs, 0 with a verdict other than SAME (.*/avsa.NN, proof-avsa.tar.xz)$" \
    "$tmp/work/summary.txt" || fail "device-check proof: the A-vs-A runs' summary line"
tar -tJf "$tmp/bundle/proof-avsa.tar.xz" | grep -q "^avsa.02/gate.json$" || fail "device-check proof: runs packed into \$OUT"
proof_step w1-slow 1
grep -q "^proof w1-slow: exit 0, 1 runs, 1 with a verdict other than SAME" "$tmp/work/summary.txt" ||
    fail "device-check proof: a patch's run caught"
json "$(ls -d "$tmp"/work/proof/*/w1-slow.01)/gate.json" \
    'assert {b["name"].split("/")[0] for b in d["benchmarks"]} == {"w1"}, d["benchmarks"]'
proof_step avsa 2 $(($(date +%s) - 1))
grep -q "^proof avsa: exit 0, 0 runs" "$tmp/work/summary.txt" || fail "device-check proof: none past SB_PROOF_END"
proof_step w9-missing 1
grep -q "^proof w9-missing: FAILED (no .*w9-missing/stagebench" "$tmp/work/summary.txt" ||
    fail "device-check proof: a series without a build named"

# Errors: one line, exit 2.
expect 2 "no builds" "$sb" gate "$tmp/suite"
one_line_naming "--base PROGRAM --head PROGRAM"
expect 2 "bad threshold" gate same bad --same-within 0.005
one_line_naming "same-within"
expect 2 "an existing folder" gate same avsa
one_line_naming "give --out a new folder"

# bench/scripts/ci-gate: 77 without a GPU; with the builds given, its exit is the gate's.
export SB_STAGEBENCH="$sb" SB_GATE_SUITE="$tmp/suite" SB_GATE_RUN_OPTIONS="--warm"
SB_NVIDIA_SMI=false expect 77 "no GPU" sh bench/scripts/ci-gate --no-build
grep -q "skipped" "$tmp/out" || fail "the no-GPU message says skipped"
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it couldn'"'"'t communicate with the NVIDIA driver."\nexit 9\n' > "$tmp/nvidia-smi"
chmod +x "$tmp/nvidia-smi"
SB_NVIDIA_SMI="$tmp/nvidia-smi" expect 77 "nvidia-smi without a driver" sh bench/scripts/ci-gate --no-build
printf '#!/bin/sh\necho "Fake GPU"\n' > "$tmp/gpu-smi"
chmod +x "$tmp/gpu-smi"
export SB_NVIDIA_SMI="$tmp/gpu-smi"
expect 1 "ci-gate: a slow head" sh bench/scripts/ci-gate --base-program "$tmp/base" --head-program "$tmp/slow" \
    --out "$tmp/ci-slow" --history "$tmp/h.sqlite" --baseline "$tmp/nobaseline"
grep -q "Verdict: regression" "$tmp/out" || fail "ci-gate: regression"
grep -q "### Trend (not the verdict)" "$tmp/out" || fail "ci-gate: the trend section"
grep -q "No committed baseline" "$tmp/out" || fail "ci-gate: says there is no baseline"
# from another folder, the suite named relative to it
(cd "$tmp" && SB_GATE_SUITE=suite expect 0 "ci-gate: the same head" sh "$here/../bench/scripts/ci-gate" \
    --base-program base --head-program same --out ci-same --history h.sqlite --baseline baseline \
    --update-baseline)
[ -f "$tmp/baseline/calibration.json" ] && [ -f "$tmp/baseline/01-w1.json" ] || fail "--update-baseline writes the baseline"
# --records: decided again from a gate's folder, written to --out only; relative paths from
# another folder
before=$(ls -R "$tmp/ci-slow/gate" | md5sum)
history_before=$(md5sum < "$tmp/h.sqlite")
(cd "$tmp" && expect 1 "ci-gate --records" sh "$here/../bench/scripts/ci-gate" --records ci-slow/gate --out again \
    --history h.sqlite --baseline baseline)
[ "$(md5sum < "$tmp/h.sqlite")" = "$history_before" ] || fail "ci-gate --records added to the history"
grep -q "A replay adds nothing to the history" "$tmp/again/summary.md" || fail "the replay says the history is left"
[ -f "$tmp/again/replay.json" ] || fail "ci-gate --records: the replay in --out"
[ "$(ls -R "$tmp/ci-slow/gate" | md5sum)" = "$before" ] || fail "ci-gate --records wrote into the records"
grep -q "The committed baseline" "$tmp/again/summary.md" || fail "the trend names the baseline and its age"
unset SB_GATE_SUITE

# bench/scripts/gate-bisect on a scratch history of 8 commits; commit 5 makes w1/a 5 % slower.
repo=$tmp/repo
mkdir -p "$repo" && cd "$repo" || fail "scratch repository"
git init -q . && git config user.email t@t && git config user.name t
printf 'build-gate/\nresults/\n' > .gitignore
for k in 0 1 2 3 4 5 6 7; do
    factor=1.0
    [ $k -ge 5 ] && factor=1.05
    printf '{"name": "c%d", "commit": "c%d", %s, "noise": 0.003, "factor": {"a": %s}}\n' \
        $k $k "$levels" $factor > fake-build.json
    git add -A && git commit -q -m "commit $k"
    eval "c$k=\$(git rev-parse HEAD)"
done
export SB_GATE_BUILD='mkdir -p "$SB_BUILD_DIR" && printf "#!/bin/sh\nFAKE_BUILD=%s exec python3 %s \"\$@\"\n" "$PWD/fake-build.json" "'"$fake"'" > "$SB_BUILD_DIR/stagebench" && chmod +x "$SB_BUILD_DIR/stagebench"'
printf 'w1 --variant a,b --param n=1\nw2 --variant c\n' > "$tmp/bisect.suite"
export SB_GATE_SUITE="$tmp/bisect.suite"
expect 0 "bisect finds the slow commit" sh "$here/../bench/scripts/ci-gate" --bisect "$c0" "$c7" --benchmark 'w1/a/*' --out "$tmp/bisect"
grep -q "First slow commit: \`$c5\`" "$tmp/out" || fail "bisect names commit 5 ($c5)"
[ "$(git status --porcelain)" = "" ] || fail "the bisect left the scratch checkout as it was"
[ "$(git rev-parse HEAD)" = "$c7" ] || fail "the checkout's HEAD untouched"
expect 1 "nothing to bisect" sh "$here/../bench/scripts/gate-bisect" "$c0" "$c4" --benchmark 'w1/a/*' --out "$tmp/bisect2"
grep -q "nothing to bisect" "$tmp/out" || fail "BAD not slower: nothing to bisect"
expect 2 "GOOD after BAD" sh "$here/../bench/scripts/gate-bisect" "$c7" "$c0" --benchmark 'w1/a/*' --out "$tmp/bisect3"
one_line_naming "not an ancestor"
echo "gate: $n commands checked"

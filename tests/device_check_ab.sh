#!/bin/sh
# bench/scripts/device-check ab as a GPU session would run it, on CPU runs: three builds (copies of this
# stagebench) timed in turn, a record a build a repetition, each compared with the first, the
# records bundled into $OUT; two builds keep the names and the compare file of the two-build
# form; a missing build and a single one refused in one summary line, nothing timed.
#   usage: sh tests/device_check_ab.sh path/to/stagebench
set -u
sb=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
. "$(dirname "$0")/shlib.sh"

# device-check runs from a repository root holding .carry/sb (bench/scripts/pack-for-device's)
root=$tmp/root
mkdir -p "$root/.carry/sb" "$tmp/builds"
ln -s "$src/bench" "$root/bench"
ln -s "$sb" "$root/.carry/sb/stagebench"
for b in a b c; do ln -s "$sb" "$tmp/builds/$b"; done
run="t rdme --variant cpu-reference --param scenario=reactions --param reactions=2 --param steps=1 --warmup 0 --min-samples 3 --min-time 0 --timeout 5 --reference cpu-reference"
check_ab() { # SB_AB_BUILDS reps -> device-check ab in $tmp/work, bundle in $tmp/bundle
    rm -rf "$tmp/work" "$tmp/bundle"
    n=$((n + 1))
    (cd "$root" && SB_WORK="$tmp/work" OUT="$tmp/bundle" SB_AB_BUILDS="$1" SB_AB_REPS="$2" \
        SB_AB_RUNS="$run" sh bench/scripts/device-check ab) > "$tmp/out" 2> "$tmp/err" ||
        fail "device-check ab with SB_AB_BUILDS='$1': exit $?"
}

check_ab "a:$tmp/builds/a b:$tmp/builds/b c:$tmp/builds/c" 2
for b in a b c; do
    for i in 1 2; do
        json "$tmp/work/ab/$b-t/rep$i.json" \
            "s = d['benchmarks'][0]['stagebench']; assert s['variant'] == 'cpu-reference' and s['status'] == 'valid', s['status']"
    done
done
for b in b c; do
    grep -q "rdme/cpu-reference/scenario:reactions" "$tmp/work/ab/compare-t-$b.txt" ||
        fail "no comparison of build $b with a in compare-t-$b.txt"
    grep -q "^ab t $b: .*1 same\|^ab t $b: .*1 slower\|^ab t $b: .*1 faster" "$tmp/work/summary.txt" ||
        fail "the summary has no verdict for build $b"
done
[ ! -e "$tmp/work/ab/compare-t-a.txt" ] || fail "the first build was compared with itself"
tar -tzf "$tmp/bundle/device-check.tar.gz" | grep -q "ab/c-t/rep2.json" || fail "the bundle lacks c's records"

check_ab "base:$tmp/builds/a new:$tmp/builds/b" 1
[ -f "$tmp/work/ab/base-t/rep1.json" ] && [ -f "$tmp/work/ab/new-t/rep1.json" ] &&
    [ -f "$tmp/work/ab/compare-t.txt" ] || fail "two builds: not ab/base-t, ab/new-t and ab/compare-t.txt"

check_ab "base:$tmp/builds/missing new:$tmp/builds/b" 1
grep -q "^ab: FAILED (no build at $tmp/builds/missing" "$tmp/work/summary.txt" || fail "a missing build not named"
[ ! -d "$tmp/work/ab" ] || fail "a run was timed with a build missing"
check_ab "base:$tmp/builds/a" 1
grep -q "^ab: FAILED (SB_AB_BUILDS names one build" "$tmp/work/summary.txt" || fail "a single build not refused"

echo "device_check_ab: $n checks passed"

#!/bin/sh
# bench/scripts/device-check sanitize's verdicts, on a machine without a GPU: stand-ins for
# compute-sanitizer and nvidia-smi on PATH. A run that writes a valid record for every stage
# asked for and a tool summary of 0 errors reads clean; one cut off by SB_SANITIZE_LIMIT reads
# FAILED, says it went past its limit and names the stages without a record (the first of them
# was running); one whose tool counted errors reads FAILED. rdme-sanitize runs the Min system in
# both site formats and bench/suites/rdme-strips.rdme under each tool.
#   usage: sh tests/device_check_sanitize.sh   (from the source root)
set -u
. "$(dirname "$0")/shlib.sh"

device_check_root stagebench stagebench-nocdp
# the tool's stand-in: a record per stage of --variant into --out, then as STANDIN says
cat > "$tmp/bin/compute-sanitizer" <<'EOF'
#!/bin/sh
[ "$1" = --version ] && { echo "Version stand-in"; exit 0; }
prev="" variants="" out=""
for a in "$@"; do
    [ "$prev" = --variant ] && variants=$a
    [ "$prev" = --out ] && out=$a
    prev=$a
done
keep=$(echo "$variants" | tr ',' '\n')
[ "$STANDIN" = hang ] && keep=$(echo "$keep" | sed '$d')
python3 -c "import json, sys
json.dump({'benchmarks': [{'stagebench': {'variant': v, 'status': 'valid'}} for v in sys.argv[2:]]}, open(sys.argv[1], 'w'))" "$out" $keep
case $STANDIN in
hang) sleep 30 ;;
errors) echo "========= ERROR SUMMARY: 3 errors"; exit 9 ;;
*) echo "========= ERROR SUMMARY: 0 errors" ;;
esac
EOF
chmod +x "$tmp/bin/compute-sanitizer"

check() { # STANDIN STEP [VAR=VALUE...]: device-check STEP with the tool's stand-in (and these
    # settings), its summary in $tmp/work
    standin=$1 step=$2
    shift 2
    rm -rf "$tmp/work"
    (cd "$root" && env PATH="$tmp/bin:$PATH" STANDIN="$standin" SB_WORK="$tmp/work" \
        OUT="$tmp/bundle" "$@" sh bench/scripts/device-check "$step") > "$tmp/out" 2> "$tmp/err" ||
        fail "device-check $step with the $standin stand-in: exit $?"
}

line() { # STANDIN -> the summary's racecheck rdme-slabs line in $tmp/line
    n=$((n + 1))
    check "$1" sanitize SB_SANITIZE_TOOLS=racecheck SB_SANITIZE_WORKLOADS=rdme-slabs \
        SB_SANITIZE_LIMIT=2
    grep "^compute-sanitizer racecheck rdme-slabs:" "$tmp/work/summary.txt" > "$tmp/line" ||
        fail "no rdme-slabs line in the summary"
}

line clean
grep -q ": clean; ERROR SUMMARY: 0 errors; records: 5 of 5 valid; " "$tmp/line" ||
    fail "a complete run not clean: $(cat "$tmp/line")"
grep -q "^sanitize: 0 run(s) not clean" "$tmp/work/summary.txt" || fail "the count of runs not clean"

line hang
grep -q ": FAILED (past its 2 s limit (exit 124), no summary from the tool, not every stage asked for has a valid record); " "$tmp/line" ||
    fail "a run cut off by the limit not said so: $(cat "$tmp/line")"
grep -q "records: 4 of 4 valid; no record of gpu-graph (1 of the 5 stages asked for); " "$tmp/line" ||
    fail "the stage without a record not named: $(cat "$tmp/line")"
grep -q "^sanitize: 1 run(s) not clean" "$tmp/work/summary.txt" || fail "the count of runs not clean"

line errors
grep -q ": FAILED (exit 9, the tool found errors); ERROR SUMMARY: 3 errors; records: 5 of 5 valid; " "$tmp/line" ||
    fail "a run with errors not FAILED: $(cat "$tmp/line")"

# rdme-sanitize: the Min system in both site formats and the strips' lattice, under each tool
check clean rdme-sanitize
for tool in memcheck racecheck; do
    for name in rdme-packed32 rdme-byte16 rdme-strips; do
        grep -q "^compute-sanitizer $tool $name: clean; " "$tmp/work/summary.txt" ||
            fail "rdme-sanitize: no clean $tool $name line in: $(cat "$tmp/work/summary.txt")"
    done
done
n=$((n + 6))

echo "device_check_sanitize: $n runs checked"

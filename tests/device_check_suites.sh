#!/bin/sh
# bench/scripts/device-check's sweeps of `stagebench run` (the device suites
# bench/suites/device/*.suite, run by run_suite in bench/scripts/device/lib.sh), on a machine
# without a GPU: a stand-in stagebench on .carry/sb notes its arguments and writes an empty
# records file. Each line is one run with its records at --out NAME.json, its ${...} filled in,
# and the summary line it has always had; noise's runs under their time limit with the seconds
# they took; an unknown step is refused.
#   usage: sh tests/device_check_suites.sh   (from the source root)
set -u
. "$(dirname "$0")/shlib.sh"

device_check_root
cat > "$root/.carry/sb/stagebench" <<'STANDIN'
#!/bin/sh
echo "$*" >> "$SB_ARGS"
prev=""
for a in "$@"; do
    [ "$prev" = --out ] && echo '{"benchmarks": []}' > "$a"
    prev=$a
done
exit 0
STANDIN
chmod +x "$root/.carry/sb/stagebench"
work=$tmp/work

steps() { # STEP...: device-check STEP... with the stand-in, its summary in $work
    n=$((n + 1))
    rm -rf "$work" "$tmp/args"
    (cd "$root" && env PATH="$tmp/bin:$PATH" SB_ARGS="$tmp/args" SB_WORK="$work" OUT="$tmp/bundle" \
        MM_OUTER=64 sh bench/scripts/device-check "$@") > "$tmp/out" 2> "$tmp/err" ||
        fail "device-check $*: exit $?"
}
line() { # TEXT: a line of the summary
    grep -qxF -- "$1" "$work/summary.txt" || fail "no summary line '$1' in: $(cat "$work/summary.txt")"
}
ran() { # TEXT: the stand-in ran with these arguments (a part of them)
    grep -qF -- "$1" "$tmp/args" || fail "no run with '$1' among: $(cat "$tmp/args")"
}

steps bench perf counters rdme-bench rdme-one-pass procell-peer angio-bench motility-bench
line "rdme one-pass rbc 8 nm (reference gpu-fused): exit 0"
line "procell peer inputs m4: exit 0"
ran "run procell --param histogram=$work/synthetic-40000.txt --param types=m3 --param t_max=480 --variant subtree-dfs,split-trees"
[ "$(wc -l < "$work/synthetic-40000.txt")" -gt 1000 ] || fail "procell-peer: no synthetic histogram"
line "bench t_max 240: exit 0"
line "bench t_max 720: exit 0"
ran "run procell --param histogram=$root/.carry/data/AML9_Exp3_t10d_UT1_BM_GFPpos.txt --param types=m4 --param phi_min=11.0 --param t_max=720 --max-noise 0.02 --timeout 6 --dump-output $work/procell-ut1-t720.hist --out $work/procell-ut1-t720.json"
line "perf replicate 19 t_max 720 gpu-histogram --param level_memory_gib=0 --out $work/procell-perf-r19-t720-allmem.json: exit 0"
line "perf replicate 19 t_max 720 dynamic-parallelism --out $work/procell-perf-r19-t720-dynamic-parallelism.json: exit 0"
[ "$(grep -c '^perf ' "$work/summary.txt")" = 8 ] || fail "perf: not 8 runs"
line "counters all variants: exit 0"
line "counters host-loop replicate 187: exit 0"
grep -q "^overhead check, cupti: $" "$work/summary.txt" || fail "no overhead check line"
line "rdme ecoli 16 nm (reference cpu-reference): exit 0"
line "rdme rbc 8 nm (reference gpu): exit 0"
ran "run rdme --param cell=rbc --param spacing=8 --param steps=100 --reference gpu --variant gpu,gpu-zero-copy-overflow --metrics none --max-noise 0.02 --timeout 6 --out $work/rdme-rbc-8.json"
line "angio tubes-cells262144-tubes1000: exit 0"
line "angio tumour: exit 0"
[ -f "$work/angio-tumour.log" ] || fail "angio-bench keeps no log"
line "motility bench: exit 0"
ran "run motility --param outer=64 --param inner=32 --param steps=1 "
tar -tzf "$tmp/bundle/device-check.tar.gz" | grep -q "rdme-rbc-8.json" || fail "the bundle lacks a run's records"

steps noise
grep -q "^noise procell-r19-t240: exit 0, [0-9]*s$" "$work/summary.txt" || fail "noise: no line of its first run"
[ "$(grep -c '^noise .*: exit 0, [0-9]*s$' "$work/summary.txt")" = 10 ] || fail "noise: not 10 runs"
ran "run angio --param scenario=tubes --param cells=262144 --param tubes=1000 --variant resident,sorted --metrics none --no-activity --out $work/noise/angio-tubes1000.json"
[ -f "$work/noise/report.txt" ] || fail "noise: no report"

n=$((n + 1))
(cd "$root" && env PATH="$tmp/bin:$PATH" SB_WORK="$work" OUT="$tmp/bundle" \
    sh bench/scripts/device-check no-such-step) > "$tmp/out" 2> "$tmp/err"
[ $? = 2 ] || fail "an unknown step: not exit 2"
one_line_naming "unknown step 'no-such-step'"

echo "device_check_suites: $n checks passed"

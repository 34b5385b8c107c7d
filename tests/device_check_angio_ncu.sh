#!/bin/sh
# bench/scripts/device-check angio-ncu's run, on a machine without a GPU: a stand-in for ncu on PATH that
# notes its arguments. By default Nsight Compute profiles one step of 2^20 random cells, every
# kernel; SB_ANGIO_NCU_RUN, SB_ANGIO_NCU_LAUNCHES and SB_ANGIO_NCU_VARIANT choose another run,
# the kernels of it and the stage (the tumour's one validation step, docs/angio.md).
#   usage: sh tests/device_check_angio_ncu.sh   (from the source root)
set -u
. "$(dirname "$0")/shlib.sh"

device_check_root stagebench
cat > "$tmp/bin/ncu" <<'STANDIN'
#!/bin/sh
[ "$1" = --version ] && { echo "Version stand-in"; exit 0; }
echo "$*" >> "$NCU_ARGS"
STANDIN
chmod +x "$tmp/bin/ncu"

profile() { # [VAR=VALUE...] -> the profiling run's ncu arguments in $tmp/args
    n=$((n + 1))
    rm -rf "$tmp/work" "$tmp/ncu-args"
    (cd "$root" && env PATH="$tmp/bin:$PATH" NCU_ARGS="$tmp/ncu-args" SB_WORK="$tmp/work" \
        OUT="$tmp/bundle" "$@" sh bench/scripts/device-check angio-ncu) > "$tmp/out" 2> "$tmp/err" ||
        fail "device-check angio-ncu $*: exit $?"
    grep -- " -o " "$tmp/ncu-args" > "$tmp/args" || fail "no profiling run among ncu's calls"
    grep -q "^angio-ncu [a-z]*: ncu exit 0" "$tmp/work/summary.txt" ||
        fail "the summary does not give ncu's exit"
}

profile
grep -q "run angio --param cells=1048576 --param steps=1 --variant sorted " "$tmp/args" ||
    fail "the default run is not one step of 2^20 cells: $(cat "$tmp/args")"
grep -q -- "--launch-" "$tmp/args" && fail "the default selects launches: $(cat "$tmp/args")"

profile SB_ANGIO_NCU_RUN="--param scenario=tumour" SB_ANGIO_NCU_CELLS=1500 \
    SB_ANGIO_NCU_LAUNCHES="--launch-skip 1501 --launch-count 5" SB_ANGIO_NCU_VARIANT=resident
grep -q "run angio --param scenario=tumour --variant resident " "$tmp/args" ||
    fail "SB_ANGIO_NCU_RUN or _VARIANT not passed on: $(cat "$tmp/args")"
grep -q -- "--launch-skip 1501 --launch-count 5 " "$tmp/args" ||
    fail "SB_ANGIO_NCU_LAUNCHES not passed to ncu: $(cat "$tmp/args")"

echo "device_check_angio_ncu: $n runs checked"

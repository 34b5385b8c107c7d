# Sourced by bench/scripts/device-check and its step scripts (bench/scripts/device/*.sh), from
# the repository root on the GPU machine: where things are, the summary, the bundle, and the
# helpers the steps share. Nothing here runs a step.
#   sb       the carried build (.carry/sb: stagebench, stagebench-nocdp, tests/...)
#   data     the ProCell histograms (.carry/data); ut1 the UT1_BM one
#   out      where the steps write ($SB_WORK, default /tmp/sb-work), bundled into $OUT
#   summary  $out/summary.txt: the lines the summary table shows last
#   gpus     the GPUs nvidia-smi lists
sb=$PWD/.carry/sb
data=$PWD/.carry/data
bundle_dir=${OUT:-/tmp/sb-out}
out=${SB_WORK:-/tmp/sb-work}
summary=$out/summary.txt
ut1="$data/AML9_Exp3_t10d_UT1_BM_GFPpos.txt"
mkdir -p "$out" "$bundle_dir"
export SB_SHARED_DATA="$data" STAGEBENCH_PLOTS="$PWD/plots"
case ${LD_LIBRARY_PATH:-} in
*/usr/local/cuda/extras/CUPTI/lib64*) ;;
*) # CUPTI (and the nvperf libraries it loads) from the machine's own toolkit, wherever it keeps them
    export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
esac
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)

say() { # a line of the summary
    echo "$*" >> "$summary"
}

bundle() { # after every sub-run, so that a call cut off returns what it finished
    cp "$summary" "$bundle_dir/summary.txt"
    tar -czf "$bundle_dir/device-check.tar.gz" -C "$out" .
}

as_root() { # mpirun's option to run as root, where this is root
    [ "$(id -u)" = 0 ] && echo --allow-run-as-root
}

# Nsight Compute's source page reads the kernels' source through the paths the build recorded
# (-lineinfo; .carry/sb/source-root): that path linked to this tree where it is missing
link_source_root() {
    root=$(cat "$sb/source-root" 2>/dev/null || true)
    if [ -n "$root" ] && [ ! -e "$root" ]; then
        mkdir -p "$(dirname "$root")" && ln -s "$PWD" "$root"
    fi
}

# A test binary or script, its verdict a line: test_line NAME START RC PATTERN (PATTERN: what of
# its log the line quotes, the last two matching lines); its log's tail printed when it failed.
test_line() {
    case $3 in 0) verdict=passed ;; 77) verdict=SKIPPED ;; *) verdict="FAILED (exit $3)" ;; esac
    printf 'test %-28s %-18s %4ss  %s\n' "$1" "$verdict" $(( $(date +%s) - $2 )) \
        "$(grep -E "$4" "$out/$1.log" | tail -n 2 | tr '\n' ' ')" >> "$summary"
    [ "$3" = 0 ] || [ "$3" = 77 ] || tail -n "${5:-30}" "$out/$1.log"
}

# The runs of a device suite (bench/suites/device/*.suite): each line NAME | LABEL | ARGS is
# `stagebench run ARGS --out $out/NAME.json` (${...} in LABEL and ARGS are this file's variables
# and the environment's), then a summary line "LABEL: exit N" and the bundle. run_log=1: the run's
# console into $out/NAME.log (else on stdout); run_limit=S: at most S seconds (timeout); run_took=1:
# the seconds it took after the exit.
run_suite() {
    while IFS='|' read -r name label args <&3; do
        case $name in '' | '#'*) continue ;; esac
        name=$(printf '%s' "$name" | tr -d ' ')
        label=$(printf '%s' "$label" | sed 's/^ *//; s/ *$//')
        eval "label=\"$label\"; set -- $args"
        start=$(date +%s)
        if [ "${run_log:-}" = 1 ]; then
            ${run_limit:+timeout "$run_limit"} "$sb/stagebench" run "$@" --out "$out/$name.json" \
                > "$out/$name.log" 2>&1
        else
            ${run_limit:+timeout "$run_limit"} "$sb/stagebench" run "$@" --out "$out/$name.json"
        fi
        rc=$?
        say "$label: exit $rc${run_took:+, $(( $(date +%s) - start ))s}"
        bundle
    done 3< "$1"
}

# One compute-sanitizer run: sanitize_one TOOL NAME NP WORKLOAD ARGS... (NP > 0: under mpirun
# with NP processes). memcheck runs the default build; racecheck and synccheck the build without
# dynamic parallelism or device-side graph loops (stagebench-nocdp), which they can check: with the
# default build they warn "CUDA Dynamic Parallelism is not supported by the selected tool", and
# fail on kernels inside a conditional graph node. The summary line says
# clean only when the tool exited 0, printed its summary with 0 errors/hazards, printed no
# warning at all (one that it could not check is a failure, not a pass), and every stage asked for
# (--variant) has a record and every record is valid (bench/tools/sanitize-records); with the
# tool's own summary. A run past SB_SANITIZE_LIMIT seconds (exit 124) says so, and which stages
# have no record: the first of them was running. sanitize_failed counts the runs not clean.
sanitize_failed=0
sanitize_one() {
    tool=$1 name=$2 np=$3
    shift 3
    bin=$sb/stagebench
    [ "$tool" = memcheck ] || bin=$sb/stagebench-nocdp
    log=$out/sanitize-$tool-$name.log json=$out/sanitize-$tool-$name.json
    rm -f "$json"
    if [ ! -x "$bin" ]; then
        say "compute-sanitizer $tool $name: FAILED (no $bin: run bench/scripts/pack-for-device)"
        sanitize_failed=$((sanitize_failed + 1))
        return
    fi
    launcher=""
    if [ "$np" -gt 0 ]; then
        command -v mpirun > /dev/null || {
            say "compute-sanitizer $tool $name: SKIPPED (no mpirun)"; return; }
        launcher="mpirun --oversubscribe --bind-to none -np $np $(as_root)"
    fi
    start=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${SB_SANITIZE_LIMIT:-180}" $launcher compute-sanitizer --tool "$tool" --error-exitcode 9 \
        "$bin" run "$@" --metrics none --no-activity --warmup 0 --min-samples 1 --min-time 0 \
        --timeout 0.001 --warm --out "$json" > "$log" 2>&1
    rc=$?
    took=$(( $(date +%s) - start ))
    asked="" prev=""
    for arg in "$@"; do
        [ "$prev" = --variant ] && asked=$arg
        prev=$arg
    done
    tool_summary=$(grep -E 'SUMMARY:' "$log" | sed 's/^========= *//' | tr '\n' ' ' | sed 's/ *$//')
    warning=$(grep -m 1 -E '^========= +Warning' "$log" | sed 's/^========= *//')
    nwarnings=$(grep -c -E '^========= +Warning' "$log")
    records=$(python3 bench/tools/sanitize-records "$json" "$asked")
    records_ok=$?
    # memcheck also reports CUDA API calls that returned an error. NCCL's own probes return some
    # by design (cudaFuncGetAttributes on kernels built for other chips, enabling peer access
    # that is already on); when every error the tool counted is such a call made inside libnccl,
    # the run is clean of memory errors and says how many there were.
    tool_errors=$(sed -n 's/^========= ERROR SUMMARY: \([0-9]*\) error.*/\1/p' "$log" | tail -n 1)
    nccl_api=$(awk '/^========= Program hit/ { hit = 1; next }
        hit && /Host Frame:/ && !/libcuda\.so/ { if (/libnccl\.so/) n++; hit = 0 }
        END { print n + 0 }' "$log")
    note=""
    if [ "$tool" = memcheck ] && [ "${tool_errors:-0}" -gt 0 ] && [ "$tool_errors" = "$nccl_api" ] &&
        [ $rc = 9 ]; then
        rc=0 tool_summary="$tool_summary (every one a CUDA API error returned inside libnccl)"
        note=" ($nccl_api CUDA API errors returned inside libnccl, its probes; no memory error)"
    fi
    why=""
    case $rc in
    0) ;;
    124) why="$why, past its ${SB_SANITIZE_LIMIT:-180} s limit (exit 124)" ;;
    *) why="$why, exit $rc" ;;
    esac
    [ -n "$tool_summary" ] || why="$why, no summary from the tool"
    [ -z "$note" ] && echo "$tool_summary" | grep -q -E 'SUMMARY: [1-9]' && why="$why, the tool found errors"
    [ "$nwarnings" = 0 ] || why="$why, $nwarnings tool warning(s): $warning"
    [ $records_ok = 0 ] || why="$why, not every stage asked for has a valid record"
    if [ -z "$why" ]; then
        verdict=clean$note
    else
        verdict="FAILED (${why#, })"
        sanitize_failed=$((sanitize_failed + 1))
    fi
    say "compute-sanitizer $tool $name: $verdict; ${tool_summary:-no summary}; records: $records; ${took}s"
    bundle
}

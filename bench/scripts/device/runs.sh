# bench/scripts/device-check's benchmark steps (sh bench/scripts/device/runs.sh STEP): the fixed
# sweeps are device suites (bench/suites/device/STEP.suite, run by run_suite in
# bench/scripts/device/lib.sh, which describes the format), the rest below.
#   bench, perf, counters, rdme-bench, rdme-one-pass, procell-peer, angio-bench, motility-bench, noise:
#                  bench/suites/device/STEP.suite says what each runs; counters then times three variants with CUPTI
#                  loaded and not (separate processes: the timed samples must not notice;
#                  bench/tools/overhead-check), noise ends with bench/tools/noise-report (the
#                  median noise per workload and overall, the records stopped on the timeout;
#                  docs/harness.md, "Noise"; about 3 min on an H100)
#   gbench         stagebench-gbench on every procell benchmark, 5 repetitions, twice (for compare.py)
#   rdme-mgpu      RDME multi-GPU stages on 1, 2, 4 and 8 GPUs (those there are), 8 nm lattices,
#                  against the gpu stage (timed beside them, and each stage's phases)
#   motility-scale multi-gpu and multi-gpu-macro at 256^2 x 32^2 on 1 GPU and on every GPU (the
#                  4-GPU target), against optimized
#   goals          issue 21's figures beside their goals: sh bench/scripts/goals (the study
#                  bench/studies/goals.study, which defines them; docs/limits.md), records in goals/
#   angio-goals    issue 21's angio goals alone: the goals study's runs 03-angio (2^20 random
#                  cells, resident and sorted, 20 steps) and 04-angio (the tumour beside a 5-sample
#                  cpu-reference) into angio-goals/, its tables there, the angio-pairs and tumour
#                  goals' lines in the summary; and one step of 2^20 cells with --kernels beside
#                  (the validation run's kernels in cells1048576-steps1.log)
set -u
. bench/scripts/device/lib.sh
case $1 in
bench | perf | rdme-bench | rdme-one-pass)
    run_suite bench/suites/device/$1.suite ;;
angio-bench | motility-bench)
    run_log=1 run_suite bench/suites/device/$1.suite ;;
procell-peer)
    peer_input=$out/synthetic-40000.txt
    python3 bench/tools/procell-synth --cells 40000 "$peer_input" ||
        { say "procell peer inputs: procell-synth failed"; exit 0; }
    run_suite bench/suites/device/procell-peer.suite ;;
counters)
    run_suite bench/suites/device/counters.suite
    for mode in plain cupti; do
        extra="--metrics none --no-activity"
        [ $mode = cupti ] && extra=""
        # shellcheck disable=SC2086
        "$sb/stagebench" run procell --param histogram="$ut1" --param phi_min=11.0 --quiet \
            --variant host-loop,gpu-histogram,subtree-dfs $extra --max-noise 0.01 --timeout 6 \
            --out "$out/overhead-$mode.json" > /dev/null
        python3 bench/tools/overhead-check "$out/overhead-$mode.json" $mode >> "$summary"
    done
    bundle ;;
noise)
    mkdir -p "$out/noise"
    run_log=1 run_limit=${SB_NOISE_LIMIT:-90} run_took=1 run_suite bench/suites/device/noise.suite
    python3 bench/tools/noise-report "$out/noise" --records > "$out/noise/report.txt" 2>&1
    cat "$out/noise/report.txt"
    tail -n 2 "$out/noise/report.txt" >> "$summary"
    bundle ;;
gbench)
    for rep in a b; do
        "$sb/stagebench-gbench" --benchmark_filter=procell/ --benchmark_repetitions=5 \
            --benchmark_format=json --benchmark_out="$out/gbench-$rep.json" > "$out/gbench-$rep.log" 2>&1
        say "gbench $rep: exit $?, $(grep -c '"name"' "$out/gbench-$rep.json") entries"
        bundle
    done ;;
rdme-mgpu)
    nvidia-smi topo -m >> "$summary" 2>&1
    for cell in dividing-ecoli yeast rbc; do
        for g in 1 2 4 8; do
            [ $g -le "$gpus" ] || continue
            "$sb/stagebench" run rdme --param cell=$cell --param spacing=8 --param steps=100 \
                --param gpus=$g --reference gpu \
                --variant gpu,mgpu-staged,mgpu-peer,mgpu-peer-overlap,mgpu-nccl,gpu-graph \
                --metrics none --no-activity --max-noise 0.02 --min-samples 3 --timeout 2 \
                --out "$out/rdme-mgpu-$cell-8-g$g.json" > "$out/rdme-mgpu-$cell-8-g$g.log" 2>&1
            say "rdme multi-GPU $cell 8 nm on $g GPU(s): exit $?"
            bundle
        done
    done ;;
motility-scale)
    for n in 1 $gpus; do
        "$sb/stagebench" run motility --param outer=256 --param inner=32 --param steps=2 \
            --variant multi-gpu,multi-gpu-macro --param gpus=$n --reference optimized --warmup 0 \
            --min-samples 3 --timeout 1 --metrics none --no-activity \
            --out "$out/motility-scale-$n.json" > "$out/motility-scale-$n.log" 2>&1
        say "motility scale 256^2 x 32^2 on $n GPU(s): exit $? $(grep -E 'multi-gpu' "$out/motility-scale-$n.log" | tr '\n' ' ')"
        bundle
    done ;;
goals)
    SB_STAGEBENCH="$sb/stagebench" sh bench/scripts/goals "$out/goals" > "$out/goals.log" 2>&1
    say "goals: exit $? (table in goals/goals.md)"
    cat "$out/goals/goals.md" 2>/dev/null || tail -n 20 "$out/goals.log"
    bundle ;;
angio-goals)
    dir=$out/angio-goals
    mkdir -p "$dir"
    "$sb/stagebench" run angio --param cells=1048576 --param steps=1 --variant resident,sorted \
        --metrics none --kernels --max-noise 0.02 --min-samples 10 --timeout 5 \
        --out "$dir/cells1048576-steps1.json" > "$dir/cells1048576-steps1.log" 2>&1
    say "angio goals, 2^20 cells, 1 step(s): exit $?"
    bundle
    for run in 03-angio 04-angio; do
        "$sb/stagebench" study bench/studies/goals.study --define DATA="$data" --out "$dir" \
            --run $run > "$dir/$run.log" 2>&1
        say "angio goals, $run (bench/studies/goals.study): exit $?"
        bundle
    done
    "$sb/stagebench" study bench/studies/goals.study --define DATA="$data" --out "$dir" \
        --figures-only > "$dir/tables.log" 2>&1
    cat "$dir/angio-pairs.md" "$dir/tumour.md"
    grep -h -E '^- (angio-pairs|tumour): ' "$dir/angio-pairs.md" "$dir/tumour.md" |
        sed 's/^- /angio goal: /' | tee -a "$summary"
    bundle ;;
esac

# bench/scripts/device-check's study steps (sh bench/scripts/device/studies.sh STEP): the sweeps
# only, where the GPU machine has no gnuplot; draw the figures here with --figures-only.
#   study           the thesis study (bench/studies/procell-thesis.study), its runs ut1 and dox
#   rdme-study      the single-GPU RDME study (figs. 5-7); rdme-min the Min oscillator study; each
#                   compared with this GPU's baseline in results/baselines/ (stagebench compare)
#   mgpu-scaling    bench/studies/rdme-multi-gpu.study: table2 (both spacings) and min, 1-8 GPUs
#                   (points past this machine's GPUs recorded as skipped; RDME_SCALING_ARGS: e.g.
#                   --define STAGES=mgpu-peer-overlap --define SAMPLE_SECONDS=1)
#   mgpu-study      bench/studies/rdme-multi-gpu.study: fig8, min, handicap
#   copies-study    bench/studies/copies-fig4.study (paper fig. 4), then its MPI line under mpirun,
#                   whose records join the study's fig4.json and .csv (bench/tools/merge-mpi-records)
#   angio-study     bench/studies/angio-paper.study (figs. 4-8, the tumour): the sweeps
#   motility-study  bench/studies/motility-paper.study (tables 2-4, fig. 5; MM_STUDY_ARGS), then
#                   the mpi rows under mpirun (2 and 4 processes, where there are as many GPUs)
#   motility-mpi    the mpi rows alone: table 4's and fig. 5's, one mpirun a point, records beside
#                   the study's (MM_MPI_GRIDS "outer:inner ..."; MM_MPIRUN_ARGS, default --bind-to
#                   none: Open MPI binds each of 2 processes to one core, which leaves the host
#                   macro of rank 0 one thread; the stage splits the cores itself)
set -u
. bench/scripts/device/lib.sh

motility_mpi_rows() {
    mkdir -p "$out/motility-paper"
    for n in 2 4; do
        [ "$gpus" -ge $n ] || continue
        for grid in ${MM_MPI_GRIDS:-64:16 64:32 128:16 128:32 256:16}; do
            o=${grid%:*} i=${grid#*:} ref=cpu-reference
            [ "$o" -gt 64 ] && ref=optimized
            # shellcheck disable=SC2086
            mpirun $(as_root) --oversubscribe ${MM_MPIRUN_ARGS---bind-to none} -np $n "$sb/stagebench" \
                run motility --variant mpi --param steps=2 --param outer=$o --param inner=$i \
                --reference $ref --warmup 0 --min-samples 3 --min-time 0.05 --max-noise 0.05 \
                --timeout 0.5 --metrics none --out "$out/motility-paper/mpi-np$n-$o-$i.json" \
                > "$out/motility-mpi-np$n-$o-$i.log" 2>&1
            rc=$?
            say "motility mpi np $n $o^2 x $i^2: exit $rc $(grep -E 'motility/mpi/' "$out/motility-mpi-np$n-$o-$i.log" | head -n 1)"
        done
        bundle
    done
}

case $1 in
study)
    for run in ut1 dox; do
        "$sb/stagebench" study bench/studies/procell-thesis.study --define DATA="$data" \
            --out "$out/study" --run $run
        say "study run $run: exit $?"
        bundle
    done ;;
rdme-study | rdme-min)
    file=bench/studies/rdme-single-gpu.study runs="--run fig5 --run fig6 --run fig7"
    [ "$1" = rdme-min ] && file=bench/studies/rdme-min.study runs="--run min"
    # shellcheck disable=SC2086
    "$sb/stagebench" study $file --out "$out/$1" $runs
    say "study $file: exit $?"
    # against this GPU's committed baseline (results/baselines/<name>/): 1 = slower
    base=results/baselines/$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1 |
        sed 's/^NVIDIA //' | tr 'A-Z ' 'a-z-')/$1
    for f in "$out/$1"/*.json; do
        [ -f "$base/$(basename "$f")" ] || continue
        "$sb/stagebench" compare "$base/$(basename "$f")" "$f" > "$out/$1-compare-$(basename "$f" .json).txt" 2>&1
        say "compare $1 $(basename "$f") with $base: exit $? (1: slower than the baseline)"
    done
    bundle ;;
mgpu-scaling)
    for run in table2 min; do
        # shellcheck disable=SC2086
        "$sb/stagebench" study bench/studies/rdme-multi-gpu.study ${RDME_SCALING_ARGS:-} \
            --out "$out/rdme-multi-gpu" --run $run > "$out/rdme-multi-gpu-$run.log" 2>&1
        say "study rdme-multi-gpu ($run): exit $? ($(tail -n 1 "$out/rdme-multi-gpu-$run.log"))"
        bundle
    done ;;
mgpu-study)
    "$sb/stagebench" study bench/studies/rdme-multi-gpu.study --out "$out/rdme-multi-gpu" \
        --run fig8 --run min --run handicap > "$out/rdme-multi-gpu.log" 2>&1
    say "study rdme-multi-gpu (fig8, min, handicap): exit $?"
    bundle ;;
copies-study)
    "$sb/stagebench" study bench/studies/copies-fig4.study --out "$out/copies" > "$out/copies.log" 2>&1
    say "study copies-fig4: exit $?"
    bundle
    # the MPI line: one mpirun of two processes per payload size
    sh tests/mpi_copies.sh "$sb/stagebench" > "$out/mpi_copies.log" 2>&1
    say "test mpi_copies: exit $? $(tail -n 1 "$out/mpi_copies.log")"
    for b in 4 64 1024 16384 32768 262144 1048576 4194304 16777216 67108864 268435456; do
        mpirun $(as_root) --oversubscribe -np 2 "$sb/stagebench" run copies --variant mpi \
            --param bytes=$b --metrics none --no-activity --min-samples 10 --min-time 0.1 \
            --max-noise 0.05 --timeout 1 --out "$out/copies/mpi-$b.json" > /dev/null 2>&1
    done
    python3 bench/tools/merge-mpi-records "$out/copies" fig4 >> "$summary"
    bundle ;;
angio-study)
    "$sb/stagebench" study bench/studies/angio-paper.study --out "$out/angio-paper" \
        > "$out/angio-paper.log" 2>&1
    say "study angio-paper: exit $? ($(tail -n 1 "$out/angio-paper.log"))"
    bundle ;;
motility-study)
    # shellcheck disable=SC2086
    "$sb/stagebench" study bench/studies/motility-paper.study ${MM_STUDY_ARGS:-} --out "$out/motility-paper" \
        > "$out/motility-paper.log" 2>&1
    say "study motility-paper: exit $? ($(tail -n 1 "$out/motility-paper.log"))"
    bundle
    motility_mpi_rows ;;
motility-mpi)
    motility_mpi_rows ;;
esac

# bench/scripts/device-check's test steps (sh bench/scripts/device/tests.sh STEP, from the
# repository root; bench/scripts/device/lib.sh says where things are):
#   tests        every GPU test binary carried in .carry/sb/tests (77 = skipped), then the RDME
#                multi-GPU test on 2, 3, 4 and 8 GPUs (77: this machine has fewer)
#   rdme-tests   the RDME GPU tests alone (and the multi-GPU ones as above)
#   angio-tests  the angio GPU test (every GPU stage against cpu-reference)
#   motility-tests  motility's GPU test on 1 GPU (every stage) and the device macro's, the
#                multi-GPU stages on 2 and 4 GPUs, and the mpi stage under mpirun on 1, 2 and 4
#                processes (MM_TEST_GPUS="1 2 4": which counts)
#   isolation    tests/isolation.sh and tests/isolation_gpu.sh with .carry/sb/tests/faulty_stagebench:
#                crashes, hangs, and real GPU faults (illegal address, device-side assert, a kernel
#                that hangs) each cost only their own record under run --isolate
#   rdme-mpi     the mpi stage under mpirun, a process per GPU (tests/mpi_rdme.sh; 77: fewer GPUs)
set -u
. bench/scripts/device/lib.sh
case $1 in
tests | rdme-tests)
    pattern=gpu_
    [ "$1" = rdme-tests ] && pattern=gpu_rdme
    for t in "$sb"/tests/$pattern*; do
        name=$(basename "$t")
        if [ ! -x "$t" ]; then # the glob matched nothing: no test was carried
            say "test $name: FAILED (no test binaries in $sb/tests: run bench/scripts/pack-for-device or carry them)"
            continue
        fi
        start=$(date +%s)
        "$t" > "$out/$name.log" 2>&1
        test_line "$name" "$start" $? 'bitwise|launches|PASSED|FAILED'
        bundle
    done
    for n in 2 3 4 8; do
        name=gpu_rdme_mgpu_${n}gpus
        if [ ! -x "$sb/tests/gpu_rdme_mgpu" ]; then
            say "test $name: FAILED (no $sb/tests/gpu_rdme_mgpu: run bench/scripts/pack-for-device or carry it)"
            continue
        fi
        start=$(date +%s)
        "$sb/tests/gpu_rdme_mgpu" $n > "$out/$name.log" 2>&1
        test_line "$name" "$start" $? 'bitwise|SKIPPED|FAILED'
        bundle
    done ;;
angio-tests)
    "$sb/tests/gpu_angio_variants" > "$out/gpu_angio_variants.log" 2>&1
    rc=$?
    say "test gpu_angio_variants: exit $rc $(grep -E 'agree|PASSED|FAILED' "$out/gpu_angio_variants.log" | tr '\n' ' ')"
    [ $rc = 0 ] || [ $rc = 77 ] || tail -n 30 "$out/gpu_angio_variants.log"
    bundle ;;
motility-tests)
    for n in ${MM_TEST_GPUS:-1 2 4}; do
        name=gpu_motility_variants_$n
        "$sb/tests/gpu_motility_variants" $n > "$out/$name.log" 2>&1
        rc=$?
        say "test $name: exit $rc $(grep -E 'agree|on one GPU|PASSED|FAILED|SKIPPED' "$out/$name.log" | tr '\n' ' ')"
        [ $rc = 0 ] || [ $rc = 77 ] || tail -n 30 "$out/$name.log"
        if [ $n = 1 ]; then
            "$sb/tests/gpu_motility_macro" > "$out/gpu_motility_macro.log" 2>&1
            say "test gpu_motility_macro: exit $? $(grep -E 'PASSED|FAILED' "$out/gpu_motility_macro.log" | tr '\n' ' ')"
        fi
        sh tests/mpi_motility.sh "$sb/stagebench" $n > "$out/mpi_motility_$n.log" 2>&1
        say "test mpi_motility $n: exit $? $(tail -n 1 "$out/mpi_motility_$n.log")"
        bundle
    done ;;
isolation)
    # the CPU faults, then the GPU ones (77 = skipped: no GPU)
    for t in isolation isolation_gpu; do
        start=$(date +%s)
        sh tests/$t.sh "$sb/tests/faulty_stagebench" > "$out/$t.log" 2>&1
        test_line "$t" "$start" $? 'checks passed|isolated run:|SKIPPED|FAIL' 40
        bundle
    done ;;
rdme-mpi)
    sh tests/mpi_rdme.sh "$sb/stagebench" "$gpus" > "$out/mpi_rdme.log" 2>&1
    say "test mpi_rdme ($gpus processes): exit $? $(tail -n 1 "$out/mpi_rdme.log")"
    cat "$out/mpi_rdme.log"
    bundle ;;
esac

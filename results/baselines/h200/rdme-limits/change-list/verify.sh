#!/bin/sh
# The kept kernels (c93a86c's) checked on two H200s in one call, with the build without dynamic
# parallelism (the only one compute-sanitizer's racecheck and synccheck check, and the one that
# fits the carry beside the tree): gpu_rdme_variants, gpu_rdme_mgpu on 1 and 2 GPUs, then
# memcheck, racecheck and synccheck on the RDME stages (the Min system; a crowded lattice whose
# sites overflow; 8 first-order reactions, where gpu-fused's z-sweep reacts). Packed as
# .carry/verify.tar.xz: .carry/sb/{stagebench-nocdp,lib/,tests/}.
set -u
tar -xJf .carry/verify.tar.xz
sb=$PWD/.carry/sb
o=/tmp/verify; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpus.txt
for t in "gpu_rdme_variants-nocdp" "gpu_rdme_mgpu-nocdp" "gpu_rdme_mgpu-nocdp 2"; do
    set -- $t
    log=$o/$(echo "$t" | tr ' ' _).log
    s=$(date +%s)
    "$sb/tests/$1" ${2:-} > "$log" 2>&1
    echo "test $t: exit $? in $(( $(date +%s) - s )) s; $(grep -E 'bitwise|PASSED|FAILED|SKIPPED' "$log" | tail -n 2 | tr '\n' ' ')" | tee -a $o/summary.txt
    tar -czf "$OUT/verify.tar.gz" -C /tmp verify
done
for tool in memcheck racecheck synccheck; do
    for lattice in min crowded reactions; do
        case $lattice in
        min) args="--param scenario=min-system" ;;
        crowded) args="--param scenario=particles --param particles=4194304" ;;
        reactions) args="--param scenario=reactions --param reactions=8" ;;
        esac
        s=$(date +%s)
        # shellcheck disable=SC2086
        timeout 200 compute-sanitizer --tool $tool --error-exitcode 9 "$sb/stagebench-nocdp" run rdme $args \
            --param steps=3 --param sample_steps=1 --variant cpu-reference,gpu,gpu-graph,gpu-fused \
            --reference cpu-reference --metrics none --no-activity --warmup 0 --min-samples 1 \
            --min-time 0 --timeout 0.001 --out $o/$tool-$lattice.json > $o/$tool-$lattice.log 2>&1
        rc=$?
        echo "compute-sanitizer $tool $lattice (stagebench-nocdp): exit $rc in $(( $(date +%s) - s )) s; $(grep -E 'SUMMARY' $o/$tool-$lattice.log | tr '\n' ' '); $(grep -cE ' valid ' $o/$tool-$lattice.log) valid" | tee -a $o/summary.txt
        tar -czf "$OUT/verify.tar.gz" -C /tmp verify
    done
done
echo; cat $o/summary.txt

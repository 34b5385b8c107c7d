#!/bin/sh
# One device call for a build against its base (28c14a1 against ce14c15, c93a86c against
# 28c14a1, f55ccb7 against c93a86c): gpu_rdme_variants, the red blood cell and the Min system timed against the base build
# (two processes of each, alternating), Nsight Compute on the new build's step, then the modes in
# RD_MORE (e.g. rdme-source). The builds come packed (stripped) as .carry/rd.tar.xz:
# .carry/sb/{stagebench,stagebench-base,lib/,tests/gpu_rdme_variants}. Where the tree left no room
# for the test (f55ccb7), the GPU stages are validated against cpu-reference instead on the Min
# system and 8 first-order reactions (validate-*.json).
set -u
tar -xJf .carry/rd.tar.xz
if [ ! -x .carry/sb/tests/gpu_rdme_variants ]; then
    mkdir -p /tmp/sb-work
    for lattice in "min --param scenario=min-system --param steps=20" \
                   "reactions --param scenario=reactions --param reactions=8 --param steps=60"; do
        # shellcheck disable=SC2086
        set -- $lattice
        name=$1; shift
        LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64" .carry/sb/stagebench run rdme \
            "$@" --variant cpu-reference,gpu,gpu-graph,gpu-fused --reference cpu-reference \
            --warmup 0 --min-samples 1 --min-time 0 --out /tmp/sb-work/validate-$name.json 2>&1 | tail -n 6
    done
fi
SB_AB_REPS=2 SB_AB_NCU_BUILDS="new:$PWD/.carry/sb/stagebench" \
SB_AB_RUNS="rbc rdme --variant gpu,gpu-fused --param cell=rbc --param spacing=8 --param steps=20 --reference gpu;min rdme --variant gpu-graph,gpu-fused --param scenario=min-system --param steps=20000 --reference gpu" \
    sh bench/device-check rdme-tests ab ab-ncu ${RD_MORE:-}

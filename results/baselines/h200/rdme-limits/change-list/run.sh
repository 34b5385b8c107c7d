#!/bin/sh
# One device call for 28c14a1 (the gathers' list: the sites the moves change) against ce14c15:
# gpu_rdme_variants, the red blood cell and the Min system timed against the base build (two
# processes of each, alternating), Nsight Compute on the new build's step. The builds come packed
# (stripped) as .carry/rd.tar.xz: .carry/sb/{stagebench,stagebench-base,lib/,tests/}.
set -u
tar -xJf .carry/rd.tar.xz
SB_AB_REPS=2 SB_AB_NCU_BUILDS="new:$PWD/.carry/sb/stagebench" \
SB_AB_RUNS="rbc rdme --variant gpu,gpu-fused --param cell=rbc --param spacing=8 --param steps=20 --reference gpu;min rdme --variant gpu-graph,gpu-fused --param scenario=min-system --param steps=20000 --reference gpu" \
    sh bench/device-check rdme-tests ab ab-ncu

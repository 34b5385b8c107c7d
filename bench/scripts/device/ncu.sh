# bench/scripts/device-check's Nsight Compute steps (sh bench/scripts/device/ncu.sh STEP):
#   nvtx         ncu limited to one variant's timed sample by its NVTX range: one timed sample of
#                host-loop beside gpu-histogram, ncu keeping the kernels launched inside
#                host-loop's sample range (bench/tools/ncu-kernel-counts); then host-loop's
#                launches a run from its activity records (bench/tools/activity-launches)
#   rdme-ncu     one step of each RDME kernel (dividing E. coli, 8 nm)
#   rdme-source  the source counters on the second step's sweeps (red blood cell, 8 nm, gpu;
#                SB_RDME_SOURCE_RUN: other run arguments, SB_RDME_SOURCE_KERNELS: other kernels,
#                an ncu regex, e.g. one_pass with --variant one-pass): where each sweep's
#                instructions go between its barriers (bench/tools/ncu-sass-phases,
#                rdme-source-phases-K.md), the source pages kept as .csv.xz
#   angio-ncu    one step of 2^20 random cells (SB_ANGIO_NCU_VARIANT, default sorted): the
#                validation run's kernels (the interaction's parts apart) and the timed run's
#                (fused), with warp-stall reasons; key figures per cell
#                (bench/tools/ncu-key-figures), and where each interaction kernel's instructions
#                and stalls go by source line (bench/tools/ncu-source-lines). Another run:
#                SB_ANGIO_NCU_RUN (stagebench run's angio arguments), SB_ANGIO_NCU_CELLS (the
#                cells the key figures divide by), SB_ANGIO_NCU_LAUNCHES (ncu's selection, e.g.
#                "--launch-skip 1501 --launch-count 5": one step of the tumour's validation run;
#                a graph with a loop, as the later runs launch, ncu cannot profile kernel by kernel)
#   ab-ncu       one step (the second) of the RDME kernels on the red blood cell at 8 nm for the
#                base build (.carry/sb/stagebench-base, SB_AB_BASE) and this one, or the builds
#                in SB_AB_NCU_BUILDS (NAME:PATH ...): details pages as CSV and their key figures
#                in ab-ncu-NAME-key.md (SB_AB_NCU_RUN: other run arguments, SB_AB_NCU_SITES their
#                lattice sites)
set -u
. bench/scripts/device/lib.sh
one_sample="--metrics none --no-activity --warmup 0 --min-samples 1 --min-time 0 --timeout 0.001"
case $1 in
nvtx)
    # ncu reads '/' in a range name as nesting: escape it
    ncu --version | tail -n 1 >> "$summary"
    # shellcheck disable=SC2086
    ncu --clock-control none --nvtx --nvtx-include 'procell\/host-loop\/sample/' \
        --metrics gpu__time_duration.sum --csv --page raw \
        "$sb/stagebench" run procell --param histogram="$ut1" --param phi_min=11.0 \
        --variant host-loop,gpu-histogram $one_sample --out "$out/nvtx.json" > "$out/ncu.csv" 2> "$out/ncu.err"
    rc=$?
    say "ncu --nvtx-include 'procell\/host-loop\/sample/': exit $rc, $(python3 bench/tools/ncu-kernel-counts "$out/ncu.csv")"
    bundle
    "$sb/stagebench" run procell --param histogram="$ut1" --param phi_min=11.0 --variant host-loop \
        --metrics none --warmup 0 --min-samples 1 --min-time 0 --timeout 0.001 --out "$out/nvtx-activity.json"
    python3 bench/tools/activity-launches "$out/nvtx-activity.json" >> "$summary"
    bundle ;;
rdme-ncu)
    # shellcheck disable=SC2086
    ncu --clock-control none --kernel-name regex:'sweep|react' --launch-skip 4 --launch-count 4 \
        --section SpeedOfLight --section Occupancy --section WarpStateStats \
        --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis \
        "$sb/stagebench" run rdme --param cell=dividing-ecoli --param spacing=8 --param steps=3 \
        --variant gpu --reference gpu $one_sample --out "$out/ncu-rdme.json" > "$out/ncu-rdme.txt" 2>&1
    say "ncu rdme kernels: exit $?"
    grep -E '^  [a-z_]+<|sweep|react|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|Issued Warp|No Eligible|L1/TEX Hit|L2 Hit|Mem Busy|Max Bandwidth|Block Limit' "$out/ncu-rdme.txt" | head -150
    bundle ;;
rdme-source)
    link_source_root
    ncu --version | tail -n 1 >> "$summary"
    rm -f "$out/rdme-source.ncu-rep"
    # shellcheck disable=SC2086
    ncu --clock-control none --kernel-name regex:"${SB_RDME_SOURCE_KERNELS:-sweep}" --launch-skip 3 --launch-count 3 \
        --import-source yes --section LaunchStats --section SpeedOfLight --section InstructionStats \
        --section WarpStateStats --section SourceCounters -o "$out/rdme-source" \
        "$sb/stagebench" run ${SB_RDME_SOURCE_RUN:-rdme --param cell=rbc --param spacing=8 --param steps=3 --variant gpu --reference gpu} \
        $one_sample --out "$out/rdme-source-record.json" > "$out/rdme-source.log" 2>&1
    say "rdme-source: ncu exit $?"
    ncu --import "$out/rdme-source.ncu-rep" --csv --page source --print-source cuda,sass \
        > "$out/rdme-source.csv" 2>&1 && xz -T0 -9 "$out/rdme-source.csv"
    ncu --import "$out/rdme-source.ncu-rep" --csv --page source --print-source sass \
        > "$out/rdme-source-sass.csv" 2>&1
    rm -f "$out/rdme-source.ncu-rep"
    # each sweep by the stretches of its code between barriers (the CUDA page's line counts are
    # not usable for kernels.cu: docs/limits.md, "The gathers' global index")
    k=0
    grep '^"Kernel Name"' "$out/rdme-source-sass.csv" | sed 's/^"Kernel Name","//; s/(const .*//' |
        awk '!seen[$0]++' | while read -r kernel; do
        { echo "$kernel"; python3 bench/tools/ncu-sass-phases "$out/rdme-source-sass.csv" --markdown \
            --kernel "$kernel"; } > "$out/rdme-source-phases-$k.md"
        say "rdme-source: $kernel, exit $? (rdme-source-phases-$k.md)"
        k=$((k + 1))
    done
    xz -T0 -9 "$out/rdme-source-sass.csv"
    bundle ;;
angio-ncu)
    # the report keeps the kernels' source (-lineinfo) for the source page
    v=${SB_ANGIO_NCU_VARIANT:-sorted}
    link_source_root
    stalls=""
    for r in long_scoreboard short_scoreboard wait barrier branch_resolving no_instruction \
        math_pipe_throttle lg_throttle mio_throttle not_selected selected dispatch_stall drain \
        membar imc_miss tex_throttle sleeping; do
        stalls="$stalls${stalls:+,}smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
    done
    ncu --version | tail -n 1 >> "$summary"
    rm -f "$out/angio-ncu-$v.ncu-rep"
    # shellcheck disable=SC2086
    ncu --clock-control none --kernel-name regex:'kernel' ${SB_ANGIO_NCU_LAUNCHES:-} --import-source yes \
        --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
        --section InstructionStats --section LaunchStats --section Occupancy \
        --section WarpStateStats --section SchedulerStats --section SourceCounters \
        --metrics "$stalls" -o "$out/angio-ncu-$v" \
        "$sb/stagebench" run angio ${SB_ANGIO_NCU_RUN:---param cells=1048576 --param steps=1} --variant "$v" \
        $one_sample --out "$out/angio-ncu-$v-record.json" > "$out/angio-ncu-$v.log" 2>&1
    rc=$?
    ncu --import "$out/angio-ncu-$v.ncu-rep" --csv --page details > "$out/angio-ncu-$v-details.csv" 2>&1
    python3 bench/tools/ncu-key-figures "$out/angio-ncu-$v-details.csv" "${SB_ANGIO_NCU_CELLS:-1048576}" cell --markdown \
        > "$out/angio-ncu-$v-key.md"
    say "angio-ncu $v: ncu exit $rc, key figures exit $?"
    ncu --import "$out/angio-ncu-$v.ncu-rep" --csv --page source --print-source cuda,sass \
        > "$out/angio-ncu-$v-source.csv" 2>&1
    python3 bench/tools/ncu-source-lines "$out/angio-ncu-$v-source.csv" > "$out/angio-ncu-$v-lines.md"
    say "angio-ncu $v: source lines exit $? (angio-ncu-$v-lines.md)"
    rm -f "$out/angio-ncu-$v-source.csv"
    sed "s/^/angio-ncu $v: /" "$out/angio-ncu-$v-key.md" >> "$summary"
    bundle ;;
ab-ncu)
    base=${SB_AB_BASE:-$sb/stagebench-base}
    ncu --version | tail -n 1 >> "$summary"
    for pair in ${SB_AB_NCU_BUILDS:-base:$base new:$sb/stagebench}; do
        side=${pair%%:*} bin=${pair#*:}
        if [ ! -x "$bin" ]; then
            say "ab-ncu $side: FAILED (no build at $bin)"
            continue
        fi
        # shellcheck disable=SC2086
        ncu --clock-control none --kernel-name regex:'sweep|react' --launch-skip 4 --launch-count 4 \
            --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
            --section InstructionStats --section LaunchStats --section Occupancy --csv --page details \
            "$bin" run ${SB_AB_NCU_RUN:-rdme --param cell=rbc --param spacing=8 --param steps=3 --variant gpu --reference gpu} \
            $one_sample --out "$out/ab-ncu-$side-record.json" > "$out/ab-ncu-$side.log" 2>&1
        rc=$?
        grep '^"' "$out/ab-ncu-$side.log" > "$out/ab-ncu-$side-details.csv"
        python3 bench/tools/ncu-key-figures "$out/ab-ncu-$side-details.csv" "${SB_AB_NCU_SITES:-250000000}" \
            --markdown > "$out/ab-ncu-$side-key.md"
        say "ab-ncu $side: ncu exit $rc, key figures exit $?"
        sed "s/^/ab-ncu $side: /" "$out/ab-ncu-$side-key.md" >> "$summary"
    done
    bundle ;;
esac

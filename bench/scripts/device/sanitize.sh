# bench/scripts/device-check's compute-sanitizer steps (sh bench/scripts/device/sanitize.sh STEP;
# each run by sanitize_one in bench/scripts/device/lib.sh):
#   sanitize       memcheck, racecheck and synccheck on every GPU stage of every workload at a
#                  small size, the multi-GPU ones on this machine's GPUs (one will do): rdme's
#                  exchange stages on two slabs sharing GPU 0 (gpus=1 slabs=2), mgpu-nccl as one
#                  rank, the mpi stages as one mpirun process, procell's and motility's multi-GPU
#                  stages on the GPUs there are (motility's in 3 row slices); copies' two-GPU
#                  variants only where there are 2 GPUs. racecheck and synccheck run
#                  .carry/sb/stagebench-nocdp, where the host stands in for ProCell's device-side
#                  launches and for the device-side graph loops over the same kernels
#                  (CMakeLists.txt, SB_CDP); then each tool on a device-side while loop (a
#                  conditional graph node), on the no-CDP build's host loop of it, and on the
#                  kernel launched plainly. SB_SANITIZE_TOOLS and SB_SANITIZE_WORKLOADS (the names
#                  below) narrow it, SB_SANITIZE_LIMIT (s, default 180) bounds each run.
#   rdme-sanitize  memcheck and racecheck on the RDME GPU stages, a few steps: the Min system
#                  (both site formats) and bench/suites/rdme-strips.rdme (the strips)
set -u
. bench/scripts/device/lib.sh
case $1 in
sanitize)
    say "$(compute-sanitizer --version | grep -i version | tail -n 1); $gpus GPU(s)"
    rdme_min="--param scenario=min-system --param steps=2"
    mm="--param outer=16 --param inner=16 --param steps=1"
    for tool in ${SB_SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
        for w in ${SB_SANITIZE_WORKLOADS:-procell rdme rdme-slabs rdme-nccl rdme-mpi angio motility motility-original motility-mpi copies copies-2gpu}; do
            # shellcheck disable=SC2086
            case $w in
            procell)
                sanitize_one $tool $w 0 procell --param histogram="$ut1" --param t_max=24 \
                    --variant host-loop,dynamic-parallelism,bounding,depth-inference,gpu-histogram,subtree-dfs,multi-gpu,split-trees ;;
            rdme) sanitize_one $tool $w 0 rdme $rdme_min --variant gpu,gpu-zero-copy-overflow,gpu-graph,gpu-fused,one-pass ;;
            rdme-slabs)
                sanitize_one $tool $w 0 rdme $rdme_min --param gpus=1 --param slabs=2 \
                    --param balance_steps=1 --param balance_threshold=0 \
                    --variant mgpu-staged,mgpu-peer,mgpu-peer-overlap,mgpu-balanced,gpu-graph ;;
            rdme-nccl) sanitize_one $tool $w 0 rdme $rdme_min --param gpus=1 --variant mgpu-nccl ;;
            rdme-mpi) sanitize_one $tool $w 1 rdme $rdme_min --variant mpi ;;
            angio)
                sanitize_one $tool $w 0 angio --param cells=4096 \
                    --variant gpu-naive,neighbor-list,shared-memory,texture,tube-lists,pinned,resident,sorted ;;
            motility)
                sanitize_one $tool $w 0 motility $mm --param slices=3 \
                    --variant resident,optimized,optimized-fp64,optimized-no-fast-math,optimized-no-launch-bounds,optimized-no-dimension-mapping,optimized-no-reorder,optimized-no-unroll,optimized-block-16x16,multi-gpu,gpu-macro,multi-gpu-macro ;;
            motility-original)
                sanitize_one $tool $w 0 motility $mm --param inner_dt=global --param integrator=ab2 \
                    --param piece_tails=37 --variant original ;;
            motility-mpi) sanitize_one $tool $w 1 motility $mm --variant mpi ;;
            copies) sanitize_one $tool $w 0 copies --param bytes=65536 --variant host-to-gpu ;;
            copies-2gpu)
                if [ "$gpus" -ge 2 ]; then
                    sanitize_one $tool $w 0 copies --param bytes=65536 --variant gpu-host-gpu,gpu-peer,nccl
                else
                    say "compute-sanitizer $tool copies-2gpu: SKIPPED (gpu-host-gpu, gpu-peer, nccl copy from GPU 0 to GPU 1; $gpus GPU here)"
                fi ;;
            *) say "compute-sanitizer $tool $w: FAILED (no such sanitize workload)"
               sanitize_failed=$((sanitize_failed + 1)) ;;
            esac
        done
    done
    for tool in racecheck synccheck; do
        for probe in "graph_loop_probe plain" "graph_loop_probe loop" "graph_loop_probe-nocdp loop"; do
            log=$out/probe-$tool-$(echo "$probe" | tr ' ' '-').log
            if [ ! -x "$sb/tests/${probe%% *}" ]; then
                say "compute-sanitizer $tool $probe: not run (no $sb/tests/${probe%% *}: carry it, bench/scripts/pack-for-device puts it there)"
                continue
            fi
            # shellcheck disable=SC2086
            timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$sb/tests/"$probe > "$log" 2>&1
            say "compute-sanitizer $tool $probe: exit $? ($(grep -E 'SUMMARY|passes right|Error|error' "$log" | sort -u | head -n 3 | tr '\n' ' '))"
        done
    done
    say "sanitize: $sanitize_failed run(s) not clean"
    bundle ;;
rdme-sanitize)
    for tool in memcheck racecheck; do
        for format in packed32 byte16; do
            sanitize_one "$tool" "rdme-$format" 0 rdme --param scenario=min-system --param steps=3 \
                --param site_format=$format --param sample_steps=1 --variant gpu,gpu-zero-copy-overflow
        done
        # rows of 256 sites: the sweeps by warp strips, which the Min system's 64 do not reach
        sanitize_one "$tool" rdme-strips 0 rdme --param scenario=file \
            --param model=bench/suites/rdme-strips.rdme --param steps=2 --variant gpu,gpu-fused,one-pass
    done ;;
esac

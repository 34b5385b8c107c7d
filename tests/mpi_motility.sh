#!/bin/sh
# GPU test: motility's mpi stage as users run it, `mpirun -np N stagebench run motility --variant
# mpi`, rows of tails over N processes (sharing the machine's GPUs round-robin when there are
# fewer): validated by the harness on every process against cpu-reference (the mixed-precision
# bounds), then against `optimized` on one GPU within 1e-5 (the same kernel: equal up to the
# order of the force's sums). Exit 77 (SKIPPED) without mpirun or a GPU.
#   sh tests/mpi_motility.sh STAGEBENCH [N]
sb=$1
n=${2:-2}
command -v mpirun > /dev/null || { echo "SKIPPED: no mpirun (install openmpi-bin)"; exit 77; }
# the GPUs listed (nvidia-smi without a driver prints its failure on stdout)
gpus=$(nvidia-smi -L 2> /dev/null | grep -c "^GPU [0-9]")
[ "$gpus" -ge 1 ] || { echo "SKIPPED: no GPU"; exit 77; }
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for case in "outer=16 steps=3" "outer=12 inner=32 steps=2 init=random"; do
    for ref in "cpu-reference" "optimized --param rtol_mixed=1e-5 --param rtol_mixed_bound=1e-5"; do
        args=""
        for p in $case; do args="$args --param $p"; done
        rm -f "$tmp/mpi.json"
        # shellcheck disable=SC2086
        mpirun $root --oversubscribe -np "$n" "$sb" run motility --variant mpi $args \
            --reference $ref --metrics none --no-activity --min-samples 2 --min-time 0 \
            --timeout 0.5 --out "$tmp/mpi.json" > "$tmp/log" 2>&1
        rc=$?
        verdict=$(python3 -c "
import json, sys
b = [x['stagebench'] for x in json.load(open(sys.argv[1]))['benchmarks'] if x['stagebench']['variant'] == 'mpi']
print(b[0]['status'], b[0]['validation']['status'])
" "$tmp/mpi.json" 2> /dev/null)
        echo "mpi on $n processes ($gpus GPU), $case, against ${ref%% *}: exit $rc, $verdict"
        case "$rc $verdict" in
        "0 valid passed") ;;
        *) fails=$((fails + 1)); tail -n 20 "$tmp/log" ;;
        esac
    done
done
[ $fails = 0 ] && echo "PASSED: mpi on $n processes agrees with cpu-reference and optimized" && exit 0
echo "FAILED: $fails case(s)"
exit 1

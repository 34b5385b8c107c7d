#!/bin/sh
# GPU test: the rdme mpi stage as users run it, `mpirun -np N stagebench run rdme --variant mpi`,
# one process per GPU, validated bitwise against cpu-reference by the harness on every process:
# the paper's scenarios (overflow every step, reactions, byte16 sites, the Min system with
# samples, the barrier). Exit 77 (SKIPPED) without mpirun or with fewer than N GPUs.
#   sh tests/mpi_rdme.sh STAGEBENCH [N]
sb=$1
n=${2:-2}
command -v mpirun > /dev/null || { echo "SKIPPED: no mpirun (install openmpi-bin)"; exit 77; }
# the GPUs listed (nvidia-smi without a driver prints its failure on stdout)
gpus=$(nvidia-smi -L 2> /dev/null | grep -c "^GPU [0-9]")
[ "$gpus" -ge "$n" ] || { echo "SKIPPED: needs $n GPUs, this machine has $gpus"; exit 77; }
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for case in "scenario=homogeneous cell=ecoli spacing=16 steps=20" \
            "scenario=particles particles=3000000 steps=4" \
            "scenario=reactions steps=10 site_format=byte16" \
            "scenario=min-system steps=30 sample_steps=10" \
            "scenario=barrier steps=6"; do
    args=""
    for p in $case; do args="$args --param $p"; done
    rm -f "$tmp/mpi.json"
    # shellcheck disable=SC2086
    mpirun $root --oversubscribe -np "$n" "$sb" run rdme --variant mpi $args \
        --reference cpu-reference --metrics none --no-activity --min-samples 2 --min-time 0 \
        --timeout 0.5 --out "$tmp/mpi.json" > "$tmp/log" 2>&1
    rc=$?
    verdict=$(python3 -c "
import json, sys
b = [x['stagebench'] for x in json.load(open(sys.argv[1]))['benchmarks'] if x['stagebench']['variant'] == 'mpi']
print(b[0]['status'], b[0]['validation']['status'], 'overflowed', b[0]['derived']['output'].get('overflow_particles'))
" "$tmp/mpi.json" 2> /dev/null)
    echo "mpi on $n processes, $case: exit $rc, $verdict"
    case "$rc $verdict" in
    "0 valid passed"*) ;;
    *) fails=$((fails + 1)); tail -n 20 "$tmp/log" ;;
    esac
done
[ $fails = 0 ] && echo "PASSED: bitwise equal to cpu-reference on $n processes" && exit 0
echo "FAILED: $fails case(s)"
exit 1

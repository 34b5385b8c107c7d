#!/bin/sh
# GPU test: the copies workload's mpi variant as users run it, `mpirun -np 2 stagebench run copies
# --variant mpi`, validated bitwise against cpu-memcpy by the harness in both processes, at odd
# sizes. Exit 77 (SKIPPED) without mpirun or with fewer than 2 GPUs.
#   sh tests/mpi_copies.sh STAGEBENCH
sb=$1
command -v mpirun > /dev/null || { echo "SKIPPED: no mpirun (install openmpi-bin)"; exit 77; }
# the GPUs listed (nvidia-smi without a driver prints its failure on stdout)
gpus=$(nvidia-smi -L 2> /dev/null | grep -c "^GPU [0-9]")
[ "$gpus" -ge 2 ] || { echo "SKIPPED: needs 2 GPUs, this machine has $gpus"; exit 77; }
root=""
[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
for bytes in 4 4099 1048583 67108867; do
    rm -f "$tmp/mpi.json"
    # shellcheck disable=SC2086
    mpirun $root --oversubscribe -np 2 "$sb" run copies --variant mpi --param bytes=$bytes \
        --metrics none --no-activity --min-samples 3 --min-time 0 --timeout 0.5 \
        --out "$tmp/mpi.json" > "$tmp/log" 2>&1
    rc=$?
    verdict=$(python3 -c "
import json, sys
b = [x['stagebench'] for x in json.load(open(sys.argv[1]))['benchmarks'] if x['stagebench']['variant'] == 'mpi']
print(b[0]['status'], b[0]['validation']['status'], '%.2f us' % (b[0]['time']['median'] * 1e6))
" "$tmp/mpi.json" 2> /dev/null)
    echo "mpi copy of $bytes bytes: exit $rc, $verdict"
    case "$rc $verdict" in
    "0 valid passed"*) ;;
    *) fails=$((fails + 1)); tail -n 20 "$tmp/log" ;;
    esac
done
[ $fails = 0 ] && echo "PASSED: bitwise equal to cpu-memcpy" && exit 0
echo "FAILED: $fails size(s)"
exit 1

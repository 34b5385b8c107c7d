#!/bin/sh
# The Min system's host-launched RDME gpu stage (80,000 launches a run, the record that ends the
# goals' noise figure on the timeout) in three processes each: free, pinned to one CPU (taskset
# -c 2) and to two (taskset -c 2-3), alternating, with the measurement defaults. Does the host's
# scheduling of the launching thread set its noise? Packed as .carry/goals.tar.xz (.carry/sb).
set -u
tar -xJf .carry/goals.tar.xz
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
o=/tmp/pin; mkdir -p $o
nproc > $o/cpus.txt; nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader >> $o/cpus.txt
for i in 1 2 3; do
    for mode in free one two; do
        case $mode in free) pre="" ;; one) pre="taskset -c 2" ;; two) pre="taskset -c 2-3" ;; esac
        mkdir -p $o/$mode
        # shellcheck disable=SC2086
        $pre .carry/sb/stagebench run rdme --variant gpu --param scenario=min-system --param steps=20000 \
            --reference gpu --quiet --out $o/$mode/rep$i.json > $o/$mode-rep$i.log 2>&1
        python3 - "$o/$mode/rep$i.json" "$mode" "$i" <<'PY' | tee -a $o/summary.txt
import json, sys
s = json.load(open(sys.argv[1]))["benchmarks"][0]["stagebench"]
t = s["time"]
print(f"{sys.argv[2]:5} rep{sys.argv[3]}: median {t['median']:.4f} s, robust noise {100 * t['noise_robust']:.2f} %, "
      f"{len(t.get('samples') or [])} samples, stop {s['stop_reason']}, preempted {s['host']['preempted_samples']}")
PY
        tar -czf "$OUT/pin.tar.gz" -C /tmp pin
    done
done

#!/bin/sh
# compute-sanitizer on angio's resident and sorted with divisions and deaths over 11 steps (a turn
# of the graph's loop and 3 steps after it), max_cells under and over the one-block life cycle
set -u
cd "$(dirname "$0")"
o=/tmp/san; mkdir -p $o
m="--param cells=3000 --param steps=11 --param t_mature=0 --param c_div=0.8 --param c_dead=0.6 --param c_hyp=0.7 --param t_dead=1 --param consumption=0.03"
for tool in memcheck racecheck synccheck; do
  bin=./stagebench; [ $tool = memcheck ] || bin=./stagebench-nocdp
  for mc in 16000 48000; do
    s=$(date +%s)
    timeout 240 compute-sanitizer --tool $tool --error-exitcode 9 $bin run angio $m --param max_cells=$mc --variant resident,sorted \
      --metrics none --no-activity --warmup 0 --min-samples 1 --min-time 0 --timeout 0.001 --warm --out $o/$tool-$mc.json > $o/$tool-$mc.log 2>&1
    rc=$?
    echo "compute-sanitizer $tool max_cells=$mc ($bin): exit $rc in $(( $(date +%s) - s )) s; $(grep -E 'SUMMARY' $o/$tool-$mc.log | tr '\n' ' '); $(grep -cE 'valid +[0-9.]+ ' $o/$tool-$mc.log) valid" | tee -a $o/summary.txt
  done
done
tar -czf $OUT/san.tar.gz -C /tmp san

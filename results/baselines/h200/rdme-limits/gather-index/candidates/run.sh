#!/bin/sh
# append_sites by counts + the gather's global index on overflow only: tests, ncu, A/B timing
set -u
d=.carry/exp/rd
ln -sfn ../../sb/lib $d/lib
o=/tmp/rd; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $o/gpu.txt
for b in ${RD_TESTS:-full noasm}; do
    start=$(date +%s)
    $d/gpu_rdme_variants-$b > $o/test-$b.log 2>&1
    echo "test $b: exit $? in $(( $(date +%s) - start )) s; $(grep -c 'ok\|PASS' $o/test-$b.log) ok lines" | tee -a $o/summary.txt
    tail -n 3 $o/test-$b.log
done
[ -x .carry/sb/stagebench ] || ln -sf ../exp/rd/stagebench-base .carry/sb/stagebench
builds=${RD_BUILDS:-base full noasm}
pairs=""
for b in ${RD_NCU:-$builds}; do pairs="$pairs $b:$d/stagebench-$b"; done
SB_AB_NCU_BUILDS="$pairs" sh bench/device-check ab-ncu > $o/ab-ncu.log 2>&1
cp /tmp/sb-work/ab-ncu-*-key.md $o/ 2>/dev/null
for b in ${RD_NCU:-$builds}; do echo "== $b"; cat $o/ab-ncu-$b-key.md; done | tee -a $o/summary.txt
for i in $(seq ${RD_REPS:-2}); do
    for b in $builds; do
        mkdir -p $o/$b-rbc $o/$b-min
        $d/stagebench-$b run rdme --variant gpu,gpu-fused --param cell=rbc --param spacing=8 --param steps=20 \
            --reference gpu --quiet --out $o/$b-rbc/rep$i.json > $o/$b-rbc-rep$i.log 2>&1 || echo "rbc $b $i: exit $?" | tee -a $o/summary.txt
        $d/stagebench-$b run rdme --variant gpu-graph,gpu-fused --param scenario=min-system --param steps=20000 \
            --reference gpu --quiet --out $o/$b-min/rep$i.json > $o/$b-min-rep$i.log 2>&1 || echo "min $b $i: exit $?" | tee -a $o/summary.txt
    done
    tar -czf $OUT/rd.tar.gz -C $o .
done
for b in $builds; do
    [ $b = base ] && continue
    for w in rbc min; do
        $d/stagebench-base compare $o/base-$w $o/$b-$w > $o/compare-$w-$b.txt 2>&1
        echo "== compare $w base vs $b"; cat $o/compare-$w-$b.txt
    done
done | tee -a $o/summary.txt
tar -czf $OUT/rd.tar.gz -C $o .

#!/bin/sh
# The rdme studies and the study keys they use: both study files pass `study --check` (every
# point's parameters, the variants, references and figure scripts); in tiny studies made here
# with the CPU variants, `reference` validates the records against the named variant, `dump`
# writes one output per point, a run's `option` lines override the study's for that run only;
# a bad key is one line naming file:line, exit 2, nothing run; every rdme figure script draws
# from tiny cpu-reference records, their step-loop columns filled in here (CPU records have
# none), and fig. 7's fit finds the slope put in.   usage: sh tests/study_rdme.sh path/to/stagebench
set -u
sb=$1
studies=$(cd "$(dirname "$0")/../bench/studies" && pwd)
. "$(dirname "$0")/shlib.sh"
has() { # text: stdout has it
    grep -qF -- "$1" "$tmp/out" || fail "stdout lacks '$1'"
}

# --check: the plan of each study, nothing run
expect 0 "check rdme-single-gpu" "$sb" study "$studies/rdme-single-gpu.study" --check
for line in "run fig5: 8 points; variants gpu,gpu-zero-copy-overflow; reference gpu" \
            "run fig6: 13 points" "run fig7: 8 points" \
            "figure fig7: data from fig7, script rdme-fig7.gp"; do
    has "$line"
done
expect 0 "check rdme-min" "$sb" study "$studies/rdme-min.study" --check
has "run min: 1 point; variants gpu; reference gpu; option warmup 0; option min-samples 1; \
option min-time 0; option timeout 0.001; option no-activity; dump min.txt"

# bad lines: one line naming file:line, exit 2, nothing written
study_start='study bad
workload rdme
run r
  param scenario=homogeneous
  param cell=ecoli
  variants cpu-reference'
for case in "  frobnicate 3:cannot read 'frobnicate'" \
            "  option timeout -1:timeout" \
            "  option colour red:unknown option 'colour'" \
            "  reference warp-drive:reference warp-drive is not a variant of rdme" \
            "  variants cpu-reference,warp-drive:'warp-drive' is not a variant" \
            "  dump ../escape:without '/'" \
            "  param spacing=-3:spacing" \
            "figure g data from=r:needs script=" \
            "figure g time from=nosuch:no run 'nosuch'"; do
    text=${case%:*} says=${case##*:}
    printf '%s\n%s\nfigure f data from=r script=rdme-fig5.gp\n' "$study_start" "$text" > "$tmp/bad.study"
    expect 2 "bad line '$text'" "$sb" study "$tmp/bad.study" --out "$tmp/bad"
    case $text in
        *param*) one_line_naming "bad.study:3: run r: parameter spacing" ;; # at the run's line
        *) one_line_naming "bad.study:7" ;;
    esac
    grep -qF -- "$says" "$tmp/err" || fail "the message of '$text' says '$says'"
    [ ! -e "$tmp/bad" ] || fail "a refused study wrote $tmp/bad"
done

# reference: records say which variant validated them
printf '10 0\n12.5 40\n20 30\n35.5 25\n' > "$tmp/h.txt"
cat > "$tmp/ref.study" <<STUDY
study ref
workload procell
option min-samples 2
option min-time 0
option timeout 1
run r
  param histogram=$tmp/h.txt
  param t_max=48
  variants cpu-reference,cpu-openmp
  reference cpu-openmp
STUDY
expect 0 "reference cpu-openmp" "$sb" study "$tmp/ref.study" --out "$tmp/ref" --quiet
json "$tmp/ref/r.json" "v={b['stagebench']['variant']: b['stagebench']['validation'] \
for b in d['benchmarks']}; \
assert v['cpu-openmp']['status']=='is-reference', v; \
assert v['cpu-reference']['status']=='passed' and v['cpu-reference']['against']=='cpu-openmp', v"
# a GPU reference (not itself timed: it is not among the variants) validates the other stage on
# a GPU; without one the run is refused, naming it
cat > "$tmp/gpuref.study" <<STUDY
study gpuref
workload rdme
option min-samples 1
option min-time 0
option timeout 0.001
run r
  param scenario=homogeneous
  param spacing=64
  param steps=2
  variants gpu-zero-copy-overflow
  reference gpu
STUDY
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    expect 0 "reference gpu" "$sb" study "$tmp/gpuref.study" --out "$tmp/gpuref" --quiet
    json "$tmp/gpuref/r.json" "v=[b['stagebench'] for b in d['benchmarks']]; \
assert [(x['variant'], x['status'], x['validation']['against']) for x in v]==\
[('gpu-zero-copy-overflow', 'valid', 'gpu')], v"
else
    expect 2 "reference gpu without a GPU" "$sb" study "$tmp/gpuref.study" --out "$tmp/gpuref"
    one_line_naming "gpuref.study:6: run r: "
    grep -q "needs a GPU" "$tmp/err" || fail "the message says the reference needs a GPU"
fi

# The rdme studies' runs made tiny, on the CPU reference, with the figure lines of the real
# files; the min run's own options override the study's (2 samples instead of 1).
cat > "$tmp/tiny.study" <<STUDY
study tiny-rdme
workload rdme
option warmup 0
option min-samples 1
option min-time 0
option timeout 0.001
option metrics none
run fig5
  param scenario=homogeneous
  param steps=2
  sweep cell=ecoli,dividing-ecoli
  sweep spacing=64,32
  variants cpu-reference
  reference cpu-reference
  dump cells
run fig6
  param scenario=particles
  param steps=1
  sweep particles=0,3000000,5000000
  variants cpu-reference
run fig7
  param scenario=reactions
  param steps=1
  sweep reactions=0,2,4
  variants cpu-reference
run min
  param scenario=min-system
  param steps=2
  param sample_steps=1
  variants cpu-reference
  dump min
  option min-samples 2
  option max-noise 1
  option timeout 10
STUDY
grep '^figure' "$studies/rdme-single-gpu.study" "$studies/rdme-min.study" | cut -d: -f2- \
    >> "$tmp/tiny.study"
[ "$(grep -c '^figure' "$tmp/tiny.study")" = 5 ] || fail "the studies' five figure lines"
out="$tmp/tiny"
expect 0 "tiny study" "$sb" study "$tmp/tiny.study" --out "$out"
json "$out/min.json" "m=d['context']['stagebench']['measurement']; \
assert (m['min_samples'], m['max_noise'], m['timeout_s'], m['warmup_runs'])==(2, 1, 10, 0), m; \
assert d['benchmarks'][0]['iterations']==2, d['benchmarks'][0]['iterations']"
json "$out/fig5.json" "m=d['context']['stagebench']['measurement']; \
assert m['min_samples']==1 and m['timeout_s']==0.001, m; \
assert [b['iterations'] for b in d['benchmarks']]==[1, 1, 1, 1]"
for point in cell=ecoli,spacing=64 cell=ecoli,spacing=32 cell=dividing-ecoli,spacing=64 \
             cell=dividing-ecoli,spacing=32; do
    [ -s "$out/cells-$point.txt" ] && [ -s "$out/cells-$point.txt.lattice" ] ||
        fail "dump of point $point"
done
[ "$(ls "$out" | grep -c '^cells-.*\.txt$')" = 4 ] || fail "one dump per point: $(ls "$out")"
grep -q '^# rdme output: homogeneous dividing-ecoli 32 nm' \
    "$out/cells-cell=dividing-ecoli,spacing=32.txt" ||
    fail "the dump of a point is that point's output"
[ -s "$out/min.txt" ] && [ -s "$out/min.txt.lattice" ] || fail "the dump of a run of one point"
# rdme-min.gp reads MinDm + MinDEm as columns 8 and 9 of index 1
grep -q '^# step time_s z all MinD-ATP MinD-ADP MinE MinDm MinDEm$' "$out/min.txt" ||
    fail "the Min dump's per-plane columns moved: plots/rdme-min.gp reads MinDm, MinDEm as 8, 9"

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "study_rdme: $n checks passed; gnuplot not installed: figures skipped"
    exit 77
fi
# CPU records have no step-loop timing: the figures that need it say so; the Min figure draws
has "figure fig5: not drawn:"
has "no valid record has a steady_simulated_s_per_hour value: GPU stages' records do"
has "figure min: $out/min.png"
[ -s "$out/min.png" ] && [ -s "$out/min.svg" ] || fail "min figure"

# Step-loop columns by hand: time per step = 20 us + 3 us per reaction (fig. 7 must find 3),
# the whole run's figures elsewhere, and half the DRAM peak.
python3 - "$out" <<'EOF' || fail "filling in the step-loop columns"
import csv, sys
for run in ("fig5", "fig6", "fig7", "min"):
    path = "%s/%s.csv" % (sys.argv[1], run)
    rows = list(csv.DictReader(open(path, newline="")))
    for r in rows:
        r["steady_s"] = float(r["median_s"])
        if run == "fig7":
            r["steady_s"] = float(r["steps"]) * (20e-6 + 3e-6 * float(r["reactions"]))
        r["steady_items_per_second"] = float(r["items"]) / r["steady_s"]
        r["steady_simulated_s_per_hour"] = (float(r["simulated_s_per_hour"]) *
                                            float(r["median_s"]) / r["steady_s"])
        r["steady_pct_peak_dram"] = 50
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
EOF
expect 0 "figures from the records" "$sb" study "$tmp/tiny.study" --out "$out" --figures-only
has "5 of 5 figures"
for fig in fig5 fig5-bandwidth fig6 fig7 min; do
    [ -s "$out/$fig.png" ] && [ -s "$out/$fig.svg" ] || fail "figure $fig"
done
grep -q '^cpu-reference 3 ' "$out/fig7-slope.txt" ||
    fail "fig. 7's slope: $(cat "$out/fig7-slope.txt")"
grep -q 'fit: +3 µs per reaction per step' "$out/fig7.svg" || fail "the slope in fig. 7's key"
grep -q 'first overflow' "$out/fig6.svg" || fail "fig. 6 marks the overflow onset"
grep -q '134 on one GTX 680' "$out/min.svg" ||
    fail "the Min figure's measured rate beside the paper's"
# a data figure whose dump is missing says which run writes it; with --figures-only, a figure
# not drawn is an error (exit 2, on stderr), where it exited 0 before
rm "$out/min.txt"
expect 2 "figures without a dump" "$sb" study "$tmp/tiny.study" --out "$out" --figures-only
has "figure min: not drawn: $out/min.txt: No such file or directory: run min writes it"
has "4 of 5 figures"
one_line_naming "tiny.study:.*: figure min: not drawn: $out/min.txt: No such file or directory: run min writes it"
echo "study_rdme: $n checks passed"

#!/bin/sh
# Records to read with care (one timed sample, or noise, the samples' stdev over their mean,
# above 5 %: sb_record_caution) are marked: a study table's cell gets a dagger, with a legend
# line saying the limit, where the cell's record or its base's is one; a time or speed-up figure
# rings the point (its caution column in the .dat is 1, the key says why) and every figure,
# a data figure's script of its own too, carries a note at its foot. Records made here (a real
# CPU run's, their samples and noise set by hand); tables and figures redrawn with
# study --figures-only and plot. 77: gnuplot missing.
#   usage: sh tests/caution.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"
command -v gnuplot >/dev/null 2>&1 || { echo "SKIPPED: gnuplot not installed"; exit 77; }

printf '10 0\n12.5 40\n20 30\n35.5 25\n' > "$tmp/h.txt"
# the study's own figure script sits with the generic ones, where studies find scripts
mkdir -p "$tmp/plots"
cp plots/*.gp "$tmp/plots/"
export STAGEBENCH_PLOTS="$tmp/plots"
cat > "$tmp/plots/caution-own.gp" <<'GP'
# a figure script of the study's own (kind data): the medians from the CSV view
needed = "median_s"
load "records.gp"
set terminal svg size 600,400 noenhanced
set output outbase.".svg"
plot datafile using (column("t_max")):(of("cpu-reference", "median_s")) with points title "cpu-reference"
set terminal pngcairo size 600,400 noenhanced
set output outbase.".png"
replot
set output
GP
cat > "$tmp/c.study" <<STUDY
study caution
workload procell
option min-samples 3
option min-time 0
option timeout 1
run a
  param histogram=$tmp/h.txt
  sweep t_max=60,120
  variants cpu-reference,cpu-openmp
figure times time from=a
figure speed speedup from=a baseline=cpu-reference
figure own data from=a script=caution-own.gp
table t from=a cols=t_max col-label="{t_max} h" value=time unit=ms title="caution"
  row cpu-reference variant=cpu-reference
  row cpu-openmp variant=cpu-openmp speedup=cpu-reference
  row "cpu-openmp memory" variant=cpu-openmp value=memory
STUDY
expect 0 "the study's run" "$sb" study "$tmp/c.study" --out "$tmp/clean"

# doctor: every record 5 samples 1 % apart (noise under 5 %); then, in a copy, cpu-reference at
# t_max 60 with 46 % noise and cpu-openmp at t_max 120 with one sample
python3 - "$tmp/clean/a.json" "$tmp/flagged/a.json" <<'EOF' || fail "doctoring the records"
import copy, json, os, sys
d = json.load(open(sys.argv[1]))
for b in d["benchmarks"]:
    t = b["stagebench"]["time"]
    m = t["median"]
    t["samples"] = [m * (1 + 0.005 * k) for k in (-2, -1, 0, 1, 2)]
    t["noise"] = 0.0079
json.dump(d, open(sys.argv[1], "w"))
for b in d["benchmarks"]:
    sb = b["stagebench"]
    if (sb["variant"], sb["params"]["t_max"]) == ("cpu-reference", "60"):
        sb["time"]["noise"] = 0.46
    if (sb["variant"], sb["params"]["t_max"]) == ("cpu-openmp", "120"):
        sb["time"]["samples"] = [sb["time"]["median"]]
os.makedirs(os.path.dirname(sys.argv[2]))
json.dump(d, open(sys.argv[2], "w"))
EOF
cp "$tmp/clean/a.csv" "$tmp/flagged/a.csv"

for side in clean flagged; do
    expect 0 "tables and figures of the $side records" "$sb" study "$tmp/c.study" --out "$tmp/$side" --figures-only
done

# the table: the dagger where the cell's record, or its base's, is to be read with care; memory
# is no time (never marked); the legend says the limit only where a cell is marked
t=$tmp/flagged/t.md
grep -q "^| cpu-reference | [0-9.]* † | [0-9.]* |$" "$t" || fail "t.md: cpu-reference at 60 h marked, at 120 h not: $(cat "$t")"
grep -q "^| cpu-openmp | [0-9.]* ([0-9.]*×) † | [0-9.]* ([0-9.]*×) † |$" "$t" ||
    fail "t.md: cpu-openmp marked at 60 h (its base) and 120 h (one sample): $(cat "$t")"
grep -q "^| cpu-openmp memory | [0-9.]* B | [0-9.]* B |$" "$t" || fail "t.md: a memory cell is never marked: $(cat "$t")"
grep -q "†: read with care: the cell's record, or its base's, has one sample, or noise (its samples' standard deviation over their mean) above 5 %." "$t" ||
    fail "t.md: the legend states the limit"
! grep -q "†" "$tmp/clean/t.md" || fail "clean t.md has a dagger: $(cat "$tmp/clean/t.md")"

# the figures: the caution column (1 where ringed), the key's words and the note at the foot
python3 - "$tmp/flagged/times.dat" "$tmp/flagged/speed.dat" "$tmp/clean/times.dat" <<'EOF' || fail "the caution columns"
import sys
def blocks(path):
    out, label = {}, None
    for line in open(path):
        if line.startswith("# index"):
            label = line.split(": ", 1)[1].strip()
            out[label] = {}
        elif line.startswith("# one block"):
            assert line.rstrip().endswith(" caution"), line
        elif line.strip() and not line.startswith("#"):
            cols = line.split()
            out[label][cols[0]] = cols[4]
    return out
assert blocks(sys.argv[1]) == {"cpu-reference": {"60": "1", "120": "0"},
                               "cpu-openmp": {"60": "0", "120": "1"}}, blocks(sys.argv[1])
# a speed-up is read with care where its record or the baseline's is
assert blocks(sys.argv[2]) == {"cpu-openmp": {"60": "1", "120": "1"}}, blocks(sys.argv[2])
assert all(v == "0" for b in blocks(sys.argv[3]).values() for v in b.values())
EOF
has() { grep -qF -- "$2" "$1" || fail "$(basename "$1") lacks '$2'"; }
has "$tmp/flagged/times.svg" "† one sample, or noise > 5 %: read with care"
has "$tmp/flagged/times.svg" "† 2 of 4 points: one sample, or noise (stdev/mean) above 5 %: read with care"
has "$tmp/flagged/speed.svg" "† 2 of 2 points: one sample, or noise (stdev/mean) above 5 %: read with care"
has "$tmp/flagged/own.svg" "† 2 of 4 records: one sample, or noise (stdev/mean) above 5 %: read with care"
for f in times speed own; do
    [ -s "$tmp/flagged/$f.png" ] || fail "$f.png not drawn"
    ! grep -q "read with care" "$tmp/clean/$f.svg" || fail "clean $f.svg says read with care"
done
# the ringed points: one plot more than the lines, and the key's line
python3 - "$tmp/flagged/times.svg" "$tmp/clean/times.svg" <<'EOF' || fail "the ringed points' plots"
import re, sys
flagged, clean = (len(re.findall(r'<g id="gnuplot_plot_\d+"', open(p).read())) for p in sys.argv[1:])
assert clean == 2 and flagged == 2 + 2 + 1, (flagged, clean)  # 2 lines; 2 ring plots, a key line
EOF

# stagebench plot itself, on the flagged records
expect 0 "plot of flagged records" "$sb" plot "$tmp/flagged/a.json" --x t_max --out "$tmp/p"
has "$tmp/p.svg" "† 2 of 4 points"
echo "caution: $n checks passed"

#!/bin/sh
# `stagebench study` as a user meets it, on the CPU: every point's input files checked before
# anything runs (a missing ProCell histogram names get-data); --figures-only fails on a figure or
# table it cannot make and on a folder without records, but only says so of figures gnuplot is
# not here to draw; records committed as .json.xz draw as .json ones do (the committed rdme-study
# folder, its CSV views read from its extras.tar.xz); a --define the file never uses and a file
# that is not text are refused in one line (the bytes never echoed); the progress (k of N, the
# time taken and left) in plain lines on stderr when it is not a terminal, silent with --quiet;
# --check's estimated duration from reference records, or why there is none.
#   usage: sh tests/study_cli.sh path/to/stagebench
set -u
sb=$1
root=$(cd "$(dirname "$0")/.." && pwd)
studies=$root/bench/studies
. "$(dirname "$0")/shlib.sh"
has() { # text: stdout has it
    grep -qF -- "$1" "$tmp/out" || fail "stdout lacks '$1'"
}
err_has() { # text: stderr has it
    grep -qF -- "$1" "$tmp/err" || fail "stderr lacks '$1'"
}
gnuplot=1
command -v gnuplot >/dev/null 2>&1 || gnuplot=0

printf '10 0\n12.5 40\n20 30\n35.5 25\n' > "$tmp/h.txt"
cat > "$tmp/s.study" <<STUDY
study tiny
workload procell
option min-samples 3
option min-time 0
option timeout 0.2
option warmup 0
run a
  param histogram=$tmp/h.txt
  sweep t_max=30,60
  variants cpu-reference,cpu-openmp
run b
  param histogram=$tmp/h.txt
  sweep t_max=30,45
  variants cpu-reference
figure times time from=a
figure times-b time from=b
table ta from=a cols=t_max value=time unit=ms
  row cpu-reference
table tb from=b value=time unit=ms
  row cpu-reference
STUDY

# 1. Inputs: every point's files are there before anything runs, --check included.
expect 2 "a missing ProCell histogram" "$sb" study "$studies/procell-thesis.study" --check \
    --define DATA="$tmp/nodata"
one_line_naming "procell-thesis.study:24: run ut1: histogram=$tmp/nodata/AML9_Exp3_t10d_UT1_BM_GFPpos.txt (point 1 of 9): No such file or directory"
err_has "sh bench/scripts/get-data"
touch "$tmp/a.model"
cat > "$tmp/m.study" <<STUDY
study m
workload rdme
run r
  param scenario=file
  param steps=1
  sweep model=$tmp/a.model,$tmp/nomodel
  variants cpu-reference
STUDY
expect 2 "a missing model at the second point" "$sb" study "$tmp/m.study" --check
one_line_naming "m.study:6: run r: model=$tmp/nomodel (point 2 of 2): No such file or directory"
cat > "$tmp/t.study" <<STUDY
study t
workload procell
run r
  param histogram=$tmp/h.txt
  param types=$tmp/types.txt
  variants cpu-reference
STUDY
expect 2 "a missing types file, running" "$sb" study "$tmp/t.study" --out "$tmp/t"
one_line_naming "t.study:5: run r: types=$tmp/types.txt (its one point): No such file or directory; give the path of a file that is there"
[ ! -e "$tmp/t" ] || fail "a study refused for a missing input wrote $tmp/t"
sed "s|types=$tmp/types.txt|types=m4|" "$tmp/t.study" > "$tmp/t4.study"
expect 0 "a preset types value names no file" "$sb" study "$tmp/t4.study" --check

# 4. A --define the file never uses.
expect 2 "a misspelt define" "$sb" study "$studies/rdme-single-gpu.study" --check --define STEP=10
one_line_naming "--define STEP=...: $studies/rdme-single-gpu.study never uses \${STEP} (it uses \${STEPS})"
expect 2 "a define a file without keys" "$sb" study "$tmp/s.study" --check --define N=3
one_line_naming "never uses \${N}, nor any \${KEY}"
expect 0 "a define the file uses, and DATA" "$sb" study "$studies/rdme-single-gpu.study" --check \
    --define STEPS=10 --define DATA="$tmp"

# 5. Not text: one line naming file:line and the byte, nothing of the file echoed.
head -c 4096 "$sb" > "$tmp/binary.study"
printf 'study x\nworkload procell\nrun a\033[31m red\n' > "$tmp/escape.study"
printf 'study x\nworkload procell\n# caf\303\251 is text\nrun a\0b\n' > "$tmp/nul.study"
printf 'study x\n\377\376\n' > "$tmp/latin.study"
for case in "binary.study:1: not text: a control byte (0x7f)" \
            "escape.study:3: not text: a control byte (0x1b) at column 6" \
            "nul.study:4: not text: a NUL byte (0x00) at column 6" \
            "latin.study:2: not text: a byte that is not UTF-8 (0xff)"; do
    file=${case%%:*}
    expect 2 "not text: $file" "$sb" study "$tmp/$file" --check
    one_line_naming "$case"
    [ ! -s "$tmp/out" ] || fail "$file: something on stdout"
    python3 -c "import sys; b=open(sys.argv[1],'rb').read(); \
sys.exit(any(c < 0x20 and c != 0x0a or c == 0x7f for c in b))" "$tmp/err" ||
        fail "$file: a control byte echoed on stderr"
done

# 6. Progress: plain lines on stderr (not a terminal here), k of N points, elapsed, time left.
expect 0 "the study" "$sb" study "$tmp/s.study" --out "$tmp/st"
err_has "study tiny: 4 items"
err_has "study tiny: 1 of 4 a t_max=30, "
err_has "study tiny: 3 of 4 b t_max=30, "
grep -q "^study tiny: 2 of 4 a t_max=60, [0-9]* s elapsed, about [0-9]* s left$" "$tmp/err" ||
    fail "the time left after the first point"
grep -q "^study tiny: 4 of 4 done in [0-9]* s$" "$tmp/err" || fail "the last progress line"
expect 0 "the study, quiet" "$sb" study "$tmp/s.study" --out "$tmp/stq" --quiet
[ ! -s "$tmp/err" ] || fail "--quiet printed progress"
# on a terminal (util-linux script's), stdout in a file: one line rewritten in place
if script -qc true /dev/null >/dev/null 2>&1; then
    expect 0 "the study on a terminal" script -qc "'$sb' study '$tmp/s.study' --out '$tmp/stt' > '$tmp/stt.out'" "$tmp/tty.log"
    python3 -c "import sys; t=open(sys.argv[1],'rb').read(); \
sys.exit(not (b'\r\033[Kstudy tiny: 2 of 4 a t_max=60, ' in t and b'\r\033[Kstudy tiny: 4 of 4 done in ' in t))" \
        "$tmp/tty.log" || fail "no line rewritten in place on a terminal: $(cat -A "$tmp/tty.log")"
fi
# --check's estimate: from the records given, else none here (this study has no baselines)
expect 0 "check without reference records" "$sb" study "$tmp/s.study" --check
has "no estimate: no reference records for this study"
expect 0 "check with reference records" "$sb" study "$tmp/s.study" --check --estimate-from "$tmp/st"
grep -q "^estimated duration: about [0-9]* s, from the records in $tmp/st/ (" "$tmp/out" ||
    fail "the estimate from $tmp/st"
expect 0 "a run weighed by reference records" "$sb" study "$tmp/s.study" --out "$tmp/st2" \
    --estimate-from "$tmp/st"
err_has "study tiny: 4 items, expected to take about "
err_has "study tiny: the time left weighed by the records in $tmp/st/"
mkdir "$tmp/empty"
expect 2 "--estimate-from a folder without the study's records" "$sb" study "$tmp/s.study" \
    --check --estimate-from "$tmp/empty"
one_line_naming "--estimate-from $tmp/empty: no records of s.study's points there"
# a device's folder: the study's own folder in it (the committed H100 baselines)
expect 0 "estimate from a device's folder" "$sb" study "$studies/rdme-single-gpu.study" --check \
    --estimate-from "$root/results/baselines/h100-80gb-hbm3"
grep -q "^estimated duration: about [0-9]* min [0-9]* s, from the records in $root/results/baselines/h100-80gb-hbm3/rdme-study/ (" "$tmp/out" ||
    fail "the estimate from the H100's rdme-study folder"

# 2. --figures-only: a folder without records, a figure it cannot draw.
expect 2 "--figures-only over an empty folder" "$sb" study "$tmp/s.study" --out "$tmp/empty" --figures-only
one_line_naming "no records in $tmp/empty (the runs of $tmp/s.study write a.json there"
expect 2 "--figures-only over no folder" "$sb" study "$tmp/s.study" --out "$tmp/none" --figures-only
one_line_naming "no records in $tmp/none"
mkdir "$tmp/half"
cp "$tmp/st/a.json" "$tmp/st/a.csv" "$tmp/half/" # run b's records missing
expect 2 "--figures-only without run b's records" "$sb" study "$tmp/s.study" --out "$tmp/half" --figures-only
one_line_naming "s.study:16: figure times-b: not drawn: unable to open $tmp/half/b.json: No such file"
has "figure times-b: not drawn: "
# a table without its records is made ("—": goals read "not measured" so, bench/scripts/goals)
has "table tb: $tmp/half/tb.md"
has "| cpu-reference | — |"
# gnuplot missing: the figures are skipped, said, and the tables made (exit 0)
expect 0 "--figures-only without gnuplot" env PATH=/nonexistent "$sb" study "$tmp/s.study" \
    --out "$tmp/st" --figures-only
has "figure times: skipped: gnuplot is not installed"
has "0 of 2 figures (2 skipped: gnuplot is not installed); 2 of 2 tables"

# 3. .json.xz records: the committed rdme-study folder (fig6 as .json.xz), its CSV views in
# extras.tar.xz, read from there (unpacked into a temporary folder, removed after, nothing added
# to the records' folder); a CSV view is NAME.csv whether the records are NAME.json or .json.xz.
cp -r "$root/results/baselines/h100-80gb-hbm3/rdme-study" "$tmp/rdme"
mkdir "$tmp/tmpdir"
TMPDIR="$tmp/tmpdir" expect 0 "rdme-study from .json and .json.xz records, CSV views in extras.tar.xz" \
    "$sb" study "$studies/rdme-single-gpu.study" --out "$tmp/rdme" --figures-only
! ls "$tmp/rdme"/*.csv > /dev/null 2>&1 || fail "CSV views unpacked into the records' folder"
[ -z "$(ls "$tmp/tmpdir")" ] || fail "the temporary CSV views left: $(ls "$tmp/tmpdir")"
! grep -q "json.csv" "$tmp/err" "$tmp/out" || fail "a CSV view named after .json"
# without them anywhere: the figure is not drawn, and says where it looked
cp -r "$tmp/rdme" "$tmp/rdme-bare" && rm "$tmp/rdme-bare/extras.tar.xz"
expect 2 "rdme-study without its CSV views" "$sb" study "$studies/rdme-single-gpu.study" \
    --out "$tmp/rdme-bare" --figures-only
err_has "rdme-single-gpu.study:62: figure fig6: not drawn: $tmp/rdme-bare/fig6.csv: No such file or directory (the CSV view is written beside $tmp/rdme-bare/fig6.json.xz)"
tar -cJf "$tmp/rdme-bare/extras.tar.xz" -T /dev/null
expect 2 "rdme-study, its extras.tar.xz without the CSV views" "$sb" study \
    "$studies/rdme-single-gpu.study" --out "$tmp/rdme-bare" --figures-only
err_has "figure fig6: not drawn: $tmp/rdme-bare/fig6.csv: No such file or directory, and not in $tmp/rdme-bare/extras.tar.xz either (the CSV view of $tmp/rdme-bare/fig6.json.xz)"
expect 0 "rdme-study from .json and .json.xz records" "$sb" study \
    "$studies/rdme-single-gpu.study" --out "$tmp/rdme" --figures-only
xz -k "$tmp/st/a.json" && rm "$tmp/st/a.json" # the study's own records, compressed as committed
if [ $gnuplot = 0 ]; then
    has "0 of 4 figures (4 skipped: gnuplot is not installed); 3 of 3 tables"
    echo "study_cli: $n checks passed; gnuplot not installed: figures skipped"
    exit 77
fi
has "4 of 4 figures; 3 of 3 tables"
[ -s "$tmp/rdme/fig6.png" ] && [ -s "$tmp/rdme/fig6.svg" ] || fail "fig. 6 from fig6.json.xz"
expect 0 "figures from a.json.xz" "$sb" study "$tmp/s.study" --out "$tmp/st" --figures-only
has "2 of 2 figures; 2 of 2 tables"
echo "study_cli: $n checks passed"

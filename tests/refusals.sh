#!/bin/sh
# Refused inputs through the command line (issue 23): for each parser of user files, bad files
# (among them the inputs fuzzing found, tests/fuzz/corpus/*/regress-*) end in exit 2 and one line
# on stderr that names the file, and the line at fault, and says how to fix it.
#   usage: sh tests/refusals.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"
corpus=$(dirname "$0")/fuzz/corpus
run="--variant cpu-reference --min-samples 1 --min-time 0 --timeout 1 --out $tmp/r.json"
refused() { # text-expected-on-the-one-line command...
    says=$1
    shift
    expect 2 "refused: $says" "$@"
    one_line_naming "$says"
    [ ! -e "$tmp/r.json" ] || fail "a refused input left records"
}

# ProCell: histogram and types
printf '1.0 2\n2.0 x\n' > "$tmp/h.txt"
refused "h.txt:2: count 'x' is not a number; write a whole number" "$sb" run procell --param histogram="$tmp/h.txt" $run
printf '0.5 40\n' > "$tmp/t.txt"
refused "t.txt:1: expected 3 fields 'proportion mean stddev', found 2; e.g." "$sb" run procell --param histogram="$corpus/procell_histogram/plain.txt" --param types="$tmp/t.txt" $run
# a types value that is neither a preset nor a file: the presets named, and the file form
refused "parameter types: 'm9' is not a preset (m1, m2, m3, m4) and not a file that opens (No such file or directory); give a preset, or the path of a file of 'proportion mean stddev' lines" \
    "$sb" run procell --param histogram="$corpus/procell_histogram/plain.txt" --param types=m9 $run

# rdme's model file
printf 'lattice 8 8 8\nspacing 1e-8\ntimestep 1e-6\nspecies A\nparticle A 9 0 0\n' > "$tmp/m.rdme"
refused "m.rdme:5: particle at (9, 0, 0): outside the 8 x 8 x 8 lattice; give 0 <= X < 8" "$sb" run rdme --param scenario=file --param model="$tmp/m.rdme" $run
printf 'lattice 8 8 8\nspacing 1e-8\ntimestep 1e-6\nspecies A A\n' > "$tmp/twice.rdme"
refused "twice.rdme:4: species 'A' declared twice; declare it once" "$sb" run rdme --param scenario=file --param model="$tmp/twice.rdme" $run

# angio's state: the two inputs fuzzing found
refused "regress-oom-cells-announced.txt:5: x '" "$sb" run angio --param scenario=file --param state="$corpus/angio_state/regress-oom-cells-announced.txt" $run
grep -q "is not a finite number in \[0, 400); write it in micrometres" "$tmp/err" || fail "angio: the fix"
refused "regress-side-boxes-int.txt: a domain of side 1.67109e+14 um holds" "$sb" run angio --param scenario=file --param state="$corpus/angio_state/regress-side-boxes-int.txt" $run
grep -q "boxes a side (at most 1024): use fewer cells or a higher density" "$tmp/err" || fail "angio: the fix"

# motility's state
printf 'motility-state 1\nouter 8\ninner 4\n0 0 1 0.5 0 0\n' > "$tmp/ms.txt"
refused "ms.txt:4: a cell line needs 3 + N_i = 7 fields" "$sb" run motility --param init=file --param state="$tmp/ms.txt" $run

# study files: the one fuzzing found (its message quoted the line end: two lines), a long line
refused "regress-unclosed-define-newline.study:4: unclosed \${ in '\${STEPS'; write \${NAME}" "$sb" study "$corpus/study/regress-unclosed-define-newline.study" --check
python3 -c "print('study s\nworkload rdme\nrun r\n  param steps=' + '1' * 5000)" > "$tmp/long.study"
refused "long.study:4: a line longer than 4094 characters; split it" "$sb" study "$tmp/long.study" --check

# texts past their buffers (fuzzing found a pointer formed past the end of the explanation's
# buffer, undefined behaviour clang's -fsanitize=bounds reports: the study fuzz target keeps the
# input, tests/fuzz/corpus/study/regress-explain-past-buffer.study)
python3 - "$tmp" <<'EOF'
import sys
d = sys.argv[1]
head = "study s\nworkload rdme\nrun r\n  param steps=2\n"
long = '"' + "w" * 600 + '"'
open(d + "/explain.study", "w").write(head + "table t from=r cols=steps value=time\n  row cpu-reference\n  explain cpu-reference " + " ".join([long] * 3) + "\n")
open(d + "/define.study", "w").write("define X " + "x" * 1000 + "\n" + head + "  param seed=" + "${X}" * 6 + "\n")
v = "v" * 60
open(d + "/cols.study", "w").write(head + "table t from=r cols=steps,seed,scenario columns=%s:%s:%s value=time\n  row cpu-reference\n" % (v, v, v))
EOF
refused "explain.study:7: table t: explanation too long" "$sb" study "$tmp/explain.study" --check
refused "define.study:6: value too long after expansion" "$sb" study "$tmp/define.study" --check
# a column's label past its 128 bytes (three long values; the third's append began past the end
# of the buffer): cut to 127 characters, not refused
expect 0 "a long column label" "$sb" study "$tmp/cols.study" --check
label="steps=$(printf '%060d' 0 | tr 0 v), seed=$(printf '%054d' 0 | tr 0 v)"
grep -qx "table t: from r, 1 row x 1 column ($label), 0 with published values, 0 explained; no run covers $label" "$tmp/out" ||
    fail "a long column label: not cut to 127 characters"

# records: compare, history, plot
printf '{"benchmarks": [{"real_time": 1}]}' > "$tmp/noname.json"
refused "noname.json: benchmarks\[0\] has no \"name\" string; compare records written by" "$sb" compare "$tmp/noname.json" "$tmp/noname.json"
printf '{"benchmarks": [' > "$tmp/cut.json"
refused "cut.json:1: not valid JSON" "$sb" compare "$tmp/cut.json" "$tmp/cut.json"
refused "noname.json: not a stagebench records file" "$sb" history add "$tmp/h.db" "$tmp/noname.json"
[ ! -e "$tmp/h.db" ] || fail "a refused add made a history"
refused "cut.json:1: not valid JSON" "$sb" plot "$tmp/cut.json" --out "$tmp/fig"

# stagebench report: markdown's image syntax in a table's text and in a GPU's name (fuzzing found
# it, tests/fuzz/corpus/report/regress-image-in-table.txt: the HTML page embedded the file it
# named, any PNG of the machine, or the report was refused for a figure not there): text now
folder() { # input dir: the fuzz target's input as the folder it makes (split at form feeds)
    mkdir "$2"
    python3 - "$1" "$2" <<'EOF'
import sys
parts = open(sys.argv[1], "rb").read().split(b"\f")
for name, part in zip(["run.json", "fig5.md", "other.json"], parts):
    open(sys.argv[2] + "/" + name, "wb").write(part)
EOF
}
folder "$corpus/report/regress-image-in-table.txt" "$tmp/rep"
expect 0 "report: images in a table and a GPU's name" "$sb" report "$tmp/rep" --out "$tmp/rep-out"
! grep -q "<img" "$tmp"/rep-out/report-*.html || fail "report: an image of the records' text embedded"
grep -qF 'A note with !\[a figure](fig5.png) in it.' "$tmp/rep-out/report-h100-80gb-hbm3.md" ||
    fail "report: the table's image syntax not shown as text"
# a GPU's name of 300 characters: the page's file name was too long to write (refused naming the
# page, after another GPU's pages were written); the name's first 64 characters name it now
folder "$corpus/report/regress-long-gpu-name.txt" "$tmp/rep-long"
expect 0 "report: a long GPU name" "$sb" report "$tmp/rep-long" --out "$tmp/rep-long"
[ -f "$tmp/rep-long/report-h100-80gb-hbm3-with-a-name-longer-than-a-file-name-may-be-with-a.md" ] ||
    fail "report: a long GPU name's page is not report-<its first 64 characters>.md"
# two GPUs whose pages would have one name: the refusal names the records files (it named the
# GPUs alone, with a line end of a name in it)
folder "$corpus/report/regress-same-page.txt" "$tmp/rep-same"
expect 2 "report: two GPUs, one page name" "$sb" report "$tmp/rep-same"
one_line_naming "rep-same/run.json: its GPU 'NVIDIA H100 80GB HBM3' and $tmp/rep-same/other.json's 'nvidia h100 80GB HBM3' would both be report-h100-80gb-hbm3.md: report them apart"

echo "refusals: $n commands checked"

#!/bin/sh
# The stagebench command as a user runs it: exit codes, one-line errors that name the input,
# nothing written on bad input, validated records, skipped GPU variants without a GPU,
# compare's verdicts, plot and study.   usage: sh tests/cli.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"

printf '# synthetic: fluorescence count\r\n10 0\r\n12.5 40\r\n\r\n20 30 # trailing comment\r\n35.5 25\r\n' > "$tmp/h.txt"
quick="--min-samples 3 --min-time 0 --timeout 1"

# usage
expect 2 "no command" "$sb"
expect 0 "help" "$sb" --help
expect 2 "unknown command" "$sb" frobnicate
expect 0 "list" "$sb" list procell
grep -q "subtree-dfs" "$tmp/out" || fail "list shows the ladder"
# each parameter's range: [min, max], a choice's words, the presets or a file
grep -q "^    name  *default  *range  *what$" "$tmp/out" || fail "list: the parameters' header"
grep -q "^    t_max  *240  *\[1e-09, 1e+06\]  *simulated hours$" "$tmp/out" || fail "list: t_max's range"
grep -q "^    seed  *1  *\[0, 4294967295\]  " "$tmp/out" || fail "list: seed's range, whole"
grep -q "^    grid_percent  *100  *\[1, 100\]  " "$tmp/out" || fail "list: 100, not 1e+02"
grep -q "^    start  *async  *sync|async  *start mode$" "$tmp/out" || fail "list: a choice's words"
grep -q "^    types  *m4  *m1|m2|m3|m4 or a file  *cell types" "$tmp/out" || fail "list: the presets"
grep -q "^    histogram  *-  *a file  " "$tmp/out" || fail "list: a path"
expect 0 "list every workload" "$sb" list
grep -q "^    cell  *ecoli  *ecoli|dividing-ecoli|yeast|rbc  *homogeneous: " "$tmp/out" && grep -q "^    bytes  *32768  *\[4, 17179869184\]  " "$tmp/out" ||
    fail "list: rdme's and copies' ranges"
expect 2 "list unknown workload" "$sb" list nosuch
one_line_naming "nosuch"

# invalid inputs: exit 2, one line naming the input, nothing written
for bad in "--param histogram=$tmp/missing.txt:missing.txt" \
           "--param colour=red:colour" \
           "--param t_max=-5:t_max" \
           "--variant warp-drive:warp-drive" \
           "--max-noise 7:max-noise" \
           "--noise-measure median:noise-measure" \
           "--sample-time -1:sample-time" \
           "--device 99:device" \
           "--repetitions 65:repetitions"; do
    args=${bad%:*}
    expect 2 "bad input $args" "$sb" run procell --param histogram="$tmp/h.txt" $args --out "$tmp/r.json"
    one_line_naming "${bad##*:}"
done
# more assignments than the parameter table holds: refused, not written past its end
many=$(i=0; while [ $i -lt 193 ]; do printf -- '--seed %d ' $i; i=$((i + 1)); done)
expect 2 "193 --seed" "$sb" run procell --param histogram="$tmp/h.txt" $many --out "$tmp/r.json"
one_line_naming "--seed 191" # the 193rd: --param histogram is the first
printf '10 5\n20 -3\n' > "$tmp/negative.txt"
expect 2 "negative count" "$sb" run procell --param histogram="$tmp/negative.txt" --out "$tmp/r.json"
one_line_naming "negative.txt:2"
printf '0.5 40 10\n0.4 20 5\n' > "$tmp/types.txt"
expect 2 "proportions not summing to 1" "$sb" run procell --param histogram="$tmp/h.txt" --param types="$tmp/types.txt" --out "$tmp/r.json"
one_line_naming "types.txt"
expect 2 "no histogram" "$sb" run procell --out "$tmp/r.json"
one_line_naming "histogram"
expect 2 "--kernels without activity records" "$sb" run procell --param histogram="$tmp/h.txt" --kernels --no-activity --out "$tmp/r.json"
one_line_naming "no-activity"
[ ! -e "$tmp/r.json" ] && [ ! -e "$tmp/r.csv" ] || fail "a refused run wrote records"

# --out checked before anything is measured: a folder, a path through a file, a folder that cannot
# be written, the user's own file (or one in the place of the CSV view): exit 2 at once, one line,
# nothing written, the file kept; stagebench's own records file, or an empty one, is replaced
mkdir "$tmp/outdir" && touch "$tmp/afile" && printf 'my notes\n' > "$tmp/notes.txt" && mkdir -p "$tmp/csvdir/r.csv"
for bad in "$tmp/outdir:--out $tmp/outdir: a folder; name a records file in it, e.g. $tmp/outdir/run.json" \
           "$tmp/outdir/:a folder; name a records file in it" \
           "$tmp/afile/sub/r.json:$tmp/afile is a file, not a folder" \
           "$tmp/notes.txt:--out $tmp/notes.txt: it exists and is not records stagebench wrote" \
           "$tmp/csvdir/r.json:its CSV view $tmp/csvdir/r.csv is a folder" \
           "/dev/null:--out /dev/null: it is not a regular file"; do
    out=${bad%%:*}
    expect 2 "--out $out" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-reference $quick --out "$out"
    one_line_naming "${bad#*:}"
    grep -q "valid" "$tmp/out" && fail "--out $out: measured before the refusal"
done
expect 2 "--out a folder, with repetitions" "$sb" run procell --param histogram="$tmp/h.txt" --repetitions 2 --out "$tmp/outdir"
one_line_naming "a folder"
[ -z "$(ls -A "$tmp/outdir")" ] && [ ! -e "$tmp/outdir.csv" ] && [ "$(cat "$tmp/notes.txt")" = "my notes" ] ||
    fail "a refused --out left a file behind or changed the user's"
if [ "$(id -u)" != 0 ]; then # root writes anywhere: the check follows what this user may do
    mkdir "$tmp/locked" && chmod 555 "$tmp/locked"
    expect 2 "--out in a folder not writable" "$sb" run procell --param histogram="$tmp/h.txt" --out "$tmp/locked/r.json"
    one_line_naming "cannot write in $tmp/locked"
    chmod 755 "$tmp/locked"
fi
: > "$tmp/empty.json"
expect 0 "--out an empty file (mktemp's)" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-reference $quick --out "$tmp/empty.json"
json "$tmp/empty.json" "assert len(d['benchmarks']) == 1"
expect 0 "--out the records of an earlier run, replaced" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-openmp $quick --out "$tmp/empty.json"
json "$tmp/empty.json" "assert [b['stagebench']['variant'] for b in d['benchmarks']] == ['cpu-openmp']"

# a CPU run writes validated records and the output
# (12 samples at least: compare below needs enough of them for its U test to be significant)
expect 0 "cpu run" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-reference,cpu-openmp \
    --min-samples 12 --min-time 0 --timeout 2 --out "$tmp/cpu.json" --dump-output "$tmp/hist.txt"
json "$tmp/cpu.json" "b=d['benchmarks']; assert len(b)==2; s=[x['stagebench'] for x in b]; \
assert [x['status'] for x in s]==['valid','valid']; assert s[0]['validation']['status']=='is-reference'; \
assert s[1]['validation']['status']=='passed' and s[1]['validation']['against']=='cpu-reference'; \
assert all(x['iterations']>=12 or x['stagebench']['stop_reason']=='timeout' for x in b); \
assert all(x['stop_reason'] in ('noise','converged','timeout') and x['stop_detail'] and \
x['runs_per_sample']>=1 and x['time']['noise_robust']>=0 and 'preempted_samples' in x['host'] for x in s); \
assert d['context']['stagebench']['measurement']['noise_measure']=='robust'; \
assert b[0]['time_unit']=='ms' and b[0]['real_time']>0 and 'context' in d"
head -n 1 "$tmp/cpu.csv" | grep -q "^name,workload,variant,stage" || fail "CSV header"
[ "$(wc -l < "$tmp/cpu.csv")" = 3 ] || fail "CSV rows"
grep -q "^# procell final histogram" "$tmp/hist.txt" && [ "$(grep -vc '^#' "$tmp/hist.txt")" -gt 0 ] ||
    fail "dumped histogram"

# --variant repeated: the union of the lists, in the order first named, each once
expect 0 "--variant twice" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-openmp \
    --variant cpu-reference,cpu-openmp --variant=cpu-reference $quick --out "$tmp/union.json"
json "$tmp/union.json" "assert [b['stagebench']['variant'] for b in d['benchmarks']] == ['cpu-reference', 'cpu-openmp']"
expect 2 "--variant twice, one unknown" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-openmp --variant nosuch
one_line_naming "unknown variant 'nosuch'"

# progress on stderr, k of N over what it times: a plain line each when stderr is not a terminal
expect 0 "run's progress" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-reference,cpu-openmp $quick --out "$tmp/p.json"
grep -qx "run procell: 2 items" "$tmp/err" &&
    grep -qx "run procell: 1 of 2 cpu-reference, [0-9]* s elapsed" "$tmp/err" &&
    grep -qx "run procell: 2 of 2 cpu-openmp, [0-9]* s elapsed, about [0-9]* s left" "$tmp/err" &&
    grep -qx "run procell: 2 of 2 done in [0-9]* s" "$tmp/err" && [ "$(wc -l < "$tmp/err")" = 4 ] ||
    fail "run's progress"
expect 0 "--quiet: no progress" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-reference $quick --quiet --out "$tmp/q.json"
[ ! -s "$tmp/err" ] || fail "--quiet printed progress"
# the repetitions are the items; a suite's are its lines' repetitions, counted by their runs
expect 0 "run --repetitions' progress" "$sb" run procell --param histogram="$tmp/h.txt" --variant cpu-reference,cpu-openmp \
    $quick --repetitions 2 --out "$tmp/reps.json"
grep -qx "run procell: 2 items" "$tmp/err" && grep -qx "run procell: 1 of 2 repetition 1 of 2, [0-9]* s elapsed" "$tmp/err" &&
    grep -qx "run procell: 2 of 2 repetition 2 of 2, .* left" "$tmp/err" && grep -qx "run procell: 2 of 2 done in .*" "$tmp/err" &&
    [ "$(wc -l < "$tmp/err")" = 4 ] || fail "run --repetitions' progress"
printf 'procell --variant cpu-reference --param histogram=%s\nprocell --variant cpu-openmp,cpu-reference --param histogram=%s --param t_max=48\n' \
    "$tmp/h.txt" "$tmp/h.txt" > "$tmp/p.suite"
expect 0 "suite's progress" "$sb" suite "$tmp/p.suite" --repetitions 2 --out "$tmp/ps" $quick
grep -qx "suite $tmp/p.suite: 4 items" "$tmp/err" &&
    grep -qx "suite $tmp/p.suite: 1 of 4 line 1 (procell), repetition 1 of 2, [0-9]* s elapsed" "$tmp/err" &&
    grep -qx "suite $tmp/p.suite: 3 of 4 line 2 (procell), repetition 1 of 2, .* left" "$tmp/err" &&
    grep -qx "suite $tmp/p.suite: 4 of 4 line 2 (procell), repetition 2 of 2, .* left" "$tmp/err" &&
    grep -qx "suite $tmp/p.suite: 4 of 4 done in .*" "$tmp/err" && [ "$(wc -l < "$tmp/err")" = 6 ] ||
    fail "suite's progress"
grep -q "suite $tmp/p.suite: 2 runs with 2 repetitions each" "$tmp/out" || fail "suite counts its runs"
expect 0 "suite --quiet" "$sb" suite "$tmp/p.suite" --repetitions 2 --out "$tmp/pq" $quick --quiet
[ ! -s "$tmp/err" ] || fail "suite --quiet printed progress"
# on a terminal one live line, rewritten in place, that every other line (this process's, a
# repetition's, an isolated variant's) replaces rather than follows
if script -qec true /dev/null > /dev/null 2>&1; then
    for cmd in "run procell --variant cpu-reference,cpu-openmp --isolate --out $tmp/tty.json" \
               "run procell --variant cpu-reference --repetitions 2 --out $tmp/tty.json" \
               "suite $tmp/p.suite --repetitions 2 --out $tmp/tty"; do
        rm -rf "$tmp/tty" "$tmp/tty.json"
        n=$((n + 1))
        script -qec "$sb $cmd --param histogram=$tmp/h.txt $quick" /dev/null > "$tmp/tty.txt" 2>&1 < /dev/null
        python3 - "$tmp/tty.txt" <<'EOF' || fail "live progress of $cmd: $(cat -A "$tmp/tty.txt")"
import sys
text = open(sys.argv[1], encoding="utf-8", errors="replace", newline="").read().replace("\r\n", "\n")
assert "\r\x1b[K" in text and " 1 of " in text, "no live line"
for line in text.split("\n"):  # what the terminal shows of each line: what follows its last erase
    shown = line.split("\r\x1b[K")[-1]
    assert "elapsed" not in shown or shown.endswith(("elapsed", "left")), \
        "a line printed after the live line: " + repr(line)
assert "elapsed" not in text.rstrip("\n").split("\n")[-1], "the live line left behind"
EOF
    done
fi

# every variant: GPU ones valid with a GPU (each with its kernel table), skipped (with the
# reason) without one
expect 0 "all variants" "$sb" run procell --param histogram="$tmp/h.txt" $quick --kernels --out "$tmp/all.json"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    json "$tmp/all.json" "assert all(b['stagebench']['status']=='valid' for b in d['benchmarks'])"
    json "$tmp/all.json" "r=[b['stagebench']['activity']['run'] for b in d['benchmarks'] if 'gpu' in b['stagebench']['needs']]; \
assert r and all(sum(k['launches'] for k in a['kernel_table']) + a['kernel_table_omitted_launches'] == a['kernels'] for a in r); \
assert all(0 < k['occupancy'] <= 1 and k['limited_by'] for a in r for k in a['kernel_table'])"
    json "$tmp/all.json" "t=[b['stagebench']['activity']['timed_run'] for b in d['benchmarks'] if 'gpu' in b['stagebench']['needs']]; \
assert len(t)==8 and all(a['kernels'] > 0 and a['kernel_table'] for a in t)"
    [ "$(grep -c "blocks/SM" "$tmp/out")" = 16 ] ||
        fail "--kernels prints two kernel tables (the validation run's, a timed run's) under each GPU variant"
else
    json "$tmp/all.json" "g=[b['stagebench'] for b in d['benchmarks'] if 'gpu' in b['stagebench']['needs']]; \
assert len(g)==8 and all(s['status']=='skipped' and s['reason'].startswith('GPU variant skipped') for s in g)"
    grep -qx "run procell: 2 items" "$tmp/err" || fail "the progress counts the GPU variants skipped at once"
    expect 2 "a GPU variant named on a machine without one" "$sb" run procell --param histogram="$tmp/h.txt" --variant host-loop
    one_line_naming "needs a GPU"
fi

# compare: same run -> 0; a run slowed down 50 % -> 1; missing and new benchmarks are listed
expect 0 "compare with itself" "$sb" compare "$tmp/cpu.json" "$tmp/cpu.json"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
[b['stagebench']['time'].update(samples=[x*1.5 for x in b['stagebench']['time']['samples']]) for b in d['benchmarks']]; \
d['benchmarks'][1]['name']='procell/renamed'; json.dump(d, open(sys.argv[2],'w'))" "$tmp/cpu.json" "$tmp/slow.json"
expect 1 "compare a slower run" "$sb" compare "$tmp/cpu.json" "$tmp/slow.json"
grep -q "SLOWER" "$tmp/out" && grep -q "missing:" "$tmp/out" && grep -q "new:" "$tmp/out" || fail "compare's table"
expect 2 "compare a missing file" "$sb" compare "$tmp/cpu.json" "$tmp/nope.json"

# compare of two kinds of GPU (copies of the committed H100's and H200's fig5 and thesis
# records): a device comparison, exit 0, no verdict, a ratio with its interval per benchmark and
# the bound it follows; a ratio whose spread was not measured is never "same"
mkdir -p "$tmp/gpus"
cp results/baselines/h100-80gb-hbm3/rdme-study/fig5.json "$tmp/gpus/h100-fig5.json"
cp results/baselines/h200/rdme-study/fig5.json "$tmp/gpus/h200-fig5.json"
cp results/baselines/h100-vs-h200/thesis-study/h100-80gb-hbm3/ut1.json.xz "$tmp/gpus/h100-ut1.json.xz"
cp results/baselines/h200/thesis-study/ut1.json.xz "$tmp/gpus/h200-ut1.json.xz"
expect 0 "compare an H100 with an H200" "$sb" compare "$tmp/gpus/h100-fig5.json" "$tmp/gpus/h200-fig5.json"
grep -q "^device comparison: base ran on NVIDIA H100 80GB HBM3 (GPU-9eb79ae8), new on NVIDIA H200 (GPU-c69ab1d0); time ratio new / base per benchmark, no regression verdict$" "$tmp/out" ||
    fail "the device comparison's head"
grep -q "^built at two commits (base 5036940, new 0196baf)" "$tmp/out" || fail "two commits said"
! grep -q -e SLOWER -e faster -e " same" "$tmp/out" || fail "a device comparison gives no verdict"
grep -q "^rdme/gpu/scenario:homogeneous/cell:ecoli/spacing:16/steps:100 .* 1.068x  *1.06[0-9]-1.07[0-9]x  samples 61+45 .* sm x clock$" "$tmp/out" ||
    fail "a benchmark's ratio, interval, source and bound"
grep -q "^16 compared: 0 with an interval from repetitions, 16 from samples" "$tmp/out" || fail "the counts"
expect 0 "compare an H100 with an H200, markdown" "$sb" compare "$tmp/gpus/h100-ut1.json.xz" "$tmp/gpus/h200-ut1.json.xz" --markdown
grep -q "^| \`procell/dynamic-parallelism/[^|]*t_max:24/phi_min:11.0\` | 441.4 ms | 542.3 ms | 1.229x | too few samples | samples 4+3 |" "$tmp/out" ||
    fail "1.229x on 4 and 3 samples: too few for an interval"
grep -q "| 0.879x | one sample each | samples 1+1 |" "$tmp/out" || fail "one sample each"
! grep -q -e " same" -e SLOWER "$tmp/out" || fail "no verdict in markdown either"

# records committed compressed: X.json.xz reads as X.json, alone or in a folder; a truncated
# one, or plain JSON named .xz, is one line naming it
xz_copy() { python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.compress(open(sys.argv[1],'rb').read()))" "$@"; }
xz_copy "$tmp/slow.json" "$tmp/slow.json.xz"
"$sb" compare "$tmp/cpu.json" "$tmp/slow.json" | grep -v slow.json > "$tmp/plain.txt"
expect 1 "compare a .json.xz" "$sb" compare "$tmp/cpu.json" "$tmp/slow.json.xz"
grep -v slow.json "$tmp/out" | cmp -s - "$tmp/plain.txt" || fail "compare of the .json.xz differs from the .json's"
mkdir "$tmp/xz"
xz_copy "$tmp/cpu.json" "$tmp/xz/cpu.json.xz"
expect 0 "compare a folder of .json.xz" "$sb" compare "$tmp/xz" "$tmp/cpu.json"
head -c 300 "$tmp/slow.json.xz" > "$tmp/cut.json.xz"
expect 2 "a truncated .json.xz" "$sb" compare "$tmp/cpu.json" "$tmp/cut.json.xz"
one_line_naming "cut.json.xz: a truncated xz file"
cp "$tmp/cpu.json" "$tmp/plain.json.xz"
expect 2 "plain JSON named .json.xz" "$sb" compare "$tmp/cpu.json" "$tmp/plain.json.xz"
one_line_naming "plain.json.xz: not an xz file"
expect 0 "history takes a .json.xz" "$sb" history add "$tmp/h.db" "$tmp/xz/cpu.json.xz" --commit abc1234

# plot and study (gnuplot is a dependency; without it they must say so)
if command -v gnuplot >/dev/null 2>&1; then
    expect 0 "second point" "$sb" run procell --param histogram="$tmp/h.txt" --param t_max=120 \
        --variant cpu-reference,cpu-openmp $quick --out "$tmp/cpu120.json"
    expect 0 "plot" "$sb" plot "$tmp/cpu.json" "$tmp/cpu120.json" --x t_max --out "$tmp/fig"
    [ -s "$tmp/fig.png" ] && [ -s "$tmp/fig.svg" ] || fail "plot wrote PNG and SVG"
    expect 0 "speedup plot" "$sb" plot "$tmp/cpu.json" "$tmp/cpu120.json" --kind speedup --baseline cpu-reference --out "$tmp/su"
    cat > "$tmp/s.study" <<STUDY
study tiny
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
STUDY
    expect 0 "study" "$sb" study "$tmp/s.study" --out "$tmp/st"
    [ -s "$tmp/st/times.png" ] && [ -s "$tmp/st/speed.svg" ] && [ -s "$tmp/st/a.json" ] || fail "study outputs"
    # its records committed compressed: --figures-only draws from a.json.xz
    xz_copy "$tmp/st/a.json" "$tmp/st/a.json.xz" && rm "$tmp/st/a.json" "$tmp/st/times.png"
    expect 0 "study --figures-only over a.json.xz" "$sb" study "$tmp/s.study" --out "$tmp/st" --figures-only
    [ -s "$tmp/st/times.png" ] || fail "--figures-only drew nothing from a.json.xz"
    # without --out: a fresh folder under results/runs/ (of the working directory), nothing
    # beside the input; the folder it read is byte for byte as it was
    mkdir -p "$tmp/cwd"
    cp -a "$tmp/st" "$tmp/st-before"
    (sb_path=$(cd "$(dirname "$sb")" && pwd)/$(basename "$sb") && cd "$tmp/cwd" && "$sb_path" plot "$tmp/st/a.json.xz" --x t_max) >"$tmp/out" 2>"$tmp/err" ||
        fail "plot a .json.xz without --out: exit $?"
    diff -r "$tmp/st-before" "$tmp/st" >/dev/null || fail "plot without --out changed its input's folder"
    set -- "$tmp"/cwd/results/runs/plot-*/a-time.png
    [ -s "$1" ] || fail "plot of a.json.xz without --out: no results/runs/plot-<UTC time>/a-time.png"
    grep -q "^results/runs/plot-[0-9]*-[0-9]*/a-time.png$" "$tmp/out" || fail "plot says where it wrote"
    printf 'study broken\nworkload procell\nrun a\n  sweep t_max\n  frobnicate 3\n' > "$tmp/bad.study"
    expect 2 "bad study file" "$sb" study "$tmp/bad.study" --out "$tmp/st2"
    one_line_naming "bad.study:5"
fi
# bench/scripts/ that cd to the repository root take relative paths as the caller gave them, from
# wherever the caller stands: each called from another folder, its paths relative to that folder
# (stand-ins for the binary, the build and the set-up; what each ran or refused names the path
# resolved, or its output is where it was asked to go)
root=$(cd "$(dirname "$0")/.." && pwd)
rel=$tmp/rel
mkdir -p "$rel/a" "$rel/b" "$rel/g" "$rel/data" "$rel/nodata" "$tmp/bin"
for d in a b; do for r in ut1 dox; do echo '{}' > "$rel/$d/$r.json"; done; done
: > "$rel/data/AML9_Exp3_t10d_UT1_BM_GFPpos.txt" && : > "$rel/afile"
cat > "$rel/sb" <<'EOF'
#!/bin/sh
# a stand-in stagebench: its arguments and SB_SHARED_DATA to sb.log; plot's --out X gets X.png;
# with SB_STANDIN_FAIL it prints the log and fails (goals then shows what it was given)
echo "$* SB_SHARED_DATA=${SB_SHARED_DATA:-}" >> @LOG@
cmd=$1
while [ $# -gt 1 ]; do [ "$1" = --out ] && [ "$cmd" = plot ] && : > "$2.png"; shift; done
[ -n "${SB_STANDIN_FAIL:-}" ] && { cat @LOG@; exit 1; }
exit 0
EOF
sed -i "s|@LOG@|$rel/sb.log|" "$rel/sb"
printf '#!/bin/sh
exit 1
' > "$tmp/bin/nvidia-smi" # no GPU, whatever this machine has
chmod +x "$rel/sb" "$tmp/bin/nvidia-smi"
fake_root() { # DIR SCRIPT...: DIR/bench/scripts with the real SCRIPTs (their cd lands in DIR) and
    # stand-ins (exit 0) for the set-up and the build; DIR/build/stagebench is $rel/sb
    mkdir -p "$1/bench/scripts" "$1/build"
    d=$1
    shift
    for f in "$@"; do ln -s "$root/bench/scripts/$f" "$d/bench/scripts/$f"; done
    for f in setup-deps build; do [ -e "$d/bench/scripts/$f" ] || printf 'exit 0\n' > "$d/bench/scripts/$f"; done
    ln -s "$rel/sb" "$d/build/stagebench"
}
# cross-device: both folders, OUT and the binary
(cd "$rel" && expect 0 "cross-device, relative paths" sh "$root/bench/scripts/cross-device" a b out ./sb) || exit 1
[ -f "$rel/out/fig3.12a.png" ] && [ -f "$rel/out/fig3.13b.png" ] && [ -f "$rel/out/compare-dox.md" ] ||
    fail "cross-device: OUT is the caller's out/"
grep -q "^plot $rel/a/ut1.json $rel/b/ut1.json --x t_max" "$rel/sb.log" || fail "cross-device: the folders are the caller's"
(cd "$rel" && expect 2 "cross-device, a folder without records" sh "$root/bench/scripts/cross-device" g b out ./sb) || exit 1
one_line_naming "cross-device: $rel/g/ut1.json missing"
# goals: DIR, SB_STAGEBENCH, SB_GOALS_STUDY, SB_SHARED_DATA
: > "$rel/sb.log"
(cd "$rel" && SB_STAGEBENCH=./sb SB_GOALS_STUDY=my.study SB_SHARED_DATA=data SB_STANDIN_FAIL=1 \
    expect 2 "goals, relative paths" sh "$root/bench/scripts/goals" --figures-only g) || exit 1
grep -q "^study $rel/my.study --define DATA=$rel/data --out $rel/g --figures-only SB_SHARED_DATA=$rel/data$" "$tmp/err" ||
    fail "goals: the paths are the caller's"
# run-main-study: the study's --out and SB_SHARED_DATA (its own build, set-up and binary stand-ins)
fake_root "$tmp/fr" run-main-study data-dir get-data
: > "$rel/sb.log"
(cd "$rel" && PATH=$tmp/bin:$PATH SB_SHARED_DATA=data expect 0 "run-main-study, relative paths" \
    sh "$tmp/fr/bench/scripts/run-main-study" --out thesis --quiet) || exit 1
[ "$(head -n 1 "$rel/sb.log")" = "study bench/studies/procell-thesis.study --out $rel/thesis --quiet SB_SHARED_DATA=$rel/data" ] ||
    fail "run-main-study: --out and SB_SHARED_DATA are the caller's: $(cat "$rel/sb.log")"
# pack-for-device: SB_SHARED_DATA, checked before the build and before .carry is emptied
fake_root "$tmp/fp" pack-for-device data-dir
printf 'echo "the build ran" >&2; exit 1\n' > "$tmp/fp/bench/scripts/build"
(cd "$rel" && SB_SHARED_DATA=nodata expect 2 "pack-for-device, relative SB_SHARED_DATA" sh "$tmp/fp/bench/scripts/pack-for-device") || exit 1
one_line_naming "pack-for-device: no ProCell histograms in $rel/nodata: "
# legacy-build: its build folder (a file there: refused before the set-up, which is a stand-in
# that fails here, so that nothing is installed)
fake_root "$tmp/fl" legacy-build
printf 'echo "the set-up ran" >&2; exit 1\n' > "$tmp/fl/bench/scripts/setup-deps"
(cd "$rel" && expect 2 "legacy-build, a relative folder" sh "$tmp/fl/bench/scripts/legacy-build" afile) || exit 1
one_line_naming "legacy-build: $rel/afile is a file, not a build folder"
echo "cli: $n checks passed"

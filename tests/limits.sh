#!/bin/sh
# Memory limits (issue 23): parameters whose host memory would not fit are refused before
# anything is allocated, in one line naming the needed and the available sizes: exit 2 when the
# parameters (the model) cannot fit, a skipped record when one stage cannot. $SB_HOST_MEMORY
# plays a small host; a lattice of 2^38 sites is more than any host has.
#   usage: sh tests/limits.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"
out="--out $tmp/r.json"
quick="--min-samples 3 --min-time 0 --timeout 1"

# rdme: the lattice of a model file, at its line; a scenario's on a small host; samples past an int
printf '# 2^38 sites\nlattice 8192 8192 4096\nspacing 1e-8\ntimestep 1e-6\nspecies A\n' > "$tmp/huge.rdme"
expect 2 "rdme: a lattice no host holds" "$sb" run rdme --variant cpu-reference --param scenario=file --param model="$tmp/huge.rdme" $out
one_line_naming "huge.rdme:2: needs 4.25 TiB of host memory for a 8192 x 8192 x 4096 lattice"
grep -q "and the host has [0-9.]* [KMGT]iB free: use a smaller lattice" "$tmp/err" || fail "rdme names what the host has"
[ ! -e "$tmp/r.json" ] || fail "a refused run wrote records"
expect 2 "rdme: the default scenario on a 1 MiB host" env SB_HOST_MEMORY=1M "$sb" run rdme --variant cpu-reference $out
one_line_naming "lattice even in the smallest site format, 4 bytes"
grep -q "and the host has 1.00 MiB free (as \$SB_HOST_MEMORY says)" "$tmp/err" || fail "rdme names \$SB_HOST_MEMORY"
expect 2 "rdme: more samples than an int" "$sb" run rdme --variant cpu-reference --param steps=1e12 --param sample_steps=1 $out
one_line_naming "make 1000000000001 samples, more than 2147483647: raise sample_steps"

# angio: the cells and max_cells a scenario would take; a saved state's, once read
expect 2 "angio: 2^26 cells on a 1 GiB host" env SB_HOST_MEMORY=1G "$sb" run angio --variant cpu-reference --param cells=67108864 --param max_cells=67108864 $out
one_line_naming "needs 20.75 GiB of host memory for 67108864 cells (max_cells 67108864) and 0 tubes, and the host has 1.00 GiB free"
printf 'angio-state 1\nside 100\ncells 1\n50 50 50 5 1 0 new 0 0\ntubes 0\n' > "$tmp/state.txt"
expect 2 "angio: a state file with max_cells past the host" env SB_HOST_MEMORY=1G "$sb" run angio --variant cpu-reference --param scenario=file --param state="$tmp/state.txt" --param max_cells=67108864 $out
one_line_naming "for 1 cells (max_cells 67108864)"
expect 0 "angio: a state file that fits" env SB_HOST_MEMORY=1G "$sb" run angio --variant cpu-reference --param scenario=file --param state="$tmp/state.txt" --param steps=2 $quick $out

# copies: the payload's outputs and buffers
expect 2 "copies: 16 GiB on a 1 GiB host" env SB_HOST_MEMORY=1G "$sb" run copies --variant cpu-memcpy --param bytes=17179869184 $out
one_line_naming "needs 64.00 GiB of host memory for a payload's two outputs and a stage's two buffers, and the host has 1.00 GiB free (as \$SB_HOST_MEMORY says): lower bytes"
expect 0 "copies: 4 KiB fits" env SB_HOST_MEMORY=1G "$sb" run copies --variant cpu-memcpy --param bytes=4096 $quick $out

# motility: a CPU stage's M_b is the stage's to refuse: a skipped record (exit 2: it was named)
rm -f "$tmp/r.json"
expect 2 "motility: M_b on a 64 MiB host" env SB_HOST_MEMORY=64M "$sb" run motility --variant cpu-reference --param outer=64 --param steps=1 $quick $out
grep -q "skipped *needs 1.15 GiB of host memory for M_b at outer=64 inner=16" "$tmp/out" || fail "motility's refusal names M_b's size"
json "$tmp/r.json" "b = d['benchmarks'][0]['stagebench']; assert b['status'] == 'skipped', b['status']; assert 'and the host has 64.00 MiB free' in b['reason'], b['reason']"

echo "limits: $n commands checked"

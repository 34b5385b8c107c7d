#!/bin/sh
# bench/tools/ncu-sass-phases on a committed source page (H100, 7f76b10): the y-strips have no barrier,
# so by barriers they are one stretch; --blocks splits them where the execution count changes,
# and the stretches it prints still hold nearly all of the kernel's instructions.
set -eu
page=results/baselines/h100-80gb-hbm3/rdme-limits/strips-x-loads/source-7f76b10/rdme-source-sass.csv.xz
fail() { echo "ncu_sass_phases: $*" >&2; exit 1; }
whole=$(python3 bench/tools/ncu-sass-phases "$page" --kernel "sweep_strips<(int)1" | grep -c '^| [0-9]')
[ "$whole" -le 2 ] || fail "by barriers the y-strip is $whole stretches, not 1 or 2"
python3 bench/tools/ncu-sass-phases "$page" --kernel "sweep_strips<(int)1" --blocks > "${TMPDIR:-/tmp}/phases.$$"
blocks=$(grep -c '^| [0-9]' "${TMPDIR:-/tmp}/phases.$$")
share=$(awk -F'|' '/^\| [0-9]/ {s += $3} END {printf "%d", s}' "${TMPDIR:-/tmp}/phases.$$")
rm -f "${TMPDIR:-/tmp}/phases.$$"
[ "$blocks" -ge 20 ] || fail "--blocks gave $blocks stretches, expected 20 or more"
[ "$share" -ge 90 ] || fail "--blocks' stretches hold $share % of the instructions, expected 90 % or more"
echo "ncu_sass_phases: passed ($blocks blocks holding $share % of the y-strip's instructions)"

#!/bin/sh
# bench/tools/kernel-sizes as a developer runs it before taking a kernel change to the GPU: every RDME
# kernel listed with its size, registers, stack and spills (sm_90, and sm_80 for an older GPU);
# bad arguments refused in one line.
#   usage: sh tests/kernel_sizes.sh   (from the source root)
set -u
. "$(dirname "$0")/shlib.sh"

check() { # file: the header, then every packed32 sweep with a size, 32 registers and 3 byte counts
    python3 - "$1" <<'PY' || fail "kernel-sizes output"
import re, sys
lines = open(sys.argv[1]).read().splitlines()
assert lines[0].split() == ["instructions", "registers", "stack", "spill-stores", "spill-loads", "function"], lines[0]
rows = {}
for l in lines[1:]:
    m = re.match(r"\s*(\d+) (\S+) (\S+) (\S+) (\S+)  (.+)$", l)
    assert m, l
    rows[m.group(6)] = m.groups()[:5]
for axis in range(3):
    name = next(n for n in rows if n.startswith("void sweep_quads<%d, false>" % axis))
    size, regs, stack, st, ld = rows[name]
    assert int(size) > 100 and regs == "32" and all(x.isdigit() for x in (stack, st, ld)), (name, rows[name])
# a kernel of every unit of variants/rdme/kernels/
for unit_kernel in ("void sweep<byte16, 0, false>(", "void sweep_quads<0, false>(", "void sweep_strips<1>(",
                    "sweep_xy(", "void react<packed32, true, false>(", "void count_planes<byte16>(",
                    "step_done("):
    assert any(n.startswith(unit_kernel) for n in rows), unit_kernel + " missing"
PY
}
expect 0 "sm_90, this tree" sh bench/tools/kernel-sizes
cp "$tmp/out" "$tmp/sm90"
check "$tmp/sm90"
expect 0 "sm_80" sh bench/tools/kernel-sizes . 80
check "$tmp/out"
cmp -s "$tmp/out" "$tmp/sm90" && fail "sm_80 and sm_90 gave the same code"
expect 2 "sm_60" sh bench/tools/kernel-sizes . 60
one_line_naming "sm_60"
expect 2 "not a tree" sh bench/tools/kernel-sizes "$tmp"
one_line_naming "no variants/rdme/kernels/"
expect 2 "no such directory" sh bench/tools/kernel-sizes "$tmp/none"
one_line_naming "no directory"
echo "kernel_sizes: $n commands checked"

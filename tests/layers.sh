#!/bin/sh
# The layers are enforced (docs/architecture.md): this tree has no include against them, and a
# copy of it with a deliberate upward include (cuda/ including harness/), a sideways one (one
# workload including another's header) and one from the harness into the command line each fail
# bench/scripts/layers.cmake, which the configuration runs, naming the file and both layers.
# With a build folder, also the libraries: none uses a symbol that only a layer above it (or a
# workload beside it) defines.
#   usage: sh tests/layers.sh [BUILD_DIR]
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/shlib.sh"
check() { cmake -DSOURCE_DIR="$1" -P "$here/bench/scripts/layers.cmake"; }
expect 0 "this tree keeps the layers" check "$here"
copy() { # a copy of the layered folders in $tmp/$1
    mkdir -p "$tmp/$1"
    (cd "$here" && find cuda harness variants bench -type f | tar -cf - -T -) | tar -xf - -C "$tmp/$1"
}
copy up
sed -i '1i #include "../harness/json.h"' "$tmp/up/cuda/timing.c"
expect 1 "cuda/ including harness/ fails" check "$tmp/up"
grep -q "cuda/timing.c includes harness/json.h (layer 2 above its own, 1)" "$tmp/err" ||
    fail "the breach names the file and both layers"
copy side
sed -i '1i #include "../rdme/model.h"' "$tmp/side/variants/angio/model.c"
expect 1 "a workload including another's header fails" check "$tmp/side"
grep -q "variants/angio/model.c includes variants/rdme/model.h" "$tmp/err" || fail "the sideways breach named"
copy cli
sed -i '1i #include "../bench/cli/commands.h"' "$tmp/cli/harness/stats.c"
expect 1 "harness/ including the command line fails" check "$tmp/cli"
grep -q "harness/stats.c includes bench/cli/commands.h" "$tmp/err" || fail "the harness breach named"
if [ -n "${1:-}" ]; then
    n=$((n + 1))
    (cd "$1" && python3 - <<'PY') > "$tmp/out" 2> "$tmp/err" || fail "a library uses a symbol of a layer above it"
import re, subprocess, sys
rank = {"sb_base": 0, "sb_cuda": 1, "sb_harness": 2, "sb_procell": 3, "sb_rdme": 3, "sb_copies": 3,
        "sb_angio": 3, "sb_motility": 3, "sb_workloads": 4, "sb_run": 5, "sb_report": 6}
def symbols(lib, flag):
    out = subprocess.run(["nm", flag, "lib%s.a" % lib], capture_output=True, text=True,
                         check=True).stdout
    return set(line.split()[-1] for line in out.splitlines()
               if re.match(r"^[0-9a-f]+ [TDBR] " if flag == "--defined-only" else r"^\s+U ", line))
defined = {lib: symbols(lib, "--defined-only") for lib in rank}
bad = [(lib, sym, other) for lib in rank for sym in symbols(lib, "-u") for other in rank
       if sym in defined[other] and (rank[other] > rank[lib] or (rank[other] == rank[lib] and other != lib))]
for lib, sym, other in bad:
    print("%s uses %s, defined in %s above it" % (lib, sym, other), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
fi
echo "layers: $n checks passed"

#!/bin/sh
# bench/tools/procell-peer against two stand-ins for the Python ProCell (a `procell.procell_core`
# module beside the test, never the real one): one that follows ProCell's rule, whose histograms
# the permutation test finds alike, and one that stops at half of t_max, which it tells apart; the
# table names the peer's commit, CPU and times; --gpu adds each GPU record's median and the
# peer's over it; --print-runs lists the runs; a missing peer, numpy or too few seeds is exit 2
# naming it. bench/tools/procell-synth: the same file for the same arguments, CELLS cells.
#   usage: sh tests/procell_peer.sh path/to/stagebench   (from the source root; 77 without numpy)
set -u
. "$(dirname "$0")/shlib.sh"
sb=$1
py=${SB_PEER_PYTHON:-/usr/bin/python3}
"$py" -c "import numpy" 2>/dev/null || { echo "procell_peer: no numpy for $py: skipped"; exit 77; }
export SB_PEER_PYTHON="$py"

# the synthetic histogram: CELLS cells, byte for byte the same again
expect 0 "procell-synth" python3 bench/tools/procell-synth --cells 400 "$tmp/a.txt"
expect 0 "procell-synth again" python3 bench/tools/procell-synth --cells 400 "$tmp/b.txt"
cmp -s "$tmp/a.txt" "$tmp/b.txt" || fail "procell-synth: two files for the same arguments"
[ "$(awk '{s += $2} END {print s}' "$tmp/a.txt")" = 400 ] || fail "procell-synth: not 400 cells"
[ "$(wc -l < "$tmp/a.txt")" = 1024 ] || fail "procell-synth: not 1,024 bins"
expect 2 "procell-synth refuses a spread of 0" python3 bench/tools/procell-synth --spread 0 "$tmp/c.txt"

# a stand-in peer: ProCell's rule (async start, types by proportion, truncated normal division
# times, daughters above the first counted fluorescence); SCALE of t_max (1: the rule)
stand_in() { # DIR SCALE
    mkdir -p "$1/procell"
    : > "$1/procell/__init__.py"
    cat > "$1/procell/procell_core.py" <<EOF
import random
from numpy import loadtxt
from numpy.random import normal
def draw(m, s):
    if m is None or m > 1e300:
        return float("inf")
    while True:
        x = normal(m, s)
        if x > 0:
            return x
class Simulator(object):
    def simulate(self, path=None, types=None, proportions=None, div_mean=None, div_std=None,
                 time_max=0, synchronous_start=True, **unused):
        rows = [(f, int(c)) for f, c in loadtxt(path) if c > 0]
        phi1, tmax, result = rows[0][0], time_max * $2, {}
        for f, c in rows:
            for _ in range(c):
                a, t = random.random(), 0.0
                ty = types[-1]
                for name in types:
                    a -= proportions[name]
                    if a < 0:
                        ty = name
                        break
                if not synchronous_start and div_mean[ty] < 1e300:
                    t = draw(div_mean[ty], div_std[ty]) * random.random()
                stack = [(f, t)]
                while stack:
                    f1, t1 = stack.pop()
                    t2 = t1 + draw(div_mean[ty], div_std[ty])
                    if t2 > tmax:
                        result[f1] = result.get(f1, 0) + 1
                    elif f1 / 2 > phi1:
                        stack += [(f1 / 2, t2), (f1 / 2, t2)]
        return result, {}
EOF
}
stand_in "$tmp/faithful" 1
stand_in "$tmp/wrong" 0.5

expect 0 "the faithful stand-in" python3 bench/tools/procell-peer --peer "$tmp/faithful" --out "$tmp/o1" \
    --seeds 4 --cells 2000 --stagebench "$sb"
grep -q "^| two types (m4) | .* | yes |$" "$tmp/o1/peer.md" || fail "the rule's stand-in does not agree (m4)"
grep -q "^| three types (m3) | .* | yes |$" "$tmp/o1/peer.md" || fail "the rule's stand-in does not agree (m3)"
grep -qF "github.com/LeoneBacciu/ProCell at unknown" "$tmp/o1/peer.md" || fail "the peer's commit"
grep -qF "synthetic-2000.txt" "$tmp/o1/peer.md" || fail "the input's name"
json "$tmp/o1/peer.json" "c = d['cases']; assert len(c) == 2 and all(len(x['peer_seconds']) == 4 for x in c); assert len(c[0]['hellinger_suite_vs_peer']) == 16 and len(c[0]['hellinger_peer_vs_peer']) == 6; assert d['cpu'] and d['t_max'] == 480"

expect 0 "the stand-in off by half of t_max" python3 bench/tools/procell-peer --peer "$tmp/wrong" \
    --out "$tmp/o2" --seeds 4 --cells 2000 --stagebench "$sb"
grep -q "^| two types (m4) | .* | NO |$" "$tmp/o2/peer.md" || fail "a different rule passes as the same"

# --gpu: a GPU record of a case, its median and the peer's over it (no peer run: peer.json read)
python3 - "$tmp/o1/peer.json" "$tmp/gpu.json" <<'PY' || fail "the made-up GPU record"
import json, sys
rec = {"context": {"stagebench": {"git_commit": "abcdef0123", "devices": [{"name": "Stand-in GPU"}]}},
       "benchmarks": [{"stagebench": {"variant": "subtree-dfs", "status": "valid", "needs": ["gpu"],
                                      "device": 0, "time": {"median": 0.002, "noise": 0.01},
                                      "params": {"histogram": "/x/synthetic-2000.txt", "types": "m4",
                                                 "t_max": "480"}}}]}
json.dump(rec, open(sys.argv[2], "w"))
PY
expect 0 "--gpu from peer.json" python3 bench/tools/procell-peer --out "$tmp/o1" --gpu "$tmp/gpu.json"
grep -q "^| two types (m4) | Stand-in GPU | abcdef0 | \`subtree-dfs\` | 2.000 ms | 1.00 % | [0-9]*× |$" \
    "$tmp/o1/peer.md" || fail "the GPU row"
grep -q "three types (m3) | Stand-in GPU" "$tmp/o1/peer.md" && fail "the m4 record put in the m3 row"

expect 0 "--print-runs" python3 bench/tools/procell-peer --print-runs "$tmp/o1/inputs"
[ "$(grep -c "^procell --param histogram=.*synthetic-2000.txt --param types=m[34] --param t_max=480$" "$tmp/out")" = 2 ] ||
    fail "--print-runs: two runs"

expect 2 "no peer there" python3 bench/tools/procell-peer --peer "$tmp/nowhere" --out "$tmp/o3" --stagebench "$sb"
one_line_naming "no procell/procell_core.py: give a checkout of github.com/LeoneBacciu/ProCell"
expect 2 "one seed" python3 bench/tools/procell-peer --peer "$tmp/faithful" --out "$tmp/o3" --seeds 1
one_line_naming "at least 2"
expect 2 "no numpy" env SB_PEER_PYTHON=/bin/false python3 bench/tools/procell-peer --peer "$tmp/faithful" \
    --out "$tmp/o3" --stagebench "$sb"
one_line_naming "install python3-numpy"

echo "procell_peer: $n checks passed (the peer's stand-ins told alike and apart, the GPU rows, the errors)"

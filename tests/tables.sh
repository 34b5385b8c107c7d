#!/bin/sh
# bench/scripts/tables on a copy of two committed folders (SB_BASELINES): an experiment whose
# README names the Nsight key table a tool made from its archive, and procell-peer's table made
# from peer.json; both equal as committed, a changed cell of either named with its line (exit 1),
# refresh puts them back, and a README line naming a page its archive lacks is an error.
#   usage: sh tests/tables.sh path/to/stagebench   (from the source root)
set -u
. "$(dirname "$0")/shlib.sh"
export SB_STAGEBENCH="$1" SB_BASELINES="$tmp/b"
mkdir -p "$tmp/b/dev"
cp -r results/baselines/h100-80gb-hbm3/rdme-limits/before "$tmp/b/dev/before"
cp -r results/baselines/procell-peer "$tmp/b/procell-peer"

expect 0 "the copies as committed" python3 bench/scripts/tables check
grep -q "^tables: 2 tables in 1 folders made again from their records and their archives: all equal$" "$tmp/out" ||
    fail "two tables checked"

sed -i 's/| 207.6 |/| 207.7 |/' "$tmp/b/dev/before/ncu-rbc-key.md"
sed -i 's/| 0.622 |/| 0.621 |/' "$tmp/b/procell-peer/peer.md"
expect 1 "two changed cells" python3 bench/scripts/tables check
grep -q "dev/before/ncu-rbc-key.md: line 3 differs from its README's command made again" "$tmp/out" ||
    fail "the key table's changed line"
grep -q "procell-peer/peer.md: line 7 differs from bench/tools/procell-peer made again" "$tmp/out" ||
    fail "the peer table's changed line"
grep -q "2 differ$" "$tmp/out" || fail "the count of tables that differ"

expect 0 "refresh" python3 bench/scripts/tables refresh
expect 0 "refreshed" python3 bench/scripts/tables check
cmp -s "$tmp/b/dev/before/ncu-rbc-key.md" results/baselines/h100-80gb-hbm3/rdme-limits/before/ncu-rbc-key.md ||
    fail "refresh did not put the key table back"

sed -i 's/ncu-rbc-details.csv 250000000/ncu-nosuch-details.csv 250000000/' "$tmp/b/dev/before/README.md"
expect 1 "a page the archive lacks" python3 bench/scripts/tables check
grep -q "before.tar.xz holds no ncu-nosuch-details.csv" "$tmp/err" || fail "the missing page is not named"

echo "tables: $n checks passed (tool-made and peer tables made again, a changed cell named, refresh)"

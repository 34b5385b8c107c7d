#!/bin/sh
# bench/scripts/get-data against a file:// copy of the ProCell repository's layout (no network
# here): every histogram fetched and its SHA-256 checked, a second run keeping them, a file that
# differs refused with nothing left behind, an unreachable source named. Skipped (77) without the
# histograms to copy ($SB_SHARED_DATA, default ../shared/data/procell).
#   usage: sh tests/get_data.sh
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/tests/shlib.sh"
data=${SB_SHARED_DATA:-$here/../shared/data/procell}
[ -f "$data/AML9_Exp3_t10d_UT1_BM_GFPpos.txt" ] || { echo "get_data: no histograms in $data to copy: skipped"; exit 77; }
src=$tmp/ProCell
mkdir -p "$src/histograms/bonemarrow" "$src/histograms/examples"
cp "$data"/*_BM_*.txt "$src/histograms/bonemarrow/"
cp "$data"/*_SPL_*.txt "$src/histograms/examples/"
export SB_DATA_URL="file://$src"
expect 0 "every histogram fetched" sh "$here/bench/scripts/get-data" --to "$tmp/got"
grep -q "17 downloaded, 0 already there" "$tmp/out" || fail "17 files downloaded"
[ "$(ls "$tmp/got" | wc -l)" = 17 ] || fail "17 files in --to"
cmp -s "$tmp/got/AML9_Exp3_t10d_UT1_BM_GFPpos.txt" "$data/AML9_Exp3_t10d_UT1_BM_GFPpos.txt" || fail "the file as it was"
expect 0 "a second run keeps them" sh "$here/bench/scripts/get-data" --to "$tmp/got"
grep -q "0 downloaded, 17 already there" "$tmp/out" || fail "kept on the second run"
# relative --to from another folder
(cd "$tmp" && expect 0 "relative --to" sh "$here/bench/scripts/get-data" --to rel)
[ -f "$tmp/rel/AML9_Exp3_t3wks_UT3_SPL_hist.txt" ] || fail "relative --to is the caller's"
# a file that differs from the pinned commit's
echo "1 1" >> "$src/histograms/examples/AML9_Exp3_t10d_UT1_SPL_GFPpos.txt"
rm "$tmp/got/AML9_Exp3_t10d_UT1_SPL_GFPpos.txt"
expect 2 "a changed file refused" sh "$here/bench/scripts/get-data" --to "$tmp/got"
one_line_naming "SHA-256"
[ ! -e "$tmp/got/AML9_Exp3_t10d_UT1_SPL_GFPpos.txt" ] || fail "the refused file is not left"
[ -z "$(ls -A "$tmp/got" | grep part)" ] || fail "no partial download left"
# an unreachable source
SB_DATA_URL="file://$tmp/nowhere" expect 2 "no source" sh "$here/bench/scripts/get-data" --to "$tmp/none"
one_line_naming "SB_DATA_URL"
echo "get_data: $n checks passed"

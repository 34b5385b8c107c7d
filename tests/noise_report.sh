#!/bin/sh
# bench/tools/noise-report on the committed noise step's archive, as results/README.md says it
# reads it: every kernel-level record, the same figures as its report.txt; and an archive whose
# records are xz-compressed members (NAME.json.xz) read as the plain ones.
#   usage: sh tests/noise_report.sh   (from the repository root)
set -u
. "$(dirname "$0")/shlib.sh"
dir=results/baselines/h100-80gb-hbm3/noise
expect 0 "noise-report on the archive" python3 bench/tools/noise-report "$dir/records.tar.xz"
cp "$tmp/out" "$tmp/plain"
grep -q "^kernel-level records: 21; median noise over them: robust 0.17% (met)" "$tmp/plain" ||
    fail "the archive's 21 kernel-level records, its median noise as in report.txt"
sed -n '2,5p' "$dir/report.txt" > "$tmp/workloads"
sed -n '2,5p' "$tmp/plain" | diff - "$tmp/workloads" > /dev/null || fail "a workload's line differs from report.txt"
mkdir "$tmp/x"
tar -xJf "$dir/records.tar.xz" -C "$tmp/x"
for f in "$tmp"/x/*.json; do xz "$f"; done
tar -C "$tmp/x" -cJf "$tmp/xz.tar.xz" .
expect 0 "noise-report on xz-compressed members" python3 bench/tools/noise-report "$tmp/xz.tar.xz"
grep -q "^kernel-level records: 21;" "$tmp/out" || fail "the .json.xz members read"
echo "noise_report: $n commands checked"

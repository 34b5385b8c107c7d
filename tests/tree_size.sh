#!/bin/sh
# The tracked tree stays small enough to clone fast and to carry to a lent GPU (results/README.md):
# the tracked files at most 15 MiB in all, results/ at most 600 tracked files, and no tried code
# under results/ (*.patch, *.diff, run.sh: a commit holds it, cited by hash). Sizes are the files
# as checked out; run from the repository root (ctest does). Exit 77 (skipped) outside a git
# checkout. SB_TREE_MAX_BYTES and SB_RESULTS_MAX_FILES override the limits (for its own test).
set -u
max_bytes=${SB_TREE_MAX_BYTES:-15728640}
max_files=${SB_RESULTS_MAX_FILES:-600}
if ! command -v git >/dev/null 2>&1 || ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    echo "SKIPPED: not a git checkout"
    exit 77
fi
cd "$(git rev-parse --show-toplevel)" || exit 1
list=$(mktemp) || exit 1
trap 'rm -f "$list"' EXIT
git ls-files -z > "$list" || { echo "tree_size: git ls-files failed" >&2; exit 1; }
fail=0

# the size of every tracked file present in the work tree (a file deleted but not yet committed
# counts nothing)
bytes=$(tr '\0' '\n' < "$list" | while IFS= read -r f; do
            [ -f "$f" ] && [ ! -L "$f" ] && wc -c < "$f"
        done | awk '{s += $1} END {printf "%d", s}')
mib=$(awk -v b="$bytes" 'BEGIN {printf "%.2f", b / 1048576}')
limit_mib=$(awk -v b="$max_bytes" 'BEGIN {printf "%.2f", b / 1048576}')
if [ "$bytes" -gt "$max_bytes" ]; then
    echo "tree_size: the tracked tree is $bytes bytes ($mib MiB), over its limit of $max_bytes ($limit_mib MiB)" >&2
    fail=1
fi

files=$(tr '\0' '\n' < "$list" | grep -c '^results/')
if [ "$files" -gt "$max_files" ]; then
    echo "tree_size: results/ has $files tracked files, over its limit of $max_files" >&2
    fail=1
fi

tried=$(tr '\0' '\n' < "$list" | grep -E '^results/(.*/)?([^/]*\.(patch|diff)|run\.sh)$')
if [ -n "$tried" ]; then
    echo "tree_size: tried code tracked under results/ (cite the commit that holds it instead):" >&2
    echo "$tried" | sed 's/^/  /' >&2
    fail=1
fi

[ $fail -eq 0 ] || exit 1
echo "tree_size: $mib MiB tracked (limit $limit_mib), $files files in results/ (limit $max_files), no tried code there"

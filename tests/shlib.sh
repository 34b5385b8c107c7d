# Shared by the shell tests (sourced): a scratch directory $tmp removed on exit (also $TMPDIR), and checks on a
# command's exit status, its stderr and its JSON, and a tree for bench/scripts/device-check with stand-ins
# (device_check_root). $n counts the commands checked.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# what the commands under test put in $TMPDIR (a killed run's reference cache) goes with $tmp
export TMPDIR=$tmp
n=0
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; exit 1; }
expect() { # exit-status description command...
    want=$1 what=$2
    shift 2
    n=$((n + 1))
    "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" = "$want" ] || fail "$what: exit $got, expected $want"
}
one_line_naming() { # text: stderr is one line containing it
    [ "$(wc -l < "$tmp/err")" = 1 ] || fail "expected one line on stderr"
    grep -q -- "$1" "$tmp/err" || fail "stderr does not name '$1'"
}
json() { # file python-statements (d is the document)
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2" "$1" || fail "check on $1: $2"
}
device_check_root() { # binary... : a tree for bench/scripts/device-check in $root ($tmp/root: bench/ and
    # .carry/sb/BINARY as /bin/true each) and a stand-in nvidia-smi in $tmp/bin (put it on PATH)
    root=$tmp/root
    mkdir -p "$root/.carry/sb" "$tmp/bin"
    ln -s "$(cd "$(dirname "$0")/.." && pwd)/bench" "$root/bench"
    for b in "$@"; do ln -s /bin/true "$root/.carry/sb/$b"; done
    printf '#!/bin/sh\necho "GPU 0: stand-in"\n' > "$tmp/bin/nvidia-smi"
    chmod +x "$tmp/bin/nvidia-smi"
}

#!/bin/sh
# The reference's output kept between processes (SB_REFERENCE_CACHE, harness/refcache.h), on the
# CPU: saved by the first process, loaded by the next, and the variant still validated against
# it (an output tampered with, its checksum made right, fails validation); a miss wherever the
# key or the file differs (other parameters, another program, a corrupted or truncated file);
# each workload's output regions whole (every workload's cpu-openmp valid against its cached
# reference); the folder's cap; off when set empty; and, unset, a folder of the command's own
# shared by its isolated variants and repetitions and removed when it ends (or, left by a killed
# command, when the next starts).
#   usage: sh tests/reference_cache.sh path/to/stagebench
set -u
sb=$1
. "$(dirname "$0")/shlib.sh"

quick="--min-samples 1 --min-time 0 --timeout 0.1 --warmup 0 --warmup-time 0"
small="--param steps=2 --param particles=20000"
printf '10 0\n12.5 40\n20 30\n35.5 25\n' > "$tmp/h.txt"
export TMPDIR=$tmp/t
mkdir -p "$TMPDIR"
from() { # records: "status:reference_output" of each record, in order
    python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
print(' '.join(b['stagebench']['status'] + ':' + str(b['stagebench']['validation']['reference_output'])
               for b in d['benchmarks']))" "$1"
}
check() { # records want
    got=$(from "$1")
    [ "$got" = "$2" ] || fail "$1: $got, expected $2"
}
files() { ls "$SB_REFERENCE_CACHE" | wc -l | tr -d ' '; }

export SB_REFERENCE_CACHE=$tmp/cache
expect 0 "first process" "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/1.json"
check "$tmp/1.json" "valid:run"
[ "$(files)" = 1 ] || fail "one output saved: $(ls "$SB_REFERENCE_CACHE")"
expect 0 "second process" "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/2.json"
check "$tmp/2.json" "valid:cached"
expect 0 "other parameters" "$sb" run rdme --variant cpu-openmp $small --param seed=2 $quick --out "$tmp/3.json"
check "$tmp/3.json" "valid:run"
[ "$(files)" = 2 ] || fail "a second key, a second file"

# Another program (a copy: its file's time differs) never reads this one's outputs.
cp "$sb" "$tmp/sb-copy"
expect 0 "another program" "$tmp/sb-copy" run rdme --variant cpu-openmp $small $quick --out "$tmp/4.json"
check "$tmp/4.json" "valid:run"
rm "$tmp/sb-copy"

# A corrupted file, then a truncated one: misses, the reference runs and saves it again.
f=$(ls "$SB_REFERENCE_CACHE"/rdme-cpu-reference-* | head -n 1)
for damage in corrupt truncate; do
    rm -f "$SB_REFERENCE_CACHE"/rdme-*
    expect 0 "save" "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/5.json"
    f=$(ls "$SB_REFERENCE_CACHE"/rdme-cpu-reference-*)
    python3 - "$f" "$damage" <<'EOF'
import os, sys
path, damage = sys.argv[1:]
b = bytearray(open(path, "rb").read())
if damage == "corrupt":
    b[len(b) // 2] ^= 0x40
else:
    b = b[: len(b) - 3]
open(path, "wb").write(b)
EOF
    expect 0 "$damage file" "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/6.json"
    check "$tmp/6.json" "valid:run"
    expect 0 "saved again" "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/7.json"
    check "$tmp/7.json" "valid:cached"
done

# The file's checksum is the format's (FNV-1a's steps over 64-bit words, zero-padded), whatever
# the key's length: seeds of 1 to 8 digits shift every field across the words.
for seed in 1 22 333 4444 55555 666666 7777777 88888888; do
    expect 0 "seed $seed" "$sb" run procell --param histogram="$tmp/h.txt" --param seed=$seed \
        --variant cpu-openmp $quick --out "$tmp/s.json"
done
python3 - "$SB_REFERENCE_CACHE" <<'EOF' || fail "a file's checksum is not the format's"
import glob, struct, sys
files = glob.glob(sys.argv[1] + "/procell-*")
assert len(files) == 8, files
for path in files:
    b = open(path, "rb").read()
    body = b[:-8] + bytes(-(len(b) - 8) % 8)
    h = 0xcbf29ce484222325
    for (w,) in struct.iter_unpack("<Q", body):
        h = ((h ^ w) * 0x100000001b3) & 0xffffffffffffffff
    assert struct.unpack_from("<Q", b, len(b) - 8)[0] == h, path
EOF

# An output changed with its checksum made right: loaded, and the variant fails against it, so
# the cached output is what validates.
python3 - "$f" <<'EOF'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, "rb").read())
magic = b"stagebench reference output 2\n"
assert b.startswith(magic)
klen = struct.unpack_from("<Q", b, len(magic))[0]
at = len(magic) + 8 + klen
n = struct.unpack_from("<I", b, at)[0]
lattice = at + 4 + 8 * n         # the first region: the lattice
b[lattice + 1000] ^= 0x01
body = bytes(b[:-8]) + bytes(-(len(b) - 8) % 8)  # FNV-1a's steps over 64-bit words
h = 0xcbf29ce484222325
for (w,) in struct.iter_unpack("<Q", body):
    h = ((h ^ w) * 0x100000001b3) & 0xffffffffffffffff
struct.pack_into("<Q", b, len(b) - 8, h)
open(path, "wb").write(b)
EOF
expect 1 "a tampered output" "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/8.json"
check "$tmp/8.json" "invalid:cached"
rm "$f"

# Every workload's regions: its cpu-openmp valid against a cached cpu-reference.
for line in "procell --param histogram=$tmp/h.txt" "angio --param cells=4096" \
            "motility --param outer=16 --param inner=8 --param steps=1" "rdme $small"; do
    # shellcheck disable=SC2086
    expect 0 "$line, saved" "$sb" run $line --variant cpu-openmp $quick --out "$tmp/w1.json"
    # shellcheck disable=SC2086
    expect 0 "$line, loaded" "$sb" run $line --variant cpu-openmp $quick --out "$tmp/w2.json"
    check "$tmp/w2.json" "valid:cached"
done

# The cap: an output over it is not kept; a save over it removes the file used longest ago.
rm -rf "$SB_REFERENCE_CACHE"
size=$(SB_REFERENCE_CACHE=$tmp/probe "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/9.json" >/dev/null 2>&1;
       cat "$tmp"/probe/rdme-* | wc -c)
SB_REFERENCE_CACHE_MAX=1k expect 0 "over the cap" "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/9.json"
[ ! -d "$SB_REFERENCE_CACHE" ] || [ "$(files)" = 0 ] || fail "an output over the cap was kept"
export SB_REFERENCE_CACHE_MAX=$((size * 3 / 2))
expect 0 "seed 1" "$sb" run rdme --variant cpu-openmp $small $quick --out "$tmp/9.json"
first=$(ls "$SB_REFERENCE_CACHE")
expect 0 "seed 2" "$sb" run rdme --variant cpu-openmp $small --param seed=2 $quick --out "$tmp/9.json"
[ "$(files)" = 1 ] && [ "$(ls "$SB_REFERENCE_CACHE")" != "$first" ] ||
    fail "the cap keeps the newest output only: $(ls "$SB_REFERENCE_CACHE")"
unset SB_REFERENCE_CACHE_MAX

# Set empty: off.
SB_REFERENCE_CACHE= expect 0 "off" "$sb" run rdme --variant cpu-reference,cpu-openmp $small $quick --isolate --out "$tmp/10.json"
check "$tmp/10.json" "valid:None valid:run"
[ -z "$(ls "$TMPDIR")" ] || fail "set empty, no folder is made: $(ls "$TMPDIR")"

# Unset: the command's own folder, shared by its processes, gone when it ends.
unset SB_REFERENCE_CACHE
expect 0 "isolated variants" "$sb" run rdme --variant cpu-reference,cpu-openmp $small $quick --isolate --out "$tmp/11.json"
check "$tmp/11.json" "valid:None valid:cached"
expect 0 "repetitions" "$sb" run rdme --variant cpu-openmp $small $quick --repetitions 3 --out "$tmp/12.json"
json "$tmp/12.json" '
got = [b["stagebench"]["validation"]["reference_output"] for b in d["benchmarks"] if b["run_type"] == "iteration"]
assert got == ["run", "cached", "cached"], got'
[ -z "$(ls "$TMPDIR")" ] || fail "the command's folder is removed when it ends: $(ls "$TMPDIR")"
# a folder left by a command killed before its exit goes with the next command's start; one of a
# command still running stays
sh -c 'exit 0' & dead=$!
wait $dead
mkdir "$TMPDIR/stagebench-reference-$dead-left" "$TMPDIR/stagebench-reference-$$-mine"
touch "$TMPDIR/stagebench-reference-$dead-left/x.out"
expect 0 "after a killed command" "$sb" run rdme --variant cpu-openmp $small $quick --repetitions 2 --out "$tmp/13.json"
[ "$(ls "$TMPDIR")" = "stagebench-reference-$$-mine" ] ||
    fail "a dead command's folder is removed, a running one's kept: $(ls "$TMPDIR")"
echo "reference_cache: $n commands checked"

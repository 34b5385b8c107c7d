# bench/scripts/device-check's steps of two builds or more (sh bench/scripts/device/ab.sh STEP):
#   ab    builds against the first on the same runs, a process of each in turn, then stagebench
#         compare of each against the first (a t test over the processes' medians). By default
#         two: base, .carry/sb/stagebench-base (SB_AB_BASE), built at the base commit and copied
#         there after bench/scripts/pack-for-device, and new, this build; SB_AB_BUILDS:
#         space-separated NAME:PATH pairs to time instead (several builds in one call, the first
#         the base). SB_AB_RUNS: ';'-separated runs, each a name and stagebench run's arguments
#         (default: RDME's red blood cell at 8 nm, the Min system, byte16 sites); SB_AB_REPS
#         processes a build (default 3). Records in ab/BUILD-RUN/; comparisons in
#         ab/compare-RUN.txt (two builds) or ab/compare-RUN-BUILD.txt (each build after the first).
#   gate  bench/scripts/ci-gate as a CI runner runs it: this build against
#         .carry/sb/stagebench-base (SB_AB_BASE) in one session (docs/regression-gate.md)
#   proof the gate's proof (bench/scripts/gate-proof runs) with the proof builds carried as
#         .carry/proof.tar.xz (gate-proof build and pack), not this build: live gate runs one after
#         another of SB_PROOF_SERIES (default avsa: build a against b, the whole suite; or a
#         patch's name: a against that patch's build, over the lines of the workload its name
#         begins with) for SB_PROOF_SECONDS (default 300), or until SB_PROOF_END (seconds since
#         1970: set as a call starts, it fills what the steps before leave of the call). Into
#         proof/STAMP/SERIES.NN (STAMP: the UTC start), packed into $OUT/proof-SERIES.tar.xz after
#         each run, so a call cut short keeps them (a lent GPU returns a few files); their console
#         in proof/STAMP/SERIES.log. The builds unpack into SB_PROOF_BUILDS (default
#         /tmp/sb-proof), outside the bundle.
set -u
. bench/scripts/device/lib.sh
base=${SB_AB_BASE:-$sb/stagebench-base}
case $1 in
ab)
    builds=${SB_AB_BUILDS:-base:$base new:$sb/stagebench}
    nbuilds=$(echo $builds | wc -w)
    missing=""
    for pair in $builds; do
        [ -x "${pair#*:}" ] || missing="$missing ${pair#*:}"
    done
    why=""
    [ -n "$missing" ] && why="no build at$missing: copy one there, or set SB_AB_BASE or SB_AB_BUILDS"
    [ "$nbuilds" -lt 2 ] && why="SB_AB_BUILDS names one build: give two or more NAME:PATH pairs"
    if [ -n "$why" ]; then
        say "ab: FAILED ($why)"
        bundle
        exit 0
    fi
    first=${builds%% *}
    first=${first%%:*}
    echo "${SB_AB_RUNS:-rbc rdme --variant gpu,gpu-fused --param cell=rbc --param spacing=8 --param steps=20 --reference gpu;min rdme --variant gpu-graph,gpu-fused --param scenario=min-system --param steps=20000 --reference gpu;byte16 rdme --variant gpu --param cell=yeast --param spacing=8 --param steps=20 --param site_format=byte16 --reference gpu}" |
        tr ';' '\n' | while read -r name args; do
        for i in $(seq "${SB_AB_REPS:-3}"); do
            for pair in $builds; do
                side=${pair%%:*} bin=${pair#*:}
                mkdir -p "$out/ab/$side-$name"
                # shellcheck disable=SC2086
                "$bin" run $args --quiet --out "$out/ab/$side-$name/rep$i.json" \
                    > "$out/ab/$side-$name-rep$i.log" 2>&1 ||
                    say "ab $name: $side process $i exit $?"
            done
        done
        for pair in $builds; do
            side=${pair%%:*}
            [ "$side" = "$first" ] && continue
            cmp=$out/ab/compare-$name-$side.txt
            [ "$nbuilds" -eq 2 ] && cmp=$out/ab/compare-$name.txt
            "$sb/stagebench" compare "$out/ab/$first-$name" "$out/ab/$side-$name" > "$cmp" 2>&1
            sed "s/^/ab $name $side: /" "$cmp" >> "$summary"
        done
        bundle
    done ;;
gate)
    if [ -x "$base" ]; then
        SB_STAGEBENCH="$sb/stagebench" sh bench/scripts/ci-gate --base-program "$base" --head-program "$sb/stagebench" \
            --history "$out/gate-history.sqlite" --out "$out/gate" > "$out/gate.md" 2> "$out/gate.log"
        say "gate: exit $? (summary in gate.md)"
    else
        say "gate: FAILED (no base build at $base: copy one there, or set SB_AB_BASE)"
    fi
    bundle ;;
proof)
    builds=${SB_PROOF_BUILDS:-/tmp/sb-proof} series=${SB_PROOF_SERIES:-avsa}
    if [ ! -x "$builds/proof/a/stagebench" ] && [ -f .carry/proof.tar.xz ]; then
        mkdir -p "$builds" && tar -xJf .carry/proof.tar.xz -C "$builds"
    fi
    P=$builds/proof
    case $series in
    avsa) head=$P/b/stagebench glob= ;;                         # the whole suite
    *) head=$P/$series/stagebench glob="${series%%-*}/*" ;;      # the patch's workload
    esac
    if [ ! -x "$P/a/stagebench" ] || [ ! -x "$head" ]; then
        say "proof $series: FAILED (no $P/a/stagebench or $head: make the builds with bench/scripts/gate-proof build and pack, carry .carry/proof.tar.xz)"
        bundle
        exit 0
    fi
    dir=$out/proof/$(date -u +%Y-%m-%dT%H%M)
    mkdir -p "$dir"
    seconds=${SB_PROOF_SECONDS:-300}
    [ -n "${SB_PROOF_END:-}" ] && seconds=$((SB_PROOF_END - $(date +%s)))
    [ "$seconds" -gt 0 ] || seconds=0
    set -- "$P/a/stagebench" "$head" "$dir/$series" "$seconds"
    [ -n "$glob" ] && set -- "$@" --benchmark "$glob"
    SB_PROOF_PACK=$bundle_dir/proof-$series.tar.xz SB_STAGEBENCH=$P/a/stagebench SB_SHARED_DATA=$P/data \
        sh bench/scripts/gate-proof runs "$@" > "$dir/$series.log" 2>&1
    rc=$?
    cat "$dir/$series.log"
    # a run's line ends with its verdicts: "... rounds a benchmark, SAME" where every line said SAME
    say "proof $series: exit $rc, $(grep -c '^run ' "$dir/$series.log") runs, $(grep '^run ' "$dir/$series.log" | grep -cv 'rounds a benchmark, SAME$') with a verdict other than SAME ($(basename "$dir")/$series.NN, proof-$series.tar.xz)"
    bundle ;;
esac

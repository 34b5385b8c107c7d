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
esac

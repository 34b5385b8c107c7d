#!/bin/sh
# stagebench plot --kind counters on hand-made records: the figure (PNG, SVG, data in ladder
# order, GPU variants with collected counters only, no floor bar where a variant does not count
# its bytes) and its one-line errors (no counters; several points per variant; two records of
# one variant).   usage: sh tests/plot_counters.sh path/to/stagebench
set -u
sb=$1
# gnuplot draws the figure; without it there is nothing to test (77: ctest's skip)
if ! command -v gnuplot >/dev/null 2>&1; then
    echo "plot_counters: gnuplot not installed: skipped"
    exit 77
fi
. "$(dirname "$0")/shlib.sh"
nothing_drawn() { # prefix: a refused plot leaves no figure and no data
    [ ! -e "$1.png" ] && [ ! -e "$1.svg" ] && [ ! -e "$1.dat" ] || fail "a refused plot wrote $1.*"
}

# Records in the shape stagebench run writes (see results/SCHEMA.md), listed out of ladder order:
# three GPU variants with counters (host-loop does not count its bytes), the CPU reference
# (counters not applicable) and a GPU variant whose counters were unavailable.
# Also: the same at a second t_max, and a run where no variant has counters.
python3 - "$tmp" <<'EOF' || fail "crafting records"
import copy, json, sys

out = sys.argv[1]
peak = 3.0e12  # bytes/s, the context's measured peak

def record(variant, stage, device, counters, bytes_moved, t_max="240"):
    params = {"histogram": "/data/UT1.txt", "types": "m4", "t_max": t_max, "phi_min": "",
              "start": "async", "seed": "1", "replicate": "1", "distribution": "normal",
              "level_memory_gib": "4"}
    name = "procell/%s/histogram:UT1.txt/t_max:%s" % (variant, t_max)
    stats = {"unit": "s", "median": 0.002, "mean": 0.002, "min": 0.0019, "max": 0.0021,
             "stdev": 1e-5, "noise": 0.005, "samples": [0.0019, 0.002, 0.0021]}
    return {
        "name": name, "run_name": name, "run_type": "iteration", "repetitions": 1,
        "repetition_index": 0, "threads": 1, "iterations": 3, "real_time": 2.0,
        "cpu_time": 2.0, "time_unit": "ms", "items_per_second": 1e9,
        "stagebench": {
            "workload": "procell", "variant": variant, "stage": stage,
            "needs": ["gpu"] if device is not None else [], "params": params,
            "device": device, "status": "valid", "reason": "",
            "validation": {"status": "passed", "against": "cpu-reference", "detail": ""},
            "timer": "cuda-event" if device is not None else "wall", "stop_reason": "noise",
            "devices_used": 1 if device is not None else 0, "time": stats, "wall": stats,
            "clock": {"available": False, "sm_mhz_min": 0.0, "sm_mhz_median": 0.0,
                      "sm_mhz_max": 0.0, "throttled_samples": 0},
            "memory": {"peak_tracked_bytes": 0, "memgetinfo_delta_bytes": 0},
            "transfers": {"h2d": 0, "d2h": 0, "d2d": 0, "peer": 0},
            "derived": {"items": 2e6, "item_unit": "cells", "items_per_second": 1e9,
                        "bytes_moved": bytes_moved,
                        "bytes_per_second": bytes_moved / 0.002 if bytes_moved else None,
                        "pct_peak_dram": bytes_moved / 0.002 / peak * 100 if bytes_moved else None},
            "launches": {"device": 0.0, "host": 0.0}, "series": [], "phases": {},
            "counters": counters,
        },
    }

def collected(time_ns, read, write, occupancy, bytes_moved):
    dram = read + write
    per_second = dram / (time_ns * 1e-9)
    return {
        "status": "collected", "reason": "", "backend": "range-profiler", "replay": "user",
        "passes": 3, "l2_flushed": True, "device": 0,
        "metrics": {"gpu__time_duration.sum": time_ns, "dram__bytes_read.sum": read,
                    "dram__bytes_write.sum": write,
                    "sm__throughput.avg.pct_of_peak_sustained_elapsed": 40.0,
                    "sm__warps_active.avg.pct_of_peak_sustained_active": occupancy,
                    "lts__t_sector_hit_rate.pct": 60.0},
        "derived": {"dram_bytes": dram, "dram_bytes_per_second": per_second,
                    "dram_pct_peak": per_second / peak * 100,
                    "dram_bytes_over_floor": dram / bytes_moved if bytes_moved else None},
    }

def not_collected(status, reason):
    return {"status": status, "reason": reason}

def benchmarks(t_max):
    return [
        record("subtree-dfs", 6, 0, collected(1.5e6, 4.0e6, 2.0e6, 31.0, 5.0e6), 5.0e6, t_max),
        record("cpu-reference", 0, None, not_collected("not-applicable", "CPU variant"), None,
               t_max),
        record("host-loop", 1, 0, collected(9.0e6, 6.0e9, 5.0e9, 72.5, None), None, t_max),
        record("multi-gpu", 7, 0, not_collected("unavailable", "CUPTI: profiling not permitted "
                                               "(ERR_NVGPUCTRPERM)"), 6.0e8, t_max),
        record("gpu-histogram", 5, 0, collected(2.0e6, 1.2e9, 0.6e9, 88.0, 1.0e9), 1.0e9, t_max),
    ]

context = {
    "date": "2026-01-01T00:00:00+00:00", "host_name": "test", "executable": "run", "num_cpus": 2,
    "mhz_per_cpu": 2000, "cpu_scaling_enabled": False, "caches": [], "load_avg": [0, 0, 0],
    "library_build_type": "release",
    "stagebench": {"schema": 1, "command": "run procell --metrics default", "devices": [
        {"ordinal": 0, "name": "NVIDIA H100 80GB HBM3", "peak_dram_bytes_per_second": peak}]},
}

def write(name, benches):
    with open("%s/%s.json" % (out, name), "w") as f:
        json.dump({"context": context, "benchmarks": benches}, f, indent=1)

write("counters", benchmarks("240"))
write("two-points", benchmarks("240") + benchmarks("120"))
none = benchmarks("240")
for b in none:
    if b["stagebench"]["counters"]["status"] == "collected":
        b["stagebench"]["counters"] = not_collected("off", "--metrics none")
write("no-counters", none)
EOF

# the figure: three panels in one PNG and one SVG, the data in ladder order
expect 0 "counters plot" "$sb" plot "$tmp/counters.json" --kind counters --out "$tmp/x"
[ -s "$tmp/x.png" ] && [ -s "$tmp/x.svg" ] || fail "counters plot wrote PNG and SVG"
grep -q "^$tmp/x.png\$" "$tmp/out" || fail "plot prints the figures it wrote"
blocks=$(grep '^# index' "$tmp/x.dat" | cut -d' ' -f4 | tr '\n' ' ')
[ "$blocks" = "host-loop gpu-histogram subtree-dfs " ] ||
    fail "blocks: the GPU variants with counters, by stage (see $tmp/x.dat)"
# host-loop does not count its bytes: NaN floor, no bar
grep -v '^#' "$tmp/x.dat" | grep . | head -n 1 | grep -qi 'nan$' || fail "host-loop has no floor"
grep -q 'host-loop' "$tmp/x.svg" && grep -q 'subtree-dfs' "$tmp/x.svg" ||
    fail "variants named on the figure"
expect 0 "counters plot of chosen variants" "$sb" plot "$tmp/counters.json" --kind counters \
    --variants subtree-dfs,host-loop --out "$tmp/chosen"
[ "$(grep -c '^# index' "$tmp/chosen.dat")" = 2 ] &&
    grep -q '^# index 0: subtree-dfs' "$tmp/chosen.dat" ||
    fail "--variants picks and orders the bars"

# no record with counters: exit 2, one line with the statuses seen and the fix
expect 2 "no counters" "$sb" plot "$tmp/no-counters.json" --kind counters --out "$tmp/none"
one_line_naming "no record in $tmp/no-counters.json has hardware counters"
grep -q "off: --metrics none" "$tmp/err" && grep -q "unavailable: CUPTI" "$tmp/err" &&
    grep -q "not-applicable" "$tmp/err" && grep -q -- "--metrics default" "$tmp/err" ||
    fail "the statuses seen and the fix"
nothing_drawn "$tmp/none"
expect 2 "no counters among the chosen variants" "$sb" plot "$tmp/counters.json" --kind counters \
    --variants cpu-reference --out "$tmp/cpu"
one_line_naming "not-applicable: CPU variant"
nothing_drawn "$tmp/cpu"

# several points per variant: a bar chart needs one, --where picks it
expect 2 "two points" "$sb" plot "$tmp/two-points.json" --kind counters --out "$tmp/two"
one_line_naming "differ in t_max"
grep -q -- "--where t_max=" "$tmp/err" || fail "the message says to narrow with --where"
nothing_drawn "$tmp/two"
expect 0 "one point picked with --where" "$sb" plot "$tmp/two-points.json" --kind counters \
    --where t_max=120 --out "$tmp/one"
[ -s "$tmp/one.png" ] && [ -s "$tmp/one.svg" ] || fail "--where t_max=120 draws"

# the same records twice (two runs, two devices): one bar cannot show both
expect 2 "two records of one variant" "$sb" plot "$tmp/counters.json" "$tmp/counters.json" \
    --kind counters --out "$tmp/twice"
one_line_naming "one run and one device at a time"
nothing_drawn "$tmp/twice"

expect 2 "unknown kind" "$sb" plot "$tmp/counters.json" --kind counter
one_line_naming "counters"
echo "plot_counters: $n checks passed"

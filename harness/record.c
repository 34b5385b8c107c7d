#include "record.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cuda/base/error.h"
#include "json.h"

/* jansson refuses NaN and infinities: they become null. */
static json_t *number(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *stats_json(const sb_stats *s, const double *samples, int n)
{
    json_t *list = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(list, number(samples[i]));
    json_t *j = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "unit", "s", "median",
                          number(s->median), "mean", number(s->mean), "min", number(s->min),
                          "max", number(s->max), "stdev", number(s->stdev), "noise",
                          number(s->noise), "samples", list);
    json_object_set_new(j, "noise_robust", number(s->noise_robust));
    json_object_set_new(j, "median_ci", number(s->median_ci));
    return j;
}

static json_t *series_json(const sb_report *rep)
{
    json_t *list = json_array();
    for (int i = 0; i < rep->nseries; i++) {
        const sb_series *s = &rep->series[i];
        json_t *x = json_array(), *y = json_array();
        for (int k = 0; k < s->n; k++) {
            json_array_append_new(x, number(s->x[k]));
            json_array_append_new(y, number(s->y[k]));
        }
        json_array_append_new(list, json_pack("{s:s, s:s, s:o, s:o}", "name", s->name, "x_name",
                                              s->x_name, "x", x, "y", y));
    }
    return list;
}

static json_t *needs_json(unsigned needs)
{
    json_t *list = json_array();
    if (needs & SB_NEEDS_GPU)
        json_array_append_new(list, json_string("gpu"));
    if (needs & SB_NEEDS_CDP)
        json_array_append_new(list, json_string("dynamic-parallelism"));
    if (needs & SB_NEEDS_MULTI_GPU)
        json_array_append_new(list, json_string("all-gpus"));
    if (needs & SB_NEEDS_GRAPH_LOOP)
        json_array_append_new(list, json_string("graph-loop"));
    if (needs & SB_NEEDS_NCCL)
        json_array_append_new(list, json_string("nccl"));
    if (needs & SB_NEEDS_INDEPENDENT_THREADS)
        json_array_append_new(list, json_string("independent-threads"));
    return list;
}

/* Rates of a record: per second of the median primary time; bytes figures only where the
 * variant counts the bytes it moves (NaN, written as null or an empty cell, otherwise). */
typedef struct derived {
    double items_per_s, bytes, bytes_per_s, pct_peak, sim_per_hour;
    /* the steady loop (sb_steady): NaN when not reported */
    double steady_step_items_per_s, steady_bytes_per_s, steady_pct_peak, steady_sim_per_hour;
} derived;

static derived derive(const sb_result *res)
{
    int valid = res->status == SB_VALID && res->time.median > 0;
    derived d;
    d.items_per_s = valid ? res->figures.items / res->time.median : 0;
    d.bytes = res->report.bytes_moved > 0 ? res->report.bytes_moved : NAN;
    d.bytes_per_s = valid ? d.bytes / res->time.median : NAN;
    d.pct_peak = res->peak_bw > 0 ? 100.0 * d.bytes_per_s / res->peak_bw : NAN;
    d.sim_per_hour = valid && res->figures.simulated_seconds > 0
                         ? 3600.0 * res->figures.simulated_seconds / res->time.median
                         : NAN;
    const sb_steady *st = &res->report.steady;
    int steady = valid && st->seconds > 0;
    d.steady_step_items_per_s = steady ? st->items / st->seconds : NAN;
    d.steady_bytes_per_s = steady && st->bytes > 0 ? st->bytes / st->seconds : NAN;
    d.steady_pct_peak = res->peak_bw > 0 ? 100.0 * d.steady_bytes_per_s / res->peak_bw : NAN;
    d.steady_sim_per_hour =
        steady && st->simulated_seconds > 0 ? 3600.0 * st->simulated_seconds / st->seconds : NAN;
    return d;
}

/* A collected metric by name; NaN when absent. */
static double metric(const sb_counter_result *c, const char *name)
{
    for (int i = 0; strcmp(c->status, "collected") == 0 && i < c->n; i++)
        if (strcmp(c->names[i], name) == 0)
            return c->values[i];
    return NAN;
}

/* What the DRAM counters say against the measured peak and the variant's own floor. */
typedef struct counter_derived {
    double seconds; /* the counters' pass: gpu__time_duration.sum */
    double dram_bytes, dram_bytes_per_s, dram_pct_peak, over_floor;
} counter_derived;

static counter_derived derive_counters(const sb_result *res)
{
    counter_derived d;
    d.seconds = metric(&res->counters, "gpu__time_duration.sum") * 1e-9;
    d.dram_bytes = metric(&res->counters, "dram__bytes_read.sum") +
                   metric(&res->counters, "dram__bytes_write.sum");
    d.dram_bytes_per_s = d.seconds > 0 ? d.dram_bytes / d.seconds : NAN;
    d.dram_pct_peak = res->peak_bw > 0 ? 100.0 * d.dram_bytes_per_s / res->peak_bw : NAN;
    d.over_floor = res->report.bytes_moved > 0 ? d.dram_bytes / res->report.bytes_moved : NAN;
    return d;
}

static json_t *counters_json(const sb_result *res)
{
    const sb_counter_result *c = &res->counters;
    json_t *metrics = json_object();
    for (int i = 0; strcmp(c->status, "collected") == 0 && i < c->n; i++)
        json_object_set_new(metrics, c->names[i], number(c->values[i]));
    counter_derived d = derive_counters(res);
    json_t *j = json_pack("{s:s, s:s, s:o, s:o, s:i, s:b, s:o, s:o}", "status", c->status,
                          "reason", c->reason, "backend",
                          c->backend ? json_string(c->backend) : json_null(), "replay",
                          c->replay ? json_string(c->replay) : json_null(), "passes", c->passes,
                          "l2_flushed", c->passes > 0, "device",
                          c->passes > 0 ? json_integer(c->device) : json_null(), "metrics",
                          metrics);
    json_object_set_new(j, "derived",
                        json_pack("{s:o, s:o, s:o, s:o}", "dram_bytes", number(d.dram_bytes),
                                  "dram_bytes_per_second", number(d.dram_bytes_per_s),
                                  "dram_pct_peak", number(d.dram_pct_peak),
                                  "dram_bytes_over_floor", number(d.over_floor)));
    return j;
}

/* A run's floors set against its time (docs/limits.md, "Floors"): the problem's (the least bytes
 * any correct version moves, by the workload), the design's (the bytes this variant moves, by its
 * own count), and, from the counters where collected, the DRAM bytes it did move and the
 * instructions it issued, each as the share of the time it would take alone: bytes at the
 * measured DRAM peak, instructions at the device's issue rate. The bound is the larger of the
 * two measured shares, "latency" where neither reaches SB_BOUND_PCT. */
typedef struct floors {
    double problem_pct, problem_steady_pct, design_pct, design_steady_pct;
    double instructions, issue_pct, dram_pct;
    const char *bound;
} floors;

static double pct_of(double floor_seconds, double seconds)
{
    return floor_seconds > 0 && seconds > 0 ? 100.0 * floor_seconds / seconds : NAN;
}

static floors derive_floors(const sb_result *res)
{
    floors f = {NAN, NAN, NAN, NAN, NAN, NAN, NAN, NULL};
    if (res->status != SB_VALID || !(res->peak_bw > 0))
        return f;
    double steady = res->report.steady.seconds > 0 ? res->report.steady.seconds : NAN;
    /* the bytes' floors at the peak of every GPU the run used (the timed one's, times their
     * number); the counters saw the timed GPU alone, its own share */
    double peak = res->peak_bw * (res->ndevices > 1 ? res->ndevices : 1);
    f.problem_pct = pct_of(res->problem.bytes / peak, res->time.median);
    f.problem_steady_pct = pct_of(res->problem.bytes / peak, steady);
    f.design_pct = pct_of(res->report.bytes_moved / peak, res->time.median);
    f.design_steady_pct = pct_of(res->report.steady.bytes / peak, steady);
    counter_derived d = derive_counters(res);
    f.instructions = metric(&res->counters, "smsp__inst_executed.sum");
    f.issue_pct = res->issue_rate > 0 ? pct_of(f.instructions / res->issue_rate, d.seconds) : NAN;
    f.dram_pct = d.dram_pct_peak;
    if (isfinite(f.issue_pct) || isfinite(f.dram_pct)) {
        int issue = isfinite(f.issue_pct) && !(f.dram_pct >= f.issue_pct);
        double top = issue ? f.issue_pct : f.dram_pct;
        f.bound = top >= SB_BOUND_PCT ? (issue ? "issue" : "dram") : "latency";
    }
    return f;
}

static json_t *floors_json(const sb_result *res)
{
    floors f = derive_floors(res);
    const sb_problem_floor *p = &res->problem;
    json_t *j = json_object();
    json_object_set_new(j, "problem_bytes", number(p->bytes > 0 ? p->bytes : NAN));
    json_object_set_new(j, "problem", p->bytes > 0 ? json_string(p->what) : json_null());
    json_object_set_new(j, "problem_pct", number(f.problem_pct));
    json_object_set_new(j, "problem_steady_pct", number(f.problem_steady_pct));
    json_object_set_new(j, "design_pct", number(f.design_pct));
    json_object_set_new(j, "design_steady_pct", number(f.design_steady_pct));
    json_object_set_new(j, "dram_pct", number(f.dram_pct));
    json_object_set_new(j, "warp_instructions", number(f.instructions));
    json_object_set_new(j, "issue_rate", number(res->issue_rate > 0 ? res->issue_rate : NAN));
    json_object_set_new(j, "issue_pct", number(f.issue_pct));
    json_object_set_new(j, "bound", f.bound ? json_string(f.bound) : json_null());
    return j;
}

/* Occupancy, blocks per SM and the limiter are null where the calculator did not know the
 * device. */
static json_t *kernel_table_json(const sb_activity *a)
{
    json_t *list = json_array();
    for (int i = 0; i < a->nkernel_table; i++) {
        const sb_kernel *k = &a->kernel_table[i];
        int known = !isnan(k->occupancy);
        json_t *row = json_pack(
            "{s:s, s:i, s:I, s:o, s:i, s:i, s:i, s:i, s:i}", "name", k->name, "device", k->device,
            "launches", (json_int_t)k->launches, "seconds", number(k->seconds), "registers",
            k->registers, "local_bytes_per_thread", k->local_bytes_per_thread, "block_threads",
            k->block_threads, "static_shared_bytes", k->static_shared_bytes,
            "dynamic_shared_bytes", k->dynamic_shared_bytes);
        json_object_set_new(row, "blocks_per_sm",
                            known ? json_integer(k->blocks_per_sm) : json_null());
        json_object_set_new(row, "occupancy", number(k->occupancy));
        json_object_set_new(row, "limited_by", known ? json_string(k->limited_by) : json_null());
        json_array_append_new(list, row);
    }
    return list;
}

static json_t *activity_window_json(const sb_activity *a)
{
    json_t *j = json_pack("{s:I, s:o, s:o, s:o, s:I, s:I}", "kernels", (json_int_t)a->kernels,
                          "kernel_s", number(a->kernel_s), "memcpy_s", number(a->memcpy_s),
                          "memset_s", number(a->memset_s), "memcpys", (json_int_t)a->memcpys,
                          "memsets", (json_int_t)a->memsets);
    json_object_set_new(j, "bytes",
                        json_pack("{s:I, s:I, s:I, s:I}", "h2d", (json_int_t)a->h2d, "d2h",
                                  (json_int_t)a->d2h, "d2d", (json_int_t)a->d2d, "peer",
                                  (json_int_t)a->peer));
    json_object_set_new(j, "device_memory",
                        json_pack("{s:I, s:I, s:I, s:I, s:I}", "allocations",
                                  (json_int_t)a->allocations, "frees", (json_int_t)a->frees,
                                  "allocated_bytes", (json_int_t)a->allocated_bytes,
                                  "live_peak_bytes", (json_int_t)a->live_peak_bytes,
                                  "live_end_bytes", (json_int_t)a->live_end_bytes));
    json_object_set_new(j, "dropped_records", json_integer(a->dropped));
    json_object_set_new(j, "kernel_table", kernel_table_json(a));
    json_object_set_new(j, "kernel_table_omitted_launches",
                        json_integer(a->kernel_table_omitted_launches));
    return j;
}

static json_t *activity_json(const sb_activity_result *a)
{
    json_t *j = json_pack("{s:s, s:s}", "status", a->status, "reason", a->reason);
    if (strcmp(a->status, "collected") != 0)
        return j;
    json_object_set_new(j, "setup", activity_window_json(&a->setup));
    json_object_set_new(j, "run", activity_window_json(&a->run));
    if (a->has_timed)
        json_object_set_new(j, "timed_run", activity_window_json(&a->timed));
    json_object_set_new(j, "device_peak_bytes", json_integer(a->device_peak_bytes));
    json_object_set_new(j, "agrees_with_tracked", json_boolean(a->agrees));
    json_object_set_new(j, "disagreement", json_string(a->disagreement));
    return j;
}

static json_t *benchmark_json(const sb_result *res)
{
    const sb_params *p = res->params;
    json_t *params = json_object();
    for (int i = 0; i < p->n; i++)
        json_object_set_new(params, p->decls[i].name, json_string(p->v[i].text));
    int valid = res->status == SB_VALID;
    double median = valid ? res->time.median : 0;
    derived d = derive(res);

    json_t *sb = json_pack(
        "{s:s, s:s, s:i, s:o, s:o, s:o, s:s, s:s, s:{s:s, s:o, s:s}, s:s, s:o}", "workload",
        res->workload->name, "variant", res->variant->name, "stage", res->variant->stage,
        "needs", needs_json(res->variant->needs), "params", params, "device",
        res->device >= 0 ? json_integer(res->device) : json_null(), "status",
        sb_status_name(res->status), "reason", res->reason, "validation", "status",
        res->validation, "against", res->against ? json_string(res->against) : json_null(),
        "detail", res->validation_detail, "timer", res->event_timer ? "cuda-event" : "wall",
        "stop_reason", res->stop_reason ? json_string(res->stop_reason) : json_null());
    /* where the reference's output came from: its own run in this process, or the cache */
    json_object_set_new(json_object_get(sb, "validation"), "reference_output",
                        res->against ? json_string(res->reference_cached ? "cached" : "run")
                                     : json_null());
    json_object_set_new(sb, "stop_detail", json_string(res->stop_detail));
    json_object_set_new(sb, "runs_per_sample", json_integer(res->runs_per_sample));
    json_object_set_new(sb, "warmup_runs", json_integer(res->warmup_runs));
    json_object_set_new(sb, "kernel_level", json_boolean(res->variant->kernel_level));
    json_object_set_new(sb, "host",
                        json_pack("{s:i, s:i, s:i}", "preempted_samples", res->preempted_samples,
                                  "slow_samples", res->slow_samples, "slow_preempted",
                                  res->slow_preempted));
    json_object_set_new(sb, "devices_used", json_integer(res->ndevices));
    json_object_set_new(sb, "l2_flushed", json_boolean(res->l2_flushed));
    json_object_set_new(sb, "time", stats_json(&res->time, res->time_samples, res->nsamples));
    json_object_set_new(sb, "wall", stats_json(&res->wall, res->wall_samples, res->nsamples));
    json_object_set_new(sb, "clock",
                        json_pack("{s:b, s:o, s:o, s:o, s:i, s:o}", "available",
                                  res->clock_available, "sm_mhz_min", number(res->sm_mhz_min),
                                  "sm_mhz_median", number(res->sm_mhz_median), "sm_mhz_max",
                                  number(res->sm_mhz_max), "throttled_samples",
                                  res->throttled_samples, "temperature_c_max",
                                  res->temperature_c_max > 0 ? json_real(res->temperature_c_max)
                                                             : json_null()));
    json_object_set_new(sb, "memory",
                        json_pack("{s:I, s:I}", "peak_tracked_bytes",
                                  (json_int_t)res->peak_tracked_bytes, "memgetinfo_delta_bytes",
                                  (json_int_t)res->memgetinfo_delta_bytes));
    json_object_set_new(sb, "transfers",
                        json_pack("{s:I, s:I, s:I, s:I}", "h2d", (json_int_t)res->transfers.h2d,
                                  "d2h", (json_int_t)res->transfers.d2h, "d2d",
                                  (json_int_t)res->transfers.d2d, "peer",
                                  (json_int_t)res->transfers.peer));
    json_object_set_new(sb, "derived",
                        json_pack("{s:o, s:s, s:o, s:o, s:o, s:o}", "items",
                                  number(res->figures.items), "item_unit",
                                  res->workload->item_unit, "items_per_second",
                                  number(d.items_per_s), "bytes_moved", number(d.bytes),
                                  "bytes_per_second", number(d.bytes_per_s), "pct_peak_dram",
                                  number(d.pct_peak)));
    json_t *derived_obj = json_object_get(sb, "derived");
    json_object_set_new(derived_obj, "simulated_seconds", number(res->figures.simulated_seconds));
    json_object_set_new(derived_obj, "simulated_seconds_per_hour", number(d.sim_per_hour));
    json_t *output = json_object();
    for (int i = 0; res->workload->output_figures && res->workload->output_figures[i]; i++)
        json_object_set_new(output, res->workload->output_figures[i],
                            number(valid ? res->figures.values[i] : NAN));
    json_object_set_new(derived_obj, "output", output);
    const sb_steady *st = &res->report.steady;
    json_object_set_new(
        sb, "steady",
        st->seconds > 0
            ? json_pack("{s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o}", "seconds",
                        number(st->seconds), "items", number(st->items), "bytes_moved",
                        number(st->bytes > 0 ? st->bytes : NAN), "simulated_seconds",
                        number(st->simulated_seconds), "runs", st->runs, "items_per_second",
                        number(d.steady_step_items_per_s), "bytes_per_second",
                        number(d.steady_bytes_per_s), "pct_peak_dram", number(d.steady_pct_peak),
                        "simulated_seconds_per_hour", number(d.steady_sim_per_hour))
            : json_null());
    json_object_set_new(sb, "launches",
                        json_pack("{s:o, s:o}", "device", number(res->report.device_launches),
                                  "host", number(res->report.host_launches)));
    json_object_set_new(sb, "series", series_json(&res->report));
    json_t *phases = json_object();
    for (int i = 0; i < res->report.phases.n; i++)
        json_object_set_new(phases, res->report.phases.name[i],
                            number(res->report.phases.seconds[i]));
    json_object_set_new(sb, "phases", phases);
    json_object_set_new(sb, "counters", counters_json(res));
    json_object_set_new(sb, "floors", floors_json(res));
    const char *noisy = sb_noisy_why(res->workload, res->variant->name);
    json_object_set_new(sb, "noise_note", valid && noisy && res->time.noise > SB_QUIET_NOISE
                                              ? json_string(noisy)
                                              : json_null());
    json_object_set_new(sb, "activity", activity_json(&res->activity));

    json_t *b = json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:i, s:o, s:o, s:s}", "name", res->name,
                          "run_name", res->name, "run_type", "iteration", "repetitions", 1,
                          "repetition_index", 0, "threads", 1, "iterations", res->nsamples,
                          "real_time", number(median * 1e3), "cpu_time",
                          number(valid ? res->wall.median * 1e3 : 0), "time_unit", "ms");
    if (valid) {
        json_object_set_new(b, "items_per_second", number(d.items_per_s));
        if (isfinite(d.bytes_per_s))
            json_object_set_new(b, "bytes_per_second", number(d.bytes_per_s));
    } else {
        json_object_set_new(b, "error_occurred", json_true());
        json_object_set_new(b, "error_message", json_string(res->reason));
    }
    json_object_set_new(b, "stagebench", sb);
    return b;
}

/* CSV */

static int csv_append(sb_records *r, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(r->csv + r->csv_len, r->csv_cap - r->csv_len, fmt, ap);
        va_end(ap);
        if (n < 0)
            return sb_fail("CSV formatting failed");
        if ((size_t)n < r->csv_cap - r->csv_len) {
            r->csv_len += (size_t)n;
            return 0;
        }
        size_t cap = 2 * r->csv_cap + (size_t)n + 4096;
        char *csv = realloc(r->csv, cap);
        if (!csv)
            return sb_fail("out of host memory for the CSV view");
        r->csv = csv;
        r->csv_cap = cap;
    }
}

/* A text cell preceded by a comma unless it starts the row; quoted when it must be. */
static int csv_text(sb_records *r, const char *text, int first)
{
    if (!first && csv_append(r, ",") != 0)
        return -1;
    if (!strpbrk(text, ",\"\n"))
        return csv_append(r, "%s", text);
    if (csv_append(r, "\"") != 0)
        return -1;
    for (const char *c = text; *c; c++)
        if (csv_append(r, *c == '"' ? "\"\"" : "%c", *c) != 0)
            return -1;
    return csv_append(r, "\"");
}

static int csv_number(sb_records *r, int present, double x)
{
    return present && isfinite(x) ? csv_append(r, ",%.9g", x) : csv_append(r, ",");
}

/* Seconds of phase `name` in p, -1 when p has no such phase. */
static double phase_of(const sb_phases *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->name[i], name) == 0)
            return p->seconds[i];
    return -1;
}

static int csv_header(sb_records *r)
{
    const sb_workload *w = r->workload;
    if (csv_append(r, "name,workload,variant,stage,device,status") != 0)
        return -1;
    for (int i = 0; i < w->nparams; i++)
        if (csv_append(r, ",%s", w->params[i].name) != 0)
            return -1;
    if (csv_append(r, ",samples,median_s,mean_s,min_s,max_s,stdev_s,noise,wall_median_s,"
                         "stop_reason,items,items_per_second,bytes_moved,pct_peak_dram,"
                         "peak_device_bytes,h2d_bytes,d2h_bytes,peer_bytes,device_launches,"
                         "counters_status,gpu_time_s,dram_read_bytes,dram_write_bytes,"
                         "dram_pct_peak_measured,sm_throughput_pct,achieved_occupancy_pct,"
                         "l2_hit_pct,dram_bytes_over_floor,activity_kernels,"
                         "activity_agrees,simulated_s_per_hour,steady_s,"
                         "steady_items_per_second,steady_pct_peak_dram,"
                         "steady_simulated_s_per_hour,problem_floor_pct,"
                         "steady_problem_floor_pct,issue_floor_pct,bound") != 0)
        return -1;
    for (int i = 0; w->output_figures && w->output_figures[i]; i++)
        if (csv_append(r, ",%s", w->output_figures[i]) != 0)
            return -1;
    /* gnuplot finds a column by a name without blanks: cell-cell lists -> phase:cell-cell_lists */
    for (int i = 0; w->csv_phases && w->csv_phases[i]; i++) {
        if (csv_append(r, ",phase:") != 0)
            return -1;
        for (const char *c = w->csv_phases[i]; *c; c++)
            if (csv_append(r, "%c", *c == ' ' ? '_' : *c) != 0)
                return -1;
    }
    return csv_append(r, "\n");
}

static int csv_row(sb_records *r, const sb_result *res)
{
    int v = res->status == SB_VALID;
    const sb_stats *t = &res->time;
    derived d = derive(res);
    int rc = csv_text(r, res->name, 1) || csv_text(r, res->workload->name, 0) ||
             csv_text(r, res->variant->name, 0) || csv_append(r, ",%d", res->variant->stage) ||
             csv_number(r, res->device >= 0, res->device) ||
             csv_text(r, sb_status_name(res->status), 0);
    for (int i = 0; !rc && i < res->params->n; i++)
        rc = csv_text(r, res->params->v[i].text, 0);
    if (rc)
        return -1;
    rc = csv_append(r, ",%d", res->nsamples) || csv_number(r, v, t->median) ||
         csv_number(r, v, t->mean) || csv_number(r, v, t->min) || csv_number(r, v, t->max) ||
         csv_number(r, v, t->stdev) || csv_number(r, v, t->noise) ||
         csv_number(r, v, res->wall.median) ||
         csv_text(r, res->stop_reason ? res->stop_reason : "", 0) ||
         csv_number(r, v, res->figures.items) || csv_number(r, v, d.items_per_s) ||
         csv_number(r, v, d.bytes) || csv_number(r, v, d.pct_peak) ||
         csv_number(r, 1, (double)res->peak_tracked_bytes) ||
         csv_number(r, v, (double)res->transfers.h2d) ||
         csv_number(r, v, (double)res->transfers.d2h) ||
         csv_number(r, v, (double)res->transfers.peer) ||
         csv_number(r, v, res->report.device_launches);
    if (rc)
        return -1;
    const sb_counter_result *c = &res->counters;
    const sb_activity_result *a = &res->activity;
    counter_derived cd = derive_counters(res);
    int activity = strcmp(a->status, "collected") == 0;
    rc = csv_text(r, c->status, 0) ||
         csv_number(r, 1, metric(c, "gpu__time_duration.sum") * 1e-9) ||
         csv_number(r, 1, metric(c, "dram__bytes_read.sum")) ||
         csv_number(r, 1, metric(c, "dram__bytes_write.sum")) ||
         csv_number(r, 1, cd.dram_pct_peak) ||
         csv_number(r, 1, metric(c, "sm__throughput.avg.pct_of_peak_sustained_elapsed")) ||
         csv_number(r, 1, metric(c, "sm__warps_active.avg.pct_of_peak_sustained_active")) ||
         csv_number(r, 1, metric(c, "lts__t_sector_hit_rate.pct")) ||
         csv_number(r, 1, cd.over_floor) || csv_number(r, activity, (double)a->run.kernels) ||
         csv_text(r, activity ? (a->agrees ? "yes" : "no") : "", 0) ||
         csv_number(r, 1, d.sim_per_hour) ||
         csv_number(r, 1, res->report.steady.seconds > 0 ? res->report.steady.seconds : NAN) ||
         csv_number(r, 1, d.steady_step_items_per_s) || csv_number(r, 1, d.steady_pct_peak) ||
         csv_number(r, 1, d.steady_sim_per_hour);
    floors f = derive_floors(res);
    rc = rc || csv_number(r, 1, f.problem_pct) || csv_number(r, 1, f.problem_steady_pct) ||
         csv_number(r, 1, f.issue_pct) || csv_text(r, f.bound ? f.bound : "", 0);
    for (int i = 0; !rc && res->workload->output_figures && res->workload->output_figures[i]; i++)
        rc = csv_number(r, v, res->figures.values[i]);
    for (int i = 0; !rc && res->workload->csv_phases && res->workload->csv_phases[i]; i++)
        rc = csv_number(r, v && phase_of(&res->report.phases, res->workload->csv_phases[i]) >= 0,
                        phase_of(&res->report.phases, res->workload->csv_phases[i]));
    return rc || csv_append(r, "\n") ? -1 : 0;
}

/* 1 when the file at path (regular, not empty) is what stagebench writes there: records (a JSON
 * object with a benchmarks array) or, csv set, their CSV view (its header's first columns). */
static int written_by_stagebench(const char *path, int csv)
{
    if (csv) {
        char head[32] = "";
        FILE *f = fopen(path, "r");
        if (!f)
            return 0;
        size_t n = fread(head, 1, sizeof head - 1, f);
        fclose(f);
        head[n] = '\0';
        return strncmp(head, "name,workload,variant,", 22) == 0;
    }
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    int ours = json_is_array(json_object_get(doc, "benchmarks"));
    json_decref(doc);
    return ours;
}

/* An existing path a records view would replace: a regular file, empty or stagebench's own.
 * csv: the CSV view beside the records file the label names. */
static int check_existing(const char *path, const char *label, int csv)
{
    struct stat st;
    char subject[4200] = "it";
    if (csv)
        snprintf(subject, sizeof subject, "its CSV view %s", path);
    if (stat(path, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 /* the folders above it say */
                                                   : sb_fail("%s: %s: %s; name another file",
                                                             label, subject, strerror(errno));
    if (S_ISDIR(st.st_mode) && !csv)
        return sb_fail("%s: a folder; name a records file in it, e.g. %s/run.json", label, path);
    if (!S_ISREG(st.st_mode))
        return sb_fail("%s: %s is %s; name another records file", label, subject,
                       S_ISDIR(st.st_mode) ? "a folder" : "not a regular file");
    if (st.st_size > 0 && !written_by_stagebench(path, csv))
        return sb_fail("%s: %s exists and is not %s stagebench wrote (a run replaces only its "
                       "own); name a new file, or move that one away first", label, subject,
                       csv ? "one" : "records");
    return 0;
}

int sb_records_check_path(const char *json_path, const char *label)
{
    char csv[4096], dir[4096];
    size_t len = strlen(json_path);
    if (len == 0 || len >= sizeof dir - 8)
        return sb_fail("%s: give a records file's path (at most %zu characters)", label,
                       sizeof dir - 9);
    if (json_path[len - 1] == '/')
        return sb_fail("%s: a folder; name a records file in it, e.g. %srun.json", label,
                       json_path);
    sb_records_sibling(json_path, ".csv", csv, sizeof csv);
    if (check_existing(json_path, label, 0) != 0 || check_existing(csv, label, 1) != 0)
        return -1;
    /* The folder, or the nearest folder above it that exists (the run makes those below): both
     * views are written there through a temporary file and a rename. */
    snprintf(dir, sizeof dir, "%s", json_path);
    for (;;) {
        sb_cut_to_folder(dir);
        struct stat st;
        if (stat(dir, &st) == 0) {
            if (!S_ISDIR(st.st_mode))
                return sb_fail("%s: %s is a file, not a folder; give a path whose folders are "
                               "folders", label, dir);
            if (access(dir, W_OK | X_OK) != 0)
                return sb_fail("%s: cannot write in %s (%s); give a folder you can write to",
                               label, dir, strerror(errno));
            return 0;
        }
        if (errno != ENOENT && errno != ENOTDIR)
            return sb_fail("%s: %s: %s; give a folder you can write to", label, dir,
                           strerror(errno));
        if (!strcmp(dir, ".") || !strcmp(dir, "/"))
            return 0;
    }
}

int sb_records_open(sb_records *r, const char *json_path, json_t *context, const sb_workload *w)
{
    memset(r, 0, sizeof *r);
    r->workload = w;
    snprintf(r->json_path, sizeof r->json_path, "%s", json_path);
    sb_records_sibling(json_path, ".csv", r->csv_path, sizeof r->csv_path);
    r->benchmarks = json_array();
    r->doc = json_pack("{s:o, s:O}", "context", context, "benchmarks", r->benchmarks);
    if (!r->doc)
        return sb_fail("cannot build the records document for %s", json_path);
    return csv_header(r);
}

/* Both views, each atomically: the CSV first, then the JSON, the commit point (a record in the
 * JSON has its row in the CSV, whenever the process was killed). */
static int write_views(sb_records *r)
{
    if (sb_write_atomic(r->csv_path, r->csv, r->csv_len) != 0)
        return -1;
    return sb_json_write_atomic(r->json_path, r->doc);
}

int sb_records_add(sb_records *r, const sb_result *res)
{
    json_t *b = benchmark_json(res);
    if (!b || json_array_append_new(r->benchmarks, b) != 0)
        return sb_fail("cannot encode the record of %s", res->name);
    if (csv_row(r, res) != 0)
        return -1;
    return write_views(r);
}

/* ---- records written by another process: resumed, merged ---- */

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *text = NULL;
    *len = 0;
    if (!f)
        return NULL;
    size_t cap = 0;
    for (;;) {
        if (*len + 65536 + 1 > cap) {
            char *grown = realloc(text, cap = 2 * cap + 65536 + 1);
            if (!grown) {
                free(text);
                fclose(f);
                return NULL;
            }
            text = grown;
        }
        size_t got = fread(text + *len, 1, cap - *len - 1, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    text[*len] = '\0';
    return text;
}

/* The end of the CSV row starting at `row` (past its newline): rows end at a newline outside
 * quotes. */
static const char *csv_row_end(const char *row, const char *end)
{
    int quoted = 0;
    for (const char *c = row; c < end; c++) {
        if (*c == '"')
            quoted = !quoted;
        else if (*c == '\n' && !quoted)
            return c + 1;
    }
    return end;
}

/* Cell k (0-based) of a CSV row, unquoted, into out ("" past the row's end). */
static void csv_cell(const char *row, const char *end, int k, char *out, size_t cap)
{
    size_t n = 0;
    const char *c = row;
    for (int i = 0; i < k && c < end; i++) { /* past k cells */
        int quoted = 0;
        for (; c < end && (quoted || (*c != ',' && *c != '\n')); c++)
            if (*c == '"')
                quoted = !quoted;
        c += c < end && *c == ',';
    }
    if (c < end && *c == '"') {
        for (c++; c < end && n + 1 < cap; c++) {
            if (*c == '"' && c + 1 < end && c[1] == '"')
                out[n++] = *c++;
            else if (*c == '"')
                break;
            else
                out[n++] = *c;
        }
    } else {
        for (; c < end && *c != ',' && *c != '\n' && n + 1 < cap; c++)
            out[n++] = *c;
    }
    out[n] = '\0';
}

/* The CSV row of benchmark b: its name, its sample count and its median as the CSV writes them
 * (csv_row): a row left by another run into the same file (a run that rewrote it, killed
 * between its two views) does not match. */
static int csv_row_is(const char *row, const char *end, json_t *b, int nparams)
{
    char cell[1024], median[64] = "";
    csv_cell(row, end, 0, cell, sizeof cell);
    if (strcmp(cell, json_string_value(json_object_get(b, "name"))) != 0)
        return 0;
    json_t *sb = json_object_get(b, "stagebench");
    csv_cell(row, end, 6 + nparams, cell, sizeof cell);
    if (atoi(cell) != (int)json_integer_value(json_object_get(b, "iterations")))
        return 0;
    json_t *m = json_object_get(json_object_get(sb, "time"), "median");
    if (!strcmp(json_string_value(json_object_get(sb, "status")), "valid") && json_is_number(m))
        snprintf(median, sizeof median, "%.9g", json_number_value(m));
    csv_cell(row, end, 7 + nparams, cell, sizeof cell);
    return strcmp(cell, median) == 0;
}

/* The rows of a CSV text after its header: their starts (rows[i]) and ends. Returns the count,
 * or -1 out of memory; *header_len is the header's length with its newline. */
static int csv_split(const char *text, size_t len, const char ***starts, const char ***ends,
                     size_t *header_len)
{
    const char *end = text + len, *c = csv_row_end(text, end);
    *header_len = (size_t)(c - text);
    int n = 0, cap = 0;
    *starts = *ends = NULL;
    while (c < end) {
        const char *next = csv_row_end(c, end);
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            const char **s = realloc(*starts, (size_t)cap * sizeof *s);
            if (s)
                *starts = s;
            const char **e = realloc(*ends, (size_t)cap * sizeof *e);
            if (e)
                *ends = e;
            if (!s || !e)
                return -1;
        }
        (*starts)[n] = c;
        (*ends)[n++] = next;
        c = next;
    }
    return n;
}

static const char *benchmark_status(json_t *b)
{
    return json_string_value(json_object_get(json_object_get(b, "stagebench"), "status"));
}

/* Device facts only a process that used the device measured (its DRAM peak): an isolated
 * run's parent takes them from its children's contexts. */
static void take_measured_peaks(json_t *context, json_t *child_context)
{
    json_t *mine = json_object_get(json_object_get(context, "stagebench"), "devices");
    json_t *theirs = json_object_get(json_object_get(child_context, "stagebench"), "devices");
    size_t i;
    json_t *d;
    json_array_foreach(mine, i, d) {
        json_t *t = json_array_get(theirs, i);
        double peak = json_number_value(json_object_get(t, "peak_dram_bytes_per_second"));
        if (json_number_value(json_object_get(d, "peak_dram_bytes_per_second")) <= 0 &&
            peak > 0 &&
            json_integer_value(json_object_get(d, "ordinal")) ==
                json_integer_value(json_object_get(t, "ordinal")))
            json_object_set_new(d, "peak_dram_bytes_per_second", json_real(peak));
    }
}

int sb_records_merge(sb_records *r, const char *child_json, int counts[4])
{
    static const char *names[] = {"valid", "invalid", "failed", "skipped"};
    if (access(child_json, R_OK) != 0)
        return 0;
    json_t *child = sb_json_load(child_json);
    json_t *list = json_object_get(child, "benchmarks");
    if (!child || !json_is_array(list) || json_array_size(list) == 0) {
        json_decref(child);
        return 0; /* nothing usable: the caller records the process' end */
    }
    char csv_path[4096];
    size_t csv_len = 0, header_len = 0;
    snprintf(csv_path, sizeof csv_path, "%.*s.csv",
             (int)(sb_is_json_name(child_json) ? sb_records_stem(child_json) : strlen(child_json)),
             child_json);
    char *csv = read_file(csv_path, &csv_len);
    const char **starts = NULL, **ends = NULL;
    int nrows = csv ? csv_split(csv, csv_len, &starts, &ends, &header_len) : 0;
    int rc = nrows < 0 ? sb_fail("out of host memory merging %s", child_json) : 0;
    for (int i = 0; rc == 0 && i < nrows; i++)
        rc = csv_append(r, "%.*s", (int)(ends[i] - starts[i]), starts[i]);
    size_t i;
    json_t *b;
    json_array_foreach(list, i, b) {
        if (rc != 0)
            break;
        const char *status = benchmark_status(b);
        for (int k = 0; status && k < 4; k++)
            counts[k] += !strcmp(status, names[k]);
        if (json_array_append(r->benchmarks, b) != 0)
            rc = sb_fail("out of host memory merging %s", child_json);
    }
    if (rc == 0) {
        take_measured_peaks(json_object_get(r->doc, "context"),
                            json_object_get(child, "context"));
        rc = write_views(r);
    }
    int merged = (int)json_array_size(list);
    free(starts);
    free(ends);
    free(csv);
    json_decref(child);
    return rc == 0 ? merged : -1;
}

const char *sb_records_find(const sb_records *r, const char *name, const sb_params *params)
{
    size_t i;
    json_t *b;
    json_array_foreach(r->benchmarks, i, b) {
        if (i >= r->nkept)
            break;
        const char *n = json_string_value(json_object_get(b, "name"));
        json_t *p = json_object_get(json_object_get(b, "stagebench"), "params");
        if (!n || strcmp(n, name) != 0)
            continue;
        int same = 1;
        for (int k = 0; same && k < params->n; k++) {
            const char *text = json_string_value(json_object_get(p, params->decls[k].name));
            same = text && strcmp(text, params->v[k].text) == 0;
        }
        if (same)
            return benchmark_status(b);
    }
    return NULL;
}

int sb_records_resume(sb_records *r, const char *json_path, json_t *context,
                      const sb_workload *w, int *kept, int *dropped)
{
    *kept = *dropped = 0;
    if (sb_records_open(r, json_path, context, w) != 0)
        return -1;
    if (access(json_path, F_OK) != 0)
        return 0; /* nothing yet: a fresh start */
    json_t *old = sb_json_load(json_path);
    json_t *list = json_object_get(old, "benchmarks"), *old_context = json_object_get(old, "context");
    if (!old)
        return sb_fail_context("cannot resume from %s (move it away, or run without --resume)",
                               json_path);
    if (!json_is_array(list) || !json_is_object(old_context)) {
        json_decref(old);
        return sb_fail("%s: not a records file (no context and benchmarks): cannot resume from "
                       "it; move it away, or run without --resume",
                       json_path);
    }
    size_t csv_len = 0, header_len = 0;
    char *csv = read_file(r->csv_path, &csv_len);
    const char **starts = NULL, **ends = NULL;
    int nrows = csv ? csv_split(csv, csv_len, &starts, &ends, &header_len) : 0;
    char *used = calloc((size_t)nrows + 1, 1);
    int rc = nrows < 0 || !used ? sb_fail("out of host memory resuming %s", json_path) : 0;
    if (rc == 0 && csv && (header_len != r->csv_len || memcmp(csv, r->csv, header_len) != 0))
        rc = sb_fail("%s: its columns are not this version's (%s's header differs): cannot "
                     "resume from it; move it away, or run without --resume",
                     json_path, r->csv_path);
    size_t i;
    json_t *b;
    json_array_foreach(list, i, b) {
        if (rc != 0)
            break;
        const char *status = benchmark_status(b), *name = json_string_value(json_object_get(b, "name"));
        const char *workload = json_string_value(
            json_object_get(json_object_get(b, "stagebench"), "workload"));
        if (!status || !name || !workload || strcmp(workload, w->name) != 0) {
            rc = sb_fail("%s: benchmark %zu is not a record of %s (%s): cannot resume from it",
                         json_path, i, w->name,
                         json_is_string(json_object_get(b, "run_type")) &&
                                 strcmp(json_string_value(json_object_get(b, "run_type")),
                                        "iteration")
                             ? "an aggregate of repetitions"
                             : "another workload's, or not stagebench's");
            break;
        }
        int row = -1;
        for (int k = 0; k < nrows && row < 0; k++)
            if (!used[k] && csv_row_is(starts[k], ends[k], b, w->nparams))
                row = k;
        /* a failed record is run again; one without its CSV row too (its view was cut off, or
         * holds another run's rows) */
        if (!strcmp(status, "failed") || row < 0) {
            ++*dropped;
            continue;
        }
        used[row] = 1;
        if (json_array_append(r->benchmarks, b) != 0 ||
            csv_append(r, "%.*s", (int)(ends[row] - starts[row]), starts[row]) != 0)
            rc = sb_fail("out of host memory resuming %s", json_path);
        ++*kept;
    }
    r->nkept = json_array_size(r->benchmarks);
    if (rc == 0) { /* the first session's context, and a line per resumption */
        json_t *now = json_object_get(r->doc, "context"), *ctx = json_deep_copy(old_context);
        json_t *sb = json_object_get(ctx, "stagebench"), *resumed = json_object_get(sb, "resumed");
        json_t *now_sb = json_object_get(now, "stagebench");
        if (!json_is_array(resumed))
            json_object_set_new(sb, "resumed", resumed = json_array());
        json_array_append_new(
            resumed, json_pack("{s:O?, s:O?, s:O?, s:O?, s:i, s:i}", "date",
                               json_object_get(now, "date"), "command",
                               json_object_get(now_sb, "command"), "load_avg",
                               json_object_get(now, "load_avg"), "measurement",
                               json_object_get(now_sb, "measurement"), "kept", *kept,
                               "run_again", *dropped));
        json_object_set_new(r->doc, "context", ctx);
    }
    free(used);
    free(starts);
    free(ends);
    free(csv);
    json_decref(old);
    return rc;
}

void sb_records_close(sb_records *r)
{
    json_decref(r->doc);
    json_decref(r->benchmarks);
    free(r->csv);
    memset(r, 0, sizeof *r);
}

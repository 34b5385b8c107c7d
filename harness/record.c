#include "record.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
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
    return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "unit", "s", "median",
                     number(s->median), "mean", number(s->mean), "min", number(s->min), "max",
                     number(s->max), "stdev", number(s->stdev), "noise", number(s->noise),
                     "samples", list);
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
    double dram_bytes, dram_bytes_per_s, dram_pct_peak, over_floor;
} counter_derived;

static counter_derived derive_counters(const sb_result *res)
{
    counter_derived d;
    double seconds = metric(&res->counters, "gpu__time_duration.sum") * 1e-9;
    d.dram_bytes = metric(&res->counters, "dram__bytes_read.sum") +
                   metric(&res->counters, "dram__bytes_write.sum");
    d.dram_bytes_per_s = seconds > 0 ? d.dram_bytes / seconds : NAN;
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
    json_object_set_new(sb, "devices_used", json_integer(res->ndevices));
    json_object_set_new(sb, "l2_flushed", json_boolean(res->l2_flushed));
    json_object_set_new(sb, "time", stats_json(&res->time, res->time_samples, res->nsamples));
    json_object_set_new(sb, "wall", stats_json(&res->wall, res->wall_samples, res->nsamples));
    json_object_set_new(sb, "clock",
                        json_pack("{s:b, s:o, s:o, s:o, s:i}", "available", res->clock_available,
                                  "sm_mhz_min", number(res->sm_mhz_min), "sm_mhz_median",
                                  number(res->sm_mhz_median), "sm_mhz_max",
                                  number(res->sm_mhz_max), "throttled_samples",
                                  res->throttled_samples));
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
                         "steady_simulated_s_per_hour") != 0)
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
    for (int i = 0; !rc && res->workload->output_figures && res->workload->output_figures[i]; i++)
        rc = csv_number(r, v, res->figures.values[i]);
    for (int i = 0; !rc && res->workload->csv_phases && res->workload->csv_phases[i]; i++)
        rc = csv_number(r, v && phase_of(&res->report.phases, res->workload->csv_phases[i]) >= 0,
                        phase_of(&res->report.phases, res->workload->csv_phases[i]));
    return rc || csv_append(r, "\n") ? -1 : 0;
}

int sb_records_open(sb_records *r, const char *json_path, json_t *context, const sb_workload *w)
{
    memset(r, 0, sizeof *r);
    r->workload = w;
    snprintf(r->json_path, sizeof r->json_path, "%s", json_path);
    snprintf(r->csv_path, sizeof r->csv_path, "%s", json_path);
    char *dot = strrchr(r->csv_path, '.');
    char *slash = strrchr(r->csv_path, '/');
    if (dot && (!slash || dot > slash))
        *dot = '\0';
    strncat(r->csv_path, ".csv", sizeof r->csv_path - strlen(r->csv_path) - 1);
    r->benchmarks = json_array();
    r->doc = json_pack("{s:o, s:O}", "context", context, "benchmarks", r->benchmarks);
    if (!r->doc)
        return sb_fail("cannot build the records document for %s", json_path);
    return csv_header(r);
}

int sb_records_add(sb_records *r, const sb_result *res)
{
    json_t *b = benchmark_json(res);
    if (!b || json_array_append_new(r->benchmarks, b) != 0)
        return sb_fail("cannot encode the record of %s", res->name);
    if (csv_row(r, res) != 0)
        return -1;
    if (sb_json_write_atomic(r->json_path, r->doc) != 0)
        return -1;
    return sb_write_atomic(r->csv_path, r->csv, r->csv_len);
}

void sb_records_close(sb_records *r)
{
    json_decref(r->doc);
    json_decref(r->benchmarks);
    free(r->csv);
    memset(r, 0, sizeof *r);
}

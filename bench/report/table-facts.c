/* The facts of a record that a row's explanation names as {placeholders} and a goal's of=
 * compares (table.c has the overview): its value and phases, bytes and transfers, its kernel's
 * registers and occupancy, its device's FP32:FP64 rate, its samples and noise...; the names
 * checked when the study is read, the words filled in when the table is made. */
#include <fnmatch.h>
#include <math.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "table-internal.h"

/* ---- the names ---- */

/* Placeholders: facts of the row's record, base_FACT of the base's, FACT/base their quotient,
 * and the cell's own ratio, published value, column and unit. */
static const char *const facts[] = {"value",
                                    "bytes",
                                    "bytes_per_second",
                                    "pct_peak",
                                    "h2d",
                                    "d2h",
                                    "d2d",
                                    "peer",
                                    "transfers",
                                    "memory",
                                    "kernel",
                                    "registers",
                                    "occupancy",
                                    "limiter",
                                    "blocks_per_sm",
                                    "local_bytes",
                                    "block_threads",
                                    "device",
                                    "fp64_ratio",
                                    "sm_count",
                                    "samples",
                                    "noise",
                                    "status",
                                    "reason",
                                    "variant",
                                    "items",
                                    "value_bw",
                                    "value_pct_peak",
                                    "items_per_second",
                                    "noise_robust",
                                    "median_ci",
                                    "timed_out",
                                    NULL};
static const char *const numeric_facts[] = {"value",         "items",
                                            "value_bw",      "value_pct_peak",
                                            "bytes",         "bytes_per_second",
                                            "h2d",           "d2h",
                                            "d2d",           "peer",
                                            "transfers",     "memory",
                                            "registers",     "occupancy",
                                            "blocks_per_sm", "local_bytes",
                                            "block_threads", "fp64_ratio",
                                            "sm_count",      "items_per_second",
                                            "samples",       "noise",
                                            "noise_robust",  "median_ci",
                                            "timed_out",     NULL};

static int listed(const char *const *names, const char *name)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], name))
            return 1;
    return 0;
}

int tb_known_fact(const char *name, int numeric)
{
    if (!strncmp(name, "phase:", 6) || (!numeric && !strncmp(name, "param:", 6)))
        return name[6] != '\0';
    if (!strncmp(name, "output:", 7) || !strncmp(name, "steady:", 7))
        return name[7] != '\0';
    if (!strncmp(name, "floor:", 6)) /* the record's floors; floor:bound and floor:problem words */
        return name[6] != '\0' && (!numeric || (strcmp(name + 6, "bound") &&
                                                 strcmp(name + 6, "problem")));
    return listed(numeric ? numeric_facts : facts, name);
}

int tb_check_placeholders(const sb_table *t, const sb_table_row *r, const char *path)
{
    for (const char *p = strchr(r->explain, '{'); p; p = strchr(p + 1, '{')) {
        const char *close = strchr(p, '}');
        char name[128];
        if (!close || close - p - 1 >= (long)sizeof name)
            return sb_fail("%s:%d: table %s: explain %s: unclosed or long {placeholder}", path,
                           r->explain_line, t->name, r->label);
        snprintf(name, sizeof name, "%.*s", (int)(close - p - 1), p + 1);
        size_t len = strlen(name);
        int ok = !strcmp(name, "ratio") || !strcmp(name, "published") || !strcmp(name, "col") ||
                 !strcmp(name, "unit") || !strcmp(name, "base_variant");
        if (!ok && len > 5 && !strcmp(name + len - 5, "/base")) {
            name[len - 5] = '\0';
            ok = tb_known_fact(name, 1);
        } else if (!ok) {
            ok = tb_known_fact(!strncmp(name, "base_", 5) ? name + 5 : name, 0);
        }
        if (!ok)
            return sb_fail(
                "%s:%d: table %s: explain %s: {%.*s} is not a placeholder (facts: "
                "value, bytes, bytes_per_second, pct_peak, h2d, d2h, d2d, peer, "
                "transfers, memory, kernel, registers, occupancy, limiter, "
                "blocks_per_sm, local_bytes, block_threads, device, fp64_ratio, "
                "sm_count, samples, noise, status, reason, variant, items, items_per_second, "
                "value_bw, value_pct_peak, phase:NAME, output:NAME, steady:NAME, floor:NAME, "
                "param:NAME; base_FACT; FACT/base; ratio, published, col, unit, base_variant)",
                path, r->explain_line, t->name, r->label, (int)(close - p - 1), p + 1);
        if ((!strncmp(name, "base_", 5) || strstr(p, "/base}") == close - 5) &&
            !tb_row_key_value(t, r, SB_TK_SPEEDUP)[0] && !tb_row_key_value(t, r, SB_TK_RATIO)[0])
            return sb_fail("%s:%d: table %s: explain %s: {%.*s} needs a base (speedup= or "
                           "ratio=)",
                           path, r->explain_line, t->name, r->label, (int)(close - p - 1), p + 1);
    }
    return 0;
}

/* ---- a record's facts ---- */

static json_t *device_of(const tb_rec *r)
{
    json_t *ordinal = json_object_get(r->sb, "device");
    size_t i = json_is_integer(ordinal) ? (size_t)json_integer_value(ordinal) : 0;
    json_t *d;
    size_t k;
    json_array_foreach(r->devices, k, d)
    {
        if ((size_t)json_integer_value(json_object_get(d, "ordinal")) == i)
            return d;
    }
    return json_array_get(r->devices, 0);
}

/* The kernel-table row of the record's kernel: the first (most time) whose name matches one of
 * the comma-separated patterns, in the validation run's table, then set-up's; without
 * patterns, the run's first. */
static json_t *kernel_of(const tb_rec *r, const char *patterns)
{
    json_t *activity = json_object_get(r->sb, "activity");
    const char *windows[] = {"run", "setup"};
    for (int w = 0; w < 2; w++) {
        json_t *table = json_object_get(json_object_get(activity, windows[w]), "kernel_table");
        json_t *k;
        size_t i;
        json_array_foreach(table, i, k)
        {
            if (!patterns[0])
                return k;
            char buf[256];
            snprintf(buf, sizeof buf, "%s", patterns);
            for (char *save = NULL, *p = strtok_r(buf, ",", &save); p;
                 p = strtok_r(NULL, ",", &save))
                if (fnmatch(p, tb_text_of(k, "name"), 0) == 0)
                    return k;
        }
    }
    return NULL;
}

/* The value expression of the row's record, or of its base's (base-value=, else the row's). */
static const char *value_of(const sb_table *t, const sb_table_row *row, int is_base)
{
    const char *base_value = tb_row_key_value(t, row, SB_TK_BASE_VALUE);
    return is_base && base_value[0] ? base_value : tb_row_key_value(t, row, SB_TK_VALUE);
}

/* 1234567 -> "1,234,567" (a whole number). */
static void fmt_grouped(double x, char *buf, size_t cap)
{
    char digits[64];
    snprintf(digits, sizeof digits, "%.0f", fabs(x));
    size_t n = strlen(digits), len = 0;
    if (x < 0 && len + 1 < cap)
        buf[len++] = '-';
    for (size_t i = 0; i < n && len + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0)
            buf[len++] = ',';
        buf[len++] = digits[i];
    }
    buf[len] = '\0';
}

/* The words of a numeric fact's number: a value in the table's unit, bytes, GB/s, %, a count...
 * "n/a" where it is not a number. */
void tb_format_fact(const sb_table *t, const sb_table_row *row, int is_base, const char *name,
                    double num, char *text, size_t cap)
{
    if (!strcmp(name, "value") || !strncmp(name, "phase:", 6)) {
        const char *expr = !strcmp(name, "value") ? value_of(t, row, is_base) : name;
        tb_fmt_value(t, expr, num, text, cap);
        if (isfinite(num) && strcmp(expr, "memory"))
            snprintf(text + strlen(text), cap - strlen(text), " %s", tb_unit_name(t->unit));
    } else if (!strncmp(name, "floor:", 6) && strstr(name, "_pct")) {
        tb_fmt_number(num, text, cap);
        if (isfinite(num))
            snprintf(text + strlen(text), cap - strlen(text), " %%");
    } else if (!strncmp(name, "steady:", 7) || !strcmp(name, "items_per_second") ||
               !strncmp(name, "floor:", 6)) {
        if (isfinite(num) && fabs(num) >= 1e6)
            snprintf(text, cap, "%.3g", num);
        else if (isfinite(num) && fabs(num) >= 1e3) /* simulated seconds an hour: 11,060 */
            fmt_grouped(num, text, cap);
        else
            tb_fmt_number(num, text, cap);
    } else if (!strcmp(name, "bytes") || !strcmp(name, "h2d") || !strcmp(name, "d2h") ||
               !strcmp(name, "d2d") || !strcmp(name, "peer") || !strcmp(name, "memory") ||
               !strcmp(name, "transfers")) {
        tb_fmt_bytes(num, text, cap);
    } else if (!strcmp(name, "value_bw") || !strcmp(name, "bytes_per_second")) {
        tb_fmt_number(num / 1e9, text, cap);
        if (isfinite(num))
            snprintf(text + strlen(text), cap - strlen(text), " GB/s");
    } else if (!strcmp(name, "value_pct_peak")) {
        tb_fmt_number(num, text, cap);
        if (isfinite(num))
            snprintf(text + strlen(text), cap - strlen(text), " %%");
    } else if (!strcmp(name, "items")) {
        if (isfinite(num))
            snprintf(text, cap, "%.3g", num);
        else
            tb_fmt_number(num, text, cap);
    } else if (!strcmp(name, "noise") || !strcmp(name, "noise_robust") ||
               !strcmp(name, "median_ci")) { /* fractions, shown as % with two decimals */
        if (isfinite(num))
            snprintf(text, cap, "%.2f %%", 100 * num);
        else
            snprintf(text, cap, !strcmp(name, "noise") ? "n/a %%" : "n/a");
    } else if (!strcmp(name, "occupancy")) {
        tb_fmt_number(100 * num, text, cap); /* a fraction, shown as % */
        if (isfinite(num))
            snprintf(text + strlen(text), cap - strlen(text), " %%");
    } else if (!strcmp(name, "fp64_ratio") || !strcmp(name, "sm_count")) {
        if (isfinite(num))
            snprintf(text, cap, "%g", num);
        else
            snprintf(text, cap, "n/a");
    } else if (!strcmp(name, "samples") || !strcmp(name, "timed_out") ||
               !strcmp(name, "registers") || !strcmp(name, "blocks_per_sm") ||
               !strcmp(name, "local_bytes") || !strcmp(name, "block_threads")) {
        if (isfinite(num))
            snprintf(text, cap, "%.0f", num);
        else
            snprintf(text, cap, "n/a");
    } else { /* output:NAME */
        tb_fmt_number(num, text, cap);
    }
}

/* A fact of a record (the row's, or its base's when is_base): *num its number (NaN for text
 * facts or where missing), text its words. */
void tb_fact(const sb_table *t, const sb_table_row *row, const tb_rec *r, int is_base,
             const char *name, double *num, char *text, size_t cap)
{
    *num = NAN;
    snprintf(text, cap, "n/a");
    if (!r)
        return;
    json_t *sb = r->sb;
    const char *status = tb_text_of(sb, "status");
    if (!strcmp(name, "status") || !strcmp(name, "variant") || !strcmp(name, "reason")) {
        snprintf(text, cap, "%s", tb_text_of(sb, name));
        return;
    }
    if (!strncmp(name, "param:", 6)) {
        snprintf(text, cap, "%s", tb_text_of(json_object_get(sb, "params"), name + 6));
        return;
    }
    if (!strcmp(name, "device") || !strcmp(name, "fp64_ratio") || !strcmp(name, "sm_count")) {
        json_t *d = json_is_integer(json_object_get(sb, "device")) ? device_of(r) : NULL;
        if (!d) {
            snprintf(text, cap, !strcmp(name, "device") ? "the CPU" : "n/a");
            return;
        }
        if (!strcmp(name, "device")) {
            snprintf(text, cap, "%s", tb_text_of(d, "name"));
            return;
        }
        *num = tb_number_at(
            d, !strcmp(name, "sm_count") ? "sm_count" : "single_to_double_perf_ratio", NULL);
        tb_format_fact(t, row, is_base, name, *num, text, cap);
        return;
    }
    if (strcmp(status, "valid"))
        return; /* the rest are a measured record's */
    const char *per = tb_row_key_value(t, row, SB_TK_PER);
    const char *value = value_of(t, row, is_base);
    json_t *time = json_object_get(sb, "time");
    static const char *const byte_facts[][3] = {
        {"bytes", "derived", "bytes_moved"}, {"h2d", "transfers", "h2d"},
        {"d2h", "transfers", "d2h"},         {"d2d", "transfers", "d2d"},
        {"peer", "transfers", "peer"},       {"memory", "memory", "peak_tracked_bytes"}};
    if (!strcmp(name, "value") || !strncmp(name, "phase:", 6)) {
        *num = tb_record_value(r, !strcmp(name, "value") ? value : name, per);
    } else if (!strncmp(name, "steady:", 7)) {
        *num = tb_number_at(sb, "steady", name + 7);
    } else if (!strcmp(name, "floor:bound") || !strcmp(name, "floor:problem")) {
        /* words; a record made before floors were recorded says so */
        json_t *floors = json_object_get(sb, "floors");
        const char *words = json_string_value(json_object_get(floors, name + 6));
        snprintf(text, cap, "%s", words ? words : floors ? "n/a" : "not recorded");
        return;
    } else if (!strncmp(name, "floor:", 6)) {
        if (!json_object_get(sb, "floors")) {
            snprintf(text, cap, "not recorded");
            return;
        }
        *num = tb_number_at(sb, "floors", name + 6);
    } else if (!strcmp(name, "items_per_second")) {
        *num = tb_number_at(sb, "derived", "items_per_second");
    } else if (!strcmp(name, "value_bw") || !strcmp(name, "value_pct_peak")) {
        /* the bytes the record counts over the seconds of the row's value in a run: those of
         * the step loop for value=steady, where the record counts them */
        double bytes = tb_number_at(sb, "derived", "bytes_moved");
        if (!strcmp(value, "steady") && isfinite(tb_number_at(sb, "steady", "bytes_moved")))
            bytes = tb_number_at(sb, "steady", "bytes_moved");
        double bw = strcmp(value, "memory") ? bytes / tb_record_value(r, value, NULL) : NAN;
        json_t *d = json_is_integer(json_object_get(sb, "device")) ? device_of(r) : NULL;
        double peak = d ? tb_number_at(d, "peak_dram_bytes_per_second", NULL) : NAN;
        *num = !strcmp(name, "value_bw") ? bw : 100 * bw / peak;
    } else if (!strcmp(name, "items")) {
        *num = tb_number_at(json_object_get(sb, "derived"), "items", NULL);
    } else if (!strncmp(name, "output:", 7)) {
        *num = tb_number_at(json_object_get(json_object_get(sb, "derived"), "output"), name + 7,
                         NULL);
    } else if (!strcmp(name, "transfers")) {
        json_t *x = json_object_get(sb, "transfers");
        *num = tb_number_at(x, "h2d", NULL) + tb_number_at(x, "d2h", NULL) +
               tb_number_at(x, "d2d", NULL) + tb_number_at(x, "peer", NULL);
    } else if (!strcmp(name, "bytes_per_second")) {
        *num = tb_number_at(sb, "derived", "bytes_per_second");
    } else if (!strcmp(name, "pct_peak")) { /* text alone, as before */
        double pct = tb_number_at(sb, "derived", "pct_peak_dram");
        tb_fmt_number(pct, text, cap);
        if (isfinite(pct))
            snprintf(text + strlen(text), cap - strlen(text), " %%");
        return;
    } else if (!strcmp(name, "samples")) {
        json_t *samples = json_object_get(time, "samples");
        *num = json_is_array(samples) ? (double)json_array_size(samples) : NAN;
    } else if (!strcmp(name, "noise") || !strcmp(name, "noise_robust") ||
               !strcmp(name, "median_ci")) {
        *num = tb_number_at(time, name, NULL);
    } else if (!strcmp(name, "timed_out")) { /* 1: sampling stopped on the timeout */
        *num = !strcmp(tb_text_of(sb, "stop_reason"), "timeout");
    } else {
        int bytes = 0;
        for (size_t i = 0; i < sizeof byte_facts / sizeof byte_facts[0]; i++)
            if (!strcmp(name, byte_facts[i][0])) {
                *num = tb_number_at(sb, byte_facts[i][1], byte_facts[i][2]);
                bytes = 1;
            }
        if (!bytes) {
            json_t *k = kernel_of(r, tb_row_key_value(t, row, SB_TK_KERNEL));
            if (!k)
                return;
            if (!strcmp(name, "kernel")) {
                snprintf(text, cap, "%s", tb_text_of(k, "name"));
                return;
            }
            if (!strcmp(name, "limiter")) {
                snprintf(text, cap, "%s",
                         json_is_string(json_object_get(k, "limited_by"))
                             ? tb_text_of(k, "limited_by")
                             : "n/a");
                return;
            }
            *num = tb_number_at(k, !strcmp(name, "local_bytes") ? "local_bytes_per_thread" : name,
                             NULL);
        }
    }
    tb_format_fact(t, row, is_base, name, *num, text, cap);
}

void tb_explain(FILE *f, const sb_table *t, const sb_table_row *row, const tb_cell *cells, int c,
                const char *col)
{
    const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base_name = speedup[0] ? speedup : tb_row_key_value(t, row, SB_TK_RATIO);
    const tb_cell *x = &cells[c];
    for (const char *p = row->explain; *p;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        if (!close) {
            fputc(*p++, f);
            continue;
        }
        char name[128], text[256];
        double num, base_num;
        snprintf(name, sizeof name, "%.*s", (int)(close - p - 1), p + 1);
        size_t len = strlen(name);
        if (!strcmp(name, "ratio")) {
            tb_fmt_ratio(x->ratio, text, sizeof text);
        } else if (!strcmp(name, "published")) {
            snprintf(text, sizeof text, "%s", row->npublished ? row->published[c] : "n/a");
        } else if (!strcmp(name, "col")) {
            snprintf(text, sizeof text, "%s", col);
        } else if (!strcmp(name, "unit")) {
            snprintf(text, sizeof text, "%s", tb_unit_name(t->unit));
        } else if (!strcmp(name, "base_variant")) {
            snprintf(text, sizeof text, "%s", base_name);
        } else if (len > 5 && !strcmp(name + len - 5, "/base")) {
            name[len - 5] = '\0';
            tb_fact(t, row, x->r, 0, name, &num, text, sizeof text);
            tb_fact(t, row, x->base, 1, name, &base_num, text, sizeof text);
            tb_fmt_ratio(num / base_num, text, sizeof text);
        } else if (!strncmp(name, "base_", 5)) {
            tb_fact(t, row, x->base, 1, name + 5, &num, text, sizeof text);
        } else {
            tb_fact(t, row, x->r, 0, name, &num, text, sizeof text);
        }
        fputs(text, f);
        p = close + 1;
    }
}

/* The records a study's table reads (table.c has the overview): the records files of its runs
 * and `records` lines, loaded together; a row's record and its base's at each column, and the
 * table's lines (a row, or a line per variant and source for a row of every variant); the value
 * a row's value= expression takes of a record, and values as text in the table's unit. */
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/devmem.h"
#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "table-internal.h"

/* ---- loading ---- */

const char *tb_text_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static int load_file(tb_loaded *L, const char *file, int source)
{
    json_t *doc = sb_json_load(file);
    if (!doc)
        return -1;
    json_t **docs = realloc(L->docs, (size_t)(L->ndocs + 1) * sizeof *docs);
    if (!docs) {
        json_decref(doc);
        return sb_fail("out of host memory");
    }
    L->docs = docs;
    L->docs[L->ndocs++] = doc;
    json_t *benchmarks = json_object_get(doc, "benchmarks"), *b;
    json_t *devices =
        json_object_get(json_object_get(json_object_get(doc, "context"), "stagebench"), "devices");
    size_t n = json_array_size(benchmarks), i;
    tb_rec *recs = realloc(L->recs, (size_t)(L->nrecs + (int)n + 1) * sizeof *recs);
    if (!recs)
        return sb_fail("out of host memory");
    L->recs = recs;
    json_array_foreach(benchmarks, i, b)
    {
        tb_rec r = {json_object_get(b, "stagebench"), devices, source};
        if (json_is_object(r.sb))
            L->recs[L->nrecs++] = r;
    }
    const char *slash = strrchr(file, '/');
    fprintf(L->log_f, "%s%s (%zu record%s)", L->ndocs > 1 ? ", " : "", slash ? slash + 1 : file, n,
            n == 1 ? "" : "s");
    return 0;
}

int tb_load_sources(tb_loaded *L, const sb_table_source *src, int nsrc, const int *used,
                    const char *dir, char missing[][SB_TABLE_TEXT], int *nmissing)
{
    L->log_f = open_memstream(&L->log, &L->log_len);
    if (!L->log_f)
        return sb_fail("out of host memory");
    for (int s = 0; s < nsrc; s++) {
        if (!used[s])
            continue;
        char pattern[2048];
        snprintf(pattern, sizeof pattern, "%s/%s", dir, src[s].pattern);
        glob_t g;
        int rc = sb_glob_records(pattern, &g);
        if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
            if (*nmissing < SB_TABLE_NOTES)
                snprintf(missing[(*nmissing)++], SB_TABLE_TEXT,
                         "%s %s: no records (%.500s%s%.400s)", src[s].is_run ? "run" : "records",
                         src[s].name, pattern, src[s].how[0] ? ": " : "", src[s].how);
            if (rc == 0)
                globfree(&g);
            continue;
        }
        if (rc != 0)
            return sb_fail("%s: cannot list the records files", pattern);
        for (size_t i = 0; i < g.gl_pathc; i++)
            if (!sb_is_temp_file(g.gl_pathv[i]) && /* a write cut off left it: not records */
                load_file(L, g.gl_pathv[i], s) != 0) {
                globfree(&g);
                return -1;
            }
        globfree(&g);
    }
    fflush(L->log_f);
    return 0;
}

void tb_free_loaded(tb_loaded *L)
{
    for (int i = 0; i < L->ndocs; i++)
        json_decref(L->docs[i]);
    free(L->docs);
    free(L->recs);
    if (L->log_f)
        fclose(L->log_f);
    free(L->log);
}

/* ---- a row's record ---- */

static int where_matches(json_t *params, const char *where)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", where);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return 0;
        *eq = '\0';
        if (!tb_same_value(tb_text_of(params, kv), eq + 1))
            return 0;
    }
    return 1;
}

/* The sources a from= list names, as flags by source index. */
void tb_mark_sources(const char *from, const sb_table_source *src, int nsrc, int *used)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", from);
    for (char *save = NULL, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
        for (int i = 0; i < nsrc; i++)
            if (!strcmp(src[i].name, s))
                used[i] = 1;
}

/* Whether "k=v,k=v" names parameter p. */
int tb_where_names(const char *where, const char *p)
{
    size_t len = strlen(p);
    for (const char *k = where; *k; k += strcspn(k, ",") + (k[strcspn(k, ",")] == ',')) {
        if (!strncmp(k, p, len) && k[len] == '=')
            return 1;
    }
    return 0;
}

/* only=kernel-level: a GPU record of a kernel-level stage, timed by CUDA events (a record
 * that does not say is kernel-level); only=kernel-level-unexplained: such a record without a
 * noise_note (its stage's design explaining a noise above 1 %). */
static int passes_only(const tb_rec *r, const char *only)
{
    json_t *level = json_object_get(r->sb, "kernel_level");
    if (!only[0])
        return 1;
    int kernel = !strcmp(tb_text_of(r->sb, "timer"), "cuda-event") && !json_is_false(level);
    return kernel && (strcmp(only, "kernel-level-unexplained") ||
                      !json_is_string(json_object_get(r->sb, "noise_note")));
}

/* Whether record r is at column c (a base's where that names a column's parameter: any). */
static int at_column(const tb_rec *r, const sb_table *t, int c, const char *where, int is_base)
{
    json_t *params = json_object_get(r->sb, "params");
    int same = 1;
    for (int k = 0; k < t->ncol_params; k++)
        same &= (is_base && tb_where_names(where, t->col_param[k])) ||
                tb_same_value(tb_text_of(params, t->col_param[k]), t->col_value[c][k]);
    return same;
}

/* The record of a variant at column c among the flagged sources: a valid one first. A base's
 * where (is_base) that names a column's parameter picks its value whatever the column (the
 * base of every column at reactions=0, at gpus=1). */
static const tb_rec *find_record(const tb_loaded *L, const int *sources, const sb_table *t, int c,
                                 const char *variant, const char *where, const char *only,
                                 int is_base)
{
    const tb_rec *found = NULL;
    for (int i = 0; i < L->nrecs; i++) {
        const tb_rec *r = &L->recs[i];
        json_t *params = json_object_get(r->sb, "params");
        if (!sources[r->source] || strcmp(tb_text_of(r->sb, "variant"), variant) ||
            !where_matches(params, where) || !passes_only(r, only) ||
            !at_column(r, t, c, where, is_base))
            continue;
        if (!strcmp(tb_text_of(r->sb, "status"), "valid"))
            return r;
        if (!found)
            found = r;
    }
    return found;
}

double tb_number_at(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Seconds of the value expression (bytes for memory), per the `per` parameter; NaN where the
 * record has none. */
double tb_record_value(const tb_rec *r, const char *value, const char *per)
{
    if (!r || strcmp(tb_text_of(r->sb, "status"), "valid"))
        return NAN;
    double v = NAN;
    if (!strcmp(value, "time"))
        v = tb_number_at(r->sb, "time", "median");
    else if (!strcmp(value, "wall"))
        v = tb_number_at(r->sb, "wall", "median");
    else if (!strcmp(value, "steady"))
        v = tb_number_at(r->sb, "steady", "seconds");
    else if (!strcmp(value, "memory"))
        v = tb_number_at(r->sb, "memory", "peak_tracked_bytes");
    else if (!strncmp(value, "phase:", 6)) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", value + 6);
        v = 0;
        for (char *save = NULL, *p = strtok_r(buf, "+", &save); p; p = strtok_r(NULL, "+", &save))
            v += tb_number_at(r->sb, "phases", p);
    }
    if (per && per[0]) {
        char *end;
        const char *text = tb_text_of(json_object_get(r->sb, "params"), per);
        double n = strtod(text, &end);
        v = end != text && !*end && n > 0 ? v / n : NAN;
    }
    return v;
}

/* ---- formatting ---- */

static double unit_scale(const char *unit)
{
    return !strcmp(unit, "s") ? 1 : !strcmp(unit, "us") ? 1e6 : 1e3;
}

const char *tb_unit_name(const char *unit)
{
    return !strcmp(unit, "us") ? "µs" : unit;
}

void tb_fmt_number(double x, char *buf, size_t cap)
{
    double a = fabs(x);
    if (!isfinite(x))
        snprintf(buf, cap, "n/a");
    else if (a >= 100)
        snprintf(buf, cap, "%.0f", x);
    else if (a >= 10)
        snprintf(buf, cap, "%.1f", x);
    else if (a >= 1 || a == 0)
        snprintf(buf, cap, "%.2f", x);
    else
        snprintf(buf, cap, "%.3g", x);
}

/* A ratio: two decimals below 10 (the paper's), fewer above, two digits below 0.01. */
void tb_fmt_ratio(double x, char *buf, size_t cap)
{
    if (!isfinite(x))
        snprintf(buf, cap, "n/a");
    else
        snprintf(buf, cap,
                 fabs(x) >= 100              ? "%.0f"
                 : fabs(x) >= 10             ? "%.1f"
                 : fabs(x) >= 0.01 || x == 0 ? "%.2f"
                                             : "%.2g",
                 x);
}

void tb_fmt_bytes(double b, char *buf, size_t cap)
{
    if (!isfinite(b))
        snprintf(buf, cap, "n/a");
    else
        sb_format_bytes(b, buf, cap);
}

/* A value of the value expression: bytes for memory, else seconds in the table's unit (no unit
 * name). */
void tb_fmt_value(const sb_table *t, const char *value, double v, char *buf, size_t cap)
{
    if (!strcmp(value, "memory"))
        tb_fmt_bytes(v, buf, cap);
    else
        tb_fmt_number(v * unit_scale(t->unit), buf, cap);
}

/* ---- cells ---- */

void tb_compute_cell(const sb_table *t, const sb_table_row *row, const char *variant,
                     const tb_loaded *L, const int *row_sources, const int *all_sources, int c,
                     tb_cell *out)
{
    const char *value = tb_row_key_value(t, row, SB_TK_VALUE),
               *per = tb_row_key_value(t, row, SB_TK_PER);
    const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base = speedup[0] ? speedup : tb_row_key_value(t, row, SB_TK_RATIO);
    memset(out, 0, sizeof *out);
    out->r = find_record(L, row_sources, t, c, variant, tb_row_key_value(t, row, SB_TK_WHERE),
                         tb_row_key_value(t, row, SB_TK_ONLY), 0);
    out->value = tb_record_value(out->r, value, per);
    out->base_value = out->ratio = NAN;
    if (base[0]) {
        const char *base_value = tb_row_key_value(t, row, SB_TK_BASE_VALUE);
        out->base = find_record(L, all_sources, t, c, base,
                                tb_row_key_value(t, row, SB_TK_BASE_WHERE), "", 1);
        out->base_value = tb_record_value(out->base, base_value[0] ? base_value : value, per);
        out->ratio = speedup[0] ? out->base_value / out->value : out->value / out->base_value;
    }
}

/* ---- lines: a row, or for a row of every variant (variant=*) one per variant and source ---- */

/* The table's lines: each row, but a row of every variant gives a line per variant and source
 * among its records (of any column; only= and where= applied), in the records' order; without
 * any, one line that shows no record. */
int tb_expand_rows(const sb_table *t, const tb_loaded *L, const sb_table_source *src, int nsrc,
                   tb_line *lines, int *nlines)
{
    int n = 0;
    for (int i = 0; i < t->nrows; i++) {
        const sb_table_row *row = &t->rows[i];
        const char *v = tb_row_key_value(t, row, SB_TK_VARIANT);
        int first = n;
        if (strcmp(v, "*")) {
            if (n == TB_MAX_LINES)
                return sb_fail("table %s: more than %d lines", t->name, TB_MAX_LINES);
            lines[n++] = (tb_line){row, i, v, -1, ""};
            snprintf(lines[n - 1].label, sizeof lines[0].label, "%s", row->label);
            continue;
        }
        int sources[256] = {0};
        tb_mark_sources(tb_row_key_value(t, row, SB_TK_FROM), src, nsrc, sources);
        for (int k = 0; k < L->nrecs; k++) {
            const tb_rec *r = &L->recs[k];
            const char *variant = tb_text_of(r->sb, "variant");
            int in_column = 0, seen = 0;
            for (int c = 0; c < t->ncols; c++)
                in_column |= at_column(r, t, c, "", 0);
            if (!sources[r->source] || !variant[0] || !in_column ||
                !where_matches(json_object_get(r->sb, "params"),
                               tb_row_key_value(t, row, SB_TK_WHERE)) ||
                !passes_only(r, tb_row_key_value(t, row, SB_TK_ONLY)))
                continue;
            for (int j = first; j < n; j++)
                seen |= lines[j].source == r->source && !strcmp(lines[j].variant, variant);
            if (seen)
                continue;
            if (n == TB_MAX_LINES)
                return sb_fail("table %s: row %s: more than %d lines", t->name, row->label,
                               TB_MAX_LINES);
            lines[n++] = (tb_line){row, i, variant, r->source, ""};
            snprintf(lines[n - 1].label, sizeof lines[0].label, "%.100s: %.64s (%.64s)",
                     row->label, variant, src[r->source].name);
        }
        if (n == first) {
            if (n == TB_MAX_LINES)
                return sb_fail("table %s: more than %d lines", t->name, TB_MAX_LINES);
            lines[n++] = (tb_line){row, i, "*", -1, ""}; /* no record: every cell — */
            snprintf(lines[n - 1].label, sizeof lines[0].label, "%s", row->label);
        }
    }
    *nlines = n;
    return 0;
}

/* A study's tables (bench/report/study.c documents the lines): each cell is one record's value (a
 * variant's time or phases, per a parameter such as steps) at a column's parameters, with its
 * ratio to a base variant's record at the same column; a "paper" line under a row gives the
 * published values; a row's explanation is text whose {placeholders} are the records' facts
 * (bytes, transfers, registers and occupancy of a kernel, the device's FP32:FP64 rate...).
 * Skipped records show as X with their reason: inline when short or a memory refusal
 * ("X (needs 52.10 GiB, 41.00 GiB free)"), else as a numbered note under the table. Goals
 * compare a row's cell (its ratio, its value or a fact of its record) with a stated value and
 * end the table with a list of them, met, missed or not measured (and why).
 *
 * This file is the language (the table's keys and its row, published, explain and note lines)
 * and its checks against the workloads; the records are read in table-records.c, the
 * placeholders' facts are table-facts.c's, goals (their lines, checks and verdicts)
 * table-goals.c's and the markdown table-render.c's (table-internal.h: what they share). */
#include "table.h"

#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../variants/registry.h"
#include "table-internal.h"

static const char *const key_names[SB_TK_COUNT] = {
    "from", "variant", "where", "value", "per", "kernel", "speedup", "ratio", "base-where",
    "base-value", "only"};

/* ---- reading the study file ---- */

int tb_copy(char *dst, size_t cap, const char *src, const char *path, int line)
{
    if (strlen(src) >= cap)
        return sb_fail("%s:%d: '%.40s...' is too long (at most %zu characters)", path, line, src,
                       cap - 1);
    snprintf(dst, cap, "%s", src);
    return 0;
}

/* KEY=VALUE of the row keys into keys[]; 1 when KEY is not one of them. */
static int row_key(char keys[][256], const char *kv, const char *path, int line)
{
    const char *eq = strchr(kv, '=');
    for (int k = 0; eq && k < SB_TK_COUNT; k++)
        if (strlen(key_names[k]) == (size_t)(eq - kv) && !strncmp(key_names[k], kv, eq - kv))
            return tb_copy(keys[k], 256, eq + 1, path, line);
    return 1;
}

int sb_table_key(sb_table *t, const char *kv, const char *path, int line)
{
    const char *eq = strchr(kv, '=');
    int rc = row_key(t->key, kv, path, line);
    if (rc <= 0)
        return rc;
    if (eq && !strncmp(kv, "title=", 6))
        return tb_copy(t->title, sizeof t->title, eq + 1, path, line);
    if (eq && !strncmp(kv, "columns=", 8))
        return tb_copy(t->columns, sizeof t->columns, eq + 1, path, line);
    if (eq && !strncmp(kv, "col-label=", 10))
        return tb_copy(t->col_label, sizeof t->col_label, eq + 1, path, line);
    if (eq && !strncmp(kv, "unit=", 5)) {
        if (strcmp(eq + 1, "s") && strcmp(eq + 1, "ms") && strcmp(eq + 1, "us"))
            return sb_fail("%s:%d: table %s: unit=%s: use s, ms or us", path, line, t->name,
                           eq + 1);
        return tb_copy(t->unit, sizeof t->unit, eq + 1, path, line);
    }
    if (eq && !strncmp(kv, "cols=", 5)) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", eq + 1);
        t->ncol_params = 0;
        for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            if (t->ncol_params == SB_TABLE_COL_PARAMS)
                return sb_fail("%s:%d: table %s: cols= names at most %d parameters", path, line,
                               t->name, SB_TABLE_COL_PARAMS);
            if (tb_copy(t->col_param[t->ncol_params++], 64, p, path, line) != 0)
                return -1;
        }
        return 0;
    }
    return sb_fail(
        "%s:%d: table %s: '%s' is not a table key (from, cols, columns, col-label, unit, "
        "title, variant, where, value, per, kernel, speedup, ratio, base-where, base-value, "
        "only)",
        path, line, t->name, kv);
}

sb_table_row *tb_find_row(sb_table *t, const char *label)
{
    for (int i = 0; i < t->nrows; i++)
        if (!strcmp(t->rows[i].label, label))
            return &t->rows[i];
    return NULL;
}

int sb_table_line(sb_table *t, char **w, int n, const char *path, int line)
{
    const char *d = w[0];
    if (!strcmp(d, "goal"))
        return tb_goal_line(t, w, n, path, line);
    if (!strcmp(d, "note") && n >= 2) {
        if (t->nnotes == SB_TABLE_NOTES)
            return sb_fail("%s:%d: table %s: more than %d notes", path, line, t->name,
                           SB_TABLE_NOTES);
        char *note = t->notes[t->nnotes++];
        size_t len = 0;
        for (int i = 1; i < n; i++)
            len += (size_t)snprintf(note + (len < SB_TABLE_TEXT ? len : 0),
                                    len < SB_TABLE_TEXT ? SB_TABLE_TEXT - len : 0,
                                    "%s%s", i > 1 ? " " : "", w[i]);
        return len < SB_TABLE_TEXT ? 0 : sb_fail("%s:%d: note too long", path, line);
    }
    if (strcmp(d, "row") && strcmp(d, "published") && strcmp(d, "explain"))
        return 1;
    if (n < 3 && strcmp(d, "row"))
        return sb_fail("%s:%d: table %s: '%s LABEL ...' needs a row's label and values", path, line,
                       t->name, d);
    if (n < 2)
        return sb_fail("%s:%d: table %s: 'row LABEL [KEY=VALUE...]'", path, line, t->name);
    if (!strcmp(d, "row")) {
        if (tb_find_row(t, w[1]))
            return sb_fail("%s:%d: table %s: row '%s' is given twice", path, line, t->name, w[1]);
        if (t->nrows == SB_TABLE_ROWS)
            return sb_fail("%s:%d: table %s: more than %d rows", path, line, t->name,
                           SB_TABLE_ROWS);
        sb_table_row *r = &t->rows[t->nrows++];
        r->line = line;
        if (tb_copy(r->label, sizeof r->label, w[1], path, line) != 0)
            return -1;
        for (int i = 2; i < n; i++) {
            int rc = row_key(r->key, w[i], path, line);
            if (rc > 0)
                return sb_fail("%s:%d: table %s: row %s: '%s' is not a row key (from, variant, "
                               "where, value, per, kernel, speedup, ratio, base-where, "
                               "base-value, only)",
                               path, line, t->name, r->label, w[i]);
            if (rc < 0)
                return -1;
        }
        return 0;
    }
    sb_table_row *r = tb_find_row(t, w[1]);
    if (!r)
        return sb_fail("%s:%d: table %s: no row '%s' before this line (write its 'row' line "
                       "first)",
                       path, line, t->name, w[1]);
    if (!strcmp(d, "published")) {
        if (n - 2 > SB_TABLE_COLS)
            return sb_fail("%s:%d: table %s: more than %d published values", path, line, t->name,
                           SB_TABLE_COLS);
        r->npublished = n - 2;
        r->published_line = line;
        for (int i = 2; i < n; i++)
            if (tb_copy(r->published[i - 2], sizeof r->published[0], w[i], path, line) != 0)
                return -1;
        return 0;
    }
    int first = 2;
    r->explain_line = line;
    if (!strncmp(w[2], "at=", 3)) {
        if (tb_copy(r->explain_at, sizeof r->explain_at, w[2] + 3, path, line) != 0)
            return -1;
        first = 3;
    }
    size_t len = 0;
    for (int i = first; i < n; i++)
        len += (size_t)snprintf(r->explain + (len < SB_TABLE_TEXT ? len : 0),
                                len < SB_TABLE_TEXT ? SB_TABLE_TEXT - len : 0,
                                "%s%s", i > first ? " " : "", w[i]);
    if (len >= SB_TABLE_TEXT)
        return sb_fail("%s:%d: table %s: explanation too long", path, line, t->name);
    return 0;
}

/* ---- checking ---- */

const char *tb_row_key_value(const sb_table *t, const sb_table_row *r, int k)
{
    if (k == SB_TK_VARIANT && !r->key[k][0] && !t->key[k][0])
        return r->label; /* a row named after its variant */
    return r->key[k][0] ? r->key[k] : t->key[k];
}

/* Numbers compare as numbers ("64" and "64.0"), anything else as text. */
int tb_same_value(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (ea != a && !*ea && eb != b && !*eb)
        return x == y;
    return strcmp(a, b) == 0;
}

static int compare_values(const char *a, const char *b)
{
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (ea != a && !*ea && eb != b && !*eb)
        return (x > y) - (x < y);
    return strcmp(a, b);
}

/* columns=V:V,V:V into the columns. */
static int parse_columns(sb_table *t, const char *path)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", t->columns);
    t->ncols = 0;
    for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
        if (t->ncols == SB_TABLE_COLS)
            return sb_fail("%s:%d: table %s: more than %d columns", path, t->line, t->name,
                           SB_TABLE_COLS);
        int k = 0;
        for (char *vs = NULL, *v = strtok_r(c, ":", &vs); v; v = strtok_r(NULL, ":", &vs), k++)
            if (k < SB_TABLE_COL_PARAMS)
                snprintf(t->col_value[t->ncols][k], 64, "%s", v);
        if (k != t->ncol_params)
            return sb_fail("%s:%d: table %s: columns=%s: give %d value%s a column (V:V for "
                           "cols=P:P), comma-separated",
                           path, t->line, t->name, t->columns, t->ncol_params,
                           t->ncol_params > 1 ? "s" : "");
        t->ncols++;
    }
    return 0;
}

int sb_table_add_point(sb_table *t, const sb_params *p, const char *path)
{
    if (t->columns[0] && !t->ncols && parse_columns(t, path) != 0)
        return -1;
    for (int c = 0; c < t->ncols; c++) {
        int same = 1;
        for (int k = 0; k < t->ncol_params; k++)
            same &= tb_same_value(t->col_value[c][k], sb_param_text(p, t->col_param[k]));
        if (same) {
            t->col_covered[c] = 1;
            return 0;
        }
    }
    if (t->columns[0])
        return 0; /* a point outside the given columns: not shown */
    t->col_covered[t->ncols] = 1;
    if (t->ncols == SB_TABLE_COLS)
        return sb_fail("%s:%d: table %s: more than %d columns", path, t->line, t->name,
                       SB_TABLE_COLS);
    for (int k = 0; k < t->ncol_params; k++)
        snprintf(t->col_value[t->ncols][k], 64, "%s", sb_param_text(p, t->col_param[k]));
    t->ncols++;
    return 0;
}

static int is_param(const sb_workload *w, const char *name)
{
    for (int i = 0; i < w->nparams; i++)
        if (!strcmp(w->params[i].name, name))
            return 1;
    return 0;
}

/* "k=v,k=v": every k a parameter. */
static int check_where(const sb_workload *w, const char *where, const char *what, const char *path,
                       int line)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", where);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return sb_fail("%s:%d: %s=%s: give NAME=VALUE,NAME=VALUE", path, line, what, where);
        *eq = '\0';
        if (!is_param(w, kv))
            return sb_fail("%s:%d: %s: '%s' is not a parameter of %s", path, line, what, kv,
                           w->name);
    }
    return 0;
}

static int check_value(const sb_workload *w, const char *value, const char *path, int line)
{
    if (!strcmp(value, "time") || !strcmp(value, "wall") || !strcmp(value, "steady") ||
        !strcmp(value, "memory"))
        return 0;
    if (strncmp(value, "phase:", 6) || !value[6])
        return sb_fail("%s:%d: value=%s: use time, wall, steady, memory or phase:NAME[+NAME...]",
                       path, line, value);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", value + 6);
    for (char *save = NULL, *p = strtok_r(buf, "+", &save); p; p = strtok_r(NULL, "+", &save)) {
        int known = !w->csv_phases;
        for (int i = 0; w->csv_phases && w->csv_phases[i]; i++)
            known |= !strcmp(w->csv_phases[i], p);
        if (!known)
            return sb_fail("%s:%d: value=%s: %s has no phase '%s'", path, line, value, w->name, p);
    }
    return 0;
}

int tb_column_of(const sb_table *t, const char *at)
{
    char buf[128], *values[SB_TABLE_COL_PARAMS];
    int n = 0;
    snprintf(buf, sizeof buf, "%s", at);
    for (char *save = NULL, *v = strtok_r(buf, ",", &save); v && n < SB_TABLE_COL_PARAMS;
         v = strtok_r(NULL, ",", &save))
        values[n++] = v;
    for (int c = 0; n == t->ncol_params && c < t->ncols; c++) {
        int same = 1;
        for (int k = 0; k < n; k++)
            same &= tb_same_value(t->col_value[c][k], values[k]);
        if (same)
            return c;
    }
    return -1;
}

static int check_names(const sb_table *t, const sb_table_row *r, const sb_table_source *src,
                       int nsrc, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", tb_row_key_value(t, r, SB_TK_FROM));
    for (char *save = NULL, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < nsrc; i++)
            found |= !strcmp(src[i].name, s);
        if (!found)
            return sb_fail("%s:%d: table %s: from=%s: the study has no run '%s' (nor a records "
                           "line of that name)",
                           path, r->key[SB_TK_FROM][0] ? r->line : t->line, t->name,
                           tb_row_key_value(t, r, SB_TK_FROM), s);
    }
    return 0;
}

int sb_table_check_sources(const sb_table *t, const sb_table_source *src, int nsrc,
                           const char *path)
{
    if (!t->key[SB_TK_FROM][0])
        return sb_fail("%s:%d: table %s has no from=RUN", path, t->line, t->name);
    sb_table_row table_as_row;
    memset(&table_as_row, 0, sizeof table_as_row);
    if (check_names(t, &table_as_row, src, nsrc, path) != 0)
        return -1;
    for (int i = 0; i < t->nrows; i++)
        if (check_names(t, &t->rows[i], src, nsrc, path) != 0)
            return -1;
    return 0;
}

static int col_cmp_table_ncol;
static int col_cmp(const void *a, const void *b)
{
    const char(*x)[64] = a, (*y)[64] = b;
    for (int k = 0; k < col_cmp_table_ncol; k++) {
        int c = compare_values(x[k], y[k]);
        if (c)
            return c;
    }
    return 0;
}

/* The distinct workloads of the sources a from= list names (those known). */
static int from_workloads(const char *from, const sb_table_source *src, int nsrc,
                          const sb_workload **out, int cap)
{
    int n = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", from);
    for (char *save = NULL, *name = strtok_r(buf, ",", &save); name;
         name = strtok_r(NULL, ",", &save))
        for (int i = 0; i < nsrc; i++) {
            int seen = 0;
            for (int k = 0; k < n; k++)
                seen |= out[k] == src[i].workload;
            if (!strcmp(src[i].name, name) && src[i].workload && !seen && n < cap)
                out[n++] = src[i].workload;
        }
    return n;
}

int sb_table_check(sb_table *t, const sb_table_source *src, int nsrc, const char *path)
{
    if (t->nrows == 0)
        return sb_fail("%s:%d: table %s has no 'row' line", path, t->line, t->name);
    if (t->columns[0] && !t->ncols && parse_columns(t, path) != 0)
        return -1;
    if (t->ncols == 0)
        return sb_fail("%s:%d: table %s: no column: from= names no run of the study", path, t->line,
                       t->name);
    col_cmp_table_ncol = t->ncol_params;
    if (!t->columns[0]) /* all covered: the sort keeps col_covered right */
        qsort(t->col_value, (size_t)t->ncols, sizeof t->col_value[0], col_cmp);
    if (!t->unit[0])
        snprintf(t->unit, sizeof t->unit, "ms");
    for (int i = 0; i < t->nrows; i++) {
        const sb_table_row *r = &t->rows[i];
        const char *v = tb_row_key_value(t, r, SB_TK_VARIANT);
        const char *value = tb_row_key_value(t, r, SB_TK_VALUE);
        const char *per = tb_row_key_value(t, r, SB_TK_PER);
        const char *speedup = tb_row_key_value(t, r, SB_TK_SPEEDUP);
        const char *ratio = tb_row_key_value(t, r, SB_TK_RATIO);
        const char *only = tb_row_key_value(t, r, SB_TK_ONLY);
        const char *base = speedup[0] ? speedup : ratio;
        const char *base_value = tb_row_key_value(t, r, SB_TK_BASE_VALUE);
        const sb_workload *ws[16];
        int nw = from_workloads(tb_row_key_value(t, r, SB_TK_FROM), src, nsrc, ws, 16);
        if (!value[0])
            return sb_fail("%s:%d: table %s: row %s has no value= (time, wall, steady, "
                           "phase:NAME[+NAME...])",
                           path, r->line, t->name, r->label);
        if (only[0] && strcmp(only, "kernel-level") && strcmp(only, "kernel-level-unexplained"))
            return sb_fail("%s:%d: table %s: row %s: only=%s: the filters are only=kernel-level "
                           "(the GPU records of kernel-level stages, timed by CUDA events) and "
                           "only=kernel-level-unexplained (those without a noise_note)",
                           path, r->line, t->name, r->label, only);
        if (!strcmp(v, "*") && (base[0] || r->explain[0]))
            return sb_fail("%s:%d: table %s: row %s stands for every variant (variant=*): it takes "
                           "no speedup=, ratio= or explain line",
                           path, r->line, t->name, r->label);
        if (nw > 1 && t->ncol_params)
            return sb_fail("%s:%d: table %s: row %s reads runs of %d workloads: such a table has "
                           "no cols= (one column, every record)",
                           path, r->line, t->name, r->label, nw);
        for (int k = 0; k < nw; k++) {
            const sb_workload *w = ws[k];
            for (int c = 0; c < t->ncol_params; c++)
                if (!is_param(w, t->col_param[c]))
                    return sb_fail("%s:%d: table %s: cols: '%s' is not a parameter of %s", path,
                                   t->line, t->name, t->col_param[c], w->name);
            if (strcmp(v, "*") && !sb_find_variant(w, v))
                return sb_fail("%s:%d: table %s: row %s: '%s' is not a variant of %s "
                               "(variant=NAME names it when the label does not)",
                               path, r->line, t->name, r->label, v, w->name);
            if (check_value(w, value, path, r->line) != 0)
                return -1;
            if (per[0] && !is_param(w, per))
                return sb_fail("%s:%d: table %s: per=%s is not a parameter of %s", path, r->line,
                               t->name, per, w->name);
            if (base[0] && !sb_find_variant(w, base))
                return sb_fail("%s:%d: table %s: row %s: base '%s' is not a variant of %s", path,
                               r->line, t->name, r->label, base, w->name);
            if (base_value[0] && check_value(w, base_value, path, r->line) != 0)
                return -1;
            if (check_where(w, tb_row_key_value(t, r, SB_TK_WHERE), "where", path, r->line) != 0 ||
                check_where(w, tb_row_key_value(t, r, SB_TK_BASE_WHERE), "base-where", path,
                            r->line) != 0)
                return -1;
        }
        if (speedup[0] && ratio[0])
            return sb_fail("%s:%d: table %s: row %s has both speedup=%s and ratio=%s; give one",
                           path, r->line, t->name, r->label, speedup, ratio);
        if (base_value[0] && !base[0])
            return sb_fail("%s:%d: table %s: row %s: base-value=%s needs a base (speedup= or "
                           "ratio=)",
                           path, r->line, t->name, r->label, base_value);
        if (r->npublished && r->npublished != t->ncols)
            return sb_fail("%s:%d: table %s: published %s gives %d values for %d columns (the "
                           "runs' points of %s, in increasing order)",
                           path, r->published_line, t->name, r->label, r->npublished, t->ncols,
                           t->key[SB_TK_FROM]);
        if (r->explain_at[0] && tb_column_of(t, r->explain_at) < 0)
            return sb_fail("%s:%d: table %s: explain %s: at=%s is not a column (give the values "
                           "of %d parameter%s, comma-separated)",
                           path, r->explain_line, t->name, r->label, r->explain_at, t->ncol_params,
                           t->ncol_params > 1 ? "s" : "");
        if (tb_check_placeholders(t, r, path) != 0)
            return -1;
    }
    return tb_check_goals(t, path);
}

/* A study's tables (bench/report/study.c documents the lines): each cell is one record's value (a
 * variant's time or phases, per a parameter such as steps) at a column's parameters, with its
 * ratio to a base variant's record at the same column; a "paper" line under a row gives the
 * published values; a row's explanation is text whose {placeholders} are the records' facts
 * (bytes, transfers, registers and occupancy of a kernel, the device's FP32:FP64 rate...).
 * Skipped records show as X with their reason: inline when short or a memory refusal
 * ("X (needs 52.10 GiB, 41.00 GiB free)"), else as a numbered note under the table. Goals
 * compare a row's cell (its ratio, its value or a fact of its record) with a stated value and
 * end the table with a list of them, met, missed or not measured (and why). */
#include "table.h"

#include <ctype.h>
#include <fnmatch.h>
#include <glob.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/devmem.h"
#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "../../variants/registry.h"

static const char *const key_names[SB_TK_COUNT] = {
    "from", "variant", "where", "value", "per", "kernel", "speedup", "ratio", "base-where",
    "base-value", "only"};

/* ---- reading the study file ---- */

static int copy(char *dst, size_t cap, const char *src, const char *path, int line)
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
            return copy(keys[k], 256, eq + 1, path, line);
    return 1;
}

int sb_table_key(sb_table *t, const char *kv, const char *path, int line)
{
    const char *eq = strchr(kv, '=');
    int rc = row_key(t->key, kv, path, line);
    if (rc <= 0)
        return rc;
    if (eq && !strncmp(kv, "title=", 6))
        return copy(t->title, sizeof t->title, eq + 1, path, line);
    if (eq && !strncmp(kv, "columns=", 8))
        return copy(t->columns, sizeof t->columns, eq + 1, path, line);
    if (eq && !strncmp(kv, "col-label=", 10))
        return copy(t->col_label, sizeof t->col_label, eq + 1, path, line);
    if (eq && !strncmp(kv, "unit=", 5)) {
        if (strcmp(eq + 1, "s") && strcmp(eq + 1, "ms") && strcmp(eq + 1, "us"))
            return sb_fail("%s:%d: table %s: unit=%s: use s, ms or us", path, line, t->name,
                           eq + 1);
        return copy(t->unit, sizeof t->unit, eq + 1, path, line);
    }
    if (eq && !strncmp(kv, "cols=", 5)) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", eq + 1);
        t->ncol_params = 0;
        for (char *save = NULL, *p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
            if (t->ncol_params == SB_TABLE_COL_PARAMS)
                return sb_fail("%s:%d: table %s: cols= names at most %d parameters", path, line,
                               t->name, SB_TABLE_COL_PARAMS);
            if (copy(t->col_param[t->ncol_params++], 64, p, path, line) != 0)
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

static sb_table_row *find_row(sb_table *t, const char *label)
{
    for (int i = 0; i < t->nrows; i++)
        if (!strcmp(t->rows[i].label, label))
            return &t->rows[i];
    return NULL;
}

static const char *const goal_ops[] = {">=", "<=", ">", "<", NULL};

/* OP VALUE of a goal's comparison into c; the error names the goal. */
static int goal_comparison(const sb_table *t, const char *label, const char *op,
                           const char *value, sb_table_condition *c, const char *path, int line)
{
    int k = 0;
    while (goal_ops[k] && strcmp(op, goal_ops[k]))
        k++;
    if (!goal_ops[k])
        return sb_fail("%s:%d: table %s: goal %s: '%s' is not a comparison (use >=, <=, > or <; "
                       "quote it in a shell)",
                       path, line, t->name, label, op);
    snprintf(c->op, sizeof c->op, "%s", goal_ops[k]);
    char *end;
    c->value = strtod(value, &end);
    if (end == value || *end || !isfinite(c->value))
        return sb_fail("%s:%d: table %s: goal %s: '%s' is not a number (a ratio for a row with "
                       "speedup= or ratio=, else a value in the table's unit, or of= the fact's)",
                       path, line, t->name, label, value);
    return copy(c->value_text, sizeof c->value_text, value, path, line);
}

/* goal LABEL|* [at=V,V] [of=FACT] [and=FACTOPVALUE]... OP VALUE TEXT... (the row given before
 * it; *: every row) */
static int goal_line(sb_table *t, char **w, int n, const char *path, int line)
{
    static const char syntax[] = "'goal LABEL|* [at=V,V] [of=FACT] [and=FACT>=VALUE]... OP VALUE "
                                 "TEXT...' (OP: >=, <=, > or <)";
    if (n < 5)
        return sb_fail("%s:%d: table %s: %s", path, line, t->name, syntax);
    if (strcmp(w[1], "*") && !find_row(t, w[1]))
        return sb_fail("%s:%d: table %s: goal: no row '%s' before this line (write its 'row' "
                       "line first)",
                       path, line, t->name, w[1]);
    if (t->ngoals == SB_TABLE_GOALS)
        return sb_fail("%s:%d: table %s: more than %d goals", path, line, t->name,
                       SB_TABLE_GOALS);
    sb_table_goal *g = &t->goals[t->ngoals];
    memset(g, 0, sizeof *g);
    g->line = line;
    if (copy(g->label, sizeof g->label, w[1], path, line) != 0)
        return -1;
    int i = 2;
    for (; i < n && (!strncmp(w[i], "at=", 3) || !strncmp(w[i], "of=", 3) ||
                     !strncmp(w[i], "and=", 4));
         i++) {
        if (!strncmp(w[i], "and=", 4)) {
            /* and=FACT OP VALUE, one word: the comparison is the first < or > */
            const char *fact = w[i] + 4, *op = fact + strcspn(fact, "<>");
            size_t oplen = op[0] && op[1] == '=' ? 2 : 1;
            char opbuf[3];
            if (!*op || op == fact)
                return sb_fail("%s:%d: table %s: goal %s: %s: give and=FACT>=VALUE (or <=, >, <)",
                               path, line, t->name, g->label, w[i]);
            if (g->nand == SB_TABLE_GOAL_CONDITIONS)
                return sb_fail("%s:%d: table %s: goal %s: more than %d and= conditions", path,
                               line, t->name, g->label, SB_TABLE_GOAL_CONDITIONS);
            sb_table_condition *c = &g->and_[g->nand++];
            snprintf(opbuf, sizeof opbuf, "%.*s", (int)oplen, op);
            if ((size_t)(op - fact) >= sizeof c->of)
                return sb_fail("%s:%d: table %s: goal %s: %s: the fact's name is too long", path,
                               line, t->name, g->label, w[i]);
            snprintf(c->of, sizeof c->of, "%.*s", (int)(op - fact), fact);
            if (goal_comparison(t, g->label, opbuf, op + oplen, c, path, line) != 0)
                return -1;
        } else if (copy(w[i][0] == 'a' ? g->at : g->c.of,
                        w[i][0] == 'a' ? sizeof g->at : sizeof g->c.of, w[i] + 3, path,
                        line) != 0)
            return -1;
    }
    if (n - i < 3)
        return sb_fail("%s:%d: table %s: goal %s: %s", path, line, t->name, g->label, syntax);
    if (goal_comparison(t, g->label, w[i], w[i + 1], &g->c, path, line) != 0)
        return -1;
    size_t len = 0;
    for (int k = i + 2; k < n; k++)
        len += (size_t)snprintf(g->text + (len < SB_TABLE_TEXT ? len : 0),
                                len < SB_TABLE_TEXT ? SB_TABLE_TEXT - len : 0,
                                "%s%s", k > i + 2 ? " " : "", w[k]);
    if (len >= SB_TABLE_TEXT)
        return sb_fail("%s:%d: table %s: goal %s: text too long", path, line, t->name, g->label);
    t->ngoals++;
    return 0;
}

int sb_table_line(sb_table *t, char **w, int n, const char *path, int line)
{
    const char *d = w[0];
    if (!strcmp(d, "goal"))
        return goal_line(t, w, n, path, line);
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
        if (find_row(t, w[1]))
            return sb_fail("%s:%d: table %s: row '%s' is given twice", path, line, t->name, w[1]);
        if (t->nrows == SB_TABLE_ROWS)
            return sb_fail("%s:%d: table %s: more than %d rows", path, line, t->name,
                           SB_TABLE_ROWS);
        sb_table_row *r = &t->rows[t->nrows++];
        r->line = line;
        if (copy(r->label, sizeof r->label, w[1], path, line) != 0)
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
    sb_table_row *r = find_row(t, w[1]);
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
            if (copy(r->published[i - 2], sizeof r->published[0], w[i], path, line) != 0)
                return -1;
        return 0;
    }
    int first = 2;
    r->explain_line = line;
    if (!strncmp(w[2], "at=", 3)) {
        if (copy(r->explain_at, sizeof r->explain_at, w[2] + 3, path, line) != 0)
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

static const char *row_key_value(const sb_table *t, const sb_table_row *r, int k)
{
    if (k == SB_TK_VARIANT && !r->key[k][0] && !t->key[k][0])
        return r->label; /* a row named after its variant */
    return r->key[k][0] ? r->key[k] : t->key[k];
}

/* Numbers compare as numbers ("64" and "64.0"), anything else as text. */
static int same_value(const char *a, const char *b)
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
            same &= same_value(t->col_value[c][k], sb_param_text(p, t->col_param[k]));
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

static int known_fact(const char *name, int numeric)
{
    if (!strncmp(name, "phase:", 6) || (!numeric && !strncmp(name, "param:", 6)))
        return name[6] != '\0';
    if (!strncmp(name, "output:", 7) || !strncmp(name, "steady:", 7))
        return name[7] != '\0';
    return listed(numeric ? numeric_facts : facts, name);
}

/* A goal's aggregate over several records: median:FACT, min:FACT, max:FACT, sum:FACT or count;
 * *fact the FACT ("" for count). 0: not an aggregate. */
static const char *const aggregates[] = {"median:", "min:", "max:", "sum:", NULL};
static int aggregate_of(const char *of, const char **fact)
{
    if (!strcmp(of, "count")) {
        *fact = "";
        return 1;
    }
    for (int i = 0; aggregates[i]; i++)
        if (!strncmp(of, aggregates[i], strlen(aggregates[i]))) {
            *fact = of + strlen(aggregates[i]);
            return 1;
        }
    *fact = of;
    return 0;
}

static int check_placeholders(const sb_table *t, const sb_table_row *r, const char *path)
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
            ok = known_fact(name, 1);
        } else if (!ok) {
            ok = known_fact(!strncmp(name, "base_", 5) ? name + 5 : name, 0);
        }
        if (!ok)
            return sb_fail(
                "%s:%d: table %s: explain %s: {%.*s} is not a placeholder (facts: "
                "value, bytes, bytes_per_second, pct_peak, h2d, d2h, d2d, peer, "
                "transfers, memory, kernel, registers, occupancy, limiter, "
                "blocks_per_sm, local_bytes, block_threads, device, fp64_ratio, "
                "sm_count, samples, noise, status, reason, variant, items, items_per_second, "
                "value_bw, value_pct_peak, phase:NAME, output:NAME, steady:NAME, param:NAME; "
                "base_FACT; FACT/base; ratio, published, col, unit, base_variant)",
                path, r->explain_line, t->name, r->label, (int)(close - p - 1), p + 1);
        if ((!strncmp(name, "base_", 5) || strstr(p, "/base}") == close - 5) &&
            !row_key_value(t, r, SB_TK_SPEEDUP)[0] && !row_key_value(t, r, SB_TK_RATIO)[0])
            return sb_fail("%s:%d: table %s: explain %s: {%.*s} needs a base (speedup= or "
                           "ratio=)",
                           path, r->explain_line, t->name, r->label, (int)(close - p - 1), p + 1);
    }
    return 0;
}

static int column_of(const sb_table *t, const char *at)
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
            same &= same_value(t->col_value[c][k], values[k]);
        if (same)
            return c;
    }
    return -1;
}

static int check_names(const sb_table *t, const sb_table_row *r, const sb_table_source *src,
                       int nsrc, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", row_key_value(t, r, SB_TK_FROM));
    for (char *save = NULL, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < nsrc; i++)
            found |= !strcmp(src[i].name, s);
        if (!found)
            return sb_fail("%s:%d: table %s: from=%s: the study has no run '%s' (nor a records "
                           "line of that name)",
                           path, r->key[SB_TK_FROM][0] ? r->line : t->line, t->name,
                           row_key_value(t, r, SB_TK_FROM), s);
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

/* A goal's measure (of=, or an and= condition's): a numeric fact, an aggregate of one, or the
 * cell (""). aggregate: whether the goal's first measure is one (its conditions must agree). */
static int check_goal_measure(const sb_table *t, const sb_table_goal *g, const char *of,
                              int aggregate, const char *path)
{
    const char *fact;
    int agg = aggregate_of(of, &fact);
    const char *plain = !agg && !strncmp(fact, "base_", 5) && of != g->c.of ? fact + 5 : fact;
    if ((fact[0] || !agg) && of[0] && !known_fact(plain, 1))
        return sb_fail("%s:%d: table %s: goal %s: of=%s is not a numeric fact (value, items, "
                       "items_per_second, value_bw, value_pct_peak, bytes, bytes_per_second, "
                       "h2d, d2h, d2d, peer, transfers, memory, registers, occupancy, "
                       "blocks_per_sm, local_bytes, block_threads, fp64_ratio, sm_count, "
                       "samples, noise, noise_robust, median_ci, timed_out, phase:NAME, "
                       "output:NAME, steady:NAME; in an and=, base_FACT too; or an aggregate: "
                       "median:FACT, min:FACT, max:FACT, sum:FACT, count)",
                       path, g->line, t->name, g->label, of);
    if (agg != aggregate)
        return sb_fail("%s:%d: table %s: goal %s: %s: %s", path, g->line, t->name, g->label,
                       of[0] ? of : "the cell",
                       aggregate ? "the goal is an aggregate (of=AGG:FACT): give its and= "
                                   "conditions as aggregates too"
                                 : "an aggregate in an and= needs the goal's of= to be one too");
    return 0;
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
        const char *v = row_key_value(t, r, SB_TK_VARIANT);
        const char *value = row_key_value(t, r, SB_TK_VALUE);
        const char *per = row_key_value(t, r, SB_TK_PER);
        const char *speedup = row_key_value(t, r, SB_TK_SPEEDUP);
        const char *ratio = row_key_value(t, r, SB_TK_RATIO);
        const char *only = row_key_value(t, r, SB_TK_ONLY);
        const char *base = speedup[0] ? speedup : ratio;
        const char *base_value = row_key_value(t, r, SB_TK_BASE_VALUE);
        const sb_workload *ws[16];
        int nw = from_workloads(row_key_value(t, r, SB_TK_FROM), src, nsrc, ws, 16);
        if (!value[0])
            return sb_fail("%s:%d: table %s: row %s has no value= (time, wall, steady, "
                           "phase:NAME[+NAME...])",
                           path, r->line, t->name, r->label);
        if (only[0] && strcmp(only, "kernel-level"))
            return sb_fail("%s:%d: table %s: row %s: only=%s: the one filter is only=kernel-level "
                           "(the GPU records of kernel-level stages, timed by CUDA events)",
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
            if (check_where(w, row_key_value(t, r, SB_TK_WHERE), "where", path, r->line) != 0 ||
                check_where(w, row_key_value(t, r, SB_TK_BASE_WHERE), "base-where", path,
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
        if (r->explain_at[0] && column_of(t, r->explain_at) < 0)
            return sb_fail("%s:%d: table %s: explain %s: at=%s is not a column (give the values "
                           "of %d parameter%s, comma-separated)",
                           path, r->explain_line, t->name, r->label, r->explain_at, t->ncol_params,
                           t->ncol_params > 1 ? "s" : "");
        if (check_placeholders(t, r, path) != 0)
            return -1;
    }
    for (int i = 0; i < t->ngoals; i++) {
        const sb_table_goal *g = &t->goals[i];
        const char *fact;
        if (g->at[0] && column_of(t, g->at) < 0)
            return sb_fail("%s:%d: table %s: goal %s: at=%s is not a column (give the values of "
                           "%d parameter%s, comma-separated)",
                           path, g->line, t->name, g->label, g->at, t->ncol_params,
                           t->ncol_params > 1 ? "s" : "");
        int aggregate = aggregate_of(g->c.of, &fact);
        if (check_goal_measure(t, g, g->c.of, aggregate, path) != 0)
            return -1;
        for (int k = 0; k < g->nand; k++)
            if (check_goal_measure(t, g, g->and_[k].of, aggregate, path) != 0)
                return -1;
    }
    return 0;
}

/* ---- records ---- */

typedef struct rec {
    json_t *sb;      /* benchmarks[i].stagebench */
    json_t *devices; /* its file's context.stagebench.devices */
    int source;
} rec;

typedef struct loaded {
    json_t **docs;
    int ndocs;
    rec *recs;
    int nrecs;
    char *log; /* what was read, and what was not there */
    size_t log_len;
    FILE *log_f;
} loaded;

static const char *text_of(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static int load_file(loaded *L, const char *file, int source)
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
    rec *recs = realloc(L->recs, (size_t)(L->nrecs + (int)n + 1) * sizeof *recs);
    if (!recs)
        return sb_fail("out of host memory");
    L->recs = recs;
    json_array_foreach(benchmarks, i, b)
    {
        rec r = {json_object_get(b, "stagebench"), devices, source};
        if (json_is_object(r.sb))
            L->recs[L->nrecs++] = r;
    }
    const char *slash = strrchr(file, '/');
    fprintf(L->log_f, "%s%s (%zu record%s)", L->ndocs > 1 ? ", " : "", slash ? slash + 1 : file, n,
            n == 1 ? "" : "s");
    return 0;
}

static int load_sources(loaded *L, const sb_table_source *src, int nsrc, const int *used,
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

static void free_loaded(loaded *L)
{
    for (int i = 0; i < L->ndocs; i++)
        json_decref(L->docs[i]);
    free(L->docs);
    free(L->recs);
    if (L->log_f)
        fclose(L->log_f);
    free(L->log);
}

static int where_matches(json_t *params, const char *where)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", where);
    for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            return 0;
        *eq = '\0';
        if (!same_value(text_of(params, kv), eq + 1))
            return 0;
    }
    return 1;
}

/* The sources a from= list names, as flags by source index. */
static void mark_sources(const char *from, const sb_table_source *src, int nsrc, int *used)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", from);
    for (char *save = NULL, *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
        for (int i = 0; i < nsrc; i++)
            if (!strcmp(src[i].name, s))
                used[i] = 1;
}

/* Whether "k=v,k=v" names parameter p. */
static int where_names(const char *where, const char *p)
{
    size_t len = strlen(p);
    for (const char *k = where; *k; k += strcspn(k, ",") + (k[strcspn(k, ",")] == ',')) {
        if (!strncmp(k, p, len) && k[len] == '=')
            return 1;
    }
    return 0;
}

/* only=kernel-level: a GPU record of a kernel-level stage, timed by CUDA events (a record
 * that does not say is kernel-level). */
static int passes_only(const rec *r, const char *only)
{
    json_t *level = json_object_get(r->sb, "kernel_level");
    return !only[0] || (!strcmp(text_of(r->sb, "timer"), "cuda-event") && !json_is_false(level));
}

/* Whether record r is at column c (a base's where that names a column's parameter: any). */
static int at_column(const rec *r, const sb_table *t, int c, const char *where, int is_base)
{
    json_t *params = json_object_get(r->sb, "params");
    int same = 1;
    for (int k = 0; k < t->ncol_params; k++)
        same &= (is_base && where_names(where, t->col_param[k])) ||
                same_value(text_of(params, t->col_param[k]), t->col_value[c][k]);
    return same;
}

/* The record of a variant at column c among the flagged sources: a valid one first. A base's
 * where (is_base) that names a column's parameter picks its value whatever the column (the
 * base of every column at reactions=0, at gpus=1). */
static const rec *find_record(const loaded *L, const int *sources, const sb_table *t, int c,
                              const char *variant, const char *where, const char *only,
                              int is_base)
{
    const rec *found = NULL;
    for (int i = 0; i < L->nrecs; i++) {
        const rec *r = &L->recs[i];
        json_t *params = json_object_get(r->sb, "params");
        if (!sources[r->source] || strcmp(text_of(r->sb, "variant"), variant) ||
            !where_matches(params, where) || !passes_only(r, only) ||
            !at_column(r, t, c, where, is_base))
            continue;
        if (!strcmp(text_of(r->sb, "status"), "valid"))
            return r;
        if (!found)
            found = r;
    }
    return found;
}

static double number_at(json_t *o, const char *a, const char *b)
{
    json_t *v = json_object_get(o, a);
    if (b)
        v = json_object_get(v, b);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Seconds of the value expression (bytes for memory), per the `per` parameter; NaN where the
 * record has none. */
static double record_value(const rec *r, const char *value, const char *per)
{
    if (!r || strcmp(text_of(r->sb, "status"), "valid"))
        return NAN;
    double v = NAN;
    if (!strcmp(value, "time"))
        v = number_at(r->sb, "time", "median");
    else if (!strcmp(value, "wall"))
        v = number_at(r->sb, "wall", "median");
    else if (!strcmp(value, "steady"))
        v = number_at(r->sb, "steady", "seconds");
    else if (!strcmp(value, "memory"))
        v = number_at(r->sb, "memory", "peak_tracked_bytes");
    else if (!strncmp(value, "phase:", 6)) {
        char buf[256];
        snprintf(buf, sizeof buf, "%s", value + 6);
        v = 0;
        for (char *save = NULL, *p = strtok_r(buf, "+", &save); p; p = strtok_r(NULL, "+", &save))
            v += number_at(r->sb, "phases", p);
    }
    if (per && per[0]) {
        char *end;
        const char *text = text_of(json_object_get(r->sb, "params"), per);
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

static const char *unit_name(const char *unit)
{
    return !strcmp(unit, "us") ? "µs" : unit;
}

static void fmt_number(double x, char *buf, size_t cap)
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
static void fmt_ratio(double x, char *buf, size_t cap)
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

static void fmt_bytes(double b, char *buf, size_t cap)
{
    if (!isfinite(b))
        snprintf(buf, cap, "n/a");
    else
        sb_format_bytes(b, buf, cap);
}

/* A value of the value expression: bytes for memory, else seconds in the table's unit (no unit
 * name). */
static void fmt_value(const sb_table *t, const char *value, double v, char *buf, size_t cap)
{
    if (!strcmp(value, "memory"))
        fmt_bytes(v, buf, cap);
    else
        fmt_number(v * unit_scale(t->unit), buf, cap);
}

/* "needs 52.10 GiB ..., which has 41.00 GiB free" -> "needs 52.10 GiB, 41.00 GiB free";
 * 0 when the reason does not say both. */
static int memory_refusal(const char *reason, char *out, size_t cap)
{
    const char *needs = strstr(reason, "needs "), *has = strstr(reason, "has ");
    if (!needs || !has || has < needs)
        return 0;
    char need[32], have[32], unit1[8], unit2[8], free_word[8];
    if (sscanf(needs, "needs %31[0-9.] %7s", need, unit1) != 2 ||
        sscanf(has, "has %31[0-9.] %7s %7s", have, unit2, free_word) != 3 ||
        strncmp(free_word, "free", 4) != 0)
        return 0;
    snprintf(out, cap, "needs %s %s, %s %s free", need, unit1, have, unit2);
    return 1;
}

typedef struct notes {
    char text[SB_TABLE_ROWS * 4][512];
    int n;
} notes;

/* The note number of a reason (1-based), added when new. */
static int note_of(notes *ns, const char *reason)
{
    for (int i = 0; i < ns->n; i++)
        if (!strcmp(ns->text[i], reason))
            return i + 1;
    if (ns->n == (int)(sizeof ns->text / sizeof ns->text[0]))
        return ns->n;
    snprintf(ns->text[ns->n++], sizeof ns->text[0], "%s", reason);
    return ns->n;
}

/* A record that has no value: X (skipped) with its reason, failed or invalid with a note. */
static void fmt_missing(const rec *r, notes *ns, char *buf, size_t cap)
{
    if (!r) {
        snprintf(buf, cap, "—");
        return;
    }
    const char *status = text_of(r->sb, "status"), *reason = text_of(r->sb, "reason");
    char short_reason[128];
    if (!strcmp(status, "skipped")) {
        if (memory_refusal(reason, short_reason, sizeof short_reason))
            snprintf(buf, cap, "X (%.100s)", short_reason);
        else if (strlen(reason) <= 40)
            snprintf(buf, cap, "X (%s)", reason);
        else
            snprintf(buf, cap, "X [%d]", note_of(ns, reason));
    } else if (!strcmp(status, "valid")) {
        snprintf(buf, cap, "n/a");
    } else {
        snprintf(buf, cap, "%s [%d]", status, note_of(ns, reason));
    }
}

static void col_label(const sb_table *t, int c, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    if (!t->col_label[0] && t->ncol_params == 0) {
        snprintf(out, cap, "all"); /* a table without cols=: one column, every record */
        return;
    }
    if (!t->col_label[0]) {
        for (int k = 0; k < t->ncol_params; k++)
            len += (size_t)snprintf(out + (len < cap ? len : 0), len < cap ? cap - len : 0,
                                    "%s%s=%s", k ? ", " : "", t->col_param[k], t->col_value[c][k]);
        return;
    }
    for (const char *p = t->col_label; *p && len + 1 < cap;) {
        const char *close = *p == '{' ? strchr(p, '}') : NULL;
        int k = -1;
        for (int i = 0; close && i < t->ncol_params; i++)
            if (strlen(t->col_param[i]) == (size_t)(close - p - 1) &&
                !strncmp(t->col_param[i], p + 1, close - p - 1))
                k = i;
        if (k >= 0) {
            len += (size_t)snprintf(out + len, cap - len, "%s", t->col_value[c][k]);
            p = close + 1;
        } else {
            out[len++] = *p++;
            out[len] = '\0';
        }
    }
    if (len >= cap)
        out[cap - 1] = '\0';
}

/* ---- cells and explanations ---- */

typedef struct cell {
    const rec *r, *base;
    double value, base_value, ratio;
} cell;

static void compute_cell(const sb_table *t, const sb_table_row *row, const char *variant,
                         const loaded *L, const int *row_sources, const int *all_sources, int c,
                         cell *out)
{
    const char *value = row_key_value(t, row, SB_TK_VALUE), *per = row_key_value(t, row, SB_TK_PER);
    const char *speedup = row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base = speedup[0] ? speedup : row_key_value(t, row, SB_TK_RATIO);
    memset(out, 0, sizeof *out);
    out->r = find_record(L, row_sources, t, c, variant, row_key_value(t, row, SB_TK_WHERE),
                         row_key_value(t, row, SB_TK_ONLY), 0);
    out->value = record_value(out->r, value, per);
    out->base_value = out->ratio = NAN;
    if (base[0]) {
        const char *base_value = row_key_value(t, row, SB_TK_BASE_VALUE);
        out->base = find_record(L, all_sources, t, c, base,
                                row_key_value(t, row, SB_TK_BASE_WHERE), "", 1);
        out->base_value = record_value(out->base, base_value[0] ? base_value : value, per);
        out->ratio = speedup[0] ? out->base_value / out->value : out->value / out->base_value;
    }
}

static json_t *device_of(const rec *r)
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
static json_t *kernel_of(const rec *r, const char *patterns)
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
                if (fnmatch(p, text_of(k, "name"), 0) == 0)
                    return k;
        }
    }
    return NULL;
}

/* The value expression of the row's record, or of its base's (base-value=, else the row's). */
static const char *value_of(const sb_table *t, const sb_table_row *row, int is_base)
{
    const char *base_value = row_key_value(t, row, SB_TK_BASE_VALUE);
    return is_base && base_value[0] ? base_value : row_key_value(t, row, SB_TK_VALUE);
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
static void format_fact(const sb_table *t, const sb_table_row *row, int is_base, const char *name,
                        double num, char *text, size_t cap)
{
    if (!strcmp(name, "value") || !strncmp(name, "phase:", 6)) {
        const char *expr = !strcmp(name, "value") ? value_of(t, row, is_base) : name;
        fmt_value(t, expr, num, text, cap);
        if (isfinite(num) && strcmp(expr, "memory"))
            snprintf(text + strlen(text), cap - strlen(text), " %s", unit_name(t->unit));
    } else if (!strncmp(name, "steady:", 7) || !strcmp(name, "items_per_second")) {
        if (isfinite(num) && fabs(num) >= 1e6)
            snprintf(text, cap, "%.3g", num);
        else if (isfinite(num) && fabs(num) >= 1e3) /* simulated seconds an hour: 11,060 */
            fmt_grouped(num, text, cap);
        else
            fmt_number(num, text, cap);
    } else if (!strcmp(name, "bytes") || !strcmp(name, "h2d") || !strcmp(name, "d2h") ||
               !strcmp(name, "d2d") || !strcmp(name, "peer") || !strcmp(name, "memory") ||
               !strcmp(name, "transfers")) {
        fmt_bytes(num, text, cap);
    } else if (!strcmp(name, "value_bw") || !strcmp(name, "bytes_per_second")) {
        fmt_number(num / 1e9, text, cap);
        if (isfinite(num))
            snprintf(text + strlen(text), cap - strlen(text), " GB/s");
    } else if (!strcmp(name, "value_pct_peak")) {
        fmt_number(num, text, cap);
        if (isfinite(num))
            snprintf(text + strlen(text), cap - strlen(text), " %%");
    } else if (!strcmp(name, "items")) {
        if (isfinite(num))
            snprintf(text, cap, "%.3g", num);
        else
            fmt_number(num, text, cap);
    } else if (!strcmp(name, "noise") || !strcmp(name, "noise_robust") ||
               !strcmp(name, "median_ci")) { /* fractions, shown as % with two decimals */
        if (isfinite(num))
            snprintf(text, cap, "%.2f %%", 100 * num);
        else
            snprintf(text, cap, !strcmp(name, "noise") ? "n/a %%" : "n/a");
    } else if (!strcmp(name, "occupancy")) {
        fmt_number(100 * num, text, cap); /* a fraction, shown as % */
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
        fmt_number(num, text, cap);
    }
}

/* A fact of a record (the row's, or its base's when is_base): *num its number (NaN for text
 * facts or where missing), text its words. */
static void fact(const sb_table *t, const sb_table_row *row, const rec *r, int is_base,
                 const char *name, double *num, char *text, size_t cap)
{
    *num = NAN;
    snprintf(text, cap, "n/a");
    if (!r)
        return;
    json_t *sb = r->sb;
    const char *status = text_of(sb, "status");
    if (!strcmp(name, "status") || !strcmp(name, "variant") || !strcmp(name, "reason")) {
        snprintf(text, cap, "%s", text_of(sb, name));
        return;
    }
    if (!strncmp(name, "param:", 6)) {
        snprintf(text, cap, "%s", text_of(json_object_get(sb, "params"), name + 6));
        return;
    }
    if (!strcmp(name, "device") || !strcmp(name, "fp64_ratio") || !strcmp(name, "sm_count")) {
        json_t *d = json_is_integer(json_object_get(sb, "device")) ? device_of(r) : NULL;
        if (!d) {
            snprintf(text, cap, !strcmp(name, "device") ? "the CPU" : "n/a");
            return;
        }
        if (!strcmp(name, "device")) {
            snprintf(text, cap, "%s", text_of(d, "name"));
            return;
        }
        *num = number_at(d, !strcmp(name, "sm_count") ? "sm_count" : "single_to_double_perf_ratio",
                         NULL);
        format_fact(t, row, is_base, name, *num, text, cap);
        return;
    }
    if (strcmp(status, "valid"))
        return; /* the rest are a measured record's */
    const char *per = row_key_value(t, row, SB_TK_PER);
    const char *value = value_of(t, row, is_base);
    json_t *time = json_object_get(sb, "time");
    static const char *const byte_facts[][3] = {
        {"bytes", "derived", "bytes_moved"}, {"h2d", "transfers", "h2d"},
        {"d2h", "transfers", "d2h"},         {"d2d", "transfers", "d2d"},
        {"peer", "transfers", "peer"},       {"memory", "memory", "peak_tracked_bytes"}};
    if (!strcmp(name, "value") || !strncmp(name, "phase:", 6)) {
        *num = record_value(r, !strcmp(name, "value") ? value : name, per);
    } else if (!strncmp(name, "steady:", 7)) {
        *num = number_at(sb, "steady", name + 7);
    } else if (!strcmp(name, "items_per_second")) {
        *num = number_at(sb, "derived", "items_per_second");
    } else if (!strcmp(name, "value_bw") || !strcmp(name, "value_pct_peak")) {
        /* the bytes the record counts over the seconds of the row's value in a run: those of
         * the step loop for value=steady, where the record counts them */
        double bytes = number_at(sb, "derived", "bytes_moved");
        if (!strcmp(value, "steady") && isfinite(number_at(sb, "steady", "bytes_moved")))
            bytes = number_at(sb, "steady", "bytes_moved");
        double bw = strcmp(value, "memory") ? bytes / record_value(r, value, NULL) : NAN;
        json_t *d = json_is_integer(json_object_get(sb, "device")) ? device_of(r) : NULL;
        double peak = d ? number_at(d, "peak_dram_bytes_per_second", NULL) : NAN;
        *num = !strcmp(name, "value_bw") ? bw : 100 * bw / peak;
    } else if (!strcmp(name, "items")) {
        *num = number_at(json_object_get(sb, "derived"), "items", NULL);
    } else if (!strncmp(name, "output:", 7)) {
        *num = number_at(json_object_get(json_object_get(sb, "derived"), "output"), name + 7,
                         NULL);
    } else if (!strcmp(name, "transfers")) {
        json_t *x = json_object_get(sb, "transfers");
        *num = number_at(x, "h2d", NULL) + number_at(x, "d2h", NULL) + number_at(x, "d2d", NULL) +
               number_at(x, "peer", NULL);
    } else if (!strcmp(name, "bytes_per_second")) {
        *num = number_at(sb, "derived", "bytes_per_second");
    } else if (!strcmp(name, "pct_peak")) { /* text alone, as before */
        double pct = number_at(sb, "derived", "pct_peak_dram");
        fmt_number(pct, text, cap);
        if (isfinite(pct))
            snprintf(text + strlen(text), cap - strlen(text), " %%");
        return;
    } else if (!strcmp(name, "samples")) {
        json_t *samples = json_object_get(time, "samples");
        *num = json_is_array(samples) ? (double)json_array_size(samples) : NAN;
    } else if (!strcmp(name, "noise") || !strcmp(name, "noise_robust") ||
               !strcmp(name, "median_ci")) {
        *num = number_at(time, name, NULL);
    } else if (!strcmp(name, "timed_out")) { /* 1: sampling stopped on the timeout */
        *num = !strcmp(text_of(sb, "stop_reason"), "timeout");
    } else {
        int bytes = 0;
        for (size_t i = 0; i < sizeof byte_facts / sizeof byte_facts[0]; i++)
            if (!strcmp(name, byte_facts[i][0])) {
                *num = number_at(sb, byte_facts[i][1], byte_facts[i][2]);
                bytes = 1;
            }
        if (!bytes) {
            json_t *k = kernel_of(r, row_key_value(t, row, SB_TK_KERNEL));
            if (!k)
                return;
            if (!strcmp(name, "kernel")) {
                snprintf(text, cap, "%s", text_of(k, "name"));
                return;
            }
            if (!strcmp(name, "limiter")) {
                snprintf(text, cap, "%s",
                         json_is_string(json_object_get(k, "limited_by")) ? text_of(k, "limited_by")
                                                                          : "n/a");
                return;
            }
            *num = number_at(k, !strcmp(name, "local_bytes") ? "local_bytes_per_thread" : name,
                             NULL);
        }
    }
    format_fact(t, row, is_base, name, *num, text, cap);
}

static void explain(FILE *f, const sb_table *t, const sb_table_row *row, const cell *cells, int c,
                    const char *col)
{
    const char *speedup = row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base_name = speedup[0] ? speedup : row_key_value(t, row, SB_TK_RATIO);
    const cell *x = &cells[c];
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
            fmt_ratio(x->ratio, text, sizeof text);
        } else if (!strcmp(name, "published")) {
            snprintf(text, sizeof text, "%s", row->npublished ? row->published[c] : "n/a");
        } else if (!strcmp(name, "col")) {
            snprintf(text, sizeof text, "%s", col);
        } else if (!strcmp(name, "unit")) {
            snprintf(text, sizeof text, "%s", unit_name(t->unit));
        } else if (!strcmp(name, "base_variant")) {
            snprintf(text, sizeof text, "%s", base_name);
        } else if (len > 5 && !strcmp(name + len - 5, "/base")) {
            name[len - 5] = '\0';
            fact(t, row, x->r, 0, name, &num, text, sizeof text);
            fact(t, row, x->base, 1, name, &base_num, text, sizeof text);
            fmt_ratio(num / base_num, text, sizeof text);
        } else if (!strncmp(name, "base_", 5)) {
            fact(t, row, x->base, 1, name + 5, &num, text, sizeof text);
        } else {
            fact(t, row, x->r, 0, name, &num, text, sizeof text);
        }
        fputs(text, f);
        p = close + 1;
    }
}

/* ---- the table ---- */

static size_t describe_value(const char *value, char *out, size_t cap)
{
    size_t len;
    if (!strcmp(value, "memory"))
        return (size_t)snprintf(out, cap, "the peak tracked device memory of a run");
    if (!strcmp(value, "time") || !strcmp(value, "wall") || !strcmp(value, "steady"))
        return (size_t)snprintf(out, cap, "%s",
                                !strcmp(value, "time")   ? "the median time of a run"
                                : !strcmp(value, "wall") ? "the median wall-clock time of a run"
                                                         : "the median time of the step loop");
    len = (size_t)snprintf(out, cap, "the ");
    for (const char *p = value + 6; *p && len + 4 < cap; p++)
        len += *p == '+' ? (size_t)snprintf(out + len, cap - len, " + ")
                         : (size_t)snprintf(out + len, cap - len, "%c", *p);
    len += (size_t)snprintf(out + (len < cap ? len : 0), len < cap ? cap - len : 0,
                            " phase%s of the last timed run",
                            strchr(value, '+') ? "s" : "");
    return len < cap ? len : cap - 1;
}

static void print_devices(FILE *f, const loaded *L)
{
    char seen[8][512];
    int nseen = 0;
    fputs("Device: ", f);
    for (int i = 0; i < L->ndocs; i++) {
        json_t *devices = json_object_get(
            json_object_get(json_object_get(L->docs[i], "context"), "stagebench"), "devices");
        size_t n = json_array_size(devices);
        if (n == 0)
            continue;
        json_t *d = json_array_get(devices, 0);
        char line[512], mem[32], ratio[64] = "FP32:FP64 rate not recorded";
        double r = number_at(d, "single_to_double_perf_ratio", NULL);
        if (isfinite(r) && r > 0)
            snprintf(ratio, sizeof ratio, "FP32:FP64 throughput %g:1", r);
        snprintf(line, sizeof line,
                 "%s (compute capability %s, %.0f SMs, %s, %s, measured DRAM peak %.0f GB/s)",
                 text_of(d, "name"), text_of(d, "compute_capability"),
                 number_at(d, "sm_count", NULL), ratio,
                 sb_format_bytes(number_at(d, "memory_bytes", NULL), mem, sizeof mem),
                 number_at(d, "peak_dram_bytes_per_second", NULL) / 1e9);
        if (n > 1) {
            char many[512];
            snprintf(many, sizeof many, "%zu × %.480s", n, line);
            snprintf(line, sizeof line, "%s", many);
        }
        char key[300]; /* one line a kind of machine: the measured peak varies run to run */
        snprintf(key, sizeof key, "%zu %.280s", n, text_of(d, "name"));
        int dup = 0;
        for (int k = 0; k < nseen; k++)
            dup |= !strcmp(seen[k], key);
        if (!dup && nseen < 8) {
            fprintf(f, "%s%s", nseen ? "; " : "", line);
            snprintf(seen[nseen++], sizeof seen[0], "%s", key);
        }
    }
    if (nseen == 0)
        fputs("no GPU in the records (CPU stages only)", f);
    fputs(".\n", f);
}

/* What a cell is: each distinct value, then each distinct ratio, with the rows it is for where
 * not every row's. */
static void legend(FILE *f, const sb_table *t)
{
    static char desc[2][SB_TABLE_ROWS][512];
    for (int i = 0; i < t->nrows; i++) {
        const sb_table_row *row = &t->rows[i];
        const char *per = row_key_value(t, row, SB_TK_PER),
                   *bw = row_key_value(t, row, SB_TK_BASE_WHERE);
        const char *speedup = row_key_value(t, row, SB_TK_SPEEDUP),
                   *ratio = row_key_value(t, row, SB_TK_RATIO);
        char *v = desc[0][i], *r = desc[1][i], base_desc[256] = "";
        const char *value = row_key_value(t, row, SB_TK_VALUE),
                   *base_value = row_key_value(t, row, SB_TK_BASE_VALUE);
        size_t len = describe_value(value, v, 512);
        snprintf(v + len, 512 - len, "%s%s, in %s", per[0] ? " / " : "", per,
                 !strcmp(value, "memory") ? "bytes" : unit_name(t->unit));
        if (base_value[0] && strcmp(base_value, value)) {
            base_desc[0] = ' ';
            base_desc[1] = '(';
            len = 2 + describe_value(base_value, base_desc + 2, sizeof base_desc - 4);
            snprintf(base_desc + len, sizeof base_desc - len, ")");
        }
        r[0] = '\0';
        char at[256];
        int every = 0; /* base-where names a column's parameter: one base for every column */
        for (int k = 0; k < t->ncol_params; k++)
            every |= where_names(bw, t->col_param[k]);
        snprintf(at, sizeof at, "%s%.200s%s", bw[0] ? " at " : "", bw,
                 every ? " (one record for every column)" : "");
        if (speedup[0])
            snprintf(r, 512, "%.60s%s%s / the row, a speed-up", speedup, base_desc, at);
        else if (ratio[0] && !strcmp(ratio, row_key_value(t, row, SB_TK_VARIANT)) && base_desc[0])
            snprintf(r, 512, "the row / the same record's%s, a share", base_desc);
        else if (ratio[0])
            snprintf(r, 512, "the row / %.60s%s%s, %s", ratio, base_desc, at,
                     !strcmp(value, "memory") ? "a ratio" : "a slowdown");
    }
    for (int kind = 0; kind < 2; kind++) {
        int printed = 0;
        for (int i = 0; i < t->nrows; i++) {
            int first = desc[kind][i][0] != '\0', all = 1;
            for (int k = 0; k < i && first; k++)
                first = strcmp(desc[kind][k], desc[kind][i]) != 0;
            if (!first)
                continue;
            fprintf(f, "%s%s",
                    printed++ ? "; "
                    : kind    ? " Ratios (r×), at the same column: "
                              : "\nValues: ",
                    desc[kind][i]);
            for (int k = 0; k < t->nrows; k++)
                all &= !strcmp(desc[kind][k], desc[kind][i]);
            if (all)
                continue;
            for (int k = i, n = 0; k < t->nrows; k++)
                if (!strcmp(desc[kind][k], desc[kind][i]))
                    fprintf(f, "%s%s", n++ ? ", " : " (", t->rows[k].label);
            fputc(')', f);
        }
        if (printed)
            fputc('.', f);
    }
    fputs(" *paper*: the published values. X: refused before launch (a skipped record; its "
          "reason beside it or in the notes below); —: no record.\n\n",
          f);
}

/* ---- lines: a row, or for a row of every variant (variant=*) one per variant and source ---- */

#define MAX_LINES 128

typedef struct line {
    const sb_table_row *row;
    int row_index;
    const char *variant; /* the row's, or a record's (variant=*) */
    int source;          /* -1: the sources of the row's from=; else this one alone */
    char label[256];
} line;

/* The table's lines: each row, but a row of every variant gives a line per variant and source
 * among its records (of any column; only= and where= applied), in the records' order; without
 * any, one line that shows no record. */
static int expand_rows(const sb_table *t, const loaded *L, const sb_table_source *src, int nsrc,
                       line *lines, int *nlines)
{
    int n = 0;
    for (int i = 0; i < t->nrows; i++) {
        const sb_table_row *row = &t->rows[i];
        const char *v = row_key_value(t, row, SB_TK_VARIANT);
        int first = n;
        if (strcmp(v, "*")) {
            if (n == MAX_LINES)
                return sb_fail("table %s: more than %d lines", t->name, MAX_LINES);
            lines[n++] = (line){row, i, v, -1, ""};
            snprintf(lines[n - 1].label, sizeof lines[0].label, "%s", row->label);
            continue;
        }
        int sources[256] = {0};
        mark_sources(row_key_value(t, row, SB_TK_FROM), src, nsrc, sources);
        for (int k = 0; k < L->nrecs; k++) {
            const rec *r = &L->recs[k];
            const char *variant = text_of(r->sb, "variant");
            int in_column = 0, seen = 0;
            for (int c = 0; c < t->ncols; c++)
                in_column |= at_column(r, t, c, "", 0);
            if (!sources[r->source] || !variant[0] || !in_column ||
                !where_matches(json_object_get(r->sb, "params"),
                               row_key_value(t, row, SB_TK_WHERE)) ||
                !passes_only(r, row_key_value(t, row, SB_TK_ONLY)))
                continue;
            for (int j = first; j < n; j++)
                seen |= lines[j].source == r->source && !strcmp(lines[j].variant, variant);
            if (seen)
                continue;
            if (n == MAX_LINES)
                return sb_fail("table %s: row %s: more than %d lines", t->name, row->label,
                               MAX_LINES);
            lines[n++] = (line){row, i, variant, r->source, ""};
            snprintf(lines[n - 1].label, sizeof lines[0].label, "%.100s: %.64s (%.64s)",
                     row->label, variant, src[r->source].name);
        }
        if (n == first) {
            if (n == MAX_LINES)
                return sb_fail("table %s: more than %d lines", t->name, MAX_LINES);
            lines[n++] = (line){row, i, "*", -1, ""}; /* no record: every cell — */
            snprintf(lines[n - 1].label, sizeof lines[0].label, "%s", row->label);
        }
    }
    *nlines = n;
    return 0;
}

/* ---- goals ---- */

static int compare_op(const char *op, double m, double value)
{
    return !strcmp(op, ">=") ? m >= value : !strcmp(op, "<=") ? m <= value
                                        : !strcmp(op, ">")    ? m > value
                                                              : m < value;
}

static const char *op_sign(const char *op)
{
    return !strcmp(op, ">=") ? "≥" : !strcmp(op, "<=") ? "≤" : op;
}

/* What a goal compares at a cell: the fact of its record (of=), else the ratio of a row with a
 * base, else the value; NaN where there is none. */
static double goal_measure(const sb_table *t, const sb_table_row *row, const char *of,
                           const cell *x, char *text, size_t cap)
{
    const char *speedup = row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base = speedup[0] ? speedup : row_key_value(t, row, SB_TK_RATIO);
    double m;
    if (of[0] && !strncmp(of, "base_", 5)) {
        fact(t, row, x->base, 1, of + 5, &m, text, cap);
        return x->base && x->r && !strcmp(text_of(x->r->sb, "status"), "valid") ? m : NAN;
    }
    if (of[0]) {
        fact(t, row, x->r, 0, of, &m, text, cap);
    } else if (base[0]) {
        m = x->ratio;
        fmt_ratio(m, text, cap);
        snprintf(text + strlen(text), cap - strlen(text), "×");
    } else {
        const char *value = row_key_value(t, row, SB_TK_VALUE);
        m = x->value;
        fmt_value(t, value, m, text, cap);
        if (strcmp(value, "memory"))
            snprintf(text + strlen(text), cap - strlen(text), " %s", unit_name(t->unit));
    }
    return x->r && !strcmp(text_of(x->r->sb, "status"), "valid") ? m : NAN;
}

/* An aggregate (median:, min:, max:, sum: of a fact, or count) over the valid records of the
 * goal's lines at column c; *n their count. NaN where none has the fact. */
static double goal_aggregate(const sb_table *t, const line *lines, const int *in, int nlines,
                             cell (*cells)[SB_TABLE_COLS], int c, const char *of, char *text,
                             size_t cap, int *n)
{
    const char *fact_name;
    aggregate_of(of, &fact_name);
    double *v = calloc((size_t)nlines + 1, sizeof *v), out = NAN;
    const sb_table_row *row = NULL;
    *n = 0;
    for (int i = 0; v && i < nlines; i++) {
        char scratch[256];
        if (!in[i])
            continue;
        const cell *x = &cells[i][c];
        if (!x->r || strcmp(text_of(x->r->sb, "status"), "valid"))
            continue;
        double m = 1;
        if (fact_name[0])
            fact(t, lines[i].row, x->r, 0, fact_name, &m, scratch, sizeof scratch);
        if (isfinite(m))
            v[(*n)++] = m, row = lines[i].row;
    }
    if (*n > 0 && !strcmp(of, "count"))
        out = *n;
    else if (*n > 0 && !strncmp(of, "median:", 7)) {
        for (int i = 1; i < *n; i++) /* insertion sort: a few records */
            for (int k = i; k > 0 && v[k - 1] > v[k]; k--) {
                double x = v[k];
                v[k] = v[k - 1], v[k - 1] = x;
            }
        out = *n % 2 ? v[*n / 2] : (v[*n / 2 - 1] + v[*n / 2]) / 2;
    } else if (*n > 0) {
        out = strncmp(of, "sum:", 4) ? v[0] : 0;
        for (int i = 0; i < *n; i++)
            out = !strncmp(of, "sum:", 4)   ? out + v[i]
                  : !strncmp(of, "min:", 4) ? fmin(out, v[i])
                                            : fmax(out, v[i]);
    }
    free(v);
    if (!strcmp(of, "count"))
        snprintf(text, cap, "%.0f", out);
    else if (row)
        format_fact(t, row, 0, fact_name, out, text, cap);
    else
        snprintf(text, cap, "n/a");
    return out;
}

/* Why a cell has nothing to compare: no record, its record's status, or its base's. */
static void goal_missing(const sb_table *t, const sb_table_row *row, const char *of,
                         const cell *x, char *out, size_t cap)
{
    const char *speedup = row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base = speedup[0] ? speedup : row_key_value(t, row, SB_TK_RATIO);
    const char *status = x->r ? text_of(x->r->sb, "status") : "";
    if (!x->r)
        snprintf(out, cap, "no record");
    else if (strcmp(status, "valid"))
        snprintf(out, cap, "%s: %.300s", status, text_of(x->r->sb, "reason"));
    else if (of[0] && strncmp(of, "base_", 5))
        snprintf(out, cap, "the record has no %s", of);
    else if (base[0] && !x->base)
        snprintf(out, cap, "no record of %s", base);
    else if (base[0] && strcmp(text_of(x->base->sb, "status"), "valid"))
        snprintf(out, cap, "%s: %s: %.300s", base, text_of(x->base->sb, "status"),
                 text_of(x->base->sb, "reason"));
    else if (of[0])
        snprintf(out, cap, "the record has no %s", of);
    else
        snprintf(out, cap, "the record has no value");
}

/* A goal's value as the list shows it: as written, but a fraction shown as % (noise) as one. */
static void goal_value_text(const sb_table *t, const sb_table_condition *k, char *out, size_t cap)
{
    const char *fact_name;
    aggregate_of(k->of, &fact_name);
    if (!strncmp(fact_name, "base_", 5))
        fact_name += 5;
    if (!strcmp(fact_name, "noise") || !strcmp(fact_name, "noise_robust") ||
        !strcmp(fact_name, "median_ci"))
        format_fact(t, &t->rows[0], 0, fact_name, k->value, out, cap);
    else
        snprintf(out, cap, "%s", k->value_text);
}

/* - TEXT: **met** (measured 410× at COL, goal ≥ 300×), **missed** (...) or not measured (why).
 * A goal of one row compares its cell; of `*` or of a row of every variant, the best of its
 * lines' cells (the largest for >= and >, the smallest for <= and <), or an aggregate over
 * them (of=median:FACT...); and= comparisons must hold too, at the same cell or over the same
 * records. status: 0 met, 1 missed, 2 not measured. */
static int goal(FILE *f, const sb_table *t, const sb_table_goal *g, const line *lines,
                int nlines, cell (*cells)[SB_TABLE_COLS], char label[][128])
{
    static int in[MAX_LINES];
    const char *fact_name;
    int aggregate = aggregate_of(g->c.of, &fact_name), nin = 0, single = -1;
    char text[256], why[512], extra[1024] = "", goal_text[64];
    for (int i = 0; i < nlines; i++) {
        in[i] = !strcmp(g->label, "*") || !strcmp(lines[i].row->label, g->label);
        if (in[i])
            nin++, single = i;
    }
    fprintf(f, "- %s: ", g->text);
    /* the column: at=, else the last where one of the lines has a measure */
    int c = g->at[0] ? column_of(t, g->at) : -1, best = -1, n = 0;
    for (int k = t->ncols - 1; !g->at[0] && c < 0 && k >= 0; k--)
        for (int i = 0; i < nlines && c < 0; i++)
            if (in[i] && (aggregate ? cells[i][k].r != NULL
                                    : isfinite(goal_measure(t, lines[i].row, g->c.of,
                                                            &cells[i][k], text, sizeof text))))
                c = k;
    double m = NAN;
    if (c >= 0 && aggregate) {
        m = goal_aggregate(t, lines, in, nlines, cells, c, g->c.of, text, sizeof text, &n);
    } else if (c >= 0) {
        for (int i = 0; i < nlines; i++) {
            char t2[256];
            double x = in[i] ? goal_measure(t, lines[i].row, g->c.of, &cells[i][c], t2, sizeof t2)
                             : NAN;
            if (isfinite(x) && (best < 0 || (g->c.op[0] == '>' ? x > m : x < m))) {
                m = x, best = i;
                snprintf(text, sizeof text, "%s", t2);
            }
        }
    }
    if (!isfinite(m)) {
        int shown = c; /* without at=: the last column with a record of the row, if any */
        for (int k = t->ncols - 1; shown < 0 && k >= 0; k--)
            for (int i = 0; i < nlines; i++)
                if (in[i] && cells[i][k].r)
                    shown = k;
        if (shown < 0 || nin == 0) {
            fputs("not measured (no record)\n", f);
            return 2;
        }
        if (nin == 1 && !aggregate) {
            if (!cells[single][shown].r) {
                fputs("not measured (no record)\n", f);
                return 2;
            }
            goal_missing(t, lines[single].row, g->c.of, &cells[single][shown], why, sizeof why);
        } else if (aggregate) {
            snprintf(why, sizeof why, "no valid record with %s", fact_name[0] ? fact_name : "a value");
        } else {
            snprintf(why, sizeof why, "none of the %d rows has a valid cell", nin);
        }
        fprintf(f, "not measured (at %s: %s)\n", label[shown], why);
        return 2;
    }
    int met = compare_op(g->c.op, m, g->c.value), measured = 1;
    const sb_table_row *row = best >= 0 ? lines[best].row : &t->rows[0];
    for (int k = 0; k < g->nand; k++) {
        const sb_table_condition *cond = &g->and_[k];
        char ctext[256], vtext[64];
        int cn = 0;
        double cm = aggregate ? goal_aggregate(t, lines, in, nlines, cells, c, cond->of, ctext,
                                               sizeof ctext, &cn)
                              : goal_measure(t, row, cond->of, &cells[best][c], ctext,
                                             sizeof ctext);
        goal_value_text(t, cond, vtext, sizeof vtext);
        if (!isfinite(cm)) {
            if (!aggregate)
                goal_missing(t, row, cond->of, &cells[best][c], why, sizeof why);
            else
                snprintf(why, sizeof why, "no valid record with %s", cond->of);
            measured = 0;
            break;
        }
        met &= compare_op(cond->op, cm, cond->value);
        size_t len = strlen(extra);
        snprintf(extra + len, sizeof extra - len, "; %s %s, goal %s %s", cond->of, ctext,
                 op_sign(cond->op), vtext);
    }
    if (!measured) {
        fprintf(f, "not measured (at %s: %s)\n", label[c], why);
        return 2;
    }
    const char *speedup = row_key_value(t, row, SB_TK_SPEEDUP);
    const char *value = row_key_value(t, row, SB_TK_VALUE);
    const char *goal_unit = g->c.of[0]                                          ? ""
                            : speedup[0] || row_key_value(t, row, SB_TK_RATIO)[0] ? "×"
                            : !strcmp(value, "memory")                          ? " B"
                                                                                : NULL;
    char whose[320] = "";
    if (aggregate)
        snprintf(whose, sizeof whose, " over %d record%s", n, n == 1 ? "" : "s");
    else if (nin > 1)
        snprintf(whose, sizeof whose, " of %s", lines[best].label);
    goal_value_text(t, &g->c, goal_text, sizeof goal_text);
    fprintf(f, "%s (measured %s%s%s%s at %s, goal %s %s%s%s%s)\n", met ? "**met**" : "**missed**",
            g->c.of, g->c.of[0] ? " " : "", text, whose, label[c], op_sign(g->c.op), goal_text,
            goal_unit ? goal_unit : " ", goal_unit ? "" : unit_name(t->unit), extra);
    return met ? 0 : 1;
}

static void escape_cell(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
}

static int render(FILE *f, const sb_table *t, const loaded *L, const int *all_sources,
                  const sb_table_source *src, int nsrc, char missing[][SB_TABLE_TEXT], int nmissing,
                  int goals[3])
{
    static cell cells[MAX_LINES][SB_TABLE_COLS];
    static line lines[MAX_LINES];
    static notes ns;
    int nlines = 0;
    ns.n = 0;
    if (expand_rows(t, L, src, nsrc, lines, &nlines) != 0)
        return -1;
    char label[SB_TABLE_COLS][128];
    fprintf(f, "## %s%s%s\n\n", t->name, t->title[0] ? ": " : "", t->title);
    print_devices(f, L);
    fprintf(f, "Records: %s.\n\n", L->ndocs ? L->log : "none");
    fputs("| |", f);
    for (int c = 0; c < t->ncols; c++) {
        col_label(t, c, label[c], sizeof label[c]);
        fputc(' ', f);
        escape_cell(f, label[c]);
        fputs(" |", f);
    }
    fputs("\n|---|", f);
    for (int c = 0; c < t->ncols; c++)
        fputs("---|", f);
    fputc('\n', f);
    for (int i = 0; i < nlines; i++) {
        const sb_table_row *row = lines[i].row;
        int sources[256] = {0};
        if (lines[i].source >= 0)
            sources[lines[i].source] = 1;
        else
            mark_sources(row_key_value(t, row, SB_TK_FROM), src, nsrc, sources);
        fputs("| ", f);
        escape_cell(f, lines[i].label);
        fputs(" |", f);
        for (int c = 0; c < t->ncols; c++) {
            cell *x = &cells[i][c];
            char text[256], number[32];
            compute_cell(t, row, lines[i].variant, L, sources, all_sources, c, x);
            if (isfinite(x->value)) {
                fmt_value(t, row_key_value(t, row, SB_TK_VALUE), x->value, text, sizeof text);
                if (isfinite(x->ratio)) {
                    fmt_ratio(x->ratio, number, sizeof number);
                    snprintf(text + strlen(text), sizeof text - strlen(text), " (%s×)", number);
                } else if (x->base) {
                    char why[128];
                    fmt_missing(x->base, &ns, why, sizeof why);
                    snprintf(text + strlen(text), sizeof text - strlen(text), " (base: %s)",
                             strncmp(why, "X", 1) ? why : "X");
                }
            } else {
                fmt_missing(x->r, &ns, text, sizeof text);
            }
            fputc(' ', f);
            escape_cell(f, text);
            fputs(" |", f);
        }
        fputc('\n', f);
        if (row->npublished && lines[i].source < 0) {
            fputs("| *paper* |", f);
            for (int c = 0; c < t->ncols; c++) {
                fputs(" *", f);
                escape_cell(f, row->published[c]);
                fputs("* |", f);
            }
            fputc('\n', f);
        }
    }
    legend(f, t);
    for (int i = 0; i < ns.n; i++)
        fprintf(f, "- [%d] %s\n", i + 1, ns.text[i]);
    for (int i = 0; i < nmissing; i++)
        fprintf(f, "- %s\n", missing[i]);
    for (int i = 0; i < t->nnotes; i++)
        fprintf(f, "\n%s\n", t->notes[i]);
    int any = 0;
    for (int i = 0; i < nlines; i++) {
        const sb_table_row *row = lines[i].row;
        if (!row->explain[0]) /* a row of every variant has none: one line each */
            continue;
        int c = row->explain_at[0] ? column_of(t, row->explain_at) : -1;
        for (int k = t->ncols - 1; c < 0 && k >= 0; k--) /* the row's and its base's */
            if (isfinite(cells[i][k].value) && (!cells[i][k].base || isfinite(cells[i][k].ratio)))
                c = k;
        for (int k = t->ncols - 1; c < 0 && k >= 0; k--)
            if (isfinite(cells[i][k].value))
                c = k;
        fputs(any++ ? "" : "\n", f);
        if (c < 0) {
            fprintf(f, "- **%s**: no valid record to explain.\n", row->label);
            continue;
        }
        if (!isfinite(cells[i][c].value)) { /* at= a column without a valid record */
            fprintf(f, "- **%s** (at %s): no valid record to explain.\n", row->label, label[c]);
            continue;
        }
        fprintf(f, "- **%s** (at %s): ", row->label, label[c]);
        explain(f, t, row, cells[i], c, label[c]);
        fputc('\n', f);
    }
    if (t->ngoals)
        fputs("\nGoals:\n\n", f);
    for (int i = 0; i < t->ngoals; i++) {
        int status = goal(f, t, &t->goals[i], lines, nlines, cells, label);
        if (goals)
            goals[status == 0 ? 0 : status == 1 ? 1 : 2]++;
    }
    return ferror(f) ? sb_fail("formatting table %s failed", t->name) : 0;
}

int sb_table_render(const sb_table *t, const sb_table_source *src, int nsrc, const char *dir,
                    FILE *out)
{
    return sb_table_render_goals(t, src, nsrc, dir, out, NULL);
}

int sb_table_render_goals(const sb_table *t, const sb_table_source *src, int nsrc,
                          const char *dir, FILE *out, int goals[3])
{
    if (nsrc > 256)
        return sb_fail("table %s: more than 256 sources", t->name);
    int used[256] = {0};
    mark_sources(t->key[SB_TK_FROM], src, nsrc, used);
    for (int i = 0; i < t->nrows; i++)
        mark_sources(t->rows[i].key[SB_TK_FROM], src, nsrc, used);
    static char missing[SB_TABLE_NOTES][SB_TABLE_TEXT];
    int nmissing = 0;
    loaded L;
    memset(&L, 0, sizeof L);
    char *md = NULL;
    size_t md_len = 0;
    FILE *f = NULL;
    int rc = load_sources(&L, src, nsrc, used, dir, missing, &nmissing);
    if (rc == 0 && !(f = open_memstream(&md, &md_len)))
        rc = sb_fail("out of host memory");
    if (rc == 0)
        rc = render(f, t, &L, used, src, nsrc, missing, nmissing, goals);
    if (f)
        fclose(f);
    if (rc == 0) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s.md", dir, t->name);
        fputs(md, out);
        fputc('\n', out);
        fflush(out);
        rc = sb_write_atomic(path, md, md_len);
    }
    free(md);
    free_loaded(&L);
    return rc;
}

void sb_table_plan(const sb_table *t, FILE *out)
{
    fprintf(out, "table %s: from %s, %d row%s x %d column%s (", t->name, t->key[SB_TK_FROM],
            t->nrows, t->nrows == 1 ? "" : "s", t->ncols, t->ncols == 1 ? "" : "s");
    for (int c = 0; c < t->ncols; c++) {
        char label[128];
        col_label(t, c, label, sizeof label);
        fprintf(out, "%s%s", c ? "; " : "", label);
    }
    int published = 0, explained = 0;
    for (int i = 0; i < t->nrows; i++) {
        published += t->rows[i].npublished > 0;
        explained += t->rows[i].explain[0] != '\0';
    }
    fprintf(out, "), %d with published values, %d explained", published, explained);
    if (t->ngoals)
        fprintf(out, ", %d goal%s", t->ngoals, t->ngoals == 1 ? "" : "s");
    for (int c = 0, n = 0; c < t->ncols; c++)
        if (!t->col_covered[c]) {
            char label[128];
            col_label(t, c, label, sizeof label);
            fprintf(out, "%s%s", n++ ? ", " : "; no run covers ", label);
        }
    fputc('\n', out);
}

/* A table's goals (table.c has the overview): `goal LABEL|* [at=V,V] [of=FACT] [and=FACT OP
 * VALUE]... OP VALUE TEXT` compares a row's cell (its ratio when the row has a base, else its
 * value in the table's unit; of=: a numeric fact of its record) with VALUE, or for `*` or a row
 * of every variant the best of several lines' cells, or an aggregate (median:, min:, max:, sum:
 * of a fact, or count) over their records; and= comparisons must hold too. The table ends with
 * a line a goal: met, missed or not measured (and why). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "table-internal.h"

/* ---- the goal line ---- */

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
    return tb_copy(c->value_text, sizeof c->value_text, value, path, line);
}

/* goal LABEL|* [at=V,V] [of=FACT] [and=FACTOPVALUE]... OP VALUE TEXT... (the row given before
 * it; *: every row) */
int tb_goal_line(sb_table *t, char **w, int n, const char *path, int line)
{
    static const char syntax[] = "'goal LABEL|* [at=V,V] [of=FACT] [and=FACT>=VALUE]... OP VALUE "
                                 "TEXT...' (OP: >=, <=, > or <)";
    if (n < 5)
        return sb_fail("%s:%d: table %s: %s", path, line, t->name, syntax);
    if (strcmp(w[1], "*") && !tb_find_row(t, w[1]))
        return sb_fail("%s:%d: table %s: goal: no row '%s' before this line (write its 'row' "
                       "line first)",
                       path, line, t->name, w[1]);
    if (t->ngoals == SB_TABLE_GOALS)
        return sb_fail("%s:%d: table %s: more than %d goals", path, line, t->name,
                       SB_TABLE_GOALS);
    sb_table_goal *g = &t->goals[t->ngoals];
    memset(g, 0, sizeof *g);
    g->line = line;
    if (tb_copy(g->label, sizeof g->label, w[1], path, line) != 0)
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
        } else if (tb_copy(w[i][0] == 'a' ? g->at : g->c.of,
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

/* ---- its checks ---- */

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

/* A goal's measure (of=, or an and= condition's): a numeric fact, an aggregate of one, or the
 * cell (""). aggregate: whether the goal's first measure is one (its conditions must agree). */
static int check_goal_measure(const sb_table *t, const sb_table_goal *g, const char *of,
                              int aggregate, const char *path)
{
    const char *fact;
    int agg = aggregate_of(of, &fact);
    const char *plain = !agg && !strncmp(fact, "base_", 5) && of != g->c.of ? fact + 5 : fact;
    if ((fact[0] || !agg) && of[0] && !tb_known_fact(plain, 1))
        return sb_fail("%s:%d: table %s: goal %s: of=%s is not a numeric fact (value, items, "
                       "items_per_second, value_bw, value_pct_peak, bytes, bytes_per_second, "
                       "h2d, d2h, d2d, peer, transfers, memory, registers, occupancy, "
                       "blocks_per_sm, local_bytes, block_threads, fp64_ratio, sm_count, "
                       "samples, noise, noise_robust, median_ci, timed_out, phase:NAME, "
                       "output:NAME, steady:NAME, floor:NAME; in an and=, base_FACT too; or an "
                       "aggregate: "
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

/* After the columns are known (the end of sb_table_check): each goal's at= is a column, its
 * measures numeric facts, aggregates all or none. */
int tb_check_goals(const sb_table *t, const char *path)
{
    for (int i = 0; i < t->ngoals; i++) {
        const sb_table_goal *g = &t->goals[i];
        const char *fact;
        if (g->at[0] && tb_column_of(t, g->at) < 0)
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

/* ---- met or missed ---- */

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
                           const tb_cell *x, char *text, size_t cap)
{
    const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base = speedup[0] ? speedup : tb_row_key_value(t, row, SB_TK_RATIO);
    double m;
    if (of[0] && !strncmp(of, "base_", 5)) {
        tb_fact(t, row, x->base, 1, of + 5, &m, text, cap);
        return x->base && x->r && !strcmp(tb_text_of(x->r->sb, "status"), "valid") ? m : NAN;
    }
    if (of[0]) {
        tb_fact(t, row, x->r, 0, of, &m, text, cap);
    } else if (base[0]) {
        m = x->ratio;
        tb_fmt_ratio(m, text, cap);
        snprintf(text + strlen(text), cap - strlen(text), "×");
    } else {
        const char *value = tb_row_key_value(t, row, SB_TK_VALUE);
        m = x->value;
        tb_fmt_value(t, value, m, text, cap);
        if (strcmp(value, "memory"))
            snprintf(text + strlen(text), cap - strlen(text), " %s", tb_unit_name(t->unit));
    }
    return x->r && !strcmp(tb_text_of(x->r->sb, "status"), "valid") ? m : NAN;
}

/* An aggregate (median:, min:, max:, sum: of a fact, or count) over the valid records of the
 * goal's lines at column c; *n their count. NaN where none has the fact. */
static double goal_aggregate(const sb_table *t, const tb_line *lines, const int *in, int nlines,
                             tb_cell (*cells)[SB_TABLE_COLS], int c, const char *of, char *text,
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
        const tb_cell *x = &cells[i][c];
        if (!x->r || strcmp(tb_text_of(x->r->sb, "status"), "valid"))
            continue;
        double m = 1;
        if (fact_name[0])
            tb_fact(t, lines[i].row, x->r, 0, fact_name, &m, scratch, sizeof scratch);
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
        tb_format_fact(t, row, 0, fact_name, out, text, cap);
    else
        snprintf(text, cap, "n/a");
    return out;
}

/* Why a cell has nothing to compare: no record, its record's status, or its base's. */
static void goal_missing(const sb_table *t, const sb_table_row *row, const char *of,
                         const tb_cell *x, char *out, size_t cap)
{
    const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base = speedup[0] ? speedup : tb_row_key_value(t, row, SB_TK_RATIO);
    const char *status = x->r ? tb_text_of(x->r->sb, "status") : "";
    if (!x->r)
        snprintf(out, cap, "no record");
    else if (strcmp(status, "valid"))
        snprintf(out, cap, "%s: %.300s", status, tb_text_of(x->r->sb, "reason"));
    else if (of[0] && strncmp(of, "base_", 5))
        snprintf(out, cap, "the record has no %s", of);
    else if (base[0] && !x->base)
        snprintf(out, cap, "no record of %s", base);
    else if (base[0] && strcmp(tb_text_of(x->base->sb, "status"), "valid"))
        snprintf(out, cap, "%s: %s: %.300s", base, tb_text_of(x->base->sb, "status"),
                 tb_text_of(x->base->sb, "reason"));
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
        tb_format_fact(t, &t->rows[0], 0, fact_name, k->value, out, cap);
    else
        snprintf(out, cap, "%s", k->value_text);
}

/* - TEXT: **met** (measured 410× at COL, goal ≥ 300×), **missed** (...) or not measured (why).
 * A goal of one row compares its cell; of `*` or of a row of every variant, the best of its
 * lines' cells (the largest for >= and >, the smallest for <= and <), or an aggregate over
 * them (of=median:FACT...); and= comparisons must hold too, at the same cell or over the same
 * records. status: 0 met, 1 missed, 2 not measured. */
int tb_goal(FILE *f, const sb_table *t, const sb_table_goal *g, const tb_line *lines, int nlines,
            tb_cell (*cells)[SB_TABLE_COLS], char label[][128])
{
    static int in[TB_MAX_LINES];
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
    int c = g->at[0] ? tb_column_of(t, g->at) : -1, best = -1, n = 0;
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
    const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP);
    const char *value = tb_row_key_value(t, row, SB_TK_VALUE);
    const char *goal_unit = g->c.of[0]                                               ? ""
                            : speedup[0] || tb_row_key_value(t, row, SB_TK_RATIO)[0] ? "×"
                            : !strcmp(value, "memory")                               ? " B"
                                                                                     : NULL;
    char whose[320] = "";
    if (aggregate)
        snprintf(whose, sizeof whose, " over %d record%s", n, n == 1 ? "" : "s");
    else if (nin > 1)
        snprintf(whose, sizeof whose, " of %s", lines[best].label);
    goal_value_text(t, &g->c, goal_text, sizeof goal_text);
    fprintf(f, "%s (measured %s%s%s%s at %s, goal %s %s%s%s%s)\n", met ? "**met**" : "**missed**",
            g->c.of, g->c.of[0] ? " " : "", text, whose, label[c], op_sign(g->c.op), goal_text,
            goal_unit ? goal_unit : " ", goal_unit ? "" : tb_unit_name(t->unit), extra);
    return met ? 0 : 1;
}

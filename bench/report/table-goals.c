/* A table's goals (table.c has the overview): `goal LABEL [at=V,V] [of=FACT] OP VALUE TEXT`
 * compares a row's cell (its ratio when the row has a base, else its value in the table's unit;
 * of=: a numeric fact of its record) with VALUE; the table ends with a line a goal, met, missed
 * or not measured (and why). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../harness/error.h"
#include "table-internal.h"

/* ---- the goal line ---- */

static const char *const goal_ops[] = {">=", "<=", ">", "<", NULL};

/* goal LABEL [at=V,V] [of=FACT] OP VALUE TEXT... (the row given before it) */
int tb_goal_line(sb_table *t, char **w, int n, const char *path, int line)
{
    static const char syntax[] = "'goal LABEL [at=V,V] [of=FACT] OP VALUE TEXT...' (OP: >=, "
                                 "<=, > or <)";
    if (n < 5)
        return sb_fail("%s:%d: table %s: %s", path, line, t->name, syntax);
    if (!tb_find_row(t, w[1]))
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
    for (; i < n && (!strncmp(w[i], "at=", 3) || !strncmp(w[i], "of=", 3)); i++)
        if (tb_copy(w[i][0] == 'a' ? g->at : g->of, w[i][0] == 'a' ? sizeof g->at : sizeof g->of,
                    w[i] + 3, path, line) != 0)
            return -1;
    if (n - i < 3)
        return sb_fail("%s:%d: table %s: goal %s: %s", path, line, t->name, g->label, syntax);
    int op = -1;
    for (int k = 0; goal_ops[k]; k++)
        if (!strcmp(w[i], goal_ops[k]))
            op = k;
    if (op < 0)
        return sb_fail("%s:%d: table %s: goal %s: '%s' is not a comparison (use >=, <=, > or <; "
                       "quote it in a shell)",
                       path, line, t->name, g->label, w[i]);
    snprintf(g->op, sizeof g->op, "%s", goal_ops[op]);
    char *end;
    g->value = strtod(w[i + 1], &end);
    if (end == w[i + 1] || *end || !isfinite(g->value))
        return sb_fail("%s:%d: table %s: goal %s: '%s' is not a number (a ratio for a row with "
                       "speedup= or ratio=, else a value in the table's unit, or of= the fact's)",
                       path, line, t->name, g->label, w[i + 1]);
    if (tb_copy(g->value_text, sizeof g->value_text, w[i + 1], path, line) != 0)
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

int tb_check_goals(const sb_table *t, const char *path)
{
    for (int i = 0; i < t->ngoals; i++) {
        const sb_table_goal *g = &t->goals[i];
        if (g->at[0] && tb_column_of(t, g->at) < 0)
            return sb_fail("%s:%d: table %s: goal %s: at=%s is not a column (give the values of "
                           "%d parameter%s, comma-separated)",
                           path, g->line, t->name, g->label, g->at, t->ncol_params,
                           t->ncol_params > 1 ? "s" : "");
        if (g->of[0] && !tb_known_fact(g->of, 1))
            return sb_fail("%s:%d: table %s: goal %s: of=%s is not a numeric fact (value, items, "
                           "items_per_second, value_bw, value_pct_peak, bytes, bytes_per_second, "
                           "h2d, d2h, d2d, peer, transfers, memory, registers, occupancy, "
                           "blocks_per_sm, local_bytes, block_threads, fp64_ratio, sm_count, "
                           "phase:NAME, output:NAME, steady:NAME)",
                           path, g->line, t->name, g->label, g->of);
    }
    return 0;
}

/* ---- met or missed ---- */

/* What a goal compares at a cell: the fact of its record (of=), else the ratio of a row with a
 * base, else the value; NaN where there is none. */
static double goal_measure(const sb_table *t, const sb_table_row *row, const sb_table_goal *g,
                           const tb_cell *x, char *text, size_t cap)
{
    const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base = speedup[0] ? speedup : tb_row_key_value(t, row, SB_TK_RATIO);
    double m;
    if (g->of[0]) {
        tb_fact(t, row, x->r, 0, g->of, &m, text, cap);
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

/* Why a cell has nothing to compare: no record, its record's status, or its base's. */
static void goal_missing(const sb_table *t, const sb_table_row *row, const sb_table_goal *g,
                         const tb_cell *x, char *out, size_t cap)
{
    const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP);
    const char *base = speedup[0] ? speedup : tb_row_key_value(t, row, SB_TK_RATIO);
    const char *status = x->r ? tb_text_of(x->r->sb, "status") : "";
    if (!x->r)
        snprintf(out, cap, "no record");
    else if (strcmp(status, "valid"))
        snprintf(out, cap, "%s: %.300s", status, tb_text_of(x->r->sb, "reason"));
    else if (g->of[0])
        snprintf(out, cap, "the record has no %s", g->of);
    else if (base[0] && !x->base)
        snprintf(out, cap, "no record of %s", base);
    else if (base[0] && strcmp(tb_text_of(x->base->sb, "status"), "valid"))
        snprintf(out, cap, "%s: %s: %.300s", base, tb_text_of(x->base->sb, "status"),
                 tb_text_of(x->base->sb, "reason"));
    else
        snprintf(out, cap, "the record has no value");
}

/* - TEXT: **met** (measured 410× at COL, goal ≥ 300×), **missed** (...) or not measured (why) */
void tb_goal(FILE *f, const sb_table *t, const sb_table_row *row, const sb_table_goal *g,
             const tb_cell *cells, char label[][128])
{
    static const char *const signs[] = {"≥", "≤", ">", "<"};
    char text[256], why[512];
    int op = 0;
    while (strcmp(goal_ops[op], g->op))
        op++;
    int c = g->at[0] ? tb_column_of(t, g->at) : -1;
    for (int k = t->ncols - 1; !g->at[0] && c < 0 && k >= 0; k--)
        if (isfinite(goal_measure(t, row, g, &cells[k], text, sizeof text)))
            c = k;
    fprintf(f, "- %s: ", g->text);
    double m = c >= 0 ? goal_measure(t, row, g, &cells[c], text, sizeof text) : NAN;
    if (!isfinite(m)) {
        int shown = c; /* without at=: the last column with a record of the row, if any */
        for (int k = t->ncols - 1; shown < 0 && k >= 0; k--)
            if (cells[k].r)
                shown = k;
        if (shown < 0 || !cells[shown].r) {
            fputs("not measured (no record)\n", f);
            return;
        }
        goal_missing(t, row, g, &cells[shown], why, sizeof why);
        fprintf(f, "not measured (at %s: %s)\n", label[shown], why);
        return;
    }
    int met = op == 0 ? m >= g->value : op == 1 ? m <= g->value : op == 2 ? m > g->value
                                                                          : m < g->value;
    const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP);
    const char *value = tb_row_key_value(t, row, SB_TK_VALUE);
    const char *goal_unit = g->of[0]                                                 ? ""
                            : speedup[0] || tb_row_key_value(t, row, SB_TK_RATIO)[0] ? "×"
                            : !strcmp(value, "memory")                               ? " B"
                                                                                     : NULL;
    fprintf(f, "%s (measured %s%s%s at %s, goal %s %s%s%s)\n", met ? "**met**" : "**missed**",
            g->of[0] ? g->of : "", g->of[0] ? " " : "", text, label[c], signs[op], g->value_text,
            goal_unit ? goal_unit : " ", goal_unit ? "" : tb_unit_name(t->unit));
}

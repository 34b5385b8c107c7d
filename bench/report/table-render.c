/* A study's table as markdown (table.c has the overview): the devices and records it read, a
 * markdown row for each of its lines (a cell: value and ratio, or X and why) with the published
 * values under it, a legend of what the cells are, notes, the explanations and the goals; and
 * the one line that --check prints for a table. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/devmem.h"
#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "table-internal.h"

/* ---- cells that have no value, and column labels ---- */

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
static void fmt_missing(const tb_rec *r, notes *ns, char *buf, size_t cap)
{
    if (!r) {
        snprintf(buf, cap, "—");
        return;
    }
    const char *status = tb_text_of(r->sb, "status"), *reason = tb_text_of(r->sb, "reason");
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

/* ---- the head and the legend ---- */

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

static void print_devices(FILE *f, const tb_loaded *L)
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
        double r = tb_number_at(d, "single_to_double_perf_ratio", NULL);
        if (isfinite(r) && r > 0)
            snprintf(ratio, sizeof ratio, "FP32:FP64 throughput %g:1", r);
        snprintf(line, sizeof line,
                 "%s (compute capability %s, %.0f SMs, %s, %s, measured DRAM peak %.0f GB/s)",
                 tb_text_of(d, "name"), tb_text_of(d, "compute_capability"),
                 tb_number_at(d, "sm_count", NULL), ratio,
                 sb_format_bytes(tb_number_at(d, "memory_bytes", NULL), mem, sizeof mem),
                 tb_number_at(d, "peak_dram_bytes_per_second", NULL) / 1e9);
        if (n > 1) {
            char many[512];
            snprintf(many, sizeof many, "%zu × %.480s", n, line);
            snprintf(line, sizeof line, "%s", many);
        }
        char key[304]; /* one line a kind of machine: the measured peak varies run to run */
        snprintf(key, sizeof key, "%zu %.280s", n, tb_text_of(d, "name"));
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
 * not every row's; and the dagger, where `flagged` cells have one. */
static void legend(FILE *f, const sb_table *t, int flagged)
{
    static char desc[2][SB_TABLE_ROWS][512];
    for (int i = 0; i < t->nrows; i++) {
        const sb_table_row *row = &t->rows[i];
        const char *per = tb_row_key_value(t, row, SB_TK_PER),
                   *bw = tb_row_key_value(t, row, SB_TK_BASE_WHERE);
        const char *speedup = tb_row_key_value(t, row, SB_TK_SPEEDUP),
                   *ratio = tb_row_key_value(t, row, SB_TK_RATIO);
        char *v = desc[0][i], *r = desc[1][i], base_desc[256] = "";
        const char *value = tb_row_key_value(t, row, SB_TK_VALUE),
                   *base_value = tb_row_key_value(t, row, SB_TK_BASE_VALUE);
        size_t len = describe_value(value, v, 512);
        snprintf(v + len, 512 - len, "%s%s, in %s", per[0] ? " / " : "", per,
                 !strcmp(value, "memory") ? "bytes" : tb_unit_name(t->unit));
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
            every |= tb_where_names(bw, t->col_param[k]);
        snprintf(at, sizeof at, "%s%.200s%s", bw[0] ? " at " : "", bw,
                 every ? " (one record for every column)" : "");
        if (speedup[0])
            snprintf(r, 512, "%.60s%s%s / the row, a speed-up", speedup, base_desc, at);
        else if (ratio[0] && !strcmp(ratio, tb_row_key_value(t, row, SB_TK_VARIANT)) &&
                 base_desc[0])
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
          "reason beside it or in the notes below); —: no record.",
          f);
    if (flagged)
        fprintf(f, " †: read with care: the cell's record, or its base's, has one sample, or "
                "noise (its samples' standard deviation over their mean) above %g %%.",
                100 * SB_CAUTION_NOISE);
    fputs("\n\n", f);
}

/* ---- the table, in steps ---- */

static void escape_cell(FILE *f, const char *s)
{
    for (; *s; s++)
        if (*s == '|')
            fputs("\\|", f);
        else
            fputc(*s, f);
}

/* The heading, the devices and records read, and the columns' header row; label[] gets each
 * column's label. */
static void print_head(FILE *f, const sb_table *t, const tb_loaded *L, char label[][128])
{
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
}

/* Whether a cell's time is to be read with care (sb_record_caution): its record's, or its base
 * record's where its ratio is shown. Memory is not a time: never. */
static int cell_caution(const sb_table *t, const sb_table_row *row, const tb_cell *x)
{
    const char *value = tb_row_key_value(t, row, SB_TK_VALUE),
               *base_value = tb_row_key_value(t, row, SB_TK_BASE_VALUE);
    if (!isfinite(x->value))
        return 0;
    int caution = strcmp(value, "memory") && sb_record_caution(x->r->sb);
    if (isfinite(x->ratio) && strcmp(base_value[0] ? base_value : value, "memory"))
        caution |= sb_record_caution(x->base->sb);
    return caution;
}

/* A line's cells, each computed into cells[] (the explanations and goals read them), and its
 * row's published values under it (not under a line of one source's variant); *flagged counts
 * the cells marked to be read with care. */
static void print_line(FILE *f, const sb_table *t, const tb_line *ln, const tb_loaded *L,
                       const sb_table_source *src, int nsrc, const int *all_sources, tb_cell *cells,
                       notes *ns, int *flagged)
{
    const sb_table_row *row = ln->row;
    int sources[256] = {0};
    if (ln->source >= 0)
        sources[ln->source] = 1;
    else
        tb_mark_sources(tb_row_key_value(t, row, SB_TK_FROM), src, nsrc, sources);
    fputs("| ", f);
    escape_cell(f, ln->label);
    fputs(" |", f);
    for (int c = 0; c < t->ncols; c++) {
        tb_cell *x = &cells[c];
        char text[256], number[32];
        tb_compute_cell(t, row, ln->variant, L, sources, all_sources, c, x);
        if (isfinite(x->value)) {
            tb_fmt_value(t, tb_row_key_value(t, row, SB_TK_VALUE), x->value, text, sizeof text);
            if (isfinite(x->ratio)) {
                tb_fmt_ratio(x->ratio, number, sizeof number);
                snprintf(text + strlen(text), sizeof text - strlen(text), " (%s×)", number);
            } else if (x->base) {
                char why[128];
                fmt_missing(x->base, ns, why, sizeof why);
                snprintf(text + strlen(text), sizeof text - strlen(text), " (base: %s)",
                         strncmp(why, "X", 1) ? why : "X");
            }
            if (cell_caution(t, row, x)) {
                snprintf(text + strlen(text), sizeof text - strlen(text), " †");
                (*flagged)++;
            }
        } else {
            fmt_missing(x->r, ns, text, sizeof text);
        }
        fputc(' ', f);
        escape_cell(f, text);
        fputs(" |", f);
    }
    fputc('\n', f);
    if (row->npublished && ln->source < 0) {
        fputs("| *paper* |", f);
        for (int c = 0; c < t->ncols; c++) {
            fputs(" *", f);
            escape_cell(f, row->published[c]);
            fputs("* |", f);
        }
        fputc('\n', f);
    }
}

/* Under the legend: the cells' numbered reasons, the sources without records, the table's own
 * notes. */
static void print_notes(FILE *f, const sb_table *t, const notes *ns, char missing[][SB_TABLE_TEXT],
                        int nmissing)
{
    for (int i = 0; i < ns->n; i++)
        fprintf(f, "- [%d] %s\n", i + 1, ns->text[i]);
    for (int i = 0; i < nmissing; i++)
        fprintf(f, "- %s\n", missing[i]);
    for (int i = 0; i < t->nnotes; i++)
        fprintf(f, "\n%s\n", t->notes[i]);
}

/* Each explained line's explanation: at its row's at= column, else at the last column with a
 * valid record (and a valid base's, where it has a base). */
static void print_explanations(FILE *f, const sb_table *t, const tb_line *lines, int nlines,
                               tb_cell cells[][SB_TABLE_COLS], char label[][128])
{
    int any = 0;
    for (int i = 0; i < nlines; i++) {
        const sb_table_row *row = lines[i].row;
        if (!row->explain[0]) /* a row of every variant has none: one line each */
            continue;
        int c = row->explain_at[0] ? tb_column_of(t, row->explain_at) : -1;
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
        tb_explain(f, t, row, cells[i], c, label[c]);
        fputc('\n', f);
    }
}

/* The goals' list, each goal counted in goals[] (when given): met, missed, not measured. */
static void print_goals(FILE *f, const sb_table *t, const tb_line *lines, int nlines,
                        tb_cell cells[][SB_TABLE_COLS], char label[][128], int goals[3])
{
    if (t->ngoals)
        fputs("\nGoals:\n\n", f);
    for (int i = 0; i < t->ngoals; i++) {
        int status = tb_goal(f, t, &t->goals[i], lines, nlines, cells, label);
        if (goals)
            goals[status == 0 ? 0 : status == 1 ? 1 : 2]++;
    }
}

/* The table in markdown: head, lines, legend, notes, explanations, goals (counted in goals[]
 * when given). */
static int render(FILE *f, const sb_table *t, const tb_loaded *L, const int *all_sources,
                  const sb_table_source *src, int nsrc, char missing[][SB_TABLE_TEXT], int nmissing,
                  int goals[3])
{
    static tb_cell cells[TB_MAX_LINES][SB_TABLE_COLS];
    static tb_line lines[TB_MAX_LINES];
    static notes ns;
    int nlines = 0, flagged = 0;
    ns.n = 0;
    if (tb_expand_rows(t, L, src, nsrc, lines, &nlines) != 0)
        return -1;
    char label[SB_TABLE_COLS][128];
    print_head(f, t, L, label);
    for (int i = 0; i < nlines; i++)
        print_line(f, t, &lines[i], L, src, nsrc, all_sources, cells[i], &ns, &flagged);
    legend(f, t, flagged);
    print_notes(f, t, &ns, missing, nmissing);
    print_explanations(f, t, lines, nlines, cells, label);
    print_goals(f, t, lines, nlines, cells, label, goals);
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
    tb_mark_sources(t->key[SB_TK_FROM], src, nsrc, used);
    for (int i = 0; i < t->nrows; i++)
        tb_mark_sources(t->rows[i].key[SB_TK_FROM], src, nsrc, used);
    static char missing[SB_TABLE_NOTES][SB_TABLE_TEXT];
    int nmissing = 0;
    tb_loaded L;
    memset(&L, 0, sizeof L);
    char *md = NULL;
    size_t md_len = 0;
    FILE *f = NULL;
    int rc = tb_load_sources(&L, src, nsrc, used, dir, missing, &nmissing);
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
    tb_free_loaded(&L);
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

/* A study's tables: measured values from the records beside a paper's published ones, a ratio
 * against a base variant, and a written explanation per row whose {placeholders} are filled
 * from the records, and goals on a row's cell, met or missed (bench/report/study.c documents the syntax;
 * table-render.c renders them as markdown). */
#ifndef SB_TABLE_H
#define SB_TABLE_H

#include <stdio.h>

#include "../../harness/params.h"
#include "../../harness/variant.h"

#define SB_TABLE_ROWS 32
#define SB_TABLE_COLS 16
#define SB_TABLE_COL_PARAMS 3
#define SB_TABLE_NOTES 6
#define SB_TABLE_GOALS 8
#define SB_TABLE_TEXT 1024

/* The keys a table line sets for every row and a row line sets for itself. */
enum {
    SB_TK_FROM,
    SB_TK_VARIANT,
    SB_TK_WHERE,
    SB_TK_VALUE,
    SB_TK_PER,
    SB_TK_KERNEL,
    SB_TK_SPEEDUP,
    SB_TK_RATIO,
    SB_TK_BASE_WHERE,
    SB_TK_BASE_VALUE,
    SB_TK_ONLY,
    SB_TK_COUNT
};

typedef struct sb_table_row {
    char label[128];
    char key[SB_TK_COUNT][256]; /* "": the table's */
    char published[SB_TABLE_COLS][64];
    int npublished, published_line;
    char explain[SB_TABLE_TEXT];
    char explain_at[128]; /* "": the last column with a valid record */
    int explain_line, line;
} sb_table_row;

#define SB_TABLE_GOAL_CONDITIONS 4

/* One comparison of a goal: a measure (the cell, or of= a numeric FACT of its record, or
 * AGG:FACT over several records) against a value. */
typedef struct sb_table_condition {
    char of[64]; /* "": the cell */
    char op[3];  /* >=, <=, >, < */
    double value;
    char value_text[64]; /* as written */
} sb_table_condition;

/* `goal LABEL|* [at=V,V] [of=FACT] [and=FACT OP VALUE]... OP VALUE TEXT`: the row's cell (its
 * ratio when the row has a base, else its value in the table's unit; of=: a numeric fact of its
 * record, or an aggregate median:|min:|max:|sum:FACT or count over the row's records) against
 * VALUE; `*`, or a row of every variant: the best of several rows' cells, or their aggregate;
 * and=: further comparisons that must hold too. */
typedef struct sb_table_goal {
    char label[128]; /* a row, or "*": every row */
    char at[128];    /* "": the last column where the row has a valid cell */
    sb_table_condition c; /* of=, OP VALUE */
    sb_table_condition and_[SB_TABLE_GOAL_CONDITIONS];
    int nand;
    char text[SB_TABLE_TEXT];
    int line;
} sb_table_goal;

typedef struct sb_table {
    char name[64], title[256], unit[8], col_label[128];
    char key[SB_TK_COUNT][256];
    char col_param[SB_TABLE_COL_PARAMS][64];
    int ncol_params;
    char col_value[SB_TABLE_COLS][SB_TABLE_COL_PARAMS][64]; /* columns=, or the study's points */
    int ncols;
    char columns[512]; /* columns=V:V,V:V: the columns, in this order, whatever the runs cover */
    int col_covered[SB_TABLE_COLS]; /* a point of a run it reads is there */
    sb_table_row rows[SB_TABLE_ROWS];
    int nrows;
    char notes[SB_TABLE_NOTES][SB_TABLE_TEXT];
    int nnotes;
    sb_table_goal goals[SB_TABLE_GOALS];
    int ngoals;
    int line;
} sb_table;

/* A name that from= may give: a run of the study (its NAME.json) or a `records` line (files
 * some other command writes into the output directory, e.g. under mpirun). */
typedef struct sb_table_source {
    char name[64];
    char pattern[512]; /* relative to the output directory; a glob for records */
    char how[512];     /* records: what writes them, said when no file is there */
    int is_run;
    const sb_workload *workload; /* the run's; the study's for records lines */
} sb_table_source;

/* The `table NAME KEY=VALUE...` line's keys, one at a time. */
int sb_table_key(sb_table *t, const char *kv, const char *path, int line);
/* An indented line of the table: row, published, explain, note or goal. 1: not one of them. */
int sb_table_line(sb_table *t, char **words, int n, const char *path, int line);
/* A point of a run the table reads: its column, unless the table has it already. */
int sb_table_add_point(sb_table *t, const sb_params *p, const char *path);
/* from= of the table and of its rows name sources. */
int sb_table_check_sources(const sb_table *t, const sb_table_source *sources, int nsources,
                           const char *path);
/* After every point: sorts the columns and checks the names, counts and placeholders, each row
 * against the workloads of the sources its from= names. */
int sb_table_check(sb_table *t, const sb_table_source *sources, int nsources, const char *path);
/* --check: one line saying what the table shows. */
void sb_table_plan(const sb_table *t, FILE *out);
/* Prints the table (markdown; its goals, met or missed, at the end) and writes it to
 * DIR/NAME.md. */
int sb_table_render(const sb_table *t, const sb_table_source *sources, int nsources,
                    const char *dir, FILE *out);
/* The same, adding its goals to goals[]: met, missed, not measured. */
int sb_table_render_goals(const sb_table *t, const sb_table_source *sources, int nsources,
                          const char *dir, FILE *out, int goals[3]);

#endif

/* What the files of a study's tables share (table.h is their public face): the language and
 * its checks (table.c), the records a table reads (table-records.c), the {placeholder} facts of
 * a record (table-facts.c), goals (table-goals.c) and the markdown (table-render.c). Nothing
 * outside bench/report/table*.c includes this; its names take tb_, as the fuzz targets link the
 * table's files with others. */
#ifndef SB_TABLE_INTERNAL_H
#define SB_TABLE_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "table.h"

/* ---- the language (table.c) ---- */

/* SRC into DST of CAP bytes, or a refusal naming the line when it does not fit. */
int tb_copy(char *dst, size_t cap, const char *src, const char *path, int line);
/* The row labelled LABEL, or NULL. */
sb_table_row *tb_find_row(sb_table *t, const char *label);
/* A row key's value: the row's own, else the table's ("" when neither gives it; a row without a
 * variant is named after its variant). */
const char *tb_row_key_value(const sb_table *t, const sb_table_row *r, int k);
/* Numbers compare as numbers ("64" and "64.0"), anything else as text. */
int tb_same_value(const char *a, const char *b);
/* The column of at=V,V (the values of cols=, in order), or -1. */
int tb_column_of(const sb_table *t, const char *at);

/* ---- records (table-records.c) ---- */

typedef struct tb_rec {
    json_t *sb;      /* benchmarks[i].stagebench */
    json_t *devices; /* its file's context.stagebench.devices */
    int source;
} tb_rec;

typedef struct tb_loaded {
    json_t **docs;
    int ndocs;
    tb_rec *recs;
    int nrecs;
    char *log; /* what was read, and what was not there */
    size_t log_len;
    FILE *log_f;
} tb_loaded;

/* A cell of the table: the line's record at a column and its base's, their values and ratio. */
typedef struct tb_cell {
    const tb_rec *r, *base;
    double value, base_value, ratio;
} tb_cell;

#define TB_MAX_LINES 128

/* A line of the table: a row, or one of the lines of a row of every variant. */
typedef struct tb_line {
    const sb_table_row *row;
    int row_index;
    const char *variant; /* the row's, or a record's (variant=*) */
    int source;          /* -1: the sources of the row's from=; else this one alone */
    char label[256];
} tb_line;

/* The string at KEY of O, "" where there is none. */
const char *tb_text_of(json_t *o, const char *key);
/* The number at O.A (O.A.B when B), NaN where there is none. */
double tb_number_at(json_t *o, const char *a, const char *b);
/* Reads the records files of the flagged sources under DIR; a source without any adds a line
 * to MISSING (what writes them). */
int tb_load_sources(tb_loaded *L, const sb_table_source *src, int nsrc, const int *used,
                    const char *dir, char missing[][SB_TABLE_TEXT], int *nmissing);
void tb_free_loaded(tb_loaded *L);
/* The sources a from= list names, as flags by source index. */
void tb_mark_sources(const char *from, const sb_table_source *src, int nsrc, int *used);
/* Whether "k=v,k=v" names parameter p. */
int tb_where_names(const char *where, const char *p);
/* Seconds of the value expression (bytes for memory), per the `per` parameter; NaN where the
 * record has none. */
double tb_record_value(const tb_rec *r, const char *value, const char *per);
/* The cell at column c of a line (its row and variant): its record among row_sources, its
 * base's among all_sources. */
void tb_compute_cell(const sb_table *t, const sb_table_row *row, const char *variant,
                     const tb_loaded *L, const int *row_sources, const int *all_sources, int c,
                     tb_cell *out);
/* The table's lines (at most TB_MAX_LINES): each row, or for a row of every variant a line per
 * variant and source among its records. */
int tb_expand_rows(const sb_table *t, const tb_loaded *L, const sb_table_source *src, int nsrc,
                   tb_line *lines, int *nlines);

/* Values as text: the table's unit, numbers, ratios, bytes, a value expression's value. */
const char *tb_unit_name(const char *unit);
void tb_fmt_number(double x, char *buf, size_t cap);
void tb_fmt_ratio(double x, char *buf, size_t cap);
void tb_fmt_bytes(double b, char *buf, size_t cap);
void tb_fmt_value(const sb_table *t, const char *value, double v, char *buf, size_t cap);

/* ---- facts (table-facts.c) ---- */

/* Whether NAME is a fact of a record (NUMERIC: one with a number, as goals' of= needs). */
int tb_known_fact(const char *name, int numeric);
/* The row's explanation names only placeholders there are, and base ones only with a base. */
int tb_check_placeholders(const sb_table *t, const sb_table_row *r, const char *path);
/* The words of a numeric fact's number NUM (of the row's record, or its base's when is_base). */
void tb_format_fact(const sb_table *t, const sb_table_row *row, int is_base, const char *name,
                    double num, char *text, size_t cap);
/* A fact of a record (the row's, or its base's when is_base): *num its number (NaN for text
 * facts or where missing), text its words. */
void tb_fact(const sb_table *t, const sb_table_row *row, const tb_rec *r, int is_base,
             const char *name, double *num, char *text, size_t cap);
/* The row's explanation at column c (labelled col), its placeholders filled. */
void tb_explain(FILE *f, const sb_table *t, const sb_table_row *row, const tb_cell *cells, int c,
                const char *col);

/* ---- goals (table-goals.c) ---- */

/* A `goal` line of the table. */
int tb_goal_line(sb_table *t, char **w, int n, const char *path, int line);
/* After the columns are known: each goal's at= is a column, its measures numeric facts. */
int tb_check_goals(const sb_table *t, const char *path);
/* A goal's line under the table over the lines' cells: 0 met, 1 missed, 2 not measured. */
int tb_goal(FILE *f, const sb_table *t, const sb_table_goal *g, const tb_line *lines, int nlines,
            tb_cell (*cells)[SB_TABLE_COLS], char label[][128]);

#endif

/* The angio saved state (STATE-FORMAT.md): the domain, the cells and the tubes of a model, so a
 * user can benchmark their own configuration; the laws come from the parameters, never from the
 * file. The statements come in a fixed order: the header, side, cells N and its N lines, tubes M
 * and its M lines. Every error names file:line and says how to fix the line. */

#include "model.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/lines.h"
#include "../../harness/json.h"

#define MAX_CELLS (1L << 26)
#define MAX_TUBES (1L << 22)
#define DATA_FIELDS 9 /* on a cell line and on a tube line; the most a line may have */
#define STATE_FIELD 6 /* the one word of a cell line */
#define CELL_FIELDS "x y z r c a state age t_low"
#define TUBE_FIELDS "x0 y0 z0 x1 y1 z1 r0 r1 cb"

/* The statements, in the order a file gives them. */
enum { K_HEADER, K_SIDE, K_CELLS, K_TUBES, K_END };
static const char *const keyword[K_END] = {"angio-state", "side", "cells", "tubes"};
static const char *const usage[K_END] = {"angio-state 1", "side S", "cells N", "tubes M"};
static const char *const noun[K_END] = {"", "", "cell", "tube"}; /* of a section's lines */

/* Dead is not among the words a file may use: a dead cell is removed at the end of the step it
 * dies in, so no state between steps holds one. */
static const char *const state_word[AG_NSTATES] = {"new", "mature", "hypoxic", "dead"};

/* What a number field must satisfy, and how the message words the fix. */
enum { NONNEGATIVE, POSITIVE, CELL_INSIDE, TUBE_INSIDE };
typedef struct field {
    const char *name;
    int bound;
    const char *unit;
} field;

#define OXYGEN_UNIT "units of the blood's oxygen level"
static const field side_field = {"side", POSITIVE, "micrometres"};
static const field cell_fields[DATA_FIELDS] = {
    {"x", CELL_INSIDE, "micrometres, inside the domain [0, side)^3"},
    {"y", CELL_INSIDE, "micrometres, inside the domain [0, side)^3"},
    {"z", CELL_INSIDE, "micrometres, inside the domain [0, side)^3"},
    {"r", POSITIVE, "micrometres"},
    {"c", NONNEGATIVE, OXYGEN_UNIT},
    {"a", NONNEGATIVE, OXYGEN_UNIT},
    {"state", 0, NULL}, /* a word: read_state */
    {"age", NONNEGATIVE, "minutes"},
    {"t_low", NONNEGATIVE, "minutes"},
};
static const field tube_fields[DATA_FIELDS] = {
    {"x0", TUBE_INSIDE, "micrometres, in the closed cube [0, side]^3"},
    {"y0", TUBE_INSIDE, "micrometres, in the closed cube [0, side]^3"},
    {"z0", TUBE_INSIDE, "micrometres, in the closed cube [0, side]^3"},
    {"x1", TUBE_INSIDE, "micrometres, in the closed cube [0, side]^3"},
    {"y1", TUBE_INSIDE, "micrometres, in the closed cube [0, side]^3"},
    {"z1", TUBE_INSIDE, "micrometres, in the closed cube [0, side]^3"},
    {"r0", POSITIVE, "micrometres"},
    {"r1", POSITIVE, "micrometres"},
    {"cb", NONNEGATIVE, OXYGEN_UNIT},
};

typedef struct parser {
    const char *path;
    long lineno;
    int next;            /* the statement expected next, K_HEADER .. K_END */
    long line_of[K_END]; /* where each statement was given */
    float side;
    int section;         /* K_CELLS or K_TUBES once its count is read; -1 before */
    long ncells, ntubes; /* as announced */
    long got;            /* lines read of the current section */
    long room;           /* entries the current section's array holds */
    ag_cell *cells;
    ag_tube *tubes;
} parser;

static int fail_at(const parser *p, const char *fmt, ...) SB_PRINTF(2, 3);

static int fail_at(const parser *p, const char *fmt, ...)
{
    char what[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sb_fail("%s:%ld: %s", p->path, p->lineno, what);
}

static long announced(const parser *p)
{
    return p->section == K_CELLS ? p->ncells : p->ntubes;
}

/* ---- fields ---- */

/* A finite decimal number as strtof reads it, less hex floats and a leading '+' (as the rdme
 * model file). Read as a float directly: a double narrowed to float could round twice, and
 * beyond the float range strtof gives inf, which is refused. */
static int parse_float(const char *text, float *value)
{
    char *end;
    *value = strtof(text, &end);
    if (text[0] == '+' || strpbrk(text, "xX"))
        return -1;
    return end != text && *end == '\0' && isfinite(*value) ? 0 : -1;
}

static int read_field(const parser *p, const field *fd, const char *text, float *value)
{
    int ok = parse_float(text, value) == 0;
    float v = *value;
    char range[64];
    switch (fd->bound) {
    case NONNEGATIVE:
        ok = ok && v >= 0;
        snprintf(range, sizeof range, ">= 0");
        break;
    case POSITIVE:
        ok = ok && v > 0;
        snprintf(range, sizeof range, "> 0");
        break;
    case CELL_INSIDE:
        ok = ok && v >= 0 && v < p->side;
        snprintf(range, sizeof range, "in [0, %.9g)", p->side);
        break;
    default: /* TUBE_INSIDE */
        ok = ok && v >= 0 && v <= p->side;
        snprintf(range, sizeof range, "in [0, %.9g]", p->side);
        break;
    }
    if (!ok)
        return fail_at(p, "%s '%.40s' is not a finite number %s; write it in %s", fd->name, text,
                       range, fd->unit);
    return 0;
}

/* A whole number in [lo, hi], in decimal digits. */
static int read_count(const parser *p, const char *what, const char *text, long lo, long hi,
                      long *value)
{
    char *end;
    errno = 0;
    *value = strtol(text, &end, 10);
    if (!isdigit((unsigned char)text[0]) || *end != '\0' || errno != 0 || *value < lo ||
        *value > hi)
        return fail_at(p, "%s '%.40s' is not a whole number in %ld..%ld; write one in that "
                       "range, in digits", what, text, lo, hi);
    return 0;
}

static int read_state(const parser *p, const char *text, int *state)
{
    for (int s = AG_NEW; s < AG_DEAD; s++)
        if (strcmp(text, state_word[s]) == 0) {
            *state = s;
            return 0;
        }
    if (strcmp(text, state_word[AG_DEAD]) == 0)
        return fail_at(p, "state 'dead': a saved state holds no dead cells (they are removed "
                       "at the end of the step they die in); drop the line");
    return fail_at(p, "state '%.40s' is not a state; write new, mature or hypoxic", text);
}

/* ---- statements ---- */

static int not_a_state_file(const parser *p)
{
    return fail_at(p, "not an angio state file: it must begin with '%s' (comments and blank "
                   "lines may come first)", usage[K_HEADER]);
}

static int parse_statement(parser *p, int k, char **f, int n)
{
    if (p->next == K_HEADER && k != K_HEADER)
        return not_a_state_file(p);
    if (sb_header_statement(p->path, p->lineno, k, n, &p->next, p->line_of, keyword, usage,
                            "angio-state, side, cells, tubes") != 0)
        return -1;
    switch (k) {
    case K_HEADER:
        if (strcmp(f[1], "1") != 0)
            return fail_at(p, "version '%.40s' is not known; this build reads '%s'", f[1],
                           usage[K_HEADER]);
        return 0;
    case K_SIDE:
        return read_field(p, &side_field, f[1], &p->side);
    case K_CELLS:
        /* No empty state: the box edge follows from the largest cell radius, and a run of no
         * cells measures nothing. */
        if (read_count(p, "N", f[1], 1, MAX_CELLS, &p->ncells) != 0)
            return -1;
        break;
    default: /* K_TUBES */
        if (read_count(p, "M", f[1], 0, MAX_TUBES, &p->ntubes) != 0)
            return -1;
        break;
    }
    p->section = k;
    p->got = 0;
    p->room = 0;
    return 0;
}

/* `array` (of the current section, entries of `size` bytes) with room for one more line; NULL
 * when out of memory (the message said; the array stays as it was). The arrays grow with the
 * lines given, not to the count announced: a short file that announces 2^26 cells is refused at
 * its end without first taking 4 GiB. New entries are zero (ids are set per line, a step's
 * results start at zero). */
static void *make_room(parser *p, void *array, size_t size, const char *what)
{
    if (p->got < p->room)
        return array;
    long grown = p->room < 4096 ? 4096 : 2 * p->room;
    if (grown > announced(p))
        grown = announced(p);
    char *bigger = realloc(array, (size_t)grown * size);
    if (!bigger) {
        fail_at(p, "out of host memory for %ld %s (%.1f MiB); free memory or give fewer", grown,
                what, (double)grown * (double)size / (1 << 20));
        return NULL;
    }
    memset(bigger + (size_t)p->room * size, 0, (size_t)(grown - p->room) * size);
    p->room = grown;
    return bigger;
}

static int parse_cell(parser *p, char **f, int n)
{
    if (n != DATA_FIELDS)
        return fail_at(p, "a cell line needs %d fields, '" CELL_FIELDS "'; this one has %d",
                       DATA_FIELDS, n);
    ag_cell *cells = make_room(p, p->cells, sizeof *p->cells, "cells");
    if (!cells)
        return -1;
    p->cells = cells;
    ag_cell *c = &p->cells[p->got];
    float *to[DATA_FIELDS] = {&c->x[0], &c->x[1], &c->x[2], &c->r,    &c->c,
                              &c->a,    NULL,     &c->age,  &c->t_low};
    for (int i = 0; i < DATA_FIELDS; i++) {
        int rc = i == STATE_FIELD ? read_state(p, f[i], &c->state)
                                  : read_field(p, &cell_fields[i], f[i], to[i]);
        if (rc != 0)
            return -1;
    }
    c->id = (uint32_t)p->got++;
    return 0;
}

/* A tube of zero length is allowed: the tube-cell law treats it as a ball of radius r0. */
static int parse_tube(parser *p, char **f, int n)
{
    if (n != DATA_FIELDS)
        return fail_at(p, "a tube line needs %d fields, '" TUBE_FIELDS "'; this one has %d",
                       DATA_FIELDS, n);
    ag_tube *tubes = make_room(p, p->tubes, sizeof *p->tubes, "tubes");
    if (!tubes)
        return -1;
    p->tubes = tubes;
    ag_tube *t = &p->tubes[p->got];
    float *to[DATA_FIELDS] = {&t->p0[0], &t->p0[1], &t->p0[2], &t->p1[0], &t->p1[1],
                              &t->p1[2], &t->r0,    &t->r1,    &t->cb};
    for (int i = 0; i < DATA_FIELDS; i++)
        if (read_field(p, &tube_fields[i], f[i], to[i]) != 0)
            return -1;
    p->got++;
    return 0;
}

/* ---- lines ---- */

static int parse_fields(parser *p, char **f, int n)
{
    int k = sb_keyword(f[0], keyword, K_END);
    if (p->section >= 0 && p->got < announced(p)) {
        /* Inside a section every line is one of its lines, until a statement cuts it short. */
        if (k >= 0)
            return fail_at(p, "'%s' after %ld of the %ld %s lines announced at line %ld; add the "
                           "missing lines or lower the count to the lines given", keyword[k],
                           p->got, announced(p), noun[p->section], p->line_of[p->section]);
        return p->section == K_CELLS ? parse_cell(p, f, n) : parse_tube(p, f, n);
    }
    if (k >= 0)
        return parse_statement(p, k, f, n);
    if (p->next == K_HEADER)
        return not_a_state_file(p);
    if (p->section >= 0 && !isalpha((unsigned char)f[0][0]))
        return fail_at(p, "a %s line beyond the %ld announced at line %ld; drop it or give the "
                       "number of %s lines in '%s'", noun[p->section], announced(p),
                       p->line_of[p->section], noun[p->section], usage[p->section]);
    return fail_at(p, "unknown keyword '%.40s'; the keywords are angio-state, side, cells and "
                   "tubes", f[0]);
}

/* One line of the file (sb_read_lines): its fields, if any, parsed. */
static int parse_line(void *ctx, long number, size_t length, char **f, int n)
{
    parser *p = ctx;
    (void)length;
    p->lineno = number;
    return n > 0 ? parse_fields(p, f, n) : 0;
}

/* At the end of the file: every statement given, every announced line read. */
static int finish(const parser *p)
{
    if (p->section >= 0 && p->got < announced(p))
        return sb_fail("%s:%ld: '%s %ld' announces %ld %s lines but the file ends after %ld; "
                       "add the missing lines or lower the count to the lines given", p->path,
                       p->line_of[p->section], keyword[p->section], announced(p), announced(p),
                       noun[p->section], p->got);
    if (p->next == K_HEADER)
        return sb_fail("%s: no '%s' line; a saved state begins with it", p->path,
                       usage[K_HEADER]);
    if (p->next < K_END)
        return sb_fail("%s: no '%s' line after line %ld; a saved state gives angio-state, "
                       "side, cells and tubes (write 'tubes 0' for none)", p->path,
                       usage[p->next], p->lineno);
    return 0;
}

/* Hands the parsed cells and tubes to the model, which then owns them. The box edge depends on
 * the largest radii, so they are set before the domain. */
static int fill_model(ag_model *m, parser *p)
{
    m->ncells = (int)p->ncells;
    m->cells = p->cells;
    m->ntubes = (int)p->ntubes;
    m->tubes = p->tubes;
    p->cells = NULL;
    p->tubes = NULL;
    m->r_max = 0;
    for (int i = 0; i < m->ncells; i++)
        m->r_max = fmaxf(m->r_max, m->cells[i].r);
    m->tube_r_max = 0;
    for (int i = 0; i < m->ntubes; i++)
        m->tube_r_max = fmaxf(m->tube_r_max, fmaxf(m->tubes[i].r0, m->tubes[i].r1));
    const char *slash = strrchr(p->path, '/');
    snprintf(m->scenario, sizeof m->scenario, "file %.150s", slash ? slash + 1 : p->path);
    if (ag_model_set_domain(m, p->side) != 0)
        return sb_fail_context("%s", p->path);
    return 0;
}

/* m's laws are the caller's and stay; its cells and tubes are replaced, not freed. On failure
 * m holds no cells and no tubes (both NULL). */
int ag_state_read(ag_model *m, const char *path)
{
    m->ncells = m->ntubes = 0;
    m->cells = NULL;
    m->tubes = NULL;
    parser p = {.path = path, .section = -1};
    char *f[DATA_FIELDS];
    int rc = sb_read_lines(path, f, DATA_FIELDS, parse_line, &p);
    if (rc == 0)
        rc = finish(&p);
    if (rc == 0)
        rc = fill_model(m, &p);
    if (rc != 0) {
        free(p.cells);
        free(p.tubes);
        free(m->cells);
        free(m->tubes);
        m->ncells = m->ntubes = 0;
        m->cells = NULL;
        m->tubes = NULL;
    }
    return rc;
}

/* ---- writing ---- */

/* The model in the file format; %.9g gives every float back bit for bit. */
static int print_state(FILE *f, const void *model, const void *path)
{
    const ag_model *m = model;
    fprintf(f, "angio-state 1\nside %.9g\ncells %d\n# " CELL_FIELDS "\n", m->side, m->ncells);
    for (int i = 0; i < m->ncells; i++) {
        const ag_cell *c = &m->cells[i];
        fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %s %.9g %.9g\n", c->x[0], c->x[1], c->x[2],
                c->r, c->c, c->a, state_word[c->state], c->age, c->t_low);
    }
    fprintf(f, "tubes %d\n# " TUBE_FIELDS "\n", m->ntubes);
    for (int i = 0; i < m->ntubes; i++) {
        const ag_tube *t = &m->tubes[i];
        fprintf(f, "%.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g %.9g\n", t->p0[0], t->p0[1],
                t->p0[2], t->p1[0], t->p1[1], t->p1[2], t->r0, t->r1, t->cb);
    }
    return ferror(f) ? sb_fail("%s: write error", (const char *)path) : 0;
}

/* Refuses what the reader would refuse of the counts and states, so that every file written
 * reads back; the numbers are the model's own (cells kept inside the domain). */
int ag_state_write(const ag_model *m, const char *path)
{
    if (m->ncells < 1 || m->ncells > MAX_CELLS || m->ntubes < 0 || m->ntubes > MAX_TUBES)
        return sb_fail("%s: cannot save %d cells and %d tubes; a saved state holds 1..%ld cells "
                       "and 0..%ld tubes", path, m->ncells, m->ntubes, MAX_CELLS, MAX_TUBES);
    for (int i = 0; i < m->ncells; i++)
        if (m->cells[i].state < AG_NEW || m->cells[i].state >= AG_DEAD)
            return sb_fail("%s: cannot save cell %d in state %d; a saved state holds only new, "
                           "mature and hypoxic cells", path, i, m->cells[i].state);
    return sb_write_stream_atomic(path, print_state, m, path);
}

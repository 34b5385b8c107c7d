/* The motility saved state (STATE-FORMAT.md): the grid, the initial filament density Psi of every
 * outer cell and the motors M_tot of every tail, so a user can benchmark their own configuration;
 * the laws come from the parameters, never from the file. The statements come in a fixed order,
 * the header, outer, inner, then one line per outer cell in any order. Every error names
 * file:line and says how to fix the line. */

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
#include "../../harness/variant.h"

/* A cell line: i, j, m_tot, then psi_0 .. psi_{N_i-1}. */
#define LEAD_FIELDS 3
#define MAX_FIELDS (LEAD_FIELDS + MM_MAX_INNER) /* the most a line may have */

/* The statements, in the order a file gives them; K_END: the cell lines. */
enum { K_HEADER, K_OUTER, K_INNER, K_END };
static const char *const keyword[K_END] = {"motility-state", "outer", "inner"};
static const char *const usage[K_END] = {"motility-state 1", "outer N_o", "inner N_i"};

extern const sb_workload sb_workload_motility;

/* The declaration of a grid parameter (outer or inner): a file's grid must be one the
 * parameters could give, so the ranges are read from workload.c, not written twice. */
static const sb_param_decl *grid_param(const char *name)
{
    const sb_param_decl *d = sb_workload_motility.params;
    while (strcmp(d->name, name) != 0) /* both are declared */
        d++;
    return d;
}

typedef struct parser {
    const char *path;
    long lineno;
    int next;            /* the statement expected next, K_HEADER .. K_END */
    long line_of[K_END]; /* where each statement was given */
    long n_outer, n_inner;
    long cells;         /* n_outer^2 once inner is read */
    long got;           /* cell lines read */
    long *line_of_cell; /* cells: the line that gave each cell, 0 while none has */
    mm_model *m;
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

/* ---- fields ---- */

/* A finite decimal number >= 0 as strtod reads it, less hex floats and a leading '+' (as angio's
 * state file); beyond the double range strtod gives inf, which is refused. */
static int read_nonnegative(const char *text, double *value)
{
    char *end;
    *value = strtod(text, &end);
    if (text[0] == '+' || strpbrk(text, "xX"))
        return -1;
    return end != text && *end == '\0' && isfinite(*value) && *value >= 0 ? 0 : -1;
}

/* A whole number in [lo, hi], in decimal digits; `whose` says whose range it is, or is "". */
static int read_count(const parser *p, const char *what, const char *text, long lo, long hi,
                      const char *whose, long *value)
{
    char *end;
    errno = 0;
    *value = strtol(text, &end, 10);
    if (!isdigit((unsigned char)text[0]) || *end != '\0' || errno != 0 || *value < lo ||
        *value > hi)
        return fail_at(p, "%s '%.40s' is not a whole number in %ld..%ld%s; write one in that "
                       "range, in digits", what, text, lo, hi, whose);
    return 0;
}

/* ---- statements ---- */

static int not_a_state_file(const parser *p)
{
    return fail_at(p, "not a motility state file: it must begin with '%s' (comments and blank "
                   "lines may come first)", usage[K_HEADER]);
}

static int read_grid_size(const parser *p, const char *param, const char *what,
                          const char *text, long *value)
{
    const sb_param_decl *d = grid_param(param);
    char whose[48];
    snprintf(whose, sizeof whose, " (the %s parameter's range)", param);
    return read_count(p, what, text, (long)d->min, (long)d->max, whose, value);
}

/* Once the grid is known: the model's grid facts for the parameters' laws, and room for the
 * cells. A window wider than the grid is the laws' doing as much as the file's, so that error
 * names the outer line and keeps model.c's fix (raise outer or lower ell or r_c). */
static int start_cells(parser *p)
{
    mm_model *m = p->m;
    m->n_outer = (int)p->n_outer;
    m->n_inner = (int)p->n_inner;
    if (mm_model_set_grid(m) != 0)
        return sb_fail_context("%s:%ld", p->path, p->line_of[K_OUTER]);
    p->cells = p->n_outer * p->n_outer;
    m->psi0 = malloc((size_t)p->cells * p->n_inner * sizeof *m->psi0);
    m->m_tot = malloc((size_t)p->cells * sizeof *m->m_tot);
    p->line_of_cell = calloc((size_t)p->cells, sizeof *p->line_of_cell);
    if (!m->psi0 || !m->m_tot || !p->line_of_cell)
        return fail_at(p, "out of host memory for Psi on %ld^2 x %ld cells", p->n_outer,
                       p->n_inner);
    return 0;
}

static int parse_statement(parser *p, int k, char **f, int n)
{
    if (p->next == K_HEADER && k != K_HEADER)
        return not_a_state_file(p);
    if (sb_header_statement(p->path, p->lineno, k, n, &p->next, p->line_of, keyword, usage,
                            "motility-state, outer, inner") != 0)
        return -1;
    switch (k) {
    case K_HEADER:
        if (strcmp(f[1], "1") != 0)
            return fail_at(p, "version '%.40s' is not known; this build reads '%s'", f[1],
                           usage[K_HEADER]);
        return 0;
    case K_OUTER:
        return read_grid_size(p, "outer", "N_o", f[1], &p->n_outer);
    default: /* K_INNER */
        if (read_grid_size(p, "inner", "N_i", f[1], &p->n_inner) != 0)
            return -1;
        return start_cells(p);
    }
}

static int parse_cell(parser *p, char **f, int n)
{
    if (p->next < K_END)
        return fail_at(p, "a cell line before '%s': the grid comes first; write "
                       "'motility-state 1', 'outer N_o' and 'inner N_i', then the cell lines",
                       usage[p->next]);
    int fields = LEAD_FIELDS + (int)p->n_inner;
    if (n != fields)
        return fail_at(p, "a cell line needs 3 + N_i = %d fields, 'i j m_tot psi_0 ... psi_%ld'; "
                       "this one has %d", fields, p->n_inner - 1, n);
    long i, j;
    if (read_count(p, "i", f[0], 0, p->n_outer - 1, "", &i) != 0 ||
        read_count(p, "j", f[1], 0, p->n_outer - 1, "", &j) != 0)
        return -1;
    long c = i + p->n_outer * j;
    if (p->line_of_cell[c])
        return fail_at(p, "cell (%ld, %ld) given twice (first at line %ld); keep one", i, j,
                       p->line_of_cell[c]);
    mm_model *m = p->m;
    if (read_nonnegative(f[2], &m->m_tot[c]) != 0)
        return fail_at(p, "m_tot '%.40s' is not a finite number >= 0; write the motors of the "
                       "tail at cell (%ld, %ld)", f[2], i, j);
    for (long k = 0; k < p->n_inner; k++)
        if (read_nonnegative(f[LEAD_FIELDS + k], &m->psi0[c * p->n_inner + k]) != 0)
            return fail_at(p, "psi_%ld '%.40s' is not a finite number >= 0; write cell "
                           "(%ld, %ld)'s filaments per unit area and radian at theta_%ld = "
                           "2 pi %ld / %ld", k, f[LEAD_FIELDS + k], i, j, k, k, p->n_inner);
    p->line_of_cell[c] = p->lineno;
    p->got++;
    return 0;
}

/* ---- lines ---- */

static int parse_fields(parser *p, char **f, int n)
{
    int k = sb_keyword(f[0], keyword, K_END);
    if (k >= 0)
        return parse_statement(p, k, f, n);
    if (p->next == K_HEADER)
        return not_a_state_file(p);
    if (!isalpha((unsigned char)f[0][0]))
        return parse_cell(p, f, n);
    return fail_at(p, "unknown keyword '%.40s'; the keywords are motility-state, outer and "
                   "inner", f[0]);
}

/* One line of the file (sb_read_lines): its fields, if any, parsed. */
static int parse_line(void *ctx, long number, size_t length, char **f, int n)
{
    parser *p = ctx;
    (void)length;
    p->lineno = number;
    return n > 0 ? parse_fields(p, f, n) : 0;
}

/* At the end of the file: every statement given, every outer cell given a line. */
static int finish(const parser *p)
{
    if (p->next == K_HEADER)
        return sb_fail("%s: no '%s' line; a saved state begins with it", p->path,
                       usage[K_HEADER]);
    if (p->next < K_END)
        return sb_fail("%s: no '%s' line after line %ld; a saved state gives motility-state, "
                       "outer and inner, then a line per outer cell", p->path, usage[p->next],
                       p->lineno);
    if (p->got < p->cells) {
        long c = 0;
        while (p->line_of_cell[c])
            c++;
        return sb_fail("%s:%ld: 'outer %ld' makes %ld cells but the file gives %ld cell lines; "
                       "cell (%ld, %ld) has none: give every outer cell one line", p->path,
                       p->line_of[K_OUTER], p->n_outer, p->cells, p->got, c % p->n_outer,
                       c / p->n_outer);
    }
    return 0;
}

/* m's laws, layers and run settings are the caller's and stay; the grid (n_outer, n_inner and
 * the tables mm_model_set_grid makes), psi0 and m_tot come from the file, and m must hold none of
 * them yet. On failure m holds none of them either (mm_model_free). */
int mm_state_read(mm_model *m, const char *path)
{
    parser p = {.path = path, .m = m};
    char *f[MAX_FIELDS];
    int rc = sb_read_lines(path, f, MAX_FIELDS, parse_line, &p);
    if (rc == 0)
        rc = finish(&p);
    free(p.line_of_cell);
    if (rc != 0) {
        mm_model_free(m);
        m->n_outer = m->n_inner = 0;
        return -1;
    }
    const char *slash = strrchr(path, '/');
    snprintf(m->scenario, sizeof m->scenario, "file %.120s, %d^2 x %d^2",
             slash ? slash + 1 : path, m->n_outer, m->n_inner);
    return 0;
}

/* ---- writing ---- */

/* The model in the file format; %.17g gives every double back bit for bit. */
static int print_state(FILE *f, const void *model, const void *path)
{
    const mm_model *m = model;
    int n = m->n_outer, ni = m->n_inner;
    fprintf(f, "motility-state 1\nouter %d\ninner %d\n# i j m_tot psi_0 ... psi_%d\n", n, ni,
            ni - 1);
    for (int c = 0; c < n * n; c++) {
        fprintf(f, "%d %d %.17g", c % n, c / n, m->m_tot[c]);
        for (int k = 0; k < ni; k++)
            fprintf(f, " %.17g", m->psi0[(size_t)c * ni + k]);
        fputc('\n', f);
    }
    return ferror(f) ? sb_fail("%s: write error", (const char *)path) : 0;
}

/* Refuses what the reader would refuse of the grid and the numbers, so that every file written
 * reads back. */
int mm_state_write(const mm_model *m, const char *path)
{
    const sb_param_decl *outer = grid_param("outer"), *inner = grid_param("inner");
    if (m->n_outer < outer->min || m->n_outer > outer->max || m->n_inner < inner->min ||
        m->n_inner > inner->max)
        return sb_fail("%s: cannot save a %d^2 x %d^2 grid; a saved state holds N_o in %g..%g "
                       "and N_i in %g..%g", path, m->n_outer, m->n_inner, outer->min, outer->max,
                       inner->min, inner->max);
    int n = m->n_outer, ni = m->n_inner;
    for (int c = 0; c < n * n; c++) {
        if (!(isfinite(m->m_tot[c]) && m->m_tot[c] >= 0))
            return sb_fail("%s: cannot save M_tot %g at cell (%d, %d); a saved state holds "
                           "finite M_tot >= 0", path, m->m_tot[c], c % n, c / n);
        for (int k = 0; k < ni; k++) {
            double psi = m->psi0[(size_t)c * ni + k];
            if (!(isfinite(psi) && psi >= 0))
                return sb_fail("%s: cannot save Psi %g at cell (%d, %d), theta_%d; a saved "
                               "state holds finite Psi >= 0", path, psi, c % n, c / n, k);
        }
    }
    return sb_write_stream_atomic(path, print_state, m, path);
}

/* The rdme model file (MODEL-FORMAT.md): one statement a line, building the model through the
 * builders of model.c. A header (lattice, spacing, timestep, boundary) comes first; every later
 * line names only species and site types declared above it. Placement needs the site format,
 * so particles/particle lines are kept and applied after rd_model_finish, in file order. Every
 * error names file:line and says how to fix the line. */

#include "model.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/lines.h"

#define MAX_LINE 1024                 /* characters, not counting the line end */
#define MAX_FIELDS (MAX_LINE / 2 + 1) /* one-character words with one blank between */

#define USAGE_LATTICE "lattice NX NY NZ"
#define USAGE_SPACING "spacing METRES"
#define USAGE_TIMESTEP "timestep SECONDS"
#define USAGE_BOUNDARY "boundary reflect|periodic"
#define USAGE_SPECIES "species NAME [NAME...]"
#define USAGE_SITETYPE "sitetype NAME [NAME...]"
#define USAGE_DIFFUSION "diffusion SPECIES|* TYPE D"
#define USAGE_TRANSITION "transition SPECIES|* FROM TO D"
#define USAGE_REACTION "reaction LHS -> RHS RATE [in TYPE[,TYPE...]]"
/* Two forms, quoted as "write '%s'": the inner quotes close and reopen that quote. */
#define USAGE_REGION                                                                             \
    "region TYPE box X0 Y0 Z0 X1 Y1 Z1' or "                                                     \
    "'region TYPE capsule RADIUS LENGTH [shell N SHELLTYPE]"
#define USAGE_PARTICLES "particles SPECIES COUNT [in TYPE] [z Z0 Z1]"
#define USAGE_PARTICLE "particle SPECIES X Y Z"

/* A particles or particle line, kept until the model is finished. */
typedef struct placement {
    long lineno;
    int sp;
    int single;      /* particle X Y Z; else particles COUNT ... */
    long long count;
    int type;        /* -1: any type the species may occupy */
    int x, y, z;     /* single */
    int z0, z1;      /* particles: the planes [z0, z1) */
} placement;

typedef struct parser {
    const char *path;
    long lineno;
    rd_model *m;
    /* The header, held here until the first body line sets the model up (rd_model_init clears
     * everything). A *_line is where the statement was given, 0 while it has not been. */
    long lattice_line, spacing_line, timestep_line, boundary_line;
    int nx, ny, nz;
    double spacing, tau;
    int periodic;
    long body_line; /* the first body line; 0 while still in the header */
    placement *placements;
    size_t nplacements, cap;
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

/* Puts file:line in front of a builder's message. */
static int fail_context(const parser *p)
{
    return sb_fail_context("%s:%ld", p->path, p->lineno);
}

/* ---- fields ---- */

/* A whole number written in decimal digits, optionally negative. */
static int parse_integer(const char *text, long long *value)
{
    const char *digits = text[0] == '-' ? text + 1 : text;
    char *end;
    errno = 0;
    *value = strtoll(text, &end, 10);
    return isdigit((unsigned char)digits[0]) && *end == '\0' && errno == 0 ? 0 : -1;
}

/* A finite decimal number as strtod reads it, less hex floats and a leading '+': "0x10" meaning
 * 16 would only hide a typo. */
static int parse_real(const char *text, double *value)
{
    char *end;
    *value = strtod(text, &end);
    if (text[0] == '+' || strpbrk(text, "xX"))
        return -1;
    return end != text && *end == '\0' && isfinite(*value) ? 0 : -1;
}

/* Field `text`, called `what` in the message, as a whole number in [lo, hi]. */
static int read_int(const parser *p, const char *what, const char *text, long long lo,
                    long long hi, long long *value)
{
    if (parse_integer(text, value) != 0 || *value < lo || *value > hi)
        return fail_at(p, "%s '%.40s' is not a whole number in %lld..%lld; write one in that "
                       "range, in digits", what, text, lo, hi);
    return 0;
}

/* Field `text` as a finite number > 0 (positive) or >= 0; `unit` completes the fix. */
static int read_real(const parser *p, const char *what, const char *text, int positive,
                     const char *unit, double *value)
{
    if (parse_real(text, value) != 0 || !(positive ? *value > 0 : *value >= 0))
        return fail_at(p, "%s '%.40s' is not a finite number %s; write it in %s", what, text,
                       positive ? "> 0" : ">= 0", unit);
    return 0;
}

/* Names start with a letter and hold letters, digits, '_', '-' and '.'; "in" is a keyword. */
static int check_name(const parser *p, const char *kind, const char *name)
{
    int ok = isalpha((unsigned char)name[0]) && strcmp(name, "in") != 0;
    for (const char *c = name; ok && *c; c++)
        ok = isalnum((unsigned char)*c) || *c == '_' || *c == '-' || *c == '.';
    if (!ok)
        return fail_at(p, "%s name '%.40s' is not a name; start with a letter and use letters, "
                       "digits, '_', '-' and '.' ('in' is a keyword)", kind, name);
    return 0;
}

/* The id of a declared species, or 0 for '*' where every species is meant; -1 on error. */
static int lookup_species(const parser *p, const char *name, int star_means_all)
{
    if (star_means_all && strcmp(name, "*") == 0)
        return 0;
    int sp = rd_find_species(p->m, name);
    if (sp < 0)
        return fail_at(p, "unknown species '%.40s'; declare it with 'species %.40s' above", name,
                       name);
    return sp;
}

static int lookup_type(const parser *p, const char *name)
{
    int t = rd_find_type(p->m, name);
    if (t < 0)
        return fail_at(p, "unknown site type '%.40s'; declare it with 'sitetype %.40s' above",
                       name, name);
    return t;
}

/* ---- the header ---- */

/* Each header statement is given once; `line` is where it was. */
static int header_once(parser *p, long *line, const char *keyword)
{
    if (*line)
        return fail_at(p, "'%s' given twice (first at line %ld); keep one", keyword, *line);
    *line = p->lineno;
    return 0;
}

static int parse_lattice(parser *p, char **f, int n)
{
    (void)n;
    long long size[3];
    static const char *const axis[3] = {"NX", "NY", "NZ"};
    if (header_once(p, &p->lattice_line, "lattice") != 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (read_int(p, axis[i], f[i + 1], 1, INT_MAX, &size[i]) != 0)
            return -1;
    /* The bound of rd_model_alloc, checked here before nx * ny * nz can wrap around. */
    if ((double)size[0] * (double)size[1] * (double)size[2] >= 0x1p39)
        return fail_at(p, "lattice %lld x %lld x %lld: more than 2^39 sites; use a smaller "
                       "lattice", size[0], size[1], size[2]);
    p->nx = (int)size[0];
    p->ny = (int)size[1];
    p->nz = (int)size[2];
    return 0;
}

static int parse_spacing(parser *p, char **f, int n)
{
    (void)n;
    if (header_once(p, &p->spacing_line, "spacing") != 0)
        return -1;
    return read_real(p, "spacing", f[1], 1, "metres, e.g. 16e-9", &p->spacing);
}

static int parse_timestep(parser *p, char **f, int n)
{
    (void)n;
    if (header_once(p, &p->timestep_line, "timestep") != 0)
        return -1;
    return read_real(p, "timestep", f[1], 1, "seconds, e.g. 50e-6", &p->tau);
}

static int parse_boundary(parser *p, char **f, int n)
{
    (void)n;
    if (header_once(p, &p->boundary_line, "boundary") != 0)
        return -1;
    if (strcmp(f[1], "reflect") != 0 && strcmp(f[1], "periodic") != 0)
        return fail_at(p, "boundary '%.40s' is neither reflect nor periodic; write '%s'", f[1],
                       USAGE_BOUNDARY);
    p->periodic = strcmp(f[1], "periodic") == 0;
    return 0;
}

/* The usage of the first header statement a body needs and the file lacks; NULL if none. */
static const char *missing_header(const parser *p)
{
    return !p->lattice_line    ? USAGE_LATTICE
           : !p->spacing_line  ? USAGE_SPACING
           : !p->timestep_line ? USAGE_TIMESTEP
                               : NULL;
}

/* Sets the model up from the header, at the first body line (or at the end of a file without
 * one). */
static int begin_body(parser *p)
{
    rd_model *m = p->m;
    rd_model_init(m, p->nx, p->ny, p->nz, p->spacing, p->tau);
    m->periodic = p->periodic;
    const char *slash = strrchr(p->path, '/');
    snprintf(m->scenario, sizeof m->scenario, "file %.58s", slash ? slash + 1 : p->path);
    p->body_line = p->lineno;
    /* what fails here (the lattice does not fit) is the lattice line's doing */
    return rd_model_alloc(m) == 0 ? 0 : sb_fail_context("%s:%ld", p->path, p->lattice_line);
}

/* ---- the body ---- */

static int parse_species(parser *p, char **f, int n)
{
    for (int i = 1; i < n; i++) {
        if (check_name(p, "species", f[i]) != 0)
            return -1;
        if (rd_add_species(p->m, f[i]) < 0)
            return fail_context(p);
    }
    return 0;
}

static int parse_sitetype(parser *p, char **f, int n)
{
    for (int i = 1; i < n; i++) {
        if (check_name(p, "site type", f[i]) != 0)
            return -1;
        if (rd_add_type(p->m, f[i]) < 0)
            return fail_context(p);
    }
    return 0;
}

static int parse_diffusion(parser *p, char **f, int n)
{
    (void)n;
    int sp, t;
    double d;
    if ((sp = lookup_species(p, f[1], 1)) < 0 || (t = lookup_type(p, f[2])) < 0 ||
        read_real(p, "diffusion coefficient", f[3], 0, "m^2/s, e.g. 2.5e-12", &d) != 0)
        return -1;
    rd_set_diffusion(p->m, sp, t, d);
    return 0;
}

static int parse_transition(parser *p, char **f, int n)
{
    (void)n;
    int sp, from, to;
    double d;
    if ((sp = lookup_species(p, f[1], 1)) < 0 || (from = lookup_type(p, f[2])) < 0 ||
        (to = lookup_type(p, f[3])) < 0 ||
        read_real(p, "transition coefficient", f[4], 0, "m^2/s, e.g. 2.5e-12", &d) != 0)
        return -1;
    if (from == to)
        return fail_at(p, "transition from '%.40s' into itself; use 'diffusion %.40s %.40s D'",
                       f[2], f[1], f[2]);
    rd_set_transition(p->m, sp, from, to, d);
    return 0;
}

/* One side of a reaction, f[0..n-1]: "0", or species joined by '+'; at most `max` of them.
 * `side` ("left of", "right of") and `what` ("reactants", "products") word the messages. */
static int parse_side(const parser *p, char **f, int n, const char *side, const char *what,
                      int max, int *ids, int *count)
{
    if (n == 0)
        return fail_at(p, "nothing %s '->'; write 0 for no %s", side, what);
    *count = 0;
    if (n == 1 && strcmp(f[0], "0") == 0)
        return 0;
    for (int i = 0; i < n; i++) {
        int plus = strcmp(f[i], "+") == 0;
        if (i % 2 == 1 && !plus)
            return fail_at(p, "'%.40s' %s '->' where '+' belongs; write 'A + B', with blanks "
                           "around '+'", f[i], side);
        if (i % 2 == 0 && (plus || strcmp(f[i], "0") == 0))
            return fail_at(p, "'%s' %s '->' where a species belongs; write 0 alone for no %s, "
                           "else 'A' or 'A + B'", f[i], side, what);
    }
    if (n % 2 == 0)
        return fail_at(p, "'+' with nothing after it %s '->'; write 'A + B'", side);
    *count = (n + 1) / 2;
    if (*count > max)
        return fail_at(p, "%d %s; a reaction has at most %d (%s)", *count, what, max,
                       max == 2 ? "order 0, 1 or 2" : "split it into several reactions");
    for (int i = 0; i < *count; i++)
        if ((ids[i] = lookup_species(p, f[2 * i], 0)) < 0)
            return -1;
    return 0;
}

/* "TYPE[,TYPE...]": the types a reaction may fire in, as a mask. */
static int parse_where(const parser *p, char *list, uint16_t *where)
{
    *where = 0;
    for (char *item = list;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (!*item)
            return fail_at(p, "empty site type in the list after 'in'; write 'in TYPE,TYPE' "
                           "without blanks or doubled commas");
        int t = lookup_type(p, item);
        if (t < 0)
            return -1;
        *where |= (uint16_t)(1u << t);
        if (!comma)
            return 0;
        item = comma + 1;
    }
}

static int parse_reaction(parser *p, char **f, int n)
{
    int arrow = 0;
    for (int i = 1; i < n; i++)
        if (strcmp(f[i], "->") == 0) {
            if (arrow)
                return fail_at(p, "more than one '->'; write '%s'", USAGE_REACTION);
            arrow = i;
        }
    if (!arrow)
        return fail_at(p, "no '->' between reactants and products; write '%s'", USAGE_REACTION);
    int has_where = strcmp(f[n - 2], "in") == 0;
    int rate_at = has_where ? n - 3 : n - 1;
    if (rate_at <= arrow)
        return fail_at(p, "no rate after the products; write '%s'", USAGE_REACTION);

    int reactants[2], products[RD_MAX_PRODUCTS], nreactants, nproducts;
    if (parse_side(p, f + 1, arrow - 1, "left of", "reactants", 2, reactants, &nreactants) != 0)
        return -1;
    static const char *const units[3] = {"M/s for a reaction of order 0",
                                         "1/s for a reaction of order 1",
                                         "1/(M s) for a reaction of order 2"};
    double k;
    if (read_real(p, "rate", f[rate_at], 0, units[nreactants], &k) != 0)
        return -1;
    if (parse_side(p, f + arrow + 1, rate_at - arrow - 1, "right of", "products", RD_MAX_PRODUCTS,
                   products, &nproducts) != 0)
        return -1;
    uint16_t where = 0;
    if (has_where && parse_where(p, f[n - 1], &where) != 0)
        return -1;
    if (rd_add_reaction(p->m, nreactants, reactants, nproducts, products, k, where) != 0)
        return fail_context(p);
    return 0;
}

/* region TYPE box X0 Y0 Z0 X1 Y1 Z1: the half-open box, inside the lattice and not empty. */
static int parse_box(parser *p, char **f, int n, int type)
{
    if (n != 9)
        return fail_at(p, "wrong number of fields for a box; write 'region %.40s box X0 Y0 Z0 "
                       "X1 Y1 Z1'", f[1]);
    const int size[3] = {p->nx, p->ny, p->nz};
    static const char *const lo_name[3] = {"X0", "Y0", "Z0"}, *const hi_name[3] = {"X1", "Y1",
                                                                                  "Z1"};
    long long lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        if (read_int(p, lo_name[a], f[3 + a], 0, size[a] - 1, &lo[a]) != 0 ||
            read_int(p, hi_name[a], f[6 + a], 1, size[a], &hi[a]) != 0)
            return -1;
        if (lo[a] >= hi[a])
            return fail_at(p, "empty box: %s %lld is not below %s %lld; the box holds the "
                           "sites X0 <= x < X1 (and so on)", lo_name[a], lo[a], hi_name[a],
                           hi[a]);
    }
    rd_set_box(p->m, type, (int)lo[0], (int)lo[1], (int)lo[2], (int)hi[0], (int)hi[1],
               (int)hi[2]);
    return 0;
}

/* region TYPE capsule RADIUS LENGTH [shell N SHELLTYPE]: along z, centred, inside the lattice. */
static int parse_capsule(parser *p, char **f, int n, int type)
{
    if (n != 5 && !(n == 8 && strcmp(f[5], "shell") == 0))
        return fail_at(p, "wrong fields for a capsule; write 'region %.40s capsule RADIUS "
                       "LENGTH' or add 'shell N SHELLTYPE'", f[1]);
    double radius, length;
    if (read_real(p, "radius", f[3], 1, "sites, e.g. 31.25", &radius) != 0 ||
        read_real(p, "length", f[4], 1, "sites, e.g. 250", &length) != 0)
        return -1;
    if (length < 2 * radius)
        return fail_at(p, "capsule length %g is less than its diameter %g; the length counts "
                       "both caps", length, 2 * radius);
    int narrow = p->nx < p->ny ? p->nx : p->ny;
    if (2 * radius > narrow || length > p->nz)
        return fail_at(p, "a capsule %g sites wide and %g long does not fit the %d x %d x %d "
                       "lattice; shrink it or grow the lattice", 2 * radius, length, p->nx,
                       p->ny, p->nz);
    long long shell = 0;
    int shell_type = type;
    if (n == 8) {
        if (read_int(p, "shell", f[6], 1, INT_MAX, &shell) != 0 ||
            (shell_type = lookup_type(p, f[7])) < 0)
            return -1;
    }
    rd_set_capsule(p->m, radius, length, type, (int)shell, shell_type);
    return 0;
}

static int parse_region(parser *p, char **f, int n)
{
    int type = lookup_type(p, f[1]);
    if (type < 0)
        return -1;
    if (strcmp(f[2], "box") == 0)
        return parse_box(p, f, n, type);
    if (strcmp(f[2], "capsule") == 0)
        return parse_capsule(p, f, n, type);
    return fail_at(p, "unknown region shape '%.40s'; write '%s'", f[2], USAGE_REGION);
}

static int add_placement(parser *p, const placement *pl)
{
    if (p->nplacements == p->cap) {
        size_t grown = p->cap ? 2 * p->cap : 16;
        placement *bigger = realloc(p->placements, grown * sizeof *bigger);
        if (!bigger)
            return fail_at(p, "out of host memory for %zu placement lines", grown);
        p->placements = bigger;
        p->cap = grown;
    }
    p->placements[p->nplacements++] = *pl;
    return 0;
}

static int parse_particles(parser *p, char **f, int n)
{
    placement pl = {.lineno = p->lineno, .type = -1, .z0 = 0, .z1 = p->nz};
    if ((pl.sp = lookup_species(p, f[1], 0)) < 0 ||
        read_int(p, "COUNT", f[2], 0, LLONG_MAX, &pl.count) != 0)
        return -1;
    int i = 3;
    if (i + 1 < n && strcmp(f[i], "in") == 0) {
        if ((pl.type = lookup_type(p, f[i + 1])) < 0)
            return -1;
        i += 2;
    }
    if (i + 2 < n && strcmp(f[i], "z") == 0) {
        long long z0, z1;
        if (read_int(p, "Z0", f[i + 1], 0, p->nz - 1, &z0) != 0 ||
            read_int(p, "Z1", f[i + 2], 1, p->nz, &z1) != 0)
            return -1;
        if (z0 >= z1)
            return fail_at(p, "empty z range: Z0 %lld is not below Z1 %lld; the planes are "
                           "Z0 <= z < Z1", z0, z1);
        pl.z0 = (int)z0;
        pl.z1 = (int)z1;
        i += 3;
    }
    if (i != n)
        return fail_at(p, "unexpected '%.40s'; write '%s'", f[i], USAGE_PARTICLES);
    return add_placement(p, &pl);
}

/* The position is checked by rd_place_at, when the line is applied. */
static int parse_particle(parser *p, char **f, int n)
{
    (void)n;
    placement pl = {.lineno = p->lineno, .single = 1};
    long long x, y, z;
    if ((pl.sp = lookup_species(p, f[1], 0)) < 0 ||
        read_int(p, "X", f[2], INT_MIN, INT_MAX, &x) != 0 ||
        read_int(p, "Y", f[3], INT_MIN, INT_MAX, &y) != 0 ||
        read_int(p, "Z", f[4], INT_MIN, INT_MAX, &z) != 0)
        return -1;
    pl.x = (int)x;
    pl.y = (int)y;
    pl.z = (int)z;
    return add_placement(p, &pl);
}

/* ---- lines ---- */

static const struct statement {
    const char *keyword;
    int header;
    int min_fields, max_fields; /* counting the keyword; max 0: no limit */
    const char *usage;
    int (*parse)(parser *p, char **f, int n);
} statements[] = {
    {"lattice", 1, 4, 4, USAGE_LATTICE, parse_lattice},
    {"spacing", 1, 2, 2, USAGE_SPACING, parse_spacing},
    {"timestep", 1, 2, 2, USAGE_TIMESTEP, parse_timestep},
    {"boundary", 1, 2, 2, USAGE_BOUNDARY, parse_boundary},
    {"species", 0, 2, 0, USAGE_SPECIES, parse_species},
    {"sitetype", 0, 2, 0, USAGE_SITETYPE, parse_sitetype},
    {"diffusion", 0, 4, 4, USAGE_DIFFUSION, parse_diffusion},
    {"transition", 0, 5, 5, USAGE_TRANSITION, parse_transition},
    {"reaction", 0, 5, 0, USAGE_REACTION, parse_reaction},
    {"region", 0, 5, 9, USAGE_REGION, parse_region},
    {"particles", 0, 3, 8, USAGE_PARTICLES, parse_particles},
    {"particle", 0, 5, 5, USAGE_PARTICLE, parse_particle},
};

static int parse_statement(parser *p, char **f, int n)
{
    const struct statement *st = NULL;
    for (size_t i = 0; i < sizeof statements / sizeof statements[0]; i++)
        if (strcmp(statements[i].keyword, f[0]) == 0)
            st = &statements[i];
    if (!st)
        return fail_at(p, "unknown statement '%.40s'; expected lattice, spacing, timestep, "
                       "boundary, species, sitetype, diffusion, transition, reaction, region, "
                       "particles or particle", f[0]);
    if (n < st->min_fields || (st->max_fields && n > st->max_fields))
        return fail_at(p, "wrong number of fields (%d after '%s'); write '%s'", n - 1,
                       st->keyword, st->usage);
    if (st->header && p->body_line)
        return fail_at(p, "'%s' after the model's statements (which begin at line %ld); put "
                       "lattice, spacing, timestep and boundary first", st->keyword,
                       p->body_line);
    if (!st->header && !p->body_line) {
        const char *missing = missing_header(p);
        if (missing) {
            const char *space = strchr(missing, ' ');
            return fail_at(p, "'%s' before '%s': declare the %.*s first", st->keyword, missing,
                           (int)(space - missing), missing);
        }
        if (begin_body(p) != 0)
            return -1;
    }
    return st->parse(p, f, n);
}

/* One line of the file (sb_read_lines): too long a line refused, its fields, if any, parsed. */
static int parse_line(void *ctx, long number, size_t length, char **f, int n)
{
    parser *p = ctx;
    p->lineno = number;
    if (length > MAX_LINE)
        return fail_at(p, "line of %zu characters; lines hold at most %d, so split the "
                       "statement or shorten its names", length, MAX_LINE);
    return n > 0 ? parse_statement(p, f, n) : 0;
}

/* After the last line: the derived tables, then the particles in file order. */
static int finish(parser *p, rd_site_format format, uint32_t seed, long long steps,
                  long long sample_steps)
{
    if (!p->body_line) {
        const char *missing = missing_header(p);
        if (missing)
            return sb_fail("%s: no '%s' line; a model file begins with lattice, spacing and "
                           "timestep", p->path, missing);
        if (begin_body(p) != 0)
            return -1;
    }
    if (rd_model_finish(p->m, format, seed, steps, sample_steps) != 0)
        return sb_fail_context("%s", p->path);
    for (size_t i = 0; i < p->nplacements; i++) {
        const placement *pl = &p->placements[i];
        p->lineno = pl->lineno;
        int rc = pl->single ? rd_place_at(p->m, pl->sp, pl->x, pl->y, pl->z)
                            : rd_place_random(p->m, pl->sp, (uint64_t)pl->count, pl->type,
                                              pl->z0, pl->z1);
        if (rc != 0)
            return fail_context(p);
    }
    return 0;
}

int rd_parse_model(rd_model *m, const char *path, rd_site_format format, uint32_t seed,
                   long long steps, long long sample_steps)
{
    rd_model_init(m, 0, 0, 0, 0.0, 0.0); /* from here on rd_model_free is safe */
    parser p = {.path = path, .m = m};
    char *f[MAX_FIELDS];
    int rc = sb_read_lines(path, f, MAX_FIELDS, parse_line, &p);
    if (rc == 0)
        rc = finish(&p, format, seed, steps, sample_steps);
    free(p.placements);
    if (rc != 0)
        rd_model_free(m);
    return rc;
}

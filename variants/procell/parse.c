/* Input files of the procell workload: the initial fluorescence histogram and the cell types.
 * Both are text, one record per line, fields separated by blanks; '#' starts a comment; CRLF
 * line ends are fine (the real cytometry exports have them). Every error names file:line and
 * says how to fix the line. Rules: ../shared/spec/procell.md, "Input files". */
#define _POSIX_C_SOURCE 200809L /* getline */

#include "model.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/data.h"

/* Counts are read as doubles: above 2^53 a double no longer holds every whole number. */
#define MAX_COUNT 9007199254740992.0

/* A text file read one line at a time (any length), each line cut into blank-separated fields. */
typedef struct line_reader {
    const char *path;
    FILE *file;
    char *line;
    size_t cap;
    long lineno;
} line_reader;

static int reader_open(line_reader *r, const char *path)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->file = fopen(path, "r");
    if (!r->file)
        return sb_fail("%s: cannot open: %s%s%s", path, strerror(errno),
                       errno == ENOENT ? "; " : "", errno == ENOENT ? SB_DATA_HINT : "");
    return 0;
}

static void reader_close(line_reader *r)
{
    fclose(r->file);
    free(r->line);
}

/* Reads lines until one has fields, skipping blank lines and comments, and cuts it in place.
 * Stores up to `max` fields but returns how many there are, so that the caller can say "found 4".
 * Returns 0 at the end of the file and -1 on a read error. */
static int reader_next(line_reader *r, char **fields, int max)
{
    ssize_t len;
    while ((len = getline(&r->line, &r->cap, r->file)) >= 0) {
        r->lineno++;
        /* A NUL would hide the rest of the line from the string functions below. */
        if (memchr(r->line, '\0', (size_t)len))
            return sb_fail("%s:%ld: the line contains a NUL byte; give a text file", r->path,
                           r->lineno);
        char *hash = strchr(r->line, '#');
        if (hash)
            *hash = '\0';
        int n = 0;
        char *p = r->line;
        for (;;) {
            while (isspace((unsigned char)*p)) /* also the '\r' of CRLF */
                p++;
            if (!*p)
                break;
            if (n < max)
                fields[n] = p;
            n++;
            while (*p && !isspace((unsigned char)*p))
                p++;
            if (*p)
                *p++ = '\0';
        }
        if (n > 0)
            return n;
    }
    if (ferror(r->file))
        return sb_fail("%s:%ld: read error: %s", r->path, r->lineno + 1, strerror(errno));
    return 0;
}

/* A decimal number as strtod reads it, inf and nan included. Hex floats and a leading '+' are
 * refused: the files are plain decimal, and "0x10" meaning 16 would only hide a typo. */
static int parse_number(const char *text, double *value)
{
    if (text[0] == '+' || strpbrk(text, "xX"))
        return -1;
    char *end;
    *value = strtod(text, &end);
    return end != text && *end == '\0' ? 0 : -1;
}

/* Checks one histogram row; `phi_text` and `count_text` are its two fields. */
static int parse_row(const line_reader *r, const char *phi_text, const char *count_text,
                     pc_histogram_row *row)
{
    double phi, count;
    if (parse_number(phi_text, &phi) != 0)
        return sb_fail("%s:%ld: fluorescence '%.40s' is not a number; write a decimal number "
                       "such as 11.14", r->path, r->lineno, phi_text);
    if (parse_number(count_text, &count) != 0 || isnan(count))
        return sb_fail("%s:%ld: count '%.40s' is not a number; write a whole number of cells "
                       "such as 3", r->path, r->lineno, count_text);
    if (count < 0)
        return sb_fail("%s:%ld: count '%.40s' is negative; counts are numbers of cells, >= 0",
                       r->path, r->lineno, count_text);
    if (count > MAX_COUNT)
        return sb_fail("%s:%ld: count '%.40s' is above 2^53; scale the population with the "
                       "replicate parameter instead", r->path, r->lineno, count_text);
    if (count != floor(count))
        return sb_fail("%s:%ld: count '%.40s' is not a whole number; counts are numbers of "
                       "cells (3, 3.0 and 3e2 are fine)", r->path, r->lineno, count_text);
    /* Cytometers export empty bins below zero; only cells that exist need a fluorescence. */
    if (count > 0 && !(isfinite(phi) && phi >= 0))
        return sb_fail("%s:%ld: fluorescence '%.40s' with %.0f cells; counted cells need a "
                       "finite fluorescence >= 0: fix the value or set the count to 0", r->path,
                       r->lineno, phi_text, count);
    row->phi = phi;
    row->count = (uint64_t)count;
    return 0;
}

int pc_parse_histogram(const char *path, pc_histogram_row **rows, int *nrows)
{
    line_reader r;
    if (reader_open(&r, path) != 0)
        return -1;
    pc_histogram_row *list = NULL;
    int n = 0, cap = 0, nfields;
    char *fields[2];
    while ((nfields = reader_next(&r, fields, 2)) > 0) {
        if (nfields != 2) {
            sb_fail("%s:%ld: expected 2 fields 'fluorescence count', found %d; write one row "
                    "per line, e.g. '11.14 3'", path, r.lineno, nfields);
            goto fail;
        }
        if (n == cap) {
            if (cap > INT_MAX / 2) {
                sb_fail("%s:%ld: more than %d rows; merge bins", path, r.lineno, INT_MAX / 2);
                goto fail;
            }
            int grown = cap ? 2 * cap : 1024;
            pc_histogram_row *bigger = realloc(list, (size_t)grown * sizeof *list);
            if (!bigger) {
                sb_fail("%s:%ld: out of host memory for %d rows", path, r.lineno, grown);
                goto fail;
            }
            list = bigger;
            cap = grown;
        }
        if (parse_row(&r, fields[0], fields[1], &list[n]) != 0)
            goto fail;
        n++;
    }
    if (nfields < 0)
        goto fail;
    if (n == 0) {
        sb_fail("%s: no data rows; a histogram has lines 'fluorescence count', e.g. '11.14 3'",
                path);
        goto fail;
    }
    reader_close(&r);
    *rows = list;
    *nrows = n;
    return 0;

fail:
    reader_close(&r);
    free(list);
    return -1;
}

/* Sets type j; cum is the running sum of proportions in order. A quiescent type (mean inf) is
 * flagged and keeps mean and sd at 0, so that no infinity reaches the arithmetic. */
static void set_type(pc_rules *rules, int j, double proportion, double mean, double sd)
{
    rules->cum[j] = (j > 0 ? rules->cum[j - 1] : 0.0) + proportion;
    rules->quiescent[j] = isinf(mean) != 0;
    rules->mean[j] = rules->quiescent[j] ? 0.0 : mean;
    rules->sd[j] = rules->quiescent[j] ? 0.0 : sd;
}

/* Checks one line 'proportion mean stddev' and sets it as type j. */
static int parse_type(const line_reader *r, char **fields, pc_rules *types, int j)
{
    double proportion, mean, sd;
    if (parse_number(fields[0], &proportion) != 0 || !(proportion >= 0 && proportion <= 1))
        return sb_fail("%s:%ld: proportion '%.40s' is not a number in [0, 1]; write the "
                       "fraction of initial cells of this type", r->path, r->lineno, fields[0]);
    int mean_ok = parse_number(fields[1], &mean) == 0;
    int sd_ok = parse_number(fields[2], &sd) == 0;
    if (mean_ok && sd_ok && mean == -1 && sd == -1) /* ProCell's other way to say quiescent */
        mean = INFINITY;
    if (!mean_ok || !(mean > 0))
        return sb_fail("%s:%ld: mean '%.40s' is not a number of hours > 0; for a quiescent "
                       "type write inf (or -1 -1 for mean and stddev)", r->path, r->lineno,
                       fields[1]);
    if (!sd_ok || (!isinf(mean) && !(isfinite(sd) && sd >= 0)))
        return sb_fail("%s:%ld: stddev '%.40s' is not a finite number >= 0; write the spread "
                       "of the division time in hours (any number for a quiescent type)",
                       r->path, r->lineno, fields[2]);
    set_type(types, j, proportion, mean, sd);
    return 0;
}

int pc_parse_types(const char *path, pc_rules *rules)
{
    line_reader r;
    if (reader_open(&r, path) != 0)
        return -1;
    /* Filled aside so that a failed parse leaves `rules` as it was. */
    pc_rules types = {0};
    int nfields;
    char *fields[3];
    while ((nfields = reader_next(&r, fields, 3)) > 0) {
        if (nfields != 3) {
            sb_fail("%s:%ld: expected 3 fields 'proportion mean stddev', found %d; e.g. "
                    "'0.86 46.0 26.4', or '0.14 inf 0' for a quiescent type", path, r.lineno,
                    nfields);
            goto fail;
        }
        if (types.ntypes == PC_MAX_TYPES) {
            sb_fail("%s:%ld: more than %d cell types; merge types or raise PC_MAX_TYPES", path,
                    r.lineno, PC_MAX_TYPES);
            goto fail;
        }
        if (parse_type(&r, fields, &types, types.ntypes) != 0)
            goto fail;
        types.ntypes++;
    }
    if (nfields < 0)
        goto fail;
    reader_close(&r);
    if (types.ntypes == 0)
        return sb_fail("%s: no cell types; write lines 'proportion mean stddev', e.g. "
                       "'1.0 46.1 28.9'", path);
    double sum = types.cum[types.ntypes - 1];
    if (fabs(sum - 1.0) > 1e-6)
        return sb_fail("%s: proportions sum to %.9g, not 1 (within 1e-6); make them add up to 1",
                       path, sum);
    rules->ntypes = types.ntypes;
    memcpy(rules->cum, types.cum, sizeof types.cum);
    memcpy(rules->mean, types.mean, sizeof types.mean);
    memcpy(rules->sd, types.sd, sizeof types.sd);
    memcpy(rules->quiescent, types.quiescent, sizeof types.quiescent);
    return 0;

fail:
    reader_close(&r);
    return -1;
}

/* The ProCell models' fitted types (hours), in the order published; mean inf = quiescent. */
static const struct preset {
    const char *name;
    int ntypes;
    double proportion[3], mean[3], sd[3];
} presets[] = {
    {"m1", 1, {1.0}, {46.1}, {28.9}},
    {"m2", 2, {0.86, 0.14}, {46.0, INFINITY}, {26.4, 0}},
    {"m3", 3, {0.06, 0.47, 0.47}, {INFINITY, 63.7, 41.1}, {0, 28.9, 14.3}},
    {"m4", 2, {0.28, 0.72}, {83.9, 44.2}, {26.6, 19.5}},
};

int pc_types_preset(const char *name, pc_rules *rules)
{
    for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++) {
        const struct preset *p = &presets[i];
        if (strcmp(p->name, name) != 0)
            continue;
        rules->ntypes = p->ntypes;
        for (int j = 0; j < p->ntypes; j++)
            set_type(rules, j, p->proportion[j], p->mean[j], p->sd[j]);
        return 1;
    }
    return 0;
}

int pc_types_load(const char *value, pc_rules *rules)
{
    if (pc_types_preset(value, rules))
        return 0;
    FILE *f = fopen(value, "r");
    if (!f) {
        /* "cannot open m9" alone hides that a preset was the likelier meaning */
        int e = errno;
        char names[64] = "";
        for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     presets[i].name);
        return sb_fail("parameter types: '%s' is not a preset (%s) and not a file that opens "
                       "(%s); give a preset, or the path of a file of 'proportion mean stddev' "
                       "lines", value, names, strerror(e));
    }
    fclose(f);
    return pc_parse_types(value, rules);
}

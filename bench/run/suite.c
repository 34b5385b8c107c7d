#include "suite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/lines.h"

/* field with every ${NAME} replaced by the environment's value; NULL (message) when unset. */
static char *expand(const char *path, long number, const char *field)
{
    size_t cap = strlen(field) + 1, len = 0;
    char *out = malloc(cap);
    for (const char *c = field; out && *c;) {
        const char *value = NULL, *end = NULL;
        if (c[0] == '$' && c[1] == '{' && (end = strchr(c, '}'))) {
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)(end - c - 2), c + 2);
            if (!(value = getenv(name))) {
                free(out);
                sb_fail("%s:%ld: ${%s} is not set: export %s (e.g. %s=...) before running the "
                        "suite", path, number, name, name, name);
                return NULL;
            }
        }
        size_t add = value ? strlen(value) : 1;
        if (len + add + 1 > cap) {
            char *grown = realloc(out, cap = 2 * (len + add + 1));
            if (!grown)
                free(out);
            out = grown;
            if (!out)
                break;
        }
        memcpy(out + len, value ? value : c, add);
        len += add;
        c = value ? end + 1 : c + 1;
    }
    if (!out) {
        sb_fail("out of host memory reading %s", path);
        return NULL;
    }
    out[len] = '\0';
    return out;
}

/* "not-gated NAME REASON...": the reason's words joined by single blanks. */
static int add_not_gated(sb_suite *s, long number, char **field, int n)
{
    if (n < 3)
        return sb_fail("%s:%ld: not-gated needs a benchmark (or glob) and the reason: "
                       "not-gated procell/gpu-histogram/* its level moves between processes",
                       s->path, number);
    size_t len = 0;
    for (int i = 2; i < n; i++)
        len += strlen(field[i]) + 1;
    sb_not_gated *g = &s->not_gated[s->n_not_gated];
    g->number = number;
    g->what = strdup(field[1]);
    g->why = malloc(len);
    if (!g->what || !g->why) {
        free(g->what);
        free(g->why);
        return sb_fail("out of host memory reading %s", s->path);
    }
    g->why[0] = '\0';
    for (int i = 2; i < n; i++) {
        strcat(g->why, field[i]);
        if (i + 1 < n)
            strcat(g->why, " ");
    }
    s->n_not_gated++;
    return 0;
}

static int on_line(void *ctx, long number, size_t length, char **field, int n)
{
    sb_suite *s = ctx;
    (void)length;
    if (n == 0)
        return 0;
    if (n > SB_SUITE_MAX_FIELDS)
        return sb_fail("%s:%ld: more than %d words: split the run", s->path, number,
                       SB_SUITE_MAX_FIELDS);
    if (s->n == SB_SUITE_MAX_LINES || s->n_not_gated == SB_SUITE_MAX_LINES)
        return sb_fail("%s:%ld: more than %d lines of one kind in one suite", s->path, number,
                       SB_SUITE_MAX_LINES);
    if (strcmp(field[0], "not-gated") == 0)
        return add_not_gated(s, number, field, n);
    if (field[0][0] == '-')
        return sb_fail("%s:%ld: a line starts with the workload (what follows `stagebench run`), "
                       "not '%s'", s->path, number, field[0]);
    sb_suite_line *l = &s->lines[s->n++];
    l->number = number;
    for (int i = 0; i < n; i++) {
        if (!strcmp(field[i], "--out") || !strncmp(field[i], "--repetitions", 13))
            return sb_fail("%s:%ld: '%s' is the suite's to set (stagebench suite --out, "
                           "--repetitions): take it out of the line", s->path, number, field[i]);
        if (!(l->field[l->n++] = expand(s->path, number, field[i])))
            return -1;
    }
    return 0;
}

void sb_suite_free(sb_suite *s)
{
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < s->lines[i].n; k++)
            free(s->lines[i].field[k]);
    for (int i = 0; i < s->n_not_gated; i++) {
        free(s->not_gated[i].what);
        free(s->not_gated[i].why);
    }
    s->n = s->n_not_gated = 0;
}

int sb_suite_read(sb_suite *s, const char *path)
{
    memset(s, 0, sizeof *s);
    s->path = path;
    char *field[SB_SUITE_MAX_FIELDS + 1];
    if (sb_read_lines(path, field, SB_SUITE_MAX_FIELDS + 1, on_line, s) != 0)
        return -1;
    if (s->n == 0)
        return sb_fail("%s: no runs (a line per run: the arguments of `stagebench run`)", path);
    return 0;
}

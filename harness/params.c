#include "params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/base/error.h"

static int find_index(const sb_params *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->decls[i].name, name) == 0)
            return i;
    return -1;
}

static int choice_allowed(const char *choices, const char *value)
{
    size_t len = strlen(value);
    for (const char *c = choices; *c;) {
        const char *bar = strchr(c, '|');
        size_t n = bar ? (size_t)(bar - c) : strlen(c);
        if (n == len && strncmp(c, value, n) == 0)
            return 1;
        if (!bar)
            break;
        c = bar + 1;
    }
    return 0;
}

static int parse_value(const sb_param_decl *d, const char *text, double *num)
{
    char *end;
    switch (d->type) {
    case SB_PARAM_INT:
        *num = strtod(text, &end);
        if (end == text || *end || *num != floor(*num))
            return sb_fail("parameter %s: '%s' is not a whole number (%s)", d->name, text, d->help);
        break;
    case SB_PARAM_FLOAT:
        *num = strtod(text, &end);
        if (end == text || *end || !isfinite(*num))
            return sb_fail("parameter %s: '%s' is not a number (%s)", d->name, text, d->help);
        break;
    case SB_PARAM_CHOICE:
        if (!choice_allowed(d->choices, text))
            return sb_fail("parameter %s: '%s' is not one of %s", d->name, text, d->choices);
        return 0;
    case SB_PARAM_PATH:
    case SB_PARAM_TEXT_T:
        if (!*text)
            return sb_fail("parameter %s: empty value (%s)", d->name, d->help);
        return 0;
    }
    if (*num < d->min || *num > d->max)
        return sb_fail("parameter %s: %s is outside [%g, %g] (%s)", d->name, text, d->min, d->max,
                       d->help);
    return 0;
}

void sb_params_init(sb_params *p, const sb_param_decl *decls, int n)
{
    memset(p, 0, sizeof *p);
    p->decls = decls;
    p->n = n < SB_MAX_PARAMS ? n : SB_MAX_PARAMS;
    for (int i = 0; i < p->n; i++) {
        if (!decls[i].def)
            continue;
        snprintf(p->v[i].text, sizeof p->v[i].text, "%s", decls[i].def);
        p->v[i].num = strtod(decls[i].def, NULL);
        p->v[i].is_set = 1;
    }
}

int sb_params_set(sb_params *p, const char *name, const char *value)
{
    int i = find_index(p, name);
    if (i < 0) {
        char known[1024] = "";
        for (int k = 0; k < p->n; k++) {
            strncat(known, k ? ", " : "", sizeof known - strlen(known) - 1);
            strncat(known, p->decls[k].name, sizeof known - strlen(known) - 1);
        }
        return sb_fail("unknown parameter '%s'; this workload takes: %s", name, known);
    }
    if (strlen(value) >= SB_PARAM_TEXT)
        return sb_fail("parameter %s: value longer than %d characters", name, SB_PARAM_TEXT - 1);
    double num = 0;
    if (parse_value(&p->decls[i], value, &num) != 0)
        return -1;
    snprintf(p->v[i].text, sizeof p->v[i].text, "%s", value);
    p->v[i].num = num;
    p->v[i].is_set = 1;
    p->v[i].given = 1;
    return 0;
}

int sb_params_assign(sb_params *p, const char *assignment)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment)
        return sb_fail("'%s' is not name=value (e.g. --param t_max=240)", assignment);
    char name[128];
    size_t n = (size_t)(eq - assignment);
    if (n >= sizeof name)
        return sb_fail("parameter name too long in '%s'", assignment);
    memcpy(name, assignment, n);
    name[n] = '\0';
    return sb_params_set(p, name, eq + 1);
}

int sb_param_is_set(const sb_params *p, const char *name)
{
    int i = find_index(p, name);
    return i >= 0 && p->v[i].is_set;
}

const char *sb_param_text(const sb_params *p, const char *name)
{
    int i = find_index(p, name);
    return i < 0 ? "" : p->v[i].text;
}

double sb_param_num(const sb_params *p, const char *name)
{
    int i = find_index(p, name);
    return i < 0 ? 0.0 : p->v[i].num;
}

void sb_params_name(const sb_params *p, char *out, unsigned cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < p->n && len < cap; i++) {
        if (!p->v[i].given)
            continue;
        const char *value = p->v[i].text;
        if (p->decls[i].type == SB_PARAM_PATH && strrchr(value, '/'))
            value = strrchr(value, '/') + 1;
        len += (size_t)snprintf(out + len, cap - len, "%s%s:%s", len ? "/" : "", p->decls[i].name,
                                value);
    }
}

/* Stage 0: the oracle. One thread, one site at a time, written as the rules read: each sweep
 * builds every site's new content from the old lattice (its stayers, then the particles of the -
 * neighbour that move +, then those of the + neighbour that move -); then each site may fire one
 * reaction; then the particles that did not fit are placed. */
#include <stdlib.h>
#include <string.h>

#include "../../harness/error.h"
#include "../../harness/variant.h"
#include "model.h"
#include "rules.h"
#include "table.h"

typedef struct overflow_list {
    uint64_t *e;
    size_t n, cap;
} overflow_list;

static int overflow_push(overflow_list *l, int pass, size_t site, int rank, int sp)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 1024;
        uint64_t *e = realloc(l->e, cap * sizeof *e);
        if (!e)
            return sb_fail("out of host memory for the overflow list");
        l->e = e;
        l->cap = cap;
    }
    l->e[l->n++] = RD_OVF_ENTRY(pass, site, rank, sp);
    return 0;
}

/* Adds sp to s, or to the overflow list when s is full. */
static int add_particle(const rd_model *m, rd_site *s, int sp, int pass, size_t site, int *rank,
                        overflow_list *l)
{
    if (s->n < m->capacity) {
        s->sp[s->n++] = (uint8_t)sp;
        return 0;
    }
    return overflow_push(l, pass, site, (*rank)++, sp);
}

/* The neighbour of site i one step along `axis` in direction dir (-1, +1): 1 and its index when
 * there is one (edges wrap when periodic), else 0. */
static int neighbour(const rd_model *m, size_t i, int axis, int dir, size_t *j)
{
    size_t stride = axis == 0 ? 1 : axis == 1 ? (size_t)m->nx : (size_t)m->nx * m->ny;
    int len = axis == 0 ? m->nx : axis == 1 ? m->ny : m->nz;
    int c = (int)(i / stride % (size_t)len), nc = c + dir;
    if (nc < 0 || nc >= len) {
        if (!m->periodic)
            return 0;
        nc = (nc + len) % len;
    }
    *j = i + ((ptrdiff_t)nc - c) * (ptrdiff_t)stride;
    return 1;
}

/* Where each particle of site u goes in this sweep: -1, 0 or +1. */
static void decide(const rd_model *m, long long step, int axis, size_t u, const rd_site *s,
                   int *dir)
{
    size_t j;
    int type_minus = neighbour(m, u, axis, -1, &j) ? m->types[j] : RD_OUTSIDE;
    int type_plus = neighbour(m, u, axis, +1, &j) ? m->types[j] : RD_OUTSIDE;
    sb_rng_block r = {{0}};
    for (int k = 0; k < s->n; k++) {
        if (k % 4 == 0)
            r = rd_draw(m->seed, step, u, (uint32_t)axis, (uint32_t)(k / 4));
        dir[k] = rd_move(r.v[k % 4], m->threshold[RD_THRESHOLD_INDEX(s->sp[k], s->type, type_minus)],
                         m->threshold[RD_THRESHOLD_INDEX(s->sp[k], s->type, type_plus)]);
    }
}

static int sweep(const rd_model *m, long long step, int axis, const void *from, void *to,
                 overflow_list *l)
{
    for (size_t i = 0; i < m->nsites; i++) {
        rd_site s, next = {0, m->types[i], {0}};
        int dir[RD_MAX_CAPACITY], rank = 0;
        size_t j;
        rd_site_get(m, from, i, &s);
        decide(m, step, axis, i, &s, dir);
        for (int k = 0; k < s.n; k++)
            if (dir[k] == 0 && add_particle(m, &next, s.sp[k], axis, i, &rank, l))
                return -1;
        for (int side = -1; side <= 1; side += 2) {
            if (!neighbour(m, i, axis, side, &j))
                continue;
            rd_site nb;
            rd_site_get(m, from, j, &nb);
            decide(m, step, axis, j, &nb, dir);
            for (int k = 0; k < nb.n; k++)
                if (dir[k] == -side && add_particle(m, &next, nb.sp[k], axis, i, &rank, l))
                    return -1;
        }
        rd_site_put(m, to, i, &next);
    }
    return 0;
}

/* Removes the last particle of species sp from s. */
static void remove_particle(rd_site *s, int sp)
{
    for (int k = s->n - 1; k >= 0; k--)
        if (s->sp[k] == sp) {
            memmove(&s->sp[k], &s->sp[k + 1], (size_t)(s->n - 1 - k));
            s->n--;
            return;
        }
}

static int react(const rd_model *m, const rd_reaction_table *t, long long step, void *lattice,
                 overflow_list *l, uint64_t *fired)
{
    for (size_t i = 0; i < m->nsites; i++) {
        rd_site s;
        rd_site_get(m, lattice, i, &s);
        if (s.n == 0 && !t->has_order0)
            continue;
        int count[RD_MAX_SPECIES + 1] = {0}, rank = 0;
        for (int k = 0; k < s.n; k++)
            count[s.sp[k]]++;
        int r = rd_choose_reaction(t, count, s.type,
                                   rd_draw(m->seed, step, i, RD_PURPOSE_REACTION, 0));
        if (r < 0)
            continue;
        for (int k = 0; k < t->order[r]; k++)
            remove_particle(&s, k == 0 ? t->a[r] : t->b[r]);
        for (int k = 0; k < t->nproducts[r]; k++)
            if (add_particle(m, &s, t->product[r][k], RD_PURPOSE_REACTION, i, &rank, l))
                return -1;
        rd_site_put(m, lattice, i, &s);
        (*fired)++;
    }
    return 0;
}

int rd_reference_run(const rd_model *m, rd_output *out)
{
    size_t bytes = m->nsites * rd_site_bytes(m->format);
    void *cur = out->lattice, *next = malloc(bytes);
    overflow_list l = {0};
    rd_reaction_table t;
    int rc = -1, sample = 0;
    if (!next)
        return sb_fail("out of host memory for a second lattice of %zu sites", m->nsites);
    rd_reaction_table_of(m, &t);
    memcpy(cur, m->lattice0, bytes);
    out->overflow_particles = out->reactions_fired = 0;
    rd_output_count(m, cur, out, sample++);
    for (long long step = 0; step < m->steps; step++) {
        l.n = 0;
        for (int axis = 0; axis < 3; axis++) {
            if (sweep(m, step, axis, cur, next, &l))
                goto done;
            void *swap = cur;
            cur = next;
            next = swap;
        }
        if (react(m, &t, step, cur, &l, &out->reactions_fired) ||
            rd_overflow_resolve(m, cur, l.e, l.n))
            goto done;
        out->overflow_particles += l.n;
        if (sample < out->nsamples && out->sample_step[sample] == step + 1)
            rd_output_count(m, cur, out, sample++);
    }
    if (cur != out->lattice)
        memcpy(out->lattice, cur, bytes);
    rc = 0;
done:
    free(cur == out->lattice ? next : cur);
    free(l.e);
    return rc;
}

/* The harness' view: the model and the output are all it needs. */
typedef struct reference_state {
    const rd_model *m;
    rd_output out;
} reference_state;

static int setup(sb_env *env, const void *model, void **state)
{
    (void)env;
    reference_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail("out of host memory");
    s->m = model;
    if (rd_output_init(&s->out, model)) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

static int run(void *state)
{
    reference_state *s = state;
    return rd_reference_run(s->m, &s->out);
}

static int output(void *state, void *out)
{
    reference_state *s = state;
    rd_output_copy(out, &s->out);
    return 0;
}

static void teardown(void *state)
{
    reference_state *s = state;
    rd_output_free(&s->out);
    free(s);
}

const sb_variant_ops rd_cpu_reference_ops = {setup, run, output, teardown, NULL};

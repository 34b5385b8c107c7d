/* Stage 0: the oracle. One site at a time, written as the rules read: each sweep builds every
 * site's new content from the old lattice (its stayers, then the particles of the - neighbour
 * that move +, then those of the + neighbour that move -); then each site may fire one reaction;
 * then the particles that did not fit are placed. Sites are independent within a pass, so the
 * same code runs over several threads (cpu-openmp) with an overflow list per thread: placement
 * sorts the entries, so the lattice does not depend on the thread count. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
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

/* Moves every entry of `from` to the end of `to`. */
static int overflow_append(overflow_list *to, overflow_list *from)
{
    if (to->n + from->n > to->cap) {
        size_t cap = 2 * to->cap > to->n + from->n ? 2 * to->cap : to->n + from->n;
        uint64_t *e = realloc(to->e, cap * sizeof *e);
        if (!e)
            return sb_fail("out of host memory for the overflow list");
        to->e = e;
        to->cap = cap;
    }
    if (from->n)
        memcpy(to->e + to->n, from->e, from->n * sizeof *from->e);
    to->n += from->n;
    from->n = 0;
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

static int sweep_site(const rd_model *m, long long step, int axis, const void *from, void *to,
                      size_t i, overflow_list *l)
{
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

static int react_site(const rd_model *m, const rd_reaction_table *t, long long step,
                      void *lattice, size_t i, overflow_list *l, uint64_t *fired)
{
    rd_site s;
    rd_site_get(m, lattice, i, &s);
    if (s.n == 0 && !t->has_order0)
        return 0;
    rd_counts count = {{0, 0}};
    int rank = 0;
    for (int k = 0; k < s.n; k++)
        rd_count_add(&count, s.sp[k]);
    int r = rd_choose_reaction(t, &count, s.type, rd_draw(m->seed, step, i, RD_PURPOSE_REACTION, 0));
    if (r < 0)
        return 0;
    for (int k = 0; k < t->order[r]; k++)
        remove_particle(&s, k == 0 ? t->a[r] : t->b[r]);
    for (int k = 0; k < t->nproducts[r]; k++)
        if (add_particle(m, &s, t->product[r][k], RD_PURPOSE_REACTION, i, &rank, l))
            return -1;
    rd_site_put(m, lattice, i, &s);
    (*fired)++;
    return 0;
}

/* One pass over every site (a sweep along axis 0-2, or the reactions for axis 3), over
 * `threads` threads, each with its own overflow list; the lists are then appended to lists[0]. */
static int pass(const rd_model *m, const rd_reaction_table *t, long long step, int axis,
                const void *from, void *to, int threads, overflow_list *lists, uint64_t *fired)
{
    int failed = 0;
    uint64_t done = 0;
#pragma omp parallel num_threads(threads) reduction(+ : done) reduction(| : failed)
    {
        overflow_list *l = &lists[omp_get_thread_num()];
#pragma omp for schedule(static)
        for (size_t i = 0; i < m->nsites; i++)
            if (!failed)
                failed |= axis < 3 ? sweep_site(m, step, axis, from, to, i, l) != 0
                                   : react_site(m, t, step, to, i, l, &done) != 0;
    }
    if (fired)
        *fired += done;
    for (int k = 1; k < threads && !failed; k++)
        failed = overflow_append(&lists[0], &lists[k]) != 0;
    return failed ? -1 : 0;
}

int rd_reference_run_threads(const rd_model *m, rd_output *out, int threads)
{
    size_t bytes = m->nsites * rd_site_bytes(m->format);
    void *cur = out->lattice, *next = malloc(bytes);
    overflow_list *lists = calloc((size_t)threads, sizeof *lists);
    rd_reaction_table t;
    int rc = -1, sample = 0;
    if (!next || !lists) {
        free(next);
        free(lists);
        return sb_fail("out of host memory for a second lattice of %zu sites", m->nsites);
    }
    rd_reaction_table_of(m, &t);
    memcpy(cur, m->lattice0, bytes);
    out->overflow_particles = out->reactions_fired = 0;
    rd_output_count(m, cur, out, sample++);
    for (long long step = 0; step < m->steps; step++) {
        lists[0].n = 0;
        for (int axis = 0; axis < 3; axis++) {
            if (pass(m, &t, step, axis, cur, next, threads, lists, NULL) != 0)
                goto done;
            void *swap = cur;
            cur = next;
            next = swap;
        }
        if (pass(m, &t, step, RD_PURPOSE_REACTION, NULL, cur, threads, lists,
                 &out->reactions_fired) ||
            rd_overflow_resolve(m, cur, lists[0].e, lists[0].n))
            goto done;
        out->overflow_particles += lists[0].n;
        if (sample < out->nsamples && out->sample_step[sample] == step + 1)
            rd_output_count(m, cur, out, sample++);
    }
    if (cur != out->lattice)
        memcpy(out->lattice, cur, bytes);
    rc = 0;
done:
    free(cur == out->lattice ? next : cur);
    for (int k = 0; k < threads; k++)
        free(lists[k].e);
    free(lists);
    return rc;
}

int rd_reference_run(const rd_model *m, rd_output *out)
{
    return rd_reference_run_threads(m, out, 1);
}

/* The harness' view, for this stage and cpu-openmp: the model, a thread count, the output. */
typedef struct reference_state {
    const rd_model *m;
    int threads;
    rd_output out;
} reference_state;

int rd_reference_open(const void *model, int threads, void **state)
{
    reference_state *s = calloc(1, sizeof *s);
    if (!s)
        return sb_fail("out of host memory");
    s->m = model;
    s->threads = threads > 0 ? threads : 1;
    if (rd_output_init(&s->out, model)) {
        free(s);
        return -1;
    }
    *state = s;
    return 0;
}

int rd_reference_state_run(void *state)
{
    reference_state *s = state;
    return rd_reference_run_threads(s->m, &s->out, s->threads);
}

int rd_reference_state_output(void *state, void *out)
{
    reference_state *s = state;
    rd_output_copy(out, &s->out);
    return 0;
}

void rd_reference_state_free(void *state)
{
    reference_state *s = state;
    rd_output_free(&s->out);
    free(s);
}

static int setup(sb_env *env, const void *model, void **state)
{
    (void)env;
    return rd_reference_open(model, 1, state);
}

const sb_variant_ops rd_cpu_reference_ops = {setup, rd_reference_state_run,
                                             rd_reference_state_output, rd_reference_state_free,
                                             NULL};

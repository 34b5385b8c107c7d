/* Synthetic RDME lattices for the GPU tests: any shape, both edge kinds and site formats, a
 * density, reactions of every order, site types with obstacles and transitions. Included by the
 * test files that need it (cmocka must come first). */
#ifndef RDME_FIXTURE_H
#define RDME_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#include "cuda/base/error.h"
#include "variants/rdme/model.h"

typedef struct synthetic {
    int nx, ny, nz, periodic;
    rd_site_format format;
    double density; /* particles per site */
    int reactions;  /* 0: diffusion only */
    int types;      /* 1: cytoplasm only; 3: + a membrane slab with transitions + obstacles */
    long long steps;
} synthetic;

/* Species A B C D E; reactions of every order: 0 -> A, A -> B, B -> A, B + C -> D, D -> B + C,
 * A + A -> E, E -> A + A + C (three products: fills sites). Rates high enough that a few steps
 * fire many of them. */
static inline rd_model *build(const synthetic *c, uint32_t seed)
{
    rd_model *m = calloc(1, sizeof *m);
    rd_model_init(m, c->nx, c->ny, c->nz, 16e-9, 50e-6);
    m->periodic = c->periodic;
    assert_int_equal(rd_model_alloc(m), 0);
    const char *names[] = {"A", "B", "C", "D", "E"};
    for (int i = 0; i < 5; i++)
        assert_true(rd_add_species(m, names[i]) == i + 1);
    int cyto = rd_add_type(m, "cytoplasm");
    rd_set_diffusion(m, 0, cyto, 2.5e-12);
    if (c->types == 3) {
        int mem = rd_add_type(m, "membrane"), wall = rd_add_type(m, "obstacle");
        rd_set_box(m, mem, 0, 0, c->nz / 3, c->nx, c->ny, c->nz / 3 + 2);
        rd_set_box(m, wall, c->nx / 4, 0, 0, c->nx / 4 + 2, c->ny, c->nz); /* a wall across x */
        rd_set_diffusion(m, 0, mem, 1e-12);
        rd_set_diffusion(m, 4, mem, 1e-14);
        rd_set_transition(m, 0, cyto, mem, 2e-12);
        rd_set_transition(m, 0, mem, cyto, 5e-13);
        rd_set_transition(m, 4, mem, cyto, 0); /* D stays on the membrane */
    }
    if (c->reactions) {
        int a[] = {1}, b[] = {2}, bc[] = {2, 3}, d[] = {4}, aa[] = {1, 1}, e[] = {5},
            aac[] = {1, 1, 3};
        assert_int_equal(rd_add_reaction(m, 0, NULL, 1, a, 1e-3, 1u << cyto), 0);
        assert_int_equal(rd_add_reaction(m, 1, a, 1, b, 400, 0), 0);
        assert_int_equal(rd_add_reaction(m, 1, b, 1, a, 300, 0), 0);
        assert_int_equal(rd_add_reaction(m, 2, bc, 1, d, 5e8, 0), 0);
        assert_int_equal(rd_add_reaction(m, 1, d, 2, bc, 500, 0), 0);
        assert_int_equal(rd_add_reaction(m, 2, aa, 1, e, 3e8, 0), 0);
        assert_int_equal(rd_add_reaction(m, 1, e, 3, aac, 800, 0), 0);
    }
    if (rd_model_finish(m, c->format, seed, c->steps, c->steps / 3) != 0)
        fail_msg("model: %s", sb_error());
    uint64_t n = (uint64_t)(c->density * (double)m->nsites);
    for (int sp = 1; sp <= 3; sp++)
        if (rd_place_random(m, sp, n / 3, -1, 0, 0) != 0)
            fail_msg("placement: %s", sb_error());
    snprintf(m->scenario, sizeof m->scenario,
             "%dx%dx%d %s %s, %.2f/site, reactions %s, %d types, seed %u, %lld steps", c->nx,
             c->ny, c->nz, c->periodic ? "periodic" : "reflecting",
             c->format == RD_PACKED32 ? "packed32" : "byte16", c->density,
             c->reactions ? "on" : "off", c->types, seed, c->steps);
    return m;
}

#endif

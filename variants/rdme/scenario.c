/* The paper's experiments as models. Where the paper gives no number the choice is named here
 * (and in the README): rates of the homogeneous reactions, the species of the reactions sweep. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "model.h"

#define NM 1e-9
#define D_CYTOPLASM 2.5e-12 /* m^2/s: the paper's diffusion coefficient */

/* The homogeneous reactions (the paper names them, not their rates): A <-> B at 10/s each way,
 * B + C -> D at 1e7 /(M s) (well below the diffusion limit), D -> B + C at 10/s. */
#define K_AB 10.0
#define K_BA 10.0
#define K_BIND 1e7
#define K_UNBIND 10.0

typedef struct cell_size {
    const char *name;
    double x, y, z; /* micrometres */
} cell_size;

/* The paper's table 1 is not in its text: these are the spec's sizes. */
static const cell_size cells[] = {
    {"ecoli", 1, 1, 2}, {"dividing-ecoli", 1, 1, 4}, {"yeast", 4, 4, 4}, {"rbc", 8, 8, 2}};

static int sites_along(double micrometres, double spacing_nm)
{
    return (int)ceil(micrometres * 1000.0 / spacing_nm - 1e-9);
}

/* tau with q = D tau / lambda^2 just under 1/2 for the cytoplasm: 50 us at 16 nm, 12.5 us at
 * 8 nm, as the paper. */
static double paper_tau(double spacing_nm)
{
    return 50e-6 * (spacing_nm / 16.0) * (spacing_nm / 16.0);
}

static int homogeneous(rd_model *m, const rd_scenario_args *a)
{
    const cell_size *c = NULL;
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++)
        if (strcmp(cells[i].name, a->cell) == 0)
            c = &cells[i];
    if (!c)
        return sb_fail("cell '%s': expected ecoli, dividing-ecoli, yeast or rbc", a->cell);
    double nm = a->spacing_nm;
    rd_model_init(m, sites_along(c->x, nm), sites_along(c->y, nm), sites_along(c->z, nm),
                  nm * NM, paper_tau(nm));
    snprintf(m->scenario, sizeof m->scenario, "homogeneous %s %g nm", c->name, nm);
    if (rd_model_alloc(m))
        return -1;
    int A = rd_add_species(m, "A"), B = rd_add_species(m, "B"), C = rd_add_species(m, "C"),
        D = rd_add_species(m, "D");
    int cyto = rd_add_type(m, "cytoplasm");
    rd_set_diffusion(m, 0, cyto, D_CYTOPLASM);
    int ab[] = {A}, b[] = {B}, bc[] = {B, C}, d[] = {D};
    return rd_add_reaction(m, 1, ab, 1, b, K_AB, 0) || rd_add_reaction(m, 1, b, 1, ab, K_BA, 0) ||
                   rd_add_reaction(m, 2, bc, 1, d, K_BIND, 0) ||
                   rd_add_reaction(m, 1, d, 2, bc, K_UNBIND, 0)
               ? -1
               : 0;
}

/* 64 x 64 x 256 sites of cytoplasm at 16 nm, the paper's test lattice. */
static int paper_lattice(rd_model *m, const char *name, int nspecies)
{
    rd_model_init(m, 64, 64, 256, 16 * NM, paper_tau(16));
    snprintf(m->scenario, sizeof m->scenario, "%s", name);
    if (rd_model_alloc(m))
        return -1;
    for (int i = 0; i < nspecies; i++) {
        char sp[8];
        snprintf(sp, sizeof sp, nspecies == 1 ? "A" : "S%d", i + 1);
        if (rd_add_species(m, sp) < 0)
            return -1;
    }
    rd_set_diffusion(m, 0, rd_add_type(m, "cytoplasm"), D_CYTOPLASM);
    return 0;
}

/* Fig. 7: first-order reactions S_i -> S_i+1 (cyclic over 8 species) at 1/s, added one by one. */
#define REACTION_SPECIES 8
static int reactions(rd_model *m, int nreactions)
{
    if (paper_lattice(m, "reactions", REACTION_SPECIES))
        return -1;
    for (int i = 0; i < nreactions; i++) {
        int from[] = {i % REACTION_SPECIES + 1}, to[] = {(i + 1) % REACTION_SPECIES + 1};
        if (rd_add_reaction(m, 1, from, 1, to, 1.0, 0))
            return -1;
    }
    snprintf(m->scenario, sizeof m->scenario, "reactions %d", nreactions);
    return 0;
}

/* Fig. 8: 128 x 128 x 256 at 16 nm, a plane of slow diffusion (1e-13) across the middle, 1e-12
 * elsewhere. */
static int barrier(rd_model *m)
{
    rd_model_init(m, 128, 128, 256, 16 * NM, paper_tau(16));
    snprintf(m->scenario, sizeof m->scenario, "barrier");
    if (rd_model_alloc(m) || rd_add_species(m, "A") < 0)
        return -1;
    int cyto = rd_add_type(m, "cytoplasm"), wall = rd_add_type(m, "barrier");
    rd_set_box(m, wall, 0, 0, m->nz / 2, m->nx, m->ny, m->nz / 2 + 1);
    rd_set_diffusion(m, 0, cyto, 1e-12);
    rd_set_diffusion(m, 0, wall, 1e-13);
    rd_set_transition(m, 0, cyto, wall, 1e-13);
    rd_set_transition(m, 0, wall, cyto, 1e-13);
    return 0;
}

/* The E. coli Min oscillator (Fange & Elf 2006 rates) in a 4 um x 1 um capsule whose outer
 * 2 sites (32 nm) are membrane; outside the capsule nothing may enter. */
static int min_system(rd_model *m)
{
    const double nm = 16;
    rd_model_init(m, 64, 64, 256, nm * NM, paper_tau(nm));
    snprintf(m->scenario, sizeof m->scenario, "min-system");
    if (rd_model_alloc(m))
        return -1;
    int outside = rd_add_type(m, "extracellular"), cyto = rd_add_type(m, "cytoplasm"),
        mem = rd_add_type(m, "membrane");
    (void)outside;
    int d_atp = rd_add_species(m, "MinD-ATP"), d_adp = rd_add_species(m, "MinD-ADP"),
        e = rd_add_species(m, "MinE"), dm = rd_add_species(m, "MinDm"),
        dem = rd_add_species(m, "MinDEm");
    double radius = 0.5e3 / nm, length = 4e3 / nm; /* sites */
    rd_set_capsule(m, radius, length, cyto, 2, mem);
    /* Cytosolic species diffuse everywhere in the cell and cross the membrane both ways; the
     * membrane-bound ones move slowly and never leave it. */
    int cytosolic[] = {d_atp, d_adp, e};
    for (int i = 0; i < 3; i++) {
        rd_set_diffusion(m, cytosolic[i], cyto, D_CYTOPLASM);
        rd_set_diffusion(m, cytosolic[i], mem, D_CYTOPLASM);
        rd_set_transition(m, cytosolic[i], cyto, mem, D_CYTOPLASM);
        rd_set_transition(m, cytosolic[i], mem, cyto, D_CYTOPLASM);
    }
    rd_set_diffusion(m, dm, mem, 1e-14);
    rd_set_diffusion(m, dem, mem, 1e-14);
    uint16_t on_mem = (uint16_t)(1u << mem), in_cell = (uint16_t)(1u << cyto | 1u << mem);
    /* Membrane binding: 0.0125 um/s over one site of depth lambda = 0.0125 / 0.016 = 0.78/s. */
    double k_bind = 0.0125e-6 / (nm * NM);
    int r_adp[] = {d_adp}, r_atp[] = {d_atp}, r_dm[] = {dm}, p_2dm[] = {dm, dm},
        r_atp_dm[] = {d_atp, dm}, r_dm_e[] = {dm, e}, r_dem[] = {dem}, p_e_adp[] = {e, d_adp};
    if (rd_add_reaction(m, 1, r_adp, 1, r_atp, 0.5, in_cell) ||
        rd_add_reaction(m, 1, r_atp, 1, r_dm, k_bind, on_mem) ||
        rd_add_reaction(m, 2, r_atp_dm, 2, p_2dm, 9e6, on_mem) ||
        rd_add_reaction(m, 2, r_dm_e, 1, r_dem, 5.56e7, on_mem) ||
        rd_add_reaction(m, 1, r_dem, 2, p_e_adp, 0.7, on_mem))
        return -1;
    return 0;
}

/* Places the scenario's particles (after finish: placement needs the site format). */
static int place(rd_model *m, const rd_scenario_args *a)
{
    const char *s = a->scenario;
    if (strcmp(s, "homogeneous") == 0) {
        /* 0.08 particles per site (the paper's 80,000 on 64 x 64 x 256), a quarter of each */
        uint64_t total = a->particles >= 0 ? (uint64_t)a->particles
                                           : (uint64_t)llround(0.08 * (double)m->nsites);
        for (int sp = 1; sp <= 4; sp++)
            if (rd_place_random(m, sp, total / 4 + (sp <= (int)(total % 4)), -1, 0, 0))
                return -1;
        return 0;
    }
    if (strcmp(s, "particles") == 0)
        return rd_place_random(m, 1, a->particles >= 0 ? (uint64_t)a->particles : 80000, -1, 0,
                               0);
    if (strcmp(s, "reactions") == 0) {
        uint64_t total = a->particles >= 0 ? (uint64_t)a->particles : 100000;
        for (int sp = 1; sp <= REACTION_SPECIES; sp++)
            if (rd_place_random(m, sp,
                                total / REACTION_SPECIES + (sp <= (int)(total % REACTION_SPECIES)),
                                -1, 0, 0))
                return -1;
        return 0;
    }
    if (strcmp(s, "barrier") == 0)
        return rd_place_random(m, 1, a->particles >= 0 ? (uint64_t)a->particles : 500000, -1,
                               m->nz * 3 / 4, m->nz);
    /* min-system: the published initial counts, in the cytoplasm */
    int cyto = rd_find_type(m, "cytoplasm");
    return rd_place_random(m, rd_find_species(m, "MinD-ATP"), 1758, cyto, 0, 0) ||
                   rd_place_random(m, rd_find_species(m, "MinD-ADP"), 1758, cyto, 0, 0) ||
                   rd_place_random(m, rd_find_species(m, "MinE"), 914, cyto, 0, 0)
               ? -1
               : 0;
}

int rd_build_scenario(rd_model *m, const rd_scenario_args *a, rd_site_format format,
                      uint32_t seed, long long steps, long long sample_steps)
{
    const char *s = a->scenario;
    rd_model_init(m, 0, 0, 0, 0.0, 0.0); /* freeable whatever fails below */
    if (strcmp(s, "file") == 0)
        return rd_parse_model(m, a->model_path, format, seed, steps, sample_steps);
    if (strcmp(s, "homogeneous") != 0 && a->spacing_nm != 16)
        return sb_fail("spacing=%g: only scenario=homogeneous takes a spacing (the paper's other "
                       "experiments are at 16 nm)",
                       a->spacing_nm);
    int rc = strcmp(s, "homogeneous") == 0 ? homogeneous(m, a)
             : strcmp(s, "particles") == 0 ? paper_lattice(m, "particles", 1)
             : strcmp(s, "reactions") == 0 ? reactions(m, a->reactions >= 0 ? a->reactions : 1)
             : strcmp(s, "barrier") == 0   ? barrier(m)
             : strcmp(s, "min-system") == 0
                 ? min_system(m)
                 : sb_fail("scenario '%s': expected homogeneous, particles, reactions, barrier, "
                           "min-system or file",
                           s);
    if (rc || rd_model_finish(m, format, seed, steps, sample_steps) || place(m, a)) {
        rd_model_free(m);
        return -1;
    }
    return 0;
}

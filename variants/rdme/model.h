/* RDME by multiparticle diffusion (Lattice Microbes' MPD-RDME): the model every variant sees.
 * See ../shared/spec/rdme.md. The rules that decide one particle's move and one site's reaction
 * live in rules.h, shared by the CPU reference and the kernels. */
#ifndef RD_MODEL_H
#define RD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RD_MAX_SPECIES 15   /* species 1..15; 0 is an empty slot (4 bits in the packed site) */
#define RD_MAX_TYPES 16     /* site types 0..15 (4 bits) */
#define RD_MAX_REACTIONS 64
#define RD_MAX_PRODUCTS 4
#define RD_MAX_NAME 32
#define RD_MAX_CAPACITY 16

#define RD_AVOGADRO 6.02214076e23

/* How a site is stored. packed32: the paper's word, 7 slots x 4 bits (bits 0..27, slot k at 4k)
 * + the site type in bits 28..31. byte16: beyond the paper, 16 slots of one byte in 4 words
 * (uint4; slot k is byte k), the types in a separate byte per site. Either way the particles of
 * a site sit in slots 0..n-1 (0 ends the list). */
typedef enum rd_site_format { RD_PACKED32, RD_BYTE16 } rd_site_format;

/* Randomness purposes: the third word of a draw's counter. */
enum { RD_PURPOSE_X, RD_PURPOSE_Y, RD_PURPOSE_Z, RD_PURPOSE_REACTION, RD_PURPOSE_PLACEMENT };

typedef struct rd_reaction {
    int nreactants;                    /* order: 0, 1 or 2 */
    uint8_t reactant[2];               /* species ids */
    int nproducts;
    uint8_t product[RD_MAX_PRODUCTS];
    double k;                          /* order 0: M/s; 1: 1/s; 2: 1/(M s) */
    uint16_t where;                    /* bit t: may fire in sites of type t */
} rd_reaction;

typedef struct rd_model {
    char scenario[128]; /* how it was built: "homogeneous dividing-ecoli 8 nm", a file path... */
    int nx, ny, nz;
    size_t nsites;     /* nx * ny * nz; site index x + nx * (y + ny * z) */
    double spacing;    /* lambda, m */
    double tau;        /* time step, s */
    int periodic;      /* 0: edges reflect (a move out of the lattice is refused) */
    int nspecies;
    char species[RD_MAX_SPECIES + 1][RD_MAX_NAME]; /* [1..nspecies] */
    int ntypes;
    char type_names[RD_MAX_TYPES][RD_MAX_NAME];
    /* m^2/s: within a type ([sp][t][t]) and for a move from one type into another ([sp][a][b],
     * the transition; 0 = forbidden). An obstacle type has zero in every entry into it. */
    double diffusion[RD_MAX_SPECIES + 1][RD_MAX_TYPES][RD_MAX_TYPES];
    int nreactions;
    rd_reaction reactions[RD_MAX_REACTIONS];
    uint8_t *types;    /* nsites */
    uint64_t nparticles_placed;

    /* Run settings. */
    rd_site_format format;
    int capacity;      /* 7 or 16 */
    uint32_t seed;
    long long steps;
    long long sample_steps; /* counts are sampled every sample_steps (0: only start and end) */

    /* Derived by rd_model_finish: what the kernels read. */
    /* threshold[RD_THRESHOLD_INDEX(sp, from, to)] = floor(q * 2^32), q = D tau / lambda^2 <= 0.5
     * for one direction; `to` runs one past the types: the outside of a reflecting edge, 0. */
    uint32_t threshold[(RD_MAX_SPECIES + 1) * RD_MAX_TYPES * (RD_MAX_TYPES + 1)];
    double rate[RD_MAX_REACTIONS]; /* per-site stochastic constant c: propensity = c * h(n) */
    int has_order0;                /* an empty site can react */

    /* The initial lattice in the model's format: 4 bytes (packed32) or 16 bytes (byte16) per
     * site. */
    void *lattice0;
} rd_model;

/* What every variant must reproduce bit for bit. Samples are taken at step 0, every
 * sample_steps, and after the last step. */
typedef struct rd_output {
    size_t nsites;
    int site_bytes;
    void *lattice;               /* final lattice, model's format */
    int nsamples, nspecies, nz;
    long long *sample_step;      /* nsamples */
    uint64_t *counts;            /* nsamples x (nspecies + 1); [.][0] = all particles */
    uint32_t *plane_counts;      /* nsamples x nz x (nspecies + 1): per z-plane */
    uint64_t overflow_particles; /* particles that did not fit and were placed elsewhere */
    uint64_t reactions_fired;
} rd_output;

/* ---- building a model (model.c) ---- */
void rd_model_init(rd_model *m, int nx, int ny, int nz, double spacing, double tau);
/* id of a new species / site type; -1 (with sb_fail) on too many or a duplicate name. */
int rd_add_species(rd_model *m, const char *name);
int rd_add_type(rd_model *m, const char *name);
int rd_find_species(const rd_model *m, const char *name); /* -1 when unknown */
int rd_find_type(const rd_model *m, const char *name);
/* Diffusion of sp (0: every species) within type t, or from type a into type b. */
void rd_set_diffusion(rd_model *m, int sp, int t, double d);
void rd_set_transition(rd_model *m, int sp, int from, int to, double d);
/* Reactants 0..2, products 0..RD_MAX_PRODUCTS, k in physical units, where = type mask (0: all). */
int rd_add_reaction(rd_model *m, int nreactants, const int *reactants, int nproducts,
                    const int *products, double k, uint16_t where);
/* Site types: a box [x0,x1) x [y0,y1) x [z0,z1) (clipped), or a capsule along z centred in the
 * lattice (radius and length in sites) with an outer shell of `shell` sites of type shell_type. */
void rd_set_box(rd_model *m, int type, int x0, int y0, int z0, int x1, int y1, int z1);
void rd_set_capsule(rd_model *m, double radius, double length, int inner_type, int shell,
                    int shell_type);
/* Allocates the types (type 0 everywhere). */
int rd_model_alloc(rd_model *m);
/* Chooses the format (capacity), checks every q <= 0.5, fills the derived tables and allocates
 * an empty initial lattice. Errors name the offending species/type and the fix. */
int rd_model_finish(rd_model *m, rd_site_format format, uint32_t seed, long long steps,
                    long long sample_steps);
/* After finish: `count` particles of sp on uniformly drawn sites of type t (-1: any type that
 * sp may occupy), keyed on (seed, placement); a full site draws again. */
int rd_place_random(rd_model *m, int sp, uint64_t count, int t, int z0, int z1);
/* One particle at (x, y, z); error if the site is full or out of the lattice. */
int rd_place_at(rd_model *m, int sp, int x, int y, int z);
void rd_model_free(rd_model *m);

size_t rd_site_bytes(rd_site_format f);
/* Device-memory bytes of one pass over the lattice: every site read and written once (plus the
 * separate types for byte16). A step is at least one pass (the problem's floor); the paper's
 * stages make four (three sweeps and the reactions), gpu-fused fewer (rd_mgpu's passes). */
double rd_pass_bytes(const rd_model *m);

/* ---- the unpacked view of one site (host code: CPU reference, placement, output) ---- */
typedef struct rd_site {
    int n, type;
    uint8_t sp[RD_MAX_CAPACITY];
} rd_site;
void rd_site_get(const rd_model *m, const void *lattice, size_t i, rd_site *s);
void rd_site_put(const rd_model *m, void *lattice, size_t i, const rd_site *s);

/* ---- outputs ---- */
int rd_output_init(rd_output *o, const rd_model *m);
void rd_output_free(rd_output *o);
void rd_output_copy(rd_output *dst, const rd_output *src); /* same model */
int rd_output_nsamples(const rd_model *m);
long long rd_output_sample_step(const rd_model *m, int k);
/* Counts of sample k from a lattice (host). */
void rd_output_count(const rd_model *m, const void *lattice, rd_output *o, int k);
/* Every sample's species counts from its per-z-plane counts (o->plane_counts). */
void rd_output_counts_from_planes(const rd_model *m, rd_output *o);

/* ---- overflow (overflow.c): particles that did not fit, resolved after a step ---- */
/* An entry orders as (pass, site, rank within the site) when compared as an integer. */
#define RD_OVF_ENTRY(pass, site, rank, sp)                                                        \
    (((uint64_t)(pass) << 56) | ((uint64_t)(site) << 16) | ((uint64_t)(rank) << 8) | (uint64_t)(sp))
#define RD_OVF_PASS(e) ((int)((e) >> 56))
#define RD_OVF_SITE(e) ((size_t)(((e) >> 16) & 0xffffffffffull))
#define RD_OVF_SPECIES(e) ((int)((e) & 0xff))
/* Sorts the entries and places each particle, in order, in the nearest site of the origin's type
 * with room (the origin first, then Chebyshev shells; in a shell z, then y, then x ascending).
 * -1 when a particle finds no room anywhere. */
int rd_overflow_resolve(const rd_model *m, void *lattice, uint64_t *entries, size_t n);

/* ---- the CPU reference (cpu-reference.c): the oracle, also run directly by the tests ---- */
int rd_reference_run(const rd_model *m, rd_output *out);
/* The same over `threads` OpenMP threads (cpu-openmp): the same output, bit for bit. */
int rd_reference_run_threads(const rd_model *m, rd_output *out, int threads);

/* ---- scenarios (scenario.c) and the model file (parse.c) ---- */
typedef struct rd_scenario_args {
    const char *scenario; /* homogeneous, particles, reactions, barrier, min-system, file */
    const char *model_path;
    const char *cell;     /* ecoli, dividing-ecoli, yeast, rbc */
    double spacing_nm;
    long long particles;  /* -1: the scenario's default */
    int reactions;        /* -1: the scenario's default */
} rd_scenario_args;
/* Builds geometry, species, rates and placement; the caller's format/seed/steps go to finish
 * first, since placement needs the format. */
int rd_build_scenario(rd_model *m, const rd_scenario_args *a, rd_site_format format,
                      uint32_t seed, long long steps, long long sample_steps);
int rd_parse_model(rd_model *m, const char *path, rd_site_format format, uint32_t seed,
                   long long steps, long long sample_steps);

#ifdef __cplusplus
}
#endif

#endif

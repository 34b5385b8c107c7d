/* Tumour growth and angiogenesis by particle dynamics: the model every variant sees. See
 * ../shared/spec/angio.md. Spherical cells and tube segments (vessels) off grid, cell lists in
 * boxes, a force law and an oxygen/TAF exchange that are this suite's (the paper gives the
 * algorithms, not the laws: physics.h). Lengths in micrometres, time in minutes, oxygen and TAF
 * in units of the blood's oxygen level. */
#ifndef AG_MODEL_H
#define AG_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Cell states (the paper's life cycle). */
enum { AG_NEW, AG_MATURE, AG_HYPOXIC, AG_DEAD, AG_NSTATES };

/* Randomness purposes (third word of a draw's counter). */
enum { AG_PURPOSE_PLACE, AG_PURPOSE_DIVIDE, AG_PURPOSE_TUBE };

/* Every constant of the laws, each a workload parameter of the same name (workload.c says what
 * each one is and its default). */
typedef struct ag_laws {
    float k_c;        /* interaction range: pairs interact below k_c (r_i + r_j) */
    float k_rep;      /* repulsion stiffness, force per overlap */
    float k_adh;      /* adhesion stiffness, inside the range but apart */
    float d_c, d_a;   /* oxygen and TAF exchange rate between touching cells */
    float k_s;        /* oxygen supply rate from a tube */
    float k_u;        /* TAF uptake rate by a tube */
    float gamma;      /* drag: velocity = F / gamma */
    float dt;         /* time step */
    float consumption, production, decay; /* oxygen use, TAF made when hypoxic, TAF decay */
    float t_mature;   /* age at which a New cell becomes Mature */
    float c_div;      /* a Mature cell with at least this oxygen divides */
    float c_hyp;      /* below this oxygen a cell is Hypoxic */
    float c_dead;     /* below this oxygen for t_dead a cell dies */
    float t_dead;
} ag_laws;

/* One cell, as the CPU model holds it (array of structures, as the paper's CPU code). The
 * interaction results of the step (f, dc, da, p) are kept for validation. */
typedef struct ag_cell {
    uint32_t id;
    int state;
    float x[3], r;
    float c, a;          /* oxygen, TAF */
    float age, t_low;    /* time since birth, time spent below c_dead */
    float f[3], dc, da, p; /* this step's force, exchange rates and pressure */
} ag_cell;

/* A tube: a vessel segment from p0 to p1, radius r0 to r1, its blood's oxygen, the TAF it has
 * taken up. Tubes are static in every scenario (tube growth and blood flow are not modelled). */
typedef struct ag_tube {
    float p0[3], p1[3], r0, r1;
    float cb;
    float taf;
} ag_tube;

typedef struct ag_model {
    char scenario[160];
    ag_laws laws;
    float side;            /* the domain is the cube [0, side)^3; cells are kept inside */
    int nbox;              /* boxes per axis; box edge = side / nbox >= the largest range */
    float box_edge;
    float r_max;           /* largest cell radius (cells keep their radius) */
    float tube_r_max;      /* largest tube radius */
    uint32_t seed;
    long long steps;
    int ncells;            /* at the start */
    int max_cells;         /* the population may not exceed this (arrays on the GPU) */
    int ntubes;
    ag_cell *cells;        /* ncells, ids 0..ncells-1 in order */
    ag_tube *tubes;        /* ntubes */
} ag_model;

/* What every variant returns after `steps` steps: the cells in id order with their state and
 * the last step's interaction results, each tube's TAF, the population by state, and the pairs
 * that interacted (over the run). */
typedef struct ag_output {
    int ncells, ntubes, capacity;
    ag_cell *cells;       /* capacity; the first ncells are valid, ascending id */
    float *tube_taf;      /* ntubes */
    long long count[AG_NSTATES];
    long long cell_pairs; /* cell-cell pairs within range, summed over the steps */
    long long tube_pairs; /* tube-cell pairs within range, summed over the steps */
    long long divisions, deaths;
} ag_output;

/* ---- model.c ---- */
/* Box of a coordinate (clamped into the domain). */
int ag_box_of(const ag_model *m, float x);
/* Sets side, nbox and box_edge for a domain of side `side` (ranges from the laws and radii). */
int ag_model_set_domain(ag_model *m, float side);
void ag_model_free(ag_model *m);

/* ---- scenario.c ---- */
/* The scenarios, after m->laws and m->seed are set. Cells of one radius at `density`
 * neighbours within range on average. random-cells: uniform in a cube. tubes: the same and
 * ntubes random straight tubes. tumour: a spheroid at the centre of a cube and nvessels
 * straight vessels along z on a square grid, each a chain of tubes. */
int ag_build_random_cells(ag_model *m, int ncells, float radius, float density);
int ag_build_tubes(ag_model *m, int ncells, float radius, float density, int ntubes);
int ag_build_tumour(ag_model *m, int ncells, float radius, float density, int nvessels);

/* ---- state.c: a saved state, so users can benchmark their own configuration ---- */
int ag_state_read(ag_model *m, const char *path);
int ag_state_write(const ag_model *m, const char *path);

#ifdef __cplusplus
}
#endif

#endif

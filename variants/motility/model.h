/* The micro-macro model of a gliding motility assay: the model every variant sees. See
 * ../shared/spec/motility.md and the paper (micro-macro-motility). Non-dimensional grid units:
 * outer cell h = 1, time in units of a motor's walk over one h at v = 1.
 *
 * Microscale (the paper's): for every motor tail r0 of the outer grid, the density M_b of motor
 * heads bound to a filament of centre x = r0 + d (d in a window of (2W+1)^2 cells), orientation
 * theta and arclength s; the free motors M_f(r0); M_tot(r0) given. Macroscale (this suite's
 * stand-in with the paper's computational shape, physics.h and fluid.c say how): the filament
 * density Psi(x, theta), the motor force F(x), the fluid velocity u(x) of N_z layers.
 *
 * Storage (every stage's, so the GPU stages can take it as it is):
 *   outer cell c = i + N_o j (i along x, j along y; a row of tails is one j);
 *   Psi[c * N_i + k]                                       theta innermost;
 *   M_b[((r0 * window + w) * N_i + k) * N_i + m]           s innermost (the paper's reorder),
 *       w = (dy + W) (2W + 1) + (dx + W) the window cell of the centre x = r0 + (dx, dy);
 *   vector and tensor fields as planes: F[a * N_o^2 + c], a = x, y; u likewise per layer. */
#ifndef MM_MODEL_H
#define MM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest inner resolution: a stage may keep an s-line on its stack. */
#define MM_MAX_INNER 64
/* Largest window: W <= 6 within the ranges of ell and r_c (workload.c). */
#define MM_MAX_WINDOW (13 * 13)

/* Randomness purposes (third word of a draw's counter). */
enum { MM_PURPOSE_PSI };

/* Every constant of the laws, each a workload parameter of the same name (workload.c says what
 * each one is, its default and why). */
typedef struct mm_laws {
    double ell;       /* filament length */
    double r_c;       /* capture radius of a motor's stalk */
    double v;         /* motor walking speed along s (towards the plus end, s = +ell/2) */
    double k_on;      /* binding rate of a free motor to a feasible configuration */
    double k_off;     /* unbinding rate */
    double cfl;       /* C: inner step <= C ds / v */
    double c;         /* inner step <= c / (k_on A(r0) + k_off), A the binding capacity */
    double f0;        /* motor force per bound motor (eq. 10), signed */
    double v_glide;   /* V: filament gliding speed where every motor is bound */
    double d_t, d_r;  /* translational and rotational diffusion of filaments */
    double cfl_outer; /* outer step <= cfl_outer / the largest outflow rate of a Psi cell */
    double dt_max;    /* outer step cap (while the fluid is still) */
    double mu;        /* viscosity */
    double kappa;     /* screening of the filament layer (layer 0) */
    double stress;    /* coefficient of the extra stress's divergence in the fluid's forcing */
} mm_laws;

typedef struct mm_model {
    char scenario[160];
    mm_laws laws;
    int n_outer;     /* N_o: outer cells a side */
    int n_inner;     /* N_i: orientations and arclength cells */
    int half;        /* W = ceil(ell / 2 + r_c) */
    int side;        /* 2W + 1 */
    int window;      /* (2W + 1)^2 centres a tail can reach */
    int layers;      /* N_z */
    long long steps; /* outer steps */
    int global_dt;   /* 1: one inner step for every r0, the smallest (the original rule) */
    int ab2;         /* 1: Adams-Bashforth 2 (the original integrator); 0: RK2 (Heun) */
    double rtol;     /* relative tolerance of fp64 stages against the reference */
    double rtol_mixed_bound, rtol_mixed; /* mixed-precision stages: on M_b; on the rest */
    uint32_t seed;
    double ds, dtheta;
    double *cos_theta, *sin_theta; /* n_inner: p(theta_k) */
    double *cos_face, *sin_face;   /* n_inner: p at theta_k + dtheta / 2 (the theta faces) */
    double *s_mid;                 /* n_inner: s_m = -ell/2 + (m + 1/2) ds */
    /* Line (w, k) of a tail's M_b: its feasible s cells are [first, end) (one run: |d + s p|^2
     * is convex in s); first == end when the line never meets the capture disc, and its motors
     * stay zero. window * n_inner each. */
    int *line_first, *line_end;
    double *kappa_layer; /* layers: screening of each fluid layer */
    double *psi0;        /* n_outer^2 * n_inner: initial Psi */
    double *m_tot;       /* n_outer^2: motors per tail */
} mm_model;

/* What every variant returns after `steps` outer steps. */
typedef struct mm_output {
    size_t cells, bound;                          /* n_outer^2; entries of M_b */
    size_t psi_size;                              /* n_outer^2 * n_inner */
    double *m_b, *coarse, *m_f, *force, *psi, *u; /* force and u: 2 planes (u: layer 0) */
    double t;                                     /* model time reached */
    long long inner_steps; /* inner steps summed over the tails and the outer steps */
    int mixed;             /* M_b, M_f and the coarse sum computed in fp32 (mixed precision) */
} mm_output;

/* ---- model.c ---- */
/* Sets the grid facts (W, the window, the tables, every line's feasible run, the layers'
 * screening) from n_outer, n_inner, layers and the laws; fails naming the parameter to change. */
int mm_model_set_grid(mm_model *m);
void mm_model_free(mm_model *m);
/* Bytes of one fp64 copy of M_b. */
double mm_bound_bytes(const mm_model *m);

/* ---- scenario.c ---- */
/* Initial Psi (psi0) and M_tot: `rings` (a lattice of overlapping filament rings, the paper's
 * fig. 6) or `random` (keyed on seed); mean filaments per unit area `density`, `motors` per tail.
 */
int mm_build_rings(mm_model *m, double density, double ring_radius, double motors);
int mm_build_random(mm_model *m, double density, double motors);

/* ---- state.c: a saved state (STATE-FORMAT.md), so users can benchmark their own Psi ---- */
/* The grid, psi0 and m_tot from the file, the grid's tables set for m's laws (mm_model_set_grid);
 * m holds no grid yet, and on failure holds none again. */
int mm_state_read(mm_model *m, const char *path);
/* Writes m's grid, psi0 and m_tot, replacing the file atomically. */
int mm_state_write(const mm_model *m, const char *path);

#ifdef __cplusplus
}
#endif

#endif

/* The simulation as the host holds it, and the CPU stages' outer step (algorithm 1): Psi to
 * t + dt, every tail's motors to t + dt (algorithm 2), the motor force, the extra stress and the
 * fluid. One code for both CPU stages: cpu-reference runs it on one thread and scatters the force
 * tail by tail straight into the grid; cpu-openmp shares the loops over rows of tails and over
 * outer cells among its threads and sums the force per row of tails ("banded"), the rows then
 * added in order. */
#ifndef MM_HOST_H
#define MM_HOST_H

#include "../../harness/variant.h"
#include "fluid.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mm_sim {
    const mm_model *m;
    int threads;
    double t;                    /* model time */
    long long inner_steps;       /* inner steps summed over the tails */
    double *psi, *psi_next;      /* n_outer^2 * n_inner */
    double *m_b;                 /* n_outer^2 * window * n_inner^2 */
    double *rate_prev;           /* AB2 only (else NULL): each entry's rate at its last step */
    double *dt_prev;             /* AB2 only: each tail's last inner step (0: none yet) */
    double *m_f, *coarse, *beta; /* per tail: free, bound (coarse) and bound fraction */
    double *force;               /* 2 planes */
    double *sigma;               /* 3 planes: xx, xy, yy */
    int band_reach;              /* B: a tail's force lands within B rows of its own */
    double *bands;               /* banded: each tail row's force, rows j-B..j+B, 2 planes */
    mm_fluid fluid;              /* u lives here (layer 0 drives Psi) */
} mm_sim;

/* host_micro 0: a GPU stage's macroscale, whose M_b lives on the device (no host M_b). */
int mm_sim_open(mm_sim *s, const mm_model *m, int threads, int banded, int host_micro);
void mm_sim_close(mm_sim *s);
/* Back to the model's initial state: Psi0, no motor bound, still fluid. */
void mm_sim_reset(mm_sim *s);
/* The macroscale's two halves around the microscale: the bound fraction from s->coarse, the
 * outer step (returned) and Psi to t + dt; then the extra stress and the fluid from s->force. */
double mm_macro_psi(mm_sim *s);
void mm_macro_fluid(mm_sim *s);
/* One outer step (algorithm 1), its parts timed as phases psi, micro, force, fluid. */
void mm_sim_step(mm_sim *s, const sb_env *env, sb_phases *phases);

/* The outer step from the CFL condition of Psi's transport (every cell's outflow rate),
 * capped at dt_max. */
double mm_outer_dt(const mm_sim *s);
/* One inner step of an s-line of n_inner cells, motors binding at `source` = k_on M_f in its
 * feasible cells [from, end) (the cells before `from` hold none): RK2 (Heun), or AB2 with
 * rate_prev the rates of the step before (dt_prev long; 0: none), left holding this step's. */
void mm_line_heun(const mm_model *m, double *line, int from, int end, double dt, double source);
void mm_line_ab2(const mm_model *m, double *line, double *rate_prev, int from, int end, double dt,
                 double dt_prev, double source);
/* A tail's binding capacity A(r0): sum of Psi h^2 dtheta ds over its feasible configurations. */
double mm_capacity(const mm_model *m, const double *psi, int r0);
/* Tail r0's bound motors from t to t + dt in inner steps of at most `limit` (algorithm 2), with
 * Psi = s->psi held; then its coarse density (the scaling rule applied) and free motors.
 * Returns the inner steps taken. */
int mm_micro_tail(mm_sim *s, int r0, double dt, double limit);
/* The motor force of every tail (eq. 10) into s->force. */
void mm_motor_force(mm_sim *s);

/* What every stage returns. */
void mm_sim_output(const mm_sim *s, mm_output *o);

/* The multi-GPU and MPI split: rows of tails for `parts` slices (row_first[0] = 0 ...
 * row_first[parts] = n_outer, each slice at least a row), in proportion to each row's expected
 * work from Psi: a tail's inner steps an outer step (dt_max over its inner-step limit) plus its
 * force pass, a fifth of the micro phase's time per tail (12.7 against 62.4 ms at 256^2 x 32^2
 * on an H200). parts <= n_outer. */
void mm_split_rows(const mm_model *m, const double *psi, int parts, int *row_first);
/* The rows of Psi the kernels read for the tails of rows [first, end): their windows reach
 * m->half rows either side, periodically. As runs of whole rows [from[r], from[r] + count[r]),
 * at most two; returns how many (one, every row, when the reach covers the grid). */
int mm_psi_rows(const mm_model *m, int first, int end, int from[2], int count[2]);

/* A CPU stage: the run resets the simulation and takes the model's steps. */
typedef struct mm_stage {
    sb_env *env;
    mm_sim sim;
    sb_phases phases;
} mm_stage;
int mm_stage_open(sb_env *env, const void *model, int threads, int banded, void **out);
int mm_stage_run(void *state);
int mm_stage_output(void *state, void *out);
void mm_stage_teardown(void *state);
void mm_stage_report(void *state, sb_report *r);

#ifdef __cplusplus
}
#endif

#endif

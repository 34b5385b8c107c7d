/* The simulation as the host holds it: the CPU stages run all of it here, the co-processor GPU
 * stages (the paper's) send the interaction phases to the GPU and keep the rest here. */
#ifndef AG_HOST_H
#define AG_HOST_H

#include "../../harness/variant.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ag_sim {
    const ag_model *m;
    ag_cell *cells;       /* ncells, ascending id (survivors keep their order, daughters follow) */
    int ncells, capacity; /* capacity = m->max_cells */
    uint32_t next_id;
    long long step;
    ag_tube *tubes;       /* the model's, their TAF accumulating */
    /* cell lists: box b holds cells box_cells[box_start[b] .. box_start[b + 1]), ascending id */
    int nboxes;
    int *box_start, *box_cells, *cell_box;
    /* tubes' boxes (static): box b meets tubes tube_list[tube_start[b] .. tube_start[b + 1]) */
    int *tube_start, *tube_list;
    ag_cell *born;        /* capacity: this step's daughters */
    int *dividing;        /* capacity */
    long long cell_pairs, tube_pairs, divisions, deaths;
} ag_sim;

/* Allocates for the model's max_cells and builds the tubes' box lists; ag_sim_reset must follow
 * before a run. */
int ag_sim_open(ag_sim *s, const ag_model *m);
void ag_sim_close(ag_sim *s);
/* Back to the model's initial state (a run computes the whole simulation each time). */
void ag_sim_reset(ag_sim *s);
/* Cell lists by a counting sort over the boxes (stable: ascending id within a box). */
void ag_sim_bin(ag_sim *s);
/* Zero every cell's force, exchange and pressure before the interaction phases. */
void ag_sim_clear_effects(ag_sim *s);
/* Life cycle and integration of every cell, divisions (in id order, daughters numbered from
 * next_id), removal of the dead; fails if the population would exceed capacity. */
int ag_sim_life(ag_sim *s);
/* The box range [lo, hi] per axis a tube can reach cells in (its bounding box grown by the
 * largest range). */
void ag_tube_boxes(const ag_model *m, const ag_tube *t, int lo[3], int hi[3]);
/* The tubes' box lists (static): box b meets tubes (*list)[(*start)[b] .. (*start)[b + 1]),
 * ascending. The caller frees both, also after a failure. */
int ag_tube_box_lists(const ag_model *m, int **start, int **list);
/* The 13 neighbouring boxes of a box that come after it (Newton's third law covers the others):
 * offsets (dx, dy, dz). */
extern const int ag_half_shell[13][3];

/* Output of the run so far (the CPU stages, and the co-processor stages, which hold the cells
 * here). */
void ag_sim_output(const ag_sim *s, ag_output *o);
/* Any stage's output: the cells (ascending id), the tubes' TAF, the population by state and the
 * run's counters. */
void ag_output_set(ag_output *o, const ag_cell *cells, int ncells, const ag_tube *tubes,
                   long long cell_pairs, long long tube_pairs, long long divisions,
                   long long deaths);

/* Per cell of a step, a run of entries: cell k's are entry[start[k] .. start[k + 1]). */
typedef struct ag_lists {
    int *start;      /* ncells + 1 */
    uint32_t *entry;
} ag_lists;

/* The interaction lists of one step, to check a stage's against an oracle's: the step's cells
 * (their ids, in the order the step held them), each one's neighbours by id and its tubes by
 * index in the model's tubes, in the order the lists hold them. */
typedef struct ag_step_lists {
    int ncells;
    uint32_t *id;                  /* ncells */
    int has_neighbours, has_tubes; /* 0: the stage builds no such lists (that part left empty) */
    ag_lists neighbours, tubes;
} ag_step_lists;

/* Room for `entries` entries over ncells cells; start[0] = 0, the rest for the caller. */
int ag_lists_alloc(ag_lists *l, int ncells, size_t entries);
void ag_step_lists_free(ag_step_lists *l);

/* A stage whose steps run on the host loop (the CPU stages, and the paper's co-processor
 * stages, which send the interaction phases to the GPU): the run resets the simulation and
 * calls step `steps` times; phases add up over the run. `gpu` is the stage's own device state. */
typedef struct ag_stage ag_stage;
struct ag_stage {
    sb_env *env;
    ag_sim sim;
    sb_phases phases;
    int (*step)(ag_stage *st);
    void *gpu;
};
int ag_stage_open(sb_env *env, const void *model, int (*step)(ag_stage *), ag_stage **out);
/* A step all on the host (the CPU stages): cell lists, the two interaction phases given, the
 * life cycle, each a phase. */
int ag_host_step(ag_stage *st, void (*cell_cell)(ag_sim *), void (*tube_cell)(ag_sim *));
/* The sb_variant_ops of such a stage (state: the ag_stage). teardown frees the host part only:
 * a GPU stage frees its own first. */
int ag_stage_run(void *state);
int ag_stage_output(void *state, void *out);
void ag_stage_teardown(void *state);
void ag_stage_report(void *state, sb_report *r);

#ifdef __cplusplus
}
#endif

#endif

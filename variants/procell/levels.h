/* The engine of the thesis' dynamic-parallelism stages (2-5).
 *
 * Levels X_0..X_D of the population are preallocated on the device (X_g holds n * 2^g slots for n
 * roots). The host launches the kernel of X_0; every block, after a barrier, launches the grid of
 * two blocks that processes its children in X_{g+1}, from the device. Cells still Alive in X_D
 * restart from the host as new roots. The stages differ only in the switches below. */
#ifndef PC_LEVELS_H
#define PC_LEVELS_H

#include "device.h"

/* CUDA nests device launches at most 24 deep: a kernel per level X_0..X_{D-1}. */
#define PC_MAX_LEVELS 24

typedef struct pc_levels_config {
    int bounding;      /* stage 3: a block whose children are all dead launches nothing */
    int infer_depth;   /* stage 4: D from the parameters (pc_inferred_levels), not from memory */
    int gpu_histogram; /* stage 5: terminal cells counted on the device into Omega's bins */
} pc_levels_config;

int pc_levels_setup(sb_env *env, const pc_model *m, const pc_levels_config *cfg, void **state);
int pc_levels_run(void *state);
int pc_levels_output(void *state, void *out);
void pc_levels_teardown(void *state);
void pc_levels_report(void *state, sb_report *r);

/* Stage 4's idea (depth-inference.cu): the smallest eta with eta * mu >= t_max, mu the mean
 * division time of the most probable dividing type. */
int pc_inferred_levels(const pc_model *m);

#endif

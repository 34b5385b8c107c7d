/* What the ProCell GPU stages share: device copies of the model's tables, the kernel that creates
 * the initial cells, and the final histogram of a list of terminal fluorescences. */
#ifndef PC_DEVICE_H
#define PC_DEVICE_H

#include "../../harness/variant.h"
#include "fate.h"
#include "walk.h"

/* Cell states of the materializing stages (thesis 3.2.2), plus EMPTY for slots nobody wrote. */
enum pc_state { PC_EMPTY = 0, PC_ALIVE = 1, PC_INACTIVE = 2, PC_REMOVE = 3 };

/* Totals counted on the device. too_deep, not_in_omega and gave_up (split-trees' threads that
 * stopped waiting for work that never came) fail the run. */
typedef struct pc_device_tally {
    unsigned long long divisions, terminal, vanished, too_deep, not_in_omega, gave_up;
} pc_device_tally;

/* 0, or a failure message for a tally whose error counters are not zero. */
int pc_check_tally(const pc_device_tally *t);

typedef struct pc_device_tables {
    int device;
    double *phi;
    uint64_t *root_start;
    uint32_t *omega_index;
    double *omega;
    pc_tables view; /* the same pointers, as the walk wants them */
} pc_device_tables;

int pc_tables_upload(sb_env *env, int device_index, const pc_model *m, pc_device_tables *t);

/* Creates roots first_root .. first_root + n - 1 as level-0 cells, all ALIVE. */
int pc_launch_init_roots(const pc_model *m, const pc_device_tables *t, uint64_t first_root,
                         uint64_t n, pc_cell *cells, uint8_t *states, cudaStream_t stream);

/* Histogram of `n` terminal fluorescences (host array): uploaded, sorted and run-length encoded
 * on the device with CUB (the thesis did this step with Thrust), then mapped onto Omega and added
 * to out->counts. Scratch memory goes through the tracked allocator and is freed before return. */
int pc_histogram_of_values(sb_env *env, const pc_model *m, const double *values, size_t n,
                           pc_output *out);

/* Threads per block of every ProCell kernel. */
#define PC_BLOCK 256

#endif

/* The single-GPU MPD-RDME engine (gpu.cu) and the hook its stages differ by: where kernels put the
 * particles that did not fit, and how the host gets them after a step. */
#ifndef RD_GPU_H
#define RD_GPU_H

#include <stdint.h>

#include "../../harness/variant.h"
#include "kernels.h"
#include "model.h"

typedef struct rd_gpu rd_gpu;

/* A stage's overflow channel. open makes the sink (g->sink); collect runs after a step's kernels
 * are queued and returns, once the stream has reached them, the step's entries on the host and
 * their number, with the device count zero again; close frees what open made. */
typedef struct rd_overflow_channel {
    int (*open)(rd_gpu *g);
    int (*collect)(rd_gpu *g, uint64_t **entries, unsigned int *n);
    void (*close)(rd_gpu *g);
} rd_overflow_channel;

#define RD_GPU_MAX_RUNS 4096

struct rd_gpu {
    sb_env *env;
    const rd_model *m;
    const rd_overflow_channel *channel;
    rd_overflow_sink sink;
    void *channel_state;      /* the channel's own buffers */
    uint64_t *host_entries;   /* pinned: where collect may copy entries to */
    unsigned int *host_count; /* pinned: the step's overflow count (stage 1) */
    unsigned long long *host_fired; /* pinned: reactions fired in a run */

    void *d_init, *d_lattice[2]; /* initial lattice; the two lattices a sweep reads and writes */
    uint8_t *d_types;            /* byte16 only */
    uint32_t *d_threshold;
    rd_reaction_table *d_reactions;
    uint32_t *d_planes;          /* nsamples x nz x (nspecies + 1) */
    void *h_lattice;             /* pinned: overflow resolution and the final lattice */
    uint32_t *h_planes;          /* pinned */
    size_t lattice_bytes, planes_bytes;

    cudaEvent_t ev[10];
    int runs;
    int instrument;              /* time every kernel (the first run) */
    double loop_seconds[RD_GPU_MAX_RUNS];
    sb_phases phases;
    uint64_t overflow_particles, reactions_fired;
    unsigned long long *d_fired;
};

int rd_gpu_setup(sb_env *env, const void *model, void **state, const rd_overflow_channel *ch);
int rd_gpu_run(void *state);
int rd_gpu_output(void *state, void *out);
void rd_gpu_teardown(void *state);
void rd_gpu_report(void *state, sb_report *r);

#endif

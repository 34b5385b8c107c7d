/* The subtree-dfs kernel on one device, shared by subtree-dfs (one GPU) and multi-gpu (a device
 * rank among several: the same kernel takes every ndevices-th chunk of roots). */
#ifndef PC_SUBTREE_H
#define PC_SUBTREE_H

#include "device.h"

typedef struct pc_subtree_device {
    int device_index; /* in env->devices */
    pc_device_tables tab;
    unsigned long long *counts;     /* nomega bins */
    pc_device_tally *tally;
    unsigned long long *next_chunk; /* work queue */
    int blocks;
    size_t shared_bytes;            /* 0: the histogram is counted in global memory */
} pc_subtree_device;

int pc_subtree_prepare(sb_env *env, int device_index, const pc_model *m, pc_subtree_device *d);
/* Zeroes the histogram and launches; asynchronous on the device's stream. */
int pc_subtree_launch(sb_env *env, const pc_model *m, pc_subtree_device *d, int ndevices,
                      int rank);
/* Copies the histogram and tally back (asynchronous; synchronize the device's stream). */
int pc_subtree_fetch(sb_env *env, const pc_model *m, pc_subtree_device *d,
                     unsigned long long *counts, pc_device_tally *tally);

#endif

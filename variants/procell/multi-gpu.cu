/* Stage 7, beyond the thesis (its future work): the roots spread over every visible GPU, each
 * running the subtree-dfs kernel on every ndevices-th chunk of roots; the per-device histograms
 * come back and are summed on the host. One host thread drives all devices: every launch and
 * copy is asynchronous, so the devices run concurrently. */
#include <stdlib.h>

#include "../../cuda/check.h"
#include "../../cuda/base/error.h"
#include "subtree.h"
#include "table.h"

typedef struct multi_state {
    sb_env *env;
    const pc_model *m;
    pc_subtree_device dev[SB_MAX_DEVICES];
    unsigned long long *counts; /* ndevices x nomega, host */
    pc_device_tally tally[SB_MAX_DEVICES];
    pc_output result;
} multi_state;

static int setup(sb_env *env, const void *model, void **state)
{
    multi_state *s = (multi_state *)calloc(1, sizeof *s);
    if (!s)
        return sb_fail("out of host memory");
    *state = s;
    s->env = env;
    s->m = (const pc_model *)model;
    s->counts = (unsigned long long *)calloc((size_t)env->ndevices * s->m->nomega,
                                             sizeof *s->counts);
    if (!s->counts)
        return sb_fail("out of host memory for %d histograms", env->ndevices);
    int rc = pc_output_init(&s->result, s->m);
    for (int d = 0; rc == 0 && d < env->ndevices; d++)
        rc = pc_subtree_prepare(env, d, s->m, &s->dev[d]);
    return rc;
}

static int run(void *state)
{
    multi_state *s = (multi_state *)state;
    sb_env *env = s->env;
    const pc_model *m = s->m;
    int n = env->ndevices, rc;
    for (int d = 0; d < n; d++)
        if ((rc = pc_subtree_launch(env, m, &s->dev[d], n, d)) ||
            (rc = pc_subtree_fetch(env, m, &s->dev[d], s->counts + (size_t)d * m->nomega,
                                   &s->tally[d])))
            return rc;
    pc_output *r = &s->result;
    pc_output_zero(r);
    for (int d = 0; d < n; d++) {
        SB_CUDA(cudaSetDevice(env->devices[d]));
        SB_CUDA(cudaStreamSynchronize(env->streams[d]));
        if ((rc = pc_check_tally(&s->tally[d])))
            return sb_fail_context("device %d", env->devices[d]);
        const unsigned long long *c = s->counts + (size_t)d * m->nomega;
        for (int i = 0; i < m->nomega; i++)
            r->counts[i] += c[i];
        r->divisions += s->tally[d].divisions;
        r->terminal += s->tally[d].terminal;
        r->vanished += s->tally[d].vanished;
    }
    SB_CUDA(cudaSetDevice(env->devices[0]));
    return 0;
}

static int output(void *state, void *out)
{
    pc_output_copy((pc_output *)out, &((multi_state *)state)->result);
    return 0;
}

static void teardown(void *state)
{
    multi_state *s = (multi_state *)state;
    pc_output_free(&s->result);
    free(s->counts);
    free(s);
}

static void report(void *state, sb_report *r)
{
    r->host_launches = ((multi_state *)state)->env->ndevices;
}

const sb_variant_ops pc_multi_gpu_ops = {setup, run, output, teardown, report};

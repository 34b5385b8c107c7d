/* What the GPU variants share: the payload where a copy starts (pinned host memory for
 * host-to-gpu, GPU 0 for the others) and the buffer it lands in (GPU 0 or GPU 1), cleared in
 * setup so that a run that copies nothing fails validation. */
#ifndef CP_ENDPOINTS_H
#define CP_ENDPOINTS_H

#include "../../harness/variant.h"
#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cp_endpoints {
    sb_env *env;
    size_t bytes;
    int src_dev, dst_dev; /* CUDA ordinals: env->devices[0], and [1] for copies between GPUs */
    cudaStream_t src_stream, dst_stream;
    uint8_t *h_src;       /* pinned payload: host-to-gpu's source (NULL for the others) */
    void *d_src;          /* payload on GPU 0, for copies between GPUs */
    void *d_dst;
} cp_endpoints;

/* Pinned host memory every GPU sees as pinned (portable); SB_REFUSED when the host cannot pin
 * that much. */
int cp_host_alloc(void **ptr, size_t bytes, const char *what);
/* gpus 1: payload in pinned host memory, destination on GPU 0; gpus 2: payload on GPU 0,
 * destination on GPU 1. SB_REFUSED (the record says skipped) with fewer GPUs than that. */
int cp_endpoints_open(cp_endpoints *e, sb_env *env, const cp_model *m, int gpus,
                      const char *variant);
/* The variants' output(): their state starts with a cp_endpoints; the received bytes are
 * downloaded here, outside the timed run. */
int cp_endpoints_output(void *state, void *out);
void cp_endpoints_close(cp_endpoints *e);
/* The teardown of a variant whose whole state is a malloc'd cp_endpoints. */
void cp_endpoints_free(void *state);

#ifdef __cplusplus
}
#endif

#endif

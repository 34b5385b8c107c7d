/* Stage 0, the reference: the payload copied from one host buffer to another with memcpy. Its
 * output is the payload itself, which every GPU variant must deliver bit for bit. */
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/variant.h"
#include "model.h"
#include "table.h"

typedef struct cpu_copy {
    size_t bytes;
    uint8_t *src, *dst;
} cpu_copy;

static void teardown(void *state)
{
    cpu_copy *c = state;
    free(c->src);
    free(c->dst);
    free(c);
}

static int setup(sb_env *env, const void *model, void **state)
{
    (void)env;
    const cp_model *m = model;
    cpu_copy *c = calloc(1, sizeof *c);
    if (!c)
        return sb_fail("out of host memory");
    *state = c;
    c->bytes = m->bytes;
    c->src = malloc(m->bytes);
    c->dst = malloc(m->bytes);
    if (!c->src || !c->dst)
        return sb_fail("out of host memory for two buffers of %zu bytes", m->bytes);
    cp_payload_fill(c->src, m);
    memset(c->dst, 0, m->bytes);
    return 0;
}

static int run(void *state)
{
    cpu_copy *c = state;
    memcpy(c->dst, c->src, c->bytes);
    return 0;
}

static int output(void *state, void *out)
{
    cpu_copy *c = state;
    memcpy(((cp_output *)out)->data, c->dst, c->bytes);
    return 0;
}

const sb_variant_ops cp_cpu_memcpy_ops = {setup, run, output, teardown, NULL};

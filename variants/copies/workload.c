/* The copies workload as the harness sees it: its parameters, the payload, outputs and their
 * comparison. Items are bytes, so a record's items_per_second is the copy's bandwidth. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/hostmem.h"
#include "../../harness/json.h"
#include "../../harness/variant.h"
#include "model.h"
#include "table.h"

static const sb_param_decl params[] = {
    {"bytes", SB_PARAM_INT, "32768", 4, 17179869184.0, NULL,
     "payload copied once per run (default 32 KiB: the paper's halo copy)"},
    {"seed", SB_PARAM_INT, "1", 0, 4294967295.0, NULL, "seed of the payload's bytes (32 bits)"},
};

void cp_payload_fill(uint8_t *buf, const cp_model *m)
{
    for (size_t i = 0; i < m->bytes; i++)
        buf[i] = cp_payload_byte(i, m->seed);
}

static int load(const sb_params *p, void **out)
{
    double bytes = sb_param_num(p, "bytes");
    /* Refused before allocating: the two outputs the harness keeps for validation and a stage's
     * two buffers (the reference's source and destination; a GPU stage's pinned payload). */
    if (sb_host_check_fits(4 * bytes, "a payload's two outputs and a stage's two buffers",
                           "lower bytes") != 0)
        return -1;
    cp_model *m = malloc(sizeof *m);
    if (!m)
        return sb_fail("out of host memory");
    m->bytes = (size_t)bytes;
    m->seed = (uint32_t)sb_param_num(p, "seed");
    *out = m;
    return 0;
}

static void free_model(void *model)
{
    free(model);
}

static void *output_new(const void *model)
{
    const cp_model *m = model;
    cp_output *o = malloc(sizeof *o);
    if (!o)
        return NULL;
    o->bytes = m->bytes;
    o->data = malloc(m->bytes);
    if (!o->data) {
        free(o);
        return NULL;
    }
    return o;
}

static void output_poison(void *out)
{
    cp_output *o = out;
    memset(o->data, 0xa5, o->bytes);
}

static void output_free(void *out)
{
    cp_output *o = out;
    free(o->data);
    free(o);
}

static int output_equal(const void *model, const void *ref_, const void *got_, char *why,
                        size_t cap)
{
    (void)model;
    const cp_output *ref = ref_, *got = got_;
    if (memcmp(ref->data, got->data, ref->bytes) == 0)
        return 1;
    size_t i = 0;
    while (ref->data[i] == got->data[i])
        i++;
    snprintf(why, cap, "byte %zu of %zu: reference 0x%02x, variant 0x%02x", i, ref->bytes,
             ref->data[i], got->data[i]);
    return 0;
}

static void figures(const void *model, const void *out, sb_figures *fig)
{
    (void)out;
    fig->items = (double)((const cp_model *)model)->bytes;
    fig->simulated_seconds = 0;
}

/* --dump-output: the received bytes as they are (binary). */
static int write_bytes(FILE *f, const void *model, const void *out)
{
    (void)model;
    const cp_output *o = out;
    fwrite(o->data, 1, o->bytes, f);
    return ferror(f) ? sb_fail("write error on the output dump") : 0;
}

static int output_write(const void *model, const void *out, const char *path)
{
    return sb_write_stream_atomic(path, write_bytes, model, out);
}

const sb_workload sb_workload_copies = {
    .name = "copies",
    .summary = "copy time and bandwidth against payload size: host to GPU, GPU to GPU staged, "
               "peer and NCCL (Lattice Microbes' multi-GPU paper, fig. 4)",
    .item_unit = "bytes",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .variants = cp_variants,
    .nvariants = CP_NVARIANTS,
    .reference = "cpu-memcpy",
    .default_scenario = NULL,
    .load = load,
    .free_model = free_model,
    .output_new = output_new,
    .output_poison = output_poison,
    .output_free = output_free,
    .output_equal = output_equal,
    .figures = figures,
    .output_figures = NULL,
    .output_write = output_write,
};

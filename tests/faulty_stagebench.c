/* stagebench with one more workload, `faulty`, whose variants really fault, on the CPU and on the
 * GPU: a test executable only (tests/isolation.sh, tests/isolation_gpu.sh, tests/kill_records.sh),
 * never the product. It registers the workload and runs stagebench's own main (bench/cli/sb_main.c).
 *
 * The output is n doubles, out[i] = sin(i * seed) summed `work` times over; each run takes about
 * `delay_ms` more (sleeping), so that tests can kill a run part way. The variants:
 *   ok        the reference: correct
 *   wrong     an invalid output (one element off)
 *   segfault  writes through a null pointer in its run
 *   abort     calls abort() in its run
 *   exit      calls exit(3) in its run
 *   hang      sleeps forever in its run
 *   slow      correct, each run delay_ms x 10
 * and on the GPU (the output computed as ok's, then a kernel of tests/faulty_kernels.cu and a
 * synchronisation; without a GPU they are skipped like any GPU variant):
 *   gpu-illegal-address  a kernel writes where nothing is mapped: a sticky CUDA error
 *   gpu-assert           a device-side assert fails: a sticky CUDA error
 *   gpu-hang             a kernel that spins (for a minute, then gives up)
 *   gpu-ok               a correct kernel: valid */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench/cli/commands.h"
#include "../cuda/base/error.h"
#include "../harness/json.h"
#include "../variants/registry.h"
#include "../harness/variant.h"
#include "faulty_kernels.h"

typedef struct model {
    int n, work;
    double seed, delay_ms;
} model;

typedef struct output {
    int n;
    double *x;
} output;

enum { OK, WRONG, SEGFAULT, ABORT, EXIT, HANG, SLOW,
       GPU_ILLEGAL, GPU_ASSERT, GPU_HANG, GPU_OK };

typedef struct state {
    const model *m;
    int kind;
    double *x;
    void *dev;               /* the GPU variants' buffer */
    cudaStream_t stream;
} state;

static const sb_param_decl params[] = {
    {"n", SB_PARAM_INT, "1000", 1, 1e7, NULL, "output length"},
    {"work", SB_PARAM_INT, "1", 1, 1e6, NULL, "passes over the output per run"},
    {"seed", SB_PARAM_FLOAT, "0.5", -1e6, 1e6, NULL, "the output's frequency"},
    {"delay_ms", SB_PARAM_FLOAT, "0", 0, 1e6, NULL, "milliseconds each run sleeps besides"},
};

static void nap(double ms)
{
    if (ms <= 0)
        return;
    struct timespec t = {(time_t)(ms / 1e3), (long)(fmod(ms, 1e3) * 1e6)};
    nanosleep(&t, NULL);
}

static int setup_kind(const sb_env *env, const void *m, void **st, int kind)
{
    state *s = calloc(1, sizeof *s);
    if (!s || !(s->x = calloc((size_t)((const model *)m)->n, sizeof *s->x))) {
        free(s);
        return sb_fail("out of host memory");
    }
    s->m = m;
    s->kind = kind;
    *st = s;
    if (kind >= GPU_ILLEGAL) {
        s->stream = env->streams[0];
        return faulty_gpu_open(env->devices[0], &s->dev);
    }
    return 0;
}

static int run(void *st)
{
    state *s = st;
    const model *m = s->m;
    nap(s->kind == SLOW ? 10 * m->delay_ms : m->delay_ms);
    for (int i = 0; i < m->n; i++)
        s->x[i] = 0;
    for (int k = 0; k < m->work; k++)
        for (int i = 0; i < m->n; i++)
            s->x[i] += sin(i * m->seed);
    switch (s->kind) {
    case WRONG:
        s->x[m->n / 2] += 1;
        break;
    case SEGFAULT: {
        volatile double *null = NULL;
        *null = s->x[0];
        break;
    }
    case ABORT:
        abort();
    case EXIT:
        exit(3);
    case HANG:
        for (;;)
            pause();
    case GPU_ILLEGAL:
        return faulty_gpu_step(FAULTY_GPU_ILLEGAL_ADDRESS, s->dev, s->stream);
    case GPU_ASSERT:
        return faulty_gpu_step(FAULTY_GPU_ASSERT, s->dev, s->stream);
    case GPU_HANG:
        return faulty_gpu_step(FAULTY_GPU_HANG, s->dev, s->stream);
    case GPU_OK:
        return faulty_gpu_step(FAULTY_GPU_NONE, s->dev, s->stream);
    }
    return 0;
}

static int output_of(void *st, void *out)
{
    state *s = st;
    output *o = out;
    memcpy(o->x, s->x, (size_t)o->n * sizeof *o->x);
    return 0;
}

static void teardown(void *st)
{
    state *s = st;
    faulty_gpu_close(s->dev);
    free(s->x);
    free(s);
}

#define KIND(name, k)                                                                              \
    static int setup_##name(sb_env *env, const void *m, void **st)                                \
    {                                                                                              \
        return setup_kind(env, m, st, k);                                                          \
    }                                                                                              \
    static const sb_variant_ops ops_##name = {setup_##name, run, output_of, teardown, NULL};
KIND(ok, OK)
KIND(wrong, WRONG)
KIND(segfault, SEGFAULT)
KIND(abort, ABORT)
KIND(exit, EXIT)
KIND(hang, HANG)
KIND(slow, SLOW)
KIND(gpu_illegal, GPU_ILLEGAL)
KIND(gpu_assert, GPU_ASSERT)
KIND(gpu_hang, GPU_HANG)
KIND(gpu_ok, GPU_OK)

static const sb_variant variants[] = {
    {"ok", 0, "correct (the reference)", "tests", 0, &ops_ok, 0},
    {"wrong", 1, "one element of the output off: invalid", "tests", 0, &ops_wrong, 0},
    {"segfault", 2, "writes through a null pointer", "tests", 0, &ops_segfault, 0},
    {"abort", 3, "calls abort()", "tests", 0, &ops_abort, 0},
    {"exit", 4, "calls exit(3) mid-run", "tests", 0, &ops_exit, 0},
    {"hang", 5, "sleeps forever", "tests", 0, &ops_hang, 0},
    {"slow", 6, "correct, each run 10 x delay_ms", "tests", 0, &ops_slow, 0},
    {"gpu-illegal-address", 7, "a kernel writes where nothing is mapped (sticky error)", "tests",
     SB_NEEDS_GPU, &ops_gpu_illegal, 0},
    {"gpu-assert", 8, "a device-side assert fails (sticky error)", "tests", SB_NEEDS_GPU,
     &ops_gpu_assert, 0},
    {"gpu-hang", 9, "a kernel spins for a minute", "tests", SB_NEEDS_GPU, &ops_gpu_hang, 0},
    {"gpu-ok", 10, "correct, and a correct kernel", "tests", SB_NEEDS_GPU, &ops_gpu_ok, 0},
};

static int load(const sb_params *p, void **out)
{
    model *m = malloc(sizeof *m);
    if (!m)
        return sb_fail("out of host memory");
    m->n = (int)sb_param_num(p, "n");
    m->work = (int)sb_param_num(p, "work");
    m->seed = sb_param_num(p, "seed");
    m->delay_ms = sb_param_num(p, "delay_ms");
    *out = m;
    return 0;
}

static void free_model(void *m)
{
    free(m);
}

static void *output_new(const void *m)
{
    output *o = malloc(sizeof *o);
    if (!o)
        return NULL;
    o->n = ((const model *)m)->n;
    if (!(o->x = malloc((size_t)o->n * sizeof *o->x))) {
        free(o);
        return NULL;
    }
    return o;
}

static void output_poison(void *out)
{
    output *o = out;
    for (int i = 0; i < o->n; i++)
        o->x[i] = NAN;
}

static void output_free(void *out)
{
    output *o = out;
    free(o->x);
    free(o);
}

static int output_equal(const void *m, const void *ref_, const void *got_, char *why, size_t cap)
{
    (void)m;
    const output *ref = ref_, *got = got_;
    for (int i = 0; i < ref->n; i++)
        if (!(ref->x[i] == got->x[i])) {
            snprintf(why, cap, "element %d: reference %.17g, variant %.17g", i, ref->x[i],
                     got->x[i]);
            return 0;
        }
    return 1;
}

static void figures(const void *m, const void *out, sb_figures *fig)
{
    (void)out;
    fig->items = ((const model *)m)->n;
    fig->simulated_seconds = 0;
}

static int write_text(FILE *f, const void *m, const void *out)
{
    (void)m;
    const output *o = out;
    fprintf(f, "# faulty output\n");
    for (int i = 0; i < o->n; i++)
        fprintf(f, "%.17g\n", o->x[i]);
    return ferror(f) ? sb_fail("write error on the output dump") : 0;
}

static int output_write(const void *m, const void *out, const char *path)
{
    return sb_write_stream_atomic(path, write_text, m, out);
}

static const sb_workload faulty = {
    .name = "faulty",
    .summary = "test-only: variants that crash, abort, exit, hang or are wrong; GPU faults",
    .item_unit = "elements",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .variants = variants,
    .nvariants = sizeof variants / sizeof variants[0],
    .reference = "ok",
    .load = load,
    .free_model = free_model,
    .output_new = output_new,
    .output_poison = output_poison,
    .output_free = output_free,
    .output_equal = output_equal,
    .figures = figures,
    .output_write = output_write,
};

int main(int argc, char **argv)
{
    if (sb_register_test_workload(&faulty) != 0)
        return 2;
    return sb_main(argc, argv);
}

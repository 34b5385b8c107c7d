/* RDME as the harness sees it: parameters, the model they build, outputs and their comparison. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "../../harness/variant.h"
#include "mgpu.h"
#include "model.h"
#include "table.h"

static const sb_param_decl params[] = {
    {"scenario", SB_PARAM_CHOICE, "homogeneous", 0, 0,
     "homogeneous|particles|reactions|barrier|min-system|file",
     "the paper's experiments (figs. 5-8, the Min oscillator) or a model file"},
    {"model", SB_PARAM_PATH, NULL, 0, 0, NULL,
     "model file for scenario=file (format: variants/rdme/MODEL-FORMAT.md)"},
    {"cell", SB_PARAM_CHOICE, "ecoli", 0, 0, "ecoli|dividing-ecoli|yeast|rbc",
     "homogeneous: 1x1x2, 1x1x4, 4x4x4 or 8x8x2 um of cytoplasm"},
    {"spacing", SB_PARAM_FLOAT, "16", 1, 1000, NULL,
     "homogeneous: lattice spacing in nm (tau scales with its square: 50 us at 16 nm)"},
    {"steps", SB_PARAM_INT, "100", 0, 1e12, NULL, "time steps"},
    {"sample_steps", SB_PARAM_INT, "0", 0, 1e12, NULL,
     "species and per-z-plane counts every this many steps (0: at the start and the end)"},
    {"particles", SB_PARAM_INT, NULL, 0, 1e12, NULL,
     "particles placed (default: 0.08 per site; particles 80000; reactions 100000; barrier "
     "500000)"},
    {"reactions", SB_PARAM_INT, NULL, 0, RD_MAX_REACTIONS, NULL,
     "reactions scenario: first-order reactions at 1/s (default 1)"},
    {"seed", SB_PARAM_INT, "1", 0, 4294967295.0, NULL, "random seed (32 bits)"},
    {"site_format", SB_PARAM_CHOICE, "packed32", 0, 0, "packed32|byte16",
     "packed32: the paper's 32-bit site, 7 particles; byte16: 16 particles, a byte each"},
    {"gpus", SB_PARAM_INT, NULL, 1, SB_MAX_DEVICES, NULL,
     "multi-GPU stages: GPUs used (default: every visible one)"},
    {"slabs", SB_PARAM_INT, NULL, 1, 16, NULL,
     "multi-GPU stages: z-slabs, shared round-robin by the GPUs (default: one per GPU; more "
     "checks a decomposition on fewer GPUs)"},
    {"split", SB_PARAM_TEXT_T, NULL, 0, 0, NULL,
     "multi-GPU stages: planes per slab, bottom up, e.g. 32,224 (default: equal, in whole "
     "z tiles)"},
    {"handicap", SB_PARAM_TEXT_T, NULL, 0, 0, NULL,
     "multi-GPU stages: G:S, GPU G computes on only S of its SMs (a green context), for "
     "load-balancing studies on identical GPUs"},
    {"balance_steps", SB_PARAM_INT, NULL, 1, 1e12, NULL,
     "mgpu-balanced, mgpu-nccl: steps per balancing batch (default: 25 ms of simulated time)"},
    {"graph_steps", SB_PARAM_INT, NULL, 1, RD_GRAPH_STEPS_MAX, NULL,
     "gpu-graph, gpu-fused, one-pass on one GPU: steps in the body of the device-side loop "
     "(default: up to 64, evened out between samples, where each sweep is one wave of blocks "
     "and the kernels are chained, else 1; one-pass: an even number, 2 by default)"},
    {"balance_threshold", SB_PARAM_FLOAT, "0.05", 0, 10, NULL,
     "mgpu-balanced, mgpu-nccl: a GPU this far (a fraction) from the mean step time moves the "
     "split"},
};

static int load(const sb_params *p, void **out)
{
    rd_model *m = calloc(1, sizeof *m);
    if (!m)
        return sb_fail("out of host memory");
    const char *scenario = sb_param_text(p, "scenario");
    if (strcmp(scenario, "file") == 0 && !sb_param_is_set(p, "model")) {
        free(m);
        return sb_fail("scenario=file needs --param model=FILE (format: "
                       "variants/rdme/MODEL-FORMAT.md)");
    }
    rd_scenario_args a = {
        scenario,
        sb_param_is_set(p, "model") ? sb_param_text(p, "model") : NULL,
        sb_param_text(p, "cell"),
        sb_param_num(p, "spacing"),
        sb_param_is_set(p, "particles") ? (long long)sb_param_num(p, "particles") : -1,
        sb_param_is_set(p, "reactions") ? (int)sb_param_num(p, "reactions") : -1,
    };
    rd_site_format format =
        strcmp(sb_param_text(p, "site_format"), "byte16") == 0 ? RD_BYTE16 : RD_PACKED32;
    if (rd_build_scenario(m, &a, format, (uint32_t)sb_param_num(p, "seed"),
                          (long long)sb_param_num(p, "steps"),
                          (long long)sb_param_num(p, "sample_steps")) != 0) {
        free(m);
        return -1;
    }
    *out = m;
    return 0;
}

static void free_model(void *model)
{
    rd_model_free(model);
    free(model);
}

static void *output_new(const void *model)
{
    rd_output *o = calloc(1, sizeof *o);
    if (o && rd_output_init(o, model) != 0) {
        free(o);
        return NULL;
    }
    return o;
}

static void output_poison(void *out)
{
    rd_output *o = out;
    memset(o->lattice, 0xa5, o->nsites * (size_t)o->site_bytes);
    memset(o->counts, 0xa5, (size_t)o->nsamples * (o->nspecies + 1) * sizeof *o->counts);
    memset(o->plane_counts, 0xa5,
           (size_t)o->nsamples * o->nz * (o->nspecies + 1) * sizeof *o->plane_counts);
    o->overflow_particles = o->reactions_fired = 0xa5a5a5a5a5a5a5a5ull;
}

static void output_free(void *out)
{
    rd_output_free(out);
    free(out);
}

/* What output_equal compares, for the reference cache (harness/refcache.h). */
static int output_regions(const void *model, void *out, sb_region *r)
{
    (void)model;
    rd_output *o = out;
    size_t per_sample = (size_t)o->nspecies + 1;
    r[0] = (sb_region){o->lattice, o->nsites * (size_t)o->site_bytes};
    r[1] = (sb_region){o->sample_step, (size_t)o->nsamples * sizeof *o->sample_step};
    r[2] = (sb_region){o->counts, (size_t)o->nsamples * per_sample * sizeof *o->counts};
    r[3] = (sb_region){o->plane_counts,
                       (size_t)o->nsamples * o->nz * per_sample * sizeof *o->plane_counts};
    r[4] = (sb_region){&o->overflow_particles, sizeof o->overflow_particles};
    r[5] = (sb_region){&o->reactions_fired, sizeof o->reactions_fired};
    return 6;
}

static void describe_site(const rd_model *m, const void *lattice, size_t i, char *buf, size_t cap)
{
    rd_site s;
    rd_site_get(m, lattice, i, &s);
    int len = snprintf(buf, cap, "type %d [", s.type);
    for (int k = 0; k < s.n && len > 0 && (size_t)len < cap; k++)
        len += snprintf(buf + len, cap - (size_t)len, "%s%s", k ? " " : "", m->species[s.sp[k]]);
    if (len > 0 && (size_t)len < cap)
        snprintf(buf + len, cap - (size_t)len, "]");
}

static int output_equal(const void *model, const void *ref_, const void *got_, char *why,
                        size_t cap)
{
    const rd_model *m = model;
    const rd_output *ref = ref_, *got = got_;
    size_t bytes = (size_t)ref->site_bytes;
    for (size_t i = 0; i < ref->nsites; i++)
        if (memcmp((const char *)ref->lattice + i * bytes, (const char *)got->lattice + i * bytes,
                   bytes) != 0) {
            char a[160], b[160];
            describe_site(m, ref->lattice, i, a, sizeof a);
            describe_site(m, got->lattice, i, b, sizeof b);
            snprintf(why, cap, "site (%zu, %zu, %zu) after %lld steps: reference %s, variant %s",
                     i % m->nx, i / m->nx % m->ny, i / ((size_t)m->nx * m->ny), m->steps, a, b);
            return 0;
        }
    int w = ref->nspecies + 1;
    for (int k = 0; k < ref->nsamples; k++)
        for (int sp = 0; sp < w; sp++)
            if (ref->counts[(size_t)k * w + sp] != got->counts[(size_t)k * w + sp]) {
                snprintf(why, cap, "count of %s at step %lld: reference %llu, variant %llu",
                         sp ? m->species[sp] : "all particles", ref->sample_step[k],
                         (unsigned long long)ref->counts[(size_t)k * w + sp],
                         (unsigned long long)got->counts[(size_t)k * w + sp]);
                return 0;
            }
    size_t nplane = (size_t)ref->nsamples * ref->nz * w;
    for (size_t i = 0; i < nplane; i++)
        if (ref->plane_counts[i] != got->plane_counts[i]) {
            snprintf(why, cap, "count of %s in z-plane %zu at step %lld: reference %u, variant %u",
                     i % w ? m->species[i % w] : "all particles", i / w % ref->nz,
                     ref->sample_step[i / w / ref->nz], ref->plane_counts[i],
                     got->plane_counts[i]);
            return 0;
        }
    if (ref->overflow_particles != got->overflow_particles ||
        ref->reactions_fired != got->reactions_fired) {
        snprintf(why, cap,
                 "totals: reference %llu overflowed particles and %llu reactions, variant %llu "
                 "and %llu",
                 (unsigned long long)ref->overflow_particles,
                 (unsigned long long)ref->reactions_fired,
                 (unsigned long long)got->overflow_particles,
                 (unsigned long long)got->reactions_fired);
        return 0;
    }
    return 1;
}

/* Min oscillation period: the membrane MinD (MinDm + MinDEm) of the lower half of the cell
 * minus the upper half, over the samples after the first fifth (the start-up); the mean time
 * between upward crossings of its mean, with a hysteresis of a quarter of its standard deviation
 * so that noise does not count. NaN without at least three crossings (no oscillation seen). */
static double min_period(const rd_model *m, const rd_output *o)
{
    int dm = rd_find_species(m, "MinDm"), dem = rd_find_species(m, "MinDEm"), w = o->nspecies + 1;
    int first = o->nsamples / 5, n = o->nsamples - first;
    if (dm < 0 || dem < 0 || n < 8)
        return NAN;
    double *sig = malloc((size_t)n * sizeof *sig), mean = 0, var = 0;
    if (!sig)
        return NAN;
    for (int k = 0; k < n; k++) {
        double d = 0;
        for (int z = 0; z < o->nz; z++) {
            const uint32_t *p = o->plane_counts + ((size_t)(first + k) * o->nz + z) * w;
            d += (z < o->nz / 2 ? 1.0 : -1.0) * (double)(p[dm] + p[dem]);
        }
        sig[k] = d;
        mean += d / n;
    }
    for (int k = 0; k < n; k++)
        var += (sig[k] - mean) * (sig[k] - mean) / n;
    double h = 0.25 * sqrt(var), t_first = 0, t_last = 0;
    int crossings = 0, armed = 0;
    for (int k = 1; k < n; k++) {
        double a = sig[k - 1] - mean, b = sig[k] - mean;
        if (a < -h)
            armed = 1;
        if (armed && a < 0 && b >= 0) {
            double t0 = (double)o->sample_step[first + k - 1] * m->tau,
                   t1 = (double)o->sample_step[first + k] * m->tau;
            double t = t0 + (t1 - t0) * (-a) / (b - a);
            if (crossings++ == 0)
                t_first = t;
            t_last = t;
            armed = 0;
        }
    }
    free(sig);
    return crossings >= 3 ? (t_last - t_first) / (crossings - 1) : NAN;
}

static const char *const output_figures[] = {"overflow_particles", "reactions_fired",
                                             "min_period_s", NULL};

static void figures(const void *model, const void *out, sb_figures *fig)
{
    const rd_model *m = model;
    const rd_output *o = out;
    fig->items = (double)m->nsites * (double)m->steps;
    fig->simulated_seconds = (double)m->steps * m->tau;
    fig->values[0] = (double)o->overflow_particles;
    fig->values[1] = (double)o->reactions_fired;
    fig->values[2] = min_period(m, o);
}

/* PATH: text, two gnuplot data blocks (index 0: counts over time; index 1: counts per z-plane,
 * one row of z per sample). */
static int write_counts(FILE *f, const void *model, const void *out)
{
    const rd_model *m = model;
    const rd_output *o = out;
    int w = o->nspecies + 1;
    fprintf(f, "# rdme output: %s; lattice %d x %d x %d sites at %g nm, tau %g s, %s sites, seed "
               "%u, %lld steps\n",
            m->scenario, m->nx, m->ny, m->nz, m->spacing * 1e9, m->tau,
            m->format == RD_PACKED32 ? "packed32" : "byte16", m->seed, m->steps);
    fprintf(f, "# %llu particles overflowed their site and were placed nearby; %llu reactions "
               "fired\n",
            (unsigned long long)o->overflow_particles, (unsigned long long)o->reactions_fired);
    fprintf(f, "# final lattice: the file beside this one ending in .lattice\n");
    fprintf(f, "# index 0: species counts over time\n# step time_s all");
    for (int sp = 1; sp < w; sp++)
        fprintf(f, " %s", m->species[sp]);
    fputc('\n', f);
    for (int k = 0; k < o->nsamples; k++) {
        fprintf(f, "%lld %.9g", o->sample_step[k], (double)o->sample_step[k] * m->tau);
        for (int sp = 0; sp < w; sp++)
            fprintf(f, " %llu", (unsigned long long)o->counts[(size_t)k * w + sp]);
        fputc('\n', f);
    }
    fprintf(f, "\n\n# index 1: counts per z-plane over time, one block per sample\n"
               "# step time_s z all");
    for (int sp = 1; sp < w; sp++)
        fprintf(f, " %s", m->species[sp]);
    fputc('\n', f);
    for (int k = 0; k < o->nsamples; k++) {
        for (int z = 0; z < o->nz; z++) {
            fprintf(f, "%lld %.9g %d", o->sample_step[k], (double)o->sample_step[k] * m->tau, z);
            for (int sp = 0; sp < w; sp++)
                fprintf(f, " %u", o->plane_counts[((size_t)k * o->nz + z) * w + sp]);
            fputc('\n', f);
        }
        fputc('\n', f);
    }
    return ferror(f) ? sb_fail("write error on the output dump") : 0;
}

/* PATH.lattice: "RDMELAT1", then little-endian uint32 nx, ny, nz, bytes per site, format (0
 * packed32, 1 byte16), capacity, uint64 steps; then the sites in index order (x fastest); for
 * byte16, then one type byte per site. */
static int write_lattice(FILE *f, const void *model, const void *out)
{
    const rd_model *m = model;
    const rd_output *o = out;
    uint32_t head[6] = {(uint32_t)m->nx, (uint32_t)m->ny, (uint32_t)m->nz,
                        (uint32_t)o->site_bytes, m->format == RD_BYTE16, (uint32_t)m->capacity};
    uint64_t steps = (uint64_t)m->steps;
    fwrite("RDMELAT1", 1, 8, f);
    fwrite(head, sizeof head, 1, f);
    fwrite(&steps, sizeof steps, 1, f);
    fwrite(o->lattice, (size_t)o->site_bytes, o->nsites, f);
    if (m->format == RD_BYTE16)
        fwrite(m->types, 1, m->nsites, f);
    return ferror(f) ? sb_fail("write error on the lattice dump") : 0;
}

static int output_write(const void *model, const void *out, const char *path)
{
    char lattice_path[4096];
    snprintf(lattice_path, sizeof lattice_path, "%s.lattice", path);
    return sb_write_stream_atomic(lattice_path, write_lattice, model, out) ||
                   sb_write_stream_atomic(path, write_counts, model, out)
               ? -1
               : 0;
}

/* The dividing E. coli cell at 16 nm (1 million sites), 100 steps: large enough to keep a GPU
 * busy, small enough that its CPU reference takes seconds (about 20 s on one core). */
static int default_scenario(sb_params *p)
{
    return sb_params_set(p, "cell", "dividing-ecoli");
}

/* The problem's floor: one read and one write of the lattice a step. A step is one function of
 * the whole lattice (the sweeps and the reactions), so however much a version keeps on chip
 * between its parts, every site comes in and goes out once a step; only a version that keeps
 * sites on chip across steps (temporal blocking) can go below it. */
static void problem_floor(const void *model, sb_problem_floor *f)
{
    const rd_model *m = model;
    f->bytes = rd_pass_bytes(m) * (double)m->steps;
    snprintf(f->what, sizeof f->what,
             "one read and one write of the lattice a step: %g B a site, %zu sites, %lld steps",
             rd_pass_bytes(m) / (double)m->nsites, m->nsites, (long long)m->steps);
}

static const sb_noisy_stage noisy[] = {
    {"gpu", "the host waits for the overflow count every step: on short steps (the Min system's "
            "40 us) the host's scheduling moves the run by more than 1 %"},
    {NULL, NULL},
};

const sb_workload sb_workload_rdme = {
    .name = "rdme",
    .summary = "reaction-diffusion master equation by multiparticle diffusion (Lattice "
               "Microbes; multi-GPU paper)",
    .item_unit = "site updates",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .variants = rd_variants,
    .nvariants = RD_NVARIANTS,
    .reference = "cpu-reference",
    .default_scenario = default_scenario,
    .load = load,
    .free_model = free_model,
    .output_new = output_new,
    .output_poison = output_poison,
    .output_free = output_free,
    .output_equal = output_equal,
    .output_regions = output_regions,
    .figures = figures,
    .output_figures = output_figures,
    .output_write = output_write,
    .problem_floor = problem_floor,
    .noisy = noisy,
};

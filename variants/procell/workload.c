/* ProCell as the harness sees it: parameters, inputs, outputs and their comparison. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/data.h"
#include "../../harness/json.h"
#include "../../harness/variant.h"
#include "model.h"
#include "table.h"

static const sb_param_decl params[] = {
    {"histogram", SB_PARAM_PATH, NULL, 0, 0, NULL,
     "initial fluorescence histogram: 'fluorescence count' lines"},
    {"types", SB_PARAM_TEXT_T, "m4", 0, 0, PC_TYPES_PRESETS,
     "cell types: m1..m4 (published ProCell sets) or a file of 'proportion mean stddev' lines"},
    {"t_max", SB_PARAM_FLOAT, "240", 1e-9, 1e6, NULL, "simulated hours"},
    {"phi_min", SB_PARAM_FLOAT, NULL, 0, 1e300, NULL,
     "detection threshold; default: fluorescence of the first non-empty histogram row"},
    {"start", SB_PARAM_CHOICE, "async", 0, 0, "sync|async", "start mode"},
    {"seed", SB_PARAM_INT, "1", 0, 4294967295.0, NULL, "random seed (32 bits)"},
    {"replicate", SB_PARAM_INT, "1", 1, 1e6, NULL,
     "histogram counts multiplied by this, to scale the initial population"},
    {"distribution", SB_PARAM_CHOICE, "normal", 0, 0, "normal",
     "division-time distribution (truncated normal)"},
    {"level_memory_gib", SB_PARAM_FLOAT, "4", 0, 1e6, NULL,
     "device memory (GiB) stages 2-5 preallocate levels in, as the thesis' 4 GiB GTX 970 "
     "allowed; 0 = all free memory"},
    {"grid_percent", SB_PARAM_FLOAT, "100", 1, 100, NULL,
     "subtree-dfs, multi-gpu: the grid as a % of the blocks that fit on the GPU at once (fewer "
     "warps hide less latency: a real, graded slow-down for testing the regression gate)"},
    {"split_look_every", SB_PARAM_INT, "16", 1, 1e6, NULL,
     "split-trees: a walking thread looks for waiting ones of its block every this many "
     "divisions"},
    {"split_wait_ns", SB_PARAM_INT, "16384", 256, 1e7, NULL,
     "split-trees: a waiting thread's longest wait between looks at its block's queue (ns)"},
};

/* The histogram, and a types file (any value but a preset's name): the histograms are the
 * data set bench/scripts/get-data fetches, so a missing one says how to get them. */
static const char *input_file(const sb_params *p, int i, const char **hint)
{
    const char *name = p->decls[i].name, *value = p->v[i].text;
    pc_rules rules;
    if (!p->v[i].is_set || !value[0])
        return NULL;
    if (!strcmp(name, "histogram")) {
        *hint = SB_DATA_HINT;
        return value;
    }
    return !strcmp(name, "types") && !pc_types_preset(value, &rules) ? value : NULL;
}

static int load(const sb_params *p, void **out)
{
    if (!sb_param_is_set(p, "histogram")) {
        char dir[1024];
        return sb_fail("procell needs an initial histogram: --param histogram=FILE (e.g. "
                       "%s/AML9_Exp3_t10d_UT1_BM_GFPpos.txt; %s)",
                       sb_data_dir("procell", dir, sizeof dir), SB_DATA_HINT);
    }
    pc_model *m = calloc(1, sizeof *m);
    pc_histogram_row *rows = NULL;
    int nrows = 0;
    if (!m)
        return sb_fail("out of host memory");
    const char *hist = sb_param_text(p, "histogram"), *types = sb_param_text(p, "types");
    snprintf(m->histogram_path, sizeof m->histogram_path, "%s", hist);
    snprintf(m->types_desc, sizeof m->types_desc, "%s", types);
    if (pc_types_load(types, &m->rules) != 0)
        goto fail;
    if (pc_parse_histogram(hist, &rows, &nrows) != 0)
        goto fail;
    double phi_min = sb_param_is_set(p, "phi_min") ? sb_param_num(p, "phi_min") : -1.0;
    if (pc_model_build(m, rows, nrows, (uint64_t)sb_param_num(p, "replicate"), phi_min,
                       sb_param_num(p, "t_max"), strcmp(sb_param_text(p, "start"), "async") == 0,
                       (uint32_t)sb_param_num(p, "seed")) != 0)
        goto fail;
    free(rows);
    *out = m;
    return 0;
fail:
    free(rows);
    pc_model_free(m);
    free(m);
    return -1;
}

static void free_model(void *model)
{
    pc_model_free(model);
    free(model);
}

static void *output_new(const void *model)
{
    pc_output *o = calloc(1, sizeof *o);
    if (o && pc_output_init(o, model) != 0) {
        free(o);
        return NULL;
    }
    return o;
}

static void output_poison(void *out)
{
    pc_output *o = out;
    memset(o->counts, 0xa5, (size_t)o->nomega * sizeof *o->counts);
    o->divisions = o->terminal = o->vanished = 0xa5a5a5a5a5a5a5a5ull;
}

static void output_free(void *out)
{
    pc_output_free(out);
    free(out);
}

/* What output_equal compares, for the reference cache (harness/refcache.h). */
static int output_regions(const void *model, void *out, sb_region *r)
{
    (void)model;
    pc_output *o = out;
    r[0] = (sb_region){o->counts, (size_t)o->nomega * sizeof *o->counts};
    r[1] = (sb_region){&o->divisions, sizeof o->divisions};
    r[2] = (sb_region){&o->terminal, sizeof o->terminal};
    r[3] = (sb_region){&o->vanished, sizeof o->vanished};
    return 4;
}

static int output_equal(const void *model, const void *ref_, const void *got_, char *why,
                        size_t cap)
{
    const pc_model *m = model;
    const pc_output *ref = ref_, *got = got_;
    for (int i = 0; i < m->nomega; i++)
        if (ref->counts[i] != got->counts[i]) {
            snprintf(why, cap, "fluorescence %.17g: reference %llu cells, variant %llu",
                     m->omega[i], ref->counts[i], got->counts[i]);
            return 0;
        }
    if (ref->divisions != got->divisions || ref->terminal != got->terminal ||
        ref->vanished != got->vanished) {
        snprintf(why, cap,
                 "totals: reference %llu divisions %llu terminal %llu vanished, variant %llu "
                 "%llu %llu",
                 ref->divisions, ref->terminal, ref->vanished, got->divisions, got->terminal,
                 got->vanished);
        return 0;
    }
    return 1;
}

static void figures(const void *model, const void *out, sb_figures *fig)
{
    const pc_output *o = out;
    (void)model;
    fig->items = (double)(o->divisions + o->terminal);
}

static int write_histogram(FILE *f, const void *model, const void *out)
{
    const pc_model *m = model;
    const pc_output *o = out;
    fprintf(f, "# procell final histogram: fluorescence count (%llu cells; %llu divisions, "
               "%llu lineages lost below phi_min %.17g)\n",
            o->terminal, o->divisions, o->vanished, m->rules.phi_min);
    for (int i = 0; i < m->nomega; i++)
        if (o->counts[i])
            fprintf(f, "%.17g %llu\n", m->omega[i], o->counts[i]);
    return ferror(f) ? sb_fail("write error on the output dump") : 0;
}

static int output_write(const void *model, const void *out, const char *path)
{
    return sb_write_stream_atomic(path, write_histogram, model, out);
}

/* The thesis' UT1_BM bone-marrow histogram at its threshold, m4 types, 240 h: found where every
 * command finds the ProCell data (harness/data.h). */
static int default_scenario(sb_params *p)
{
    char dir[SB_PARAM_TEXT - 64], path[SB_PARAM_TEXT];
    snprintf(path, sizeof path, "%s/AML9_Exp3_t10d_UT1_BM_GFPpos.txt",
             sb_data_dir("procell", dir, sizeof dir));
    return sb_params_set(p, "histogram", path) || sb_params_set(p, "phi_min", "11.0") ? -1 : 0;
}

/* The problem's floor: the initial histogram read once and the final one written once. Every
 * cell in between can live in registers (a tree is walked, not stored), so the floor is a few
 * kilobytes and ProCell is bound by its work and its latency, never by DRAM. */
static void problem_floor(const void *model, sb_problem_floor *f)
{
    const pc_model *m = model;
    f->bytes = (double)m->nrows * sizeof(pc_histogram_row) +
               (double)m->nomega * sizeof(unsigned long long);
    snprintf(f->what, sizeof f->what,
             "the initial histogram read (%d rows) and the final one written (%d bins)", m->nrows,
             m->nomega);
}

static const sb_noisy_stage noisy[] = {
    {"gpu-histogram", "a host loop of one launch and one copy a generation: its noise was 3.84 % "
                      "in the H100's goals run and its level moves 3.75 % between processes "
                      "(bench/suites/ci.suite leaves it out of the gate)"},
    {NULL, NULL},
};

const sb_workload sb_workload_procell = {
    .name = "procell",
    .summary = "stochastic cell proliferation from a fluorescence histogram (ProCell; thesis "
               "ch. 3)",
    .item_unit = "cells",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .variants = pc_variants,
    .nvariants = PC_NVARIANTS,
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
    .output_write = output_write,
    .input_file = input_file,
    .problem_floor = problem_floor,
    .noisy = noisy,
};

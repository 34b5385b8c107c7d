/* Motility as the harness sees it: the parameters (every constant of the model by name, with the
 * reason for its default), the initial state they build, the outputs and their comparison
 * within the stated tolerance. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "../../harness/variant.h"
#include "model.h"
#include "table.h"

/* Defaults: a 64^2 x 16^2 run (the paper's smallest grid) in which motors bind within the first
 * outer steps (k_on A ~ 1 near the rings, A the binding capacity), walk a filament's length in
 * ell / v = 4 time units and let go after about 1 / k_off = 2, so a good part of them is bound
 * at any time; bound motors make the filaments glide at up to v_glide = 1 cell per time unit
 * and the fluid move at a fraction of that (|F0| / (mu kappa^2) ~ 1), so that 10 outer steps of
 * at most dt_max = 0.5 move the rings by cells, not by rounding. The inner-step bounds C = 0.4 and
 * c = 0.2 keep an Euler step (hence RK2) positive and TVD: 2 C + c <= 1. */
static const sb_param_decl params[] = {
    {"outer", SB_PARAM_INT, "64", 8, 512, NULL,
     "N_o: outer cells a side (periodic, h = 1; the paper: 64, 128, 256)"},
    {"inner", SB_PARAM_INT, "16", 4, MM_MAX_INNER, NULL,
     "N_i: orientations and arclength cells (the paper: 16, 32)"},
    {"steps", SB_PARAM_INT, "10", 1, 1e6, NULL, "outer time steps"},
    {"layers", SB_PARAM_INT, "8", 1, 64, NULL,
     "N_z: fluid layers, each a screened 2-D Stokes solve (two inverse FFTs)"},
    {"seed", SB_PARAM_INT, "1", 0, 4294967295.0, NULL, "random seed of init=random (32 bits)"},
    {"init", SB_PARAM_CHOICE, "rings", 0, 0, "rings|random|file",
     "initial Psi: a lattice of overlapping filament rings (paper fig. 6), random, or a saved "
     "state"},
    {"state", SB_PARAM_PATH, NULL, 0, 0, NULL,
     "saved state for init=file: the grid, Psi and M_tot (format: "
     "variants/motility/STATE-FORMAT.md)"},
    {"density", SB_PARAM_FLOAT, "0.1", 1e-6, 1e3, NULL,
     "mean filaments per unit area (a tail's binding capacity A ~ density ell pi r_c^2)"},
    {"ring_radius", SB_PARAM_FLOAT, "6", 1, 256, NULL,
     "init=rings: ring radius in cells (centres 1.5 radii apart)"},
    {"motors", SB_PARAM_FLOAT, "1", 0, 1e6, NULL, "M_tot: motors per tail, uniform"},
    {"ell", SB_PARAM_FLOAT, "4", 1, 8, NULL, "filament length (window W = ceil(ell/2 + r_c))"},
    {"r_c", SB_PARAM_FLOAT, "1", 0.25, 2, NULL, "capture radius of a motor's stalk"},
    {"v", SB_PARAM_FLOAT, "1", 1e-3, 1e3, NULL, "motor walking speed along a filament"},
    {"k_on", SB_PARAM_FLOAT, "1", 0, 1e3, NULL, "binding rate of a free motor"},
    {"k_off", SB_PARAM_FLOAT, "0.5", 0, 1e3, NULL, "unbinding rate of a bound motor"},
    {"cfl", SB_PARAM_FLOAT, "0.4", 1e-6, 0.5, NULL,
     "C: inner step <= C ds / v (with c: 2 C + c <= 1)"},
    {"c", SB_PARAM_FLOAT, "0.2", 1e-6, 1, NULL,
     "inner step <= c / (k_on A(r0) + k_off), A a tail's binding capacity"},
    {"inner_dt", SB_PARAM_CHOICE, "local", 0, 0, "local|global",
     "inner step per tail (local, the paper's 3.1) or the smallest for all (global, original)"},
    {"integrator", SB_PARAM_CHOICE, "rk2", 0, 0, "rk2|ab2",
     "inner integrator: RK2 / Heun (the paper's 3.1) or Adams-Bashforth 2 (original)"},
    {"f0", SB_PARAM_FLOAT, "-1", -1e3, 1e3, NULL,
     "F0: force per bound motor along p (negative: filaments and fluid pushed to -p, the way "
     "they glide)"},
    {"v_glide", SB_PARAM_FLOAT, "1", 0, 1e3, NULL,
     "V: gliding speed of a filament where every motor is bound"},
    {"d_t", SB_PARAM_FLOAT, "0.05", 0, 10, NULL, "translational diffusion of filaments"},
    {"d_r", SB_PARAM_FLOAT, "0.05", 0, 10, NULL, "rotational diffusion of filaments"},
    {"cfl_outer", SB_PARAM_FLOAT, "0.5", 1e-6, 1, NULL,
     "outer step <= cfl_outer / the largest outflow rate of a Psi cell (<= 1 keeps Psi >= 0)"},
    {"dt_max", SB_PARAM_FLOAT, "0.5", 1e-6, 100, NULL, "outer step cap"},
    {"mu", SB_PARAM_FLOAT, "1", 1e-6, 1e6, NULL, "viscosity"},
    {"kappa", SB_PARAM_FLOAT, "1", 1e-3, 1e3, NULL,
     "screening of the filaments' layer 0; layer l: kappa / (l + 1)^2"},
    {"stress", SB_PARAM_FLOAT, "0.1", -1e3, 1e3, NULL,
     "coefficient of div(sum p p Psi dtheta) in the fluid's forcing"},
    {"rtol", SB_PARAM_FLOAT, "1e-12", 0, 1, NULL,
     "relative tolerance of fp64 stages against the reference (M_b, coarse, F, Psi, u)"},
    {"rtol_mixed_bound", SB_PARAM_FLOAT, "1e-4", 0, 1, NULL,
     "relative tolerance of the mixed-precision (fp32 M_b) stages on M_b"},
    {"rtol_mixed", SB_PARAM_FLOAT, "1e-3", 0, 1, NULL,
     "relative tolerance of the mixed-precision stages on coarse, M_f, F, Psi, u and the inner "
     "step count"},
    {"gpus", SB_PARAM_INT, NULL, 1, SB_MAX_DEVICES, NULL,
     "multi-gpu, multi-gpu-macro: GPUs sharing the rows of tails (default: every visible one)"},
    {"slices", SB_PARAM_INT, NULL, 1, SB_MAX_DEVICES, NULL,
     "multi-gpu, multi-gpu-macro: row slices, shared round-robin by the GPUs (default: one per "
     "GPU; more checks the split on fewer GPUs)"},
    {"piece_tails", SB_PARAM_INT, "0", 0, 1 << 20, NULL,
     "original: tails per piece moved through the GPU (0: as many as fit)"},
};

static double num(const sb_params *p, const char *name)
{
    return sb_param_num(p, name);
}

static int is(const sb_params *p, const char *name, const char *value)
{
    return strcmp(sb_param_text(p, name), value) == 0;
}

/* Whether the user gave the parameter (not only its default). */
static int user_gave(const sb_params *p, const char *name)
{
    for (int i = 0; i < p->n; i++)
        if (strcmp(p->decls[i].name, name) == 0)
            return p->v[i].given;
    return 0;
}

/* init=file: the grid, Psi and M_tot from the saved state. The file gives the grid; an outer or
 * inner the user gave as well must agree with it, or the run's name (its given parameters) would
 * describe another grid. */
static int load_state(const sb_params *p, mm_model *m)
{
    if (!sb_param_is_set(p, "state"))
        return sb_fail("init=file needs --param state=FILE (format: "
                       "variants/motility/STATE-FORMAT.md)");
    const char *path = sb_param_text(p, "state");
    if (mm_state_read(m, path) != 0)
        return -1;
    const char *const grid[2] = {"outer", "inner"};
    const int from_file[2] = {m->n_outer, m->n_inner};
    for (int g = 0; g < 2; g++)
        if (user_gave(p, grid[g]) && (int)num(p, grid[g]) != from_file[g])
            return sb_fail("%s=%d but the state file %s gives '%s %d'; drop the parameter (the "
                           "file sets the grid) or give %s=%d",
                           grid[g], (int)num(p, grid[g]), path, grid[g], from_file[g], grid[g],
                           from_file[g]);
    return 0;
}

static int load(const sb_params *p, void **out)
{
    mm_model *m = calloc(1, sizeof *m);
    if (!m)
        return sb_fail("out of host memory");
    m->laws = (mm_laws){.ell = num(p, "ell"),
                        .r_c = num(p, "r_c"),
                        .v = num(p, "v"),
                        .k_on = num(p, "k_on"),
                        .k_off = num(p, "k_off"),
                        .cfl = num(p, "cfl"),
                        .c = num(p, "c"),
                        .f0 = num(p, "f0"),
                        .v_glide = num(p, "v_glide"),
                        .d_t = num(p, "d_t"),
                        .d_r = num(p, "d_r"),
                        .cfl_outer = num(p, "cfl_outer"),
                        .dt_max = num(p, "dt_max"),
                        .mu = num(p, "mu"),
                        .kappa = num(p, "kappa"),
                        .stress = num(p, "stress")};
    m->n_outer = (int)num(p, "outer");
    m->n_inner = (int)num(p, "inner");
    m->layers = (int)num(p, "layers");
    m->steps = (long long)num(p, "steps");
    m->seed = (uint32_t)num(p, "seed");
    m->global_dt = is(p, "inner_dt", "global");
    m->ab2 = is(p, "integrator", "ab2");
    m->rtol = num(p, "rtol");
    m->rtol_mixed_bound = num(p, "rtol_mixed_bound");
    m->rtol_mixed = num(p, "rtol_mixed");
    const mm_laws *l = &m->laws;
    int rc;
    if (2 * l->cfl + l->c > 1)
        rc = sb_fail("cfl=%g and c=%g: 2 cfl + c must be at most 1, or an inner step can turn "
                     "M_b negative; lower cfl or c",
                     l->cfl, l->c);
    else if (is(p, "init", "file"))
        rc = load_state(p, m);
    else {
        rc = mm_model_set_grid(m);
        if (rc == 0)
            rc = is(p, "init", "random")
                     ? mm_build_random(m, num(p, "density"), num(p, "motors"))
                     : mm_build_rings(m, num(p, "density"), num(p, "ring_radius"),
                                      num(p, "motors"));
    }
    if (rc != 0) {
        mm_model_free(m);
        free(m);
        return -1;
    }
    *out = m;
    return 0;
}

static void free_model(void *model)
{
    mm_model_free(model);
    free(model);
}

static void output_free(void *out)
{
    mm_output *o = out;
    free(o->m_b);
    free(o->coarse);
    free(o->m_f);
    free(o->force);
    free(o->psi);
    free(o->u);
    free(o);
}

static void *output_new(const void *model)
{
    const mm_model *m = model;
    mm_output *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->cells = (size_t)m->n_outer * m->n_outer;
    o->bound = o->cells * m->window * m->n_inner * m->n_inner;
    o->psi_size = o->cells * m->n_inner;
    o->m_b = malloc(o->bound * sizeof *o->m_b);
    o->coarse = malloc(o->cells * sizeof *o->coarse);
    o->m_f = malloc(o->cells * sizeof *o->m_f);
    o->force = malloc(2 * o->cells * sizeof *o->force);
    o->psi = malloc(o->psi_size * sizeof *o->psi);
    o->u = malloc(2 * o->cells * sizeof *o->u);
    if (!o->m_b || !o->coarse || !o->m_f || !o->force || !o->psi || !o->u) {
        output_free(o);
        return NULL;
    }
    return o;
}

static void output_poison(void *out)
{
    mm_output *o = out;
    /* M_b reaches 26 GB at 256^2 x 32^2: on every core */
    enum { CHUNK = 1 << 20 };
    long long chunks = (long long)((o->bound + CHUNK - 1) / CHUNK);
#pragma omp parallel for schedule(static)
    for (long long c = 0; c < chunks; c++) {
        size_t first = (size_t)c * CHUNK, n = o->bound - first < CHUNK ? o->bound - first : CHUNK;
        memset(o->m_b + first, 0xa5, n * sizeof *o->m_b);
    }
    memset(o->coarse, 0xa5, o->cells * sizeof *o->coarse);
    memset(o->m_f, 0xa5, o->cells * sizeof *o->m_f);
    memset(o->force, 0xa5, 2 * o->cells * sizeof *o->force);
    memset(o->psi, 0xa5, o->psi_size * sizeof *o->psi);
    memset(o->u, 0xa5, 2 * o->cells * sizeof *o->u);
    o->t = NAN;
    o->inner_steps = -1;
    o->mixed = -1;
}

/* What output_equal reads, for the reference cache (harness/refcache.h). */
static int output_regions(const void *model, void *out, sb_region *r)
{
    (void)model;
    mm_output *o = out;
    r[0] = (sb_region){o->m_b, o->bound * sizeof *o->m_b};
    r[1] = (sb_region){o->coarse, o->cells * sizeof *o->coarse};
    r[2] = (sb_region){o->m_f, o->cells * sizeof *o->m_f};
    r[3] = (sb_region){o->force, 2 * o->cells * sizeof *o->force};
    r[4] = (sb_region){o->psi, o->psi_size * sizeof *o->psi};
    r[5] = (sb_region){o->u, 2 * o->cells * sizeof *o->u};
    r[6] = (sb_region){&o->t, sizeof o->t};
    r[7] = (sb_region){&o->inner_steps, sizeof o->inner_steps};
    r[8] = (sb_region){&o->mixed, sizeof o->mixed};
    return 9;
}

/* Entry by entry, |got - ref| <= rtol max(|ref|, the mean |ref| of the quantity): fp64 stages
 * differ from the reference by the order of their sums (the force's, then what it moves), and an
 * entry near zero (sparse M_b, a force that cancels) has no relative precision of its own. The
 * first entry outside, and by how much, in why. On every core: M_b reaches 3.3e9 entries. */
static int close_all(const char *name, const double *ref, const double *got, size_t n, double rtol,
                     char *why, size_t cap)
{
    double mean = 0;
    long long count = (long long)n, bad = count;
#pragma omp parallel for schedule(static) reduction(+ : mean)
    for (long long e = 0; e < count; e++)
        mean += fabs(ref[e]) / n;
#pragma omp parallel for schedule(static) reduction(min : bad)
    for (long long e = 0; e < count; e++)
        if (e < bad && !(fabs(got[e] - ref[e]) <= rtol * fmax(fabs(ref[e]), mean)))
            bad = e;
    if (bad == count)
        return 1;
    double floor = fmax(fabs(ref[bad]), mean);
    snprintf(why, cap, "%s[%lld] = %.17g, reference %.17g (relative %.3g of %.3g, tolerance %g)",
             name, bad, got[bad], ref[bad], fabs(got[bad] - ref[bad]) / floor, floor, rtol);
    return 0;
}

/* fp64 stages: every quantity within rtol and the same inner steps. Mixed-precision stages
 * (fp32 M_b, M_f and coarse sums) within the spec's looser bounds, the inner steps within
 * rtol_mixed (a tail's limit comes from Psi, which fp32 coarse densities move by ~1e-7 through
 * the gliding: a limit that lands on an exact division of dt may round the other way). */
static int output_equal(const void *model, const void *ref_, const void *got_, char *why,
                        size_t cap)
{
    const mm_model *m = model;
    const mm_output *ref = ref_, *got = got_;
    double rtol = got->mixed ? fmax(m->rtol, m->rtol_mixed) : m->rtol;
    double rtol_bound = got->mixed ? fmax(m->rtol, m->rtol_mixed_bound) : m->rtol;
    double steps_off = fabs((double)(got->inner_steps - ref->inner_steps));
    if (steps_off > (got->mixed ? rtol * ref->inner_steps : 0) ||
        !(fabs(got->t - ref->t) <= rtol * ref->t)) {
        snprintf(why, cap, "t = %.17g after %lld inner steps, reference t = %.17g after %lld",
                 got->t, got->inner_steps, ref->t, ref->inner_steps);
        return 0;
    }
    return close_all("M_b", ref->m_b, got->m_b, ref->bound, rtol_bound, why, cap) &&
           close_all("coarse", ref->coarse, got->coarse, ref->cells, rtol, why, cap) &&
           close_all("M_f", ref->m_f, got->m_f, ref->cells, rtol, why, cap) &&
           close_all("F", ref->force, got->force, 2 * ref->cells, rtol, why, cap) &&
           close_all("Psi", ref->psi, got->psi, ref->psi_size, rtol, why, cap) &&
           close_all("u", ref->u, got->u, 2 * ref->cells, rtol, why, cap);
}

/* Items: bound-motor configuration updates, an inner step of one tail counting its whole window
 * (window x N_i^2, as a GPU block updates it; the CPU stages skip the lines that never meet the
 * capture disc, whose motors stay zero). */
static void figures(const void *model, const void *out, sb_figures *fig)
{
    const mm_model *m = model;
    const mm_output *o = out;
    double bound = 0, motors = 0, filaments = 0, fastest = 0;
    for (size_t c = 0; c < o->cells; c++) {
        bound += o->coarse[c];
        motors += m->m_tot[c];
        fastest = fmax(fastest, hypot(o->u[c], o->u[o->cells + c]));
    }
    for (size_t e = 0; e < o->psi_size; e++)
        filaments += o->psi[e] * m->dtheta;
    fig->items = (double)o->inner_steps * m->window * m->n_inner * m->n_inner;
    fig->simulated_seconds = o->t; /* model time units */
    fig->values[0] = motors > 0 ? bound / motors : 0;
    fig->values[1] = (double)o->inner_steps / ((double)o->cells * m->steps);
    fig->values[2] = fastest;
    fig->values[3] = filaments;
}

static const char *const output_figures[] = {"bound_fraction", "inner_steps_per_tail", "max_speed",
                                             "filaments", NULL};

/* The phases of an outer step; the GPU stages add their transfers. */
static const char *const csv_phases[] = {"psi", "micro", "force", "fluid", "transfers", NULL};

/* --dump-output: a table of the outer cells (M_b is too large for a text dump). */
static int write_cells(FILE *f, const void *model, const void *out)
{
    const mm_model *m = model;
    const mm_output *o = out;
    int n = m->n_outer;
    fprintf(f, "# t %.17g, %lld inner steps\n", o->t, o->inner_steps);
    fprintf(f, "# i j filaments coarse m_f fx fy ux uy\n");
    for (size_t c = 0; c < o->cells; c++) {
        double filaments = 0;
        for (int k = 0; k < m->n_inner; k++)
            filaments += o->psi[c * m->n_inner + k] * m->dtheta;
        fprintf(f, "%d %d %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n", (int)(c % n), (int)(c / n),
                filaments, o->coarse[c], o->m_f[c], o->force[c], o->force[o->cells + c], o->u[c],
                o->u[o->cells + c]);
    }
    return ferror(f) ? sb_fail("write error on the output dump") : 0;
}

static int output_write(const void *model, const void *out, const char *path)
{
    return sb_write_stream_atomic(path, write_cells, model, out);
}

/* The problem's floor: an outer step reads and writes the bound motors M_b of every feasible
 * configuration of every tail and the filament density, in fp32 (the least precision a stage
 * may hold them in: mixed precision passes validation). */
static void problem_floor(const void *model, sb_problem_floor *f)
{
    const mm_model *m = model;
    double feasible = 0; /* a tail's feasible configurations */
    for (int i = 0; i < m->window * m->n_inner; i++)
        feasible += m->line_end[i] - m->line_first[i];
    double tails = (double)m->n_outer * m->n_outer;
    f->bytes = 2.0 * sizeof(float) * (double)m->steps * tails * (feasible + m->n_inner);
    snprintf(f->what, sizeof f->what,
             "M_b of the feasible configurations (%g a tail) and Psi read and written an outer "
             "step in fp32: %g tails, %lld steps",
             feasible, tails, m->steps);
}

const sb_workload sb_workload_motility = {
    .name = "motility",
    .summary = "micro-macro kinetic model of a gliding motility assay: bound-motor densities "
               "per motor tail, the paper's GPU data flow and kernel optimizations",
    .item_unit = "configuration updates",
    .params = params,
    .nparams = sizeof params / sizeof params[0],
    .variants = mm_variants,
    .nvariants = MM_NVARIANTS,
    .reference = "cpu-reference",
    .default_scenario = NULL,
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
    .csv_phases = csv_phases,
    .problem_floor = problem_floor,
};

/* Synthetic ProCell inputs for the tests (never the real data: that stays in ../shared), and a
 * way to run one variant through the harness. */
#ifndef PROCELL_FIXTURE_H
#define PROCELL_FIXTURE_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/rng.h"
#include "harness/measure.h"
#include "harness/variant.h"
#include "variants/procell/model.h"

extern const sb_workload sb_workload_procell;

/* n log-spaced rows from 8 to 6000 (ratio 10^(1/128)), counts 0..max_count drawn from Philox. */
static inline void fixture_rows(pc_histogram_row *rows, int n, uint32_t seed, int max_count)
{
    for (int i = 0; i < n; i++) {
        sb_rng_block b = sb_philox((uint32_t)i, seed, 0xf1, 0, 0, 0);
        rows[i].phi = 8.0 * pow(10.0, i / 128.0);
        rows[i].count = b.v[0] % (uint32_t)(max_count + 1);
    }
}

/* A model from rows and types (types: a preset name, or NULL when `rules` holds them). */
static inline pc_model *fixture_model(const pc_histogram_row *rows, int n, const char *preset,
                                      const pc_rules *types, double t_max, double phi_min,
                                      int async, uint32_t seed, uint64_t replicate)
{
    pc_model *m = (pc_model *)calloc(1, sizeof *m);
    snprintf(m->histogram_path, sizeof m->histogram_path, "fixture");
    if (preset) {
        if (!pc_types_preset(preset, &m->rules))
            return NULL;
    } else {
        m->rules = *types;
    }
    if (pc_model_build(m, rows, n, replicate, phi_min, t_max, async, seed) != 0)
        return NULL;
    return m;
}

static inline void fixture_free(pc_model *m)
{
    pc_model_free(m);
    free(m);
}

/* Parameters as a user would leave them (level memory budget and so on). */
static inline const sb_params *fixture_params(void)
{
    static sb_params p;
    sb_params_init(&p, sb_workload_procell.params, sb_workload_procell.nparams);
    return &p;
}

/* Runs variant `name` once on the given devices; 0 on success. */
static inline int fixture_run(const char *name, const pc_model *m, const int *devices,
                              int ndevices, pc_output *out)
{
    const sb_variant *v = sb_find_variant(&sb_workload_procell, name);
    if (!v || pc_output_init(out, m) != 0)
        return -1;
    return sb_run_once(&sb_workload_procell, v, m, fixture_params(), devices, ndevices, out);
}

#endif

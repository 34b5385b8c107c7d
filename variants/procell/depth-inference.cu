/* Stage 4 (thesis 3.2.3, fig. 3.8): + the number of levels inferred from the parameters instead of
 * filling the memory budget: eta, the smallest number of generations whose mean division times
 * reach t_max, for the most probable type that divides. Fewer levels: less to allocate, launch
 * and copy back; the few cells still Alive at X_eta restart from the host. */
#include <math.h>

#include "levels.h"
#include "table.h"

int pc_inferred_levels(const pc_model *m)
{
    const pc_rules *r = &m->rules;
    int best = -1;
    double best_share = -1, previous = 0;
    for (int j = 0; j < r->ntypes; j++) {
        double share = r->cum[j] - previous;
        previous = r->cum[j];
        if (!r->quiescent[j] && share > best_share) {
            best = j;
            best_share = share;
        }
    }
    if (best < 0)
        return 1; /* nothing divides */
    double eta = ceil(r->t_max / r->mean[best]);
    if (eta * r->mean[best] < r->t_max)
        eta += 1;
    return eta < 1 ? 1 : eta > PC_MAX_LEVELS ? PC_MAX_LEVELS : (int)eta;
}

static int setup(sb_env *env, const void *model, void **state)
{
    static const pc_levels_config config = {.bounding = 1, .infer_depth = 1, .gpu_histogram = 0};
    return pc_levels_setup(env, (const pc_model *)model, &config, state);
}

const sb_variant_ops pc_depth_inference_ops = {setup, pc_levels_run, pc_levels_output,
                                               pc_levels_teardown, pc_levels_report};

/* Stage 0, the oracle: ProCell's algorithm in C on one thread. A LIFO stack of cells; pop one,
 * apply the rule, push both daughters when it divides, count terminal cells by their exact
 * fluorescence (binary search of Omega by value). It shares only the rule (fate.h) with the
 * variants it checks. */
#include <stdlib.h>

#include "../../cuda/base/error.h"
#include "fate.h"
#include "table.h"

typedef struct reference {
    const pc_model *m;
    pc_output result;
    pc_cell stack[2 * (PC_MAX_GEN + 1)];
} reference;

static int setup(sb_env *env, const void *model, void **state)
{
    (void)env;
    reference *s = calloc(1, sizeof *s);
    if (!s || pc_output_init(&s->result, model) != 0) {
        free(s);
        return sb_fail("out of host memory");
    }
    s->m = model;
    *state = s;
    return 0;
}

static int run(void *state)
{
    reference *s = state;
    const pc_model *m = s->m;
    pc_output *out = &s->result;
    pc_output_zero(out);
    for (int row = 0; row < m->nrows; row++) {
        for (uint64_t root = m->root_start[row]; root < m->root_start[row + 1]; root++) {
            int top = 0;
            s->stack[top++] = pc_root_cell(&m->rules, (uint32_t)root, m->phi[row]);
            while (top > 0) {
                pc_cell c = s->stack[--top];
                double t_division;
                switch (pc_fate(&m->rules, &c, &t_division)) {
                case PC_TERMINAL: {
                    int bin = pc_omega_search(m->omega, m->nomega, c.f);
                    if (bin < 0)
                        return sb_fail("cpu-reference: fluorescence %.17g missing from Omega",
                                       c.f);
                    out->counts[bin]++;
                    out->terminal++;
                    break;
                }
                case PC_VANISHES:
                    out->vanished++;
                    break;
                case PC_DIVIDES:
                    out->divisions++;
                    s->stack[top++] = pc_daughter(&c, t_division, 1);
                    s->stack[top++] = pc_daughter(&c, t_division, 0);
                    break;
                default:
                    return sb_fail("root %llu divides past generation %d: lower t_max or raise "
                                   "phi_min", (unsigned long long)root, PC_MAX_GEN);
                }
            }
        }
    }
    return 0;
}

static int output(void *state, void *out)
{
    reference *s = state;
    pc_output_copy(out, &s->result);
    return 0;
}

static void teardown(void *state)
{
    reference *s = state;
    pc_output_free(&s->result);
    free(s);
}

const sb_variant_ops pc_cpu_reference_ops = {setup, run, output, teardown, NULL};

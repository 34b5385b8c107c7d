/* Fuzz target: motility's saved state (variants/motility/state.c, mm_state_read;
 * STATE-FORMAT.md), read into a model whose laws are set as a run's are. */
#include "fuzz.h"
#include "variants/motility/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = sb_fuzz_write("state.txt", data, size);
    mm_model m;
    memset(&m, 0, sizeof m);
    m.laws.ell = 4;
    m.laws.r_c = 1;
    m.laws.kappa = 2;
    m.layers = 3;
    m.steps = 7;
    m.seed = 11;
    if (mm_state_read(&m, path) != 0) {
        sb_fuzz_refused_unchanged(path, m.psi0 || m.m_tot || m.n_outer || m.n_inner,
                                  "the model: it left a grid");
        return 0;
    }
    if (m.n_outer < 1 || !m.psi0 || !m.m_tot)
        abort();
    mm_model_free(&m);
    return 0;
}

/* workload.c (the grid's parameter ranges) lists the variants of table.c, which bring the GPU
 * code: none is run here. */
#include "variants/motility/table.h"
const sb_variant mm_variants[MM_NVARIANTS];

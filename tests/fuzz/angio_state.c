/* Fuzz target: angio's saved state (variants/angio/state.c, ag_state_read; STATE-FORMAT.md), read
 * into a model whose laws are set as a run's are. */
#include "fuzz.h"
#include "variants/angio/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = sb_fuzz_write("state.txt", data, size);
    ag_model m;
    memset(&m, 0, sizeof m);
    m.laws.k_c = 1.2f;
    m.laws.dt = 0.5f;
    m.seed = 7;
    m.steps = 10;
    m.max_cells = 1000;
    if (ag_state_read(&m, path) != 0) {
        sb_fuzz_refused_unchanged(path, m.cells || m.tubes || m.ncells || m.ntubes,
                                  "the model: it left cells or tubes");
        return 0;
    }
    if (m.ncells < 1 || !m.cells || m.nbox < 1)
        abort();
    ag_model_free(&m);
    return 0;
}

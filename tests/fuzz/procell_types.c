/* Fuzz target: ProCell's cell types file (variants/procell/parse.c, pc_parse_types). */
#include "fuzz.h"
#include "variants/procell/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = sb_fuzz_write("types.txt", data, size);
    pc_rules rules = {.ntypes = -7};
    if (pc_parse_types(path, &rules) != 0) {
        sb_fuzz_refused_unchanged(path, rules.ntypes != -7, "the rules");
        return 0;
    }
    if (rules.ntypes < 1 || rules.ntypes > PC_MAX_TYPES)
        abort();
    return 0;
}

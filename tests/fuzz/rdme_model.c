/* Fuzz target: the rdme model file (variants/rdme/parse.c, rd_parse_model; MODEL-FORMAT.md), in
 * both site formats. */
#include "fuzz.h"
#include "variants/rdme/model.h"

/* A lattice is refused when its run would not fit the host's memory (variants/rdme/model.c):
 * here a host of 512 MiB, so that the fuzzer's lattices stay within its 2 GiB limit and a
 * refusal that came too late (after the allocation) shows as an out-of-memory failure. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("SB_HOST_MEMORY", "512M", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = sb_fuzz_write("model.rdme", data, size);
    for (int format = RD_PACKED32; format <= RD_BYTE16; format++) {
        rd_model m;
        if (rd_parse_model(&m, path, (rd_site_format)format, 7, 10, 5) != 0) {
            sb_fuzz_refused(path);
            continue;
        }
        rd_model_free(&m);
    }
    return 0;
}

/* Fuzz target: ProCell's histogram file (variants/procell/parse.c, pc_parse_histogram). */
#include "fuzz.h"
#include "variants/procell/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = sb_fuzz_write("histogram.txt", data, size);
    pc_histogram_row *rows = NULL;
    int nrows = 0;
    if (pc_parse_histogram(path, &rows, &nrows) != 0) {
        sb_fuzz_refused(path);
        return 0;
    }
    if (nrows < 1 || !rows)
        abort();
    free(rows);
    return 0;
}

/* Fuzz target: records files as `stagebench plot` reads them (bench/report/plot.c), for each kind of
 * figure, up to the data blocks it writes; gnuplot is kept out of reach (PATH names no
 * directory), so each figure ends at "gnuplot is not installed" (SB_REFUSED). */
#include "fuzz.h"
#include "bench/report/plot.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("PATH", "/nonexistent", 1);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = sb_fuzz_write("records.json", data, size);
    const char *inputs[1] = {path};
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s", sb_fuzz_path("figure"));
    const sb_plot_request requests[] = {
        {.kind = SB_PLOT_TIME},
        {.kind = SB_PLOT_TIME, .x_param = "n", .where = "m=1", .variants = "a,b"},
        {.kind = SB_PLOT_SPEEDUP, .baseline = "cpu-reference"},
        {.kind = SB_PLOT_SERIES, .series = "device_bytes_by_generation"},
        {.kind = SB_PLOT_COUNTERS},
    };
    for (size_t i = 0; i < sizeof requests / sizeof requests[0]; i++) {
        sb_plot_request r = requests[i];
        r.inputs = inputs;
        r.ninputs = 1;
        r.out_prefix = prefix;
        int rc = sb_plot(&r);
        if (rc == 0) {
            fprintf(stderr, "fuzz: a figure drawn without gnuplot\n");
            abort();
        }
        if (rc == SB_REFUSED)
            sb_error_clear();
        else
            sb_fuzz_refused_naming(path);
    }
    return 0;
}

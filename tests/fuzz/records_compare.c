/* Fuzz target: records files as `stagebench compare` and `calibrate` read them
 * (harness/compare.c): the input compared with itself and with a small valid records file both
 * ways, read as a calibration file, used as the calibration of a comparison, and calibrated; and
 * the same bytes read as an xz-compressed records file. */
#include "fuzz.h"
#include "harness/compare.h"

/* Two benchmarks in the shape stagebench run writes (results/SCHEMA.md), one with samples and
 * one Google Benchmark entry with real_time only. */
static const char base_records[] =
    "{\"context\": {\"stagebench\": {\"git_commit\": \"0123456789abcdef\", \"repetitions\": 3,"
    " \"devices\": [{\"name\": \"Test GPU\"}]}},"
    " \"benchmarks\": ["
    "{\"name\": \"w/a/n:10\", \"run_type\": \"iteration\", \"real_time\": 1.0, \"time_unit\": \"ms\","
    " \"stagebench\": {\"status\": \"valid\", \"time\": {\"samples\": [0.001, 0.0011, 0.00095]}}},"
    "{\"name\": \"w/b/n:10\", \"real_time\": 2000000, \"time_unit\": \"ns\"}]}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *base;
    static FILE *out;
    if (!base) {
        base = strdup(sb_fuzz_write("base.json", (const uint8_t *)base_records,
                                    sizeof base_records - 1));
        out = fopen("/dev/null", "w");
    }
    const char *path = sb_fuzz_write("records.json", data, size);
    sb_compare_options opt = {.threshold = 0.05, .alpha = 0.05};
    const char *pairs[3][2] = {{path, path}, {base, path}, {path, base}};
    for (int i = 0; i < 3; i++)
        if (sb_compare_files(pairs[i][0], pairs[i][1], &opt, out) < 0)
            sb_fuzz_refused_naming(path);
    /* the same bytes as a committed compressed records file (harness/json.c's xz reader) */
    const char *xz = sb_fuzz_write("records.json.xz", data, size);
    if (sb_compare_files(base, xz, &opt, out) < 0)
        sb_fuzz_refused_naming(xz);
    sb_calibration c;
    if (sb_calibration_load(&c, path) == 0) {
        sb_calibration_free(&c);
        opt.calibration = path;
        if (sb_compare_files(base, base, &opt, out) < 0)
            sb_fuzz_refused_naming(path);
    } else {
        sb_fuzz_refused_naming(path);
    }
    const char *inputs[1] = {path};
    if (sb_calibrate_files(inputs, 1, 0.01, sb_fuzz_path("calibration.json"), out) != 0)
        sb_fuzz_refused_naming(path);
    return 0;
}

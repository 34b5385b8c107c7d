/* Fuzz target: records files as `stagebench history add` reads them (harness/history.c), added
 * to a new history (twice: the second replaces the rows), then the history loaded and each
 * series' change points found, as show and check do. */
#include "fuzz.h"
#include "harness/history.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = strdup(sb_fuzz_write("records.json", data, size));
    const char *db = strdup(sb_fuzz_path("history.db"));
    unlink(db);
    int rows, new_rows;
    for (int i = 0; i < 2; i++)
        if (sb_history_add(db, &path, 1, NULL, &rows, &new_rows) != 0) {
            sb_fuzz_refused_naming(path);
            goto done;
        }
    sb_history_series *series;
    int nseries;
    if (sb_history_load(db, NULL, NULL, &series, &nseries) != 0) {
        fprintf(stderr, "fuzz: a history just written does not load: %s\n", sb_error());
        abort();
    }
    for (int s = 0; s < nseries; s++) {
        sb_history_change changes[64];
        if (sb_history_changes(&series[s], changes, 64) < 0) {
            fprintf(stderr, "fuzz: change points: %s\n", sb_error());
            abort();
        }
    }
    sb_history_free(series, nseries);
done:
    unlink(db);
    free((void *)db);
    free((void *)path);
    return 0;
}

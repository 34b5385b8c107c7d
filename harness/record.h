/* Records: one JSON document per run (Google Benchmark's shape plus a "stagebench" object; see
 * results/SCHEMA.md) and a CSV view of the same rows. Both files are rewritten atomically after
 * every finished benchmark, so a run that fails half way keeps what it finished. */
#ifndef SB_RECORD_H
#define SB_RECORD_H

#include <jansson.h>

#include "measure.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sb_records {
    json_t *doc, *benchmarks;
    char json_path[4096], csv_path[4096];
    const sb_workload *workload;
    char *csv;
    size_t csv_len, csv_cap;
} sb_records;

/* Takes ownership of context. The CSV goes beside json_path with the extension .csv. */
int sb_records_open(sb_records *r, const char *json_path, json_t *context,
                    const sb_workload *w);
int sb_records_add(sb_records *r, const sb_result *res);
void sb_records_close(sb_records *r);

#ifdef __cplusplus
}
#endif

#endif

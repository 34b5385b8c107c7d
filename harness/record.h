/* Records: one JSON document per run (Google Benchmark's shape plus a "stagebench" object; see
 * results/SCHEMA.md) and a CSV view of the same rows. Both files are rewritten atomically after
 * every finished benchmark (the CSV, then the JSON), so a run that fails half way, or is killed,
 * keeps what it finished. */
#ifndef SB_RECORD_H
#define SB_RECORD_H

#include <jansson.h>

#include "measure.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A record's floors (stagebench.floors): the run is bound by DRAM or by instruction issue where
 * that floor takes at least this share of its time, else by latency (launches, dependent loads,
 * the host). */
#define SB_BOUND_PCT 50.0

typedef struct sb_records {
    json_t *doc, *benchmarks;
    char json_path[4096], csv_path[4096];
    const sb_workload *workload;
    char *csv;
    size_t csv_len, csv_cap;
    size_t nkept; /* the first records, kept from an earlier session (sb_records_resume) */
} sb_records;

/* Whether json_path and its CSV view can be written, checked before anything is measured (a
 * run refused at its first record would have measured for nothing): 0, or -1 with a message
 * that begins with `label` (e.g. "--out r.json") when either is a folder or not a regular
 * file, their folder cannot be made or written, or either exists with content stagebench did
 * not write. A records file (or its CSV view) is replaced, as a run written to the same --out
 * again expects, and so is an empty file (mktemp's); any other file is the user's, never
 * overwritten. Writes nothing. */
int sb_records_check_path(const char *json_path, const char *label);
/* Takes ownership of context. The CSV goes beside json_path with the extension .csv. */
int sb_records_open(sb_records *r, const char *json_path, json_t *context,
                    const sb_workload *w);
int sb_records_add(sb_records *r, const sb_result *res);
void sb_records_close(sb_records *r);

/* Opens json_path to go on where an earlier session stopped (`study --resume`): its records are
 * kept, but failed ones and any whose CSV row is missing (`kept` and `dropped` count them, and
 * the dropped ones are to be run again); the file keeps its first context, with this session
 * added to context.stagebench.resumed. A missing file is a fresh start (sb_records_open). -1
 * with a message when the file is not this workload's records or its CSV has other columns. */
int sb_records_resume(sb_records *r, const char *json_path, json_t *context,
                      const sb_workload *w, int *kept, int *dropped);
/* The status ("valid", ...) of the record kept from an earlier session (sb_records_resume)
 * named `name` at exactly these parameters, or NULL. */
const char *sb_records_find(const sb_records *r, const char *name, const sb_params *params);
/* Appends the records another process wrote to child_json (and its CSV rows) and rewrites both
 * views; devices whose DRAM peak this file lacks take the child's. counts[status] is increased
 * per record merged. Returns the number merged (0: no such file, or one without records), -1
 * on a write error. */
int sb_records_merge(sb_records *r, const char *child_json, int counts[4]);

#ifdef __cplusplus
}
#endif

#endif

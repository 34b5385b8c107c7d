/* The performance history: an SQLite file with one row per record, keyed by commit, device,
 * workload, variant and parameters (results/SCHEMA.md describes the table), and the change
 * points of each benchmark's series of medians (harness/changepoint.h). Writes are one
 * transaction each; a file that is not SQLite, is corrupt, or belongs to another application or
 * schema version is refused and left as it was. */
#ifndef SB_HISTORY_H
#define SB_HISTORY_H

#ifdef __cplusplus
extern "C" {
#endif

/* PRAGMA application_id of a history ("SBhs"), and PRAGMA user_version: its schema. */
#define SB_HISTORY_APPLICATION_ID 0x53426873
#define SB_HISTORY_SCHEMA 1

/* Adds the records files paths[0..n-1] to the history db_path (created when missing or empty),
 * all in one transaction: a row per benchmark and file, the entries of a benchmark's repetitions
 * merged into it. A row whose key is there already replaces its values and keeps its place in
 * the order added. commit NULL: each file's context.stagebench.git_commit. Concurrent writers
 * wait for each other (up to 10 s). Returns 0 with the rows written and how many of them were
 * new in *rows and *new_rows, or -1 with a message naming the file and the fix. */
int sb_history_add(const char *db_path, const char *const *paths, int n, const char *commit,
                   int *rows, int *new_rows);

typedef struct sb_history_row {
    long long seq;     /* its place in the order added */
    char *commit;
    char *status;      /* "valid", or the first other status among its repetitions */
    double median;     /* seconds: the median of the repetitions' medians; NAN unless valid */
    double noise;      /* between the repetitions' medians (one: the run's own); NAN unless valid */
    int repetitions;   /* processes (entries) merged into the row */
} sb_history_row;

typedef struct sb_history_series {
    char *benchmark;   /* the newest row's name */
    char *device, *workload, *variant, *params;
    sb_history_row *rows; /* in the order added */
    int nrows;
} sb_history_series;

/* Every benchmark's series whose name matches benchmark_glob and whose device matches
 * device_glob (fnmatch; NULL matches all), by name then device. The history is opened read-only.
 * Returns 0, or -1 with a message. */
int sb_history_load(const char *db_path, const char *benchmark_glob, const char *device_glob,
                    sb_history_series **series, int *nseries);
void sb_history_free(sb_history_series *series, int nseries);

typedef struct sb_history_change {
    int row;       /* the first row of the new segment (an index into the series' rows) */
    double p;      /* the permutation test's p-value */
    double change; /* the new segment's mean over the one before, minus 1: +0.05 is 5 % slower */
} sb_history_change;

/* The change points of a series' valid medians, oldest first, at most max_changes (a series of
 * n rows has at most n / 3). Segments are compared by their geometric means, as the detector
 * sees log(median). Returns how many, or -1 with a message. */
int sb_history_changes(const sb_history_series *s, sb_history_change *changes, int max_changes);

#ifdef __cplusplus
}
#endif

#endif

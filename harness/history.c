#include "history.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <jansson.h>
#include <sqlite3.h>

#include "changepoint.h"
#include "../cuda/base/error.h"
#include "json.h"
#include "stats.h"

/* How long a writer waits for another one's transaction before it gives up. */
#define BUSY_TIMEOUT_MS 10000

/* The key is what makes two runs the same benchmark on the same machine at the same commit;
 * seq is the order added, kept when a row is replaced. Only valid rows have times. */
static const char create_sql[] =
    "CREATE TABLE records ("
    " git_commit TEXT NOT NULL, device TEXT NOT NULL, workload TEXT NOT NULL,"
    " variant TEXT NOT NULL, params TEXT NOT NULL, benchmark TEXT NOT NULL,"
    " seq INTEGER NOT NULL UNIQUE, added TEXT NOT NULL, run_date TEXT NOT NULL,"
    " median_s REAL, noise REAL, repetitions INTEGER NOT NULL,"
    " repetition_medians TEXT NOT NULL, samples INTEGER NOT NULL, status TEXT NOT NULL,"
    " PRIMARY KEY (git_commit, device, workload, variant, params));";

static const char upsert_sql[] =
    "INSERT INTO records (git_commit, device, workload, variant, params, benchmark, seq, added,"
    " run_date, median_s, noise, repetitions, repetition_medians, samples, status)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, (SELECT coalesce(max(seq), 0) + 1 FROM records), ?7, ?8,"
    " ?9, ?10, ?11, ?12, ?13, ?14)"
    " ON CONFLICT (git_commit, device, workload, variant, params) DO UPDATE SET"
    " benchmark = excluded.benchmark, added = excluded.added, run_date = excluded.run_date,"
    " median_s = excluded.median_s, noise = excluded.noise,"
    " repetitions = excluded.repetitions, repetition_medians = excluded.repetition_medians,"
    " samples = excluded.samples, status = excluded.status";

static const char select_sql[] =
    "SELECT device, workload, variant, params, benchmark, seq, git_commit, status, median_s,"
    " noise, repetitions FROM records ORDER BY device, workload, variant, params, seq";

/* ---- The file ------------------------------------------------------------------------------ */

/* One line for an SQLite failure on path, in the user's terms. */
static int db_fail(sqlite3 *db, const char *path, const char *doing)
{
    switch (sqlite3_errcode(db)) {
    case SQLITE_NOTADB:
        return sb_fail("%s: not a stagebench history (not an SQLite database); name a history "
                       "written by stagebench history add, or a new file", path);
    case SQLITE_CORRUPT:
        return sb_fail("%s: the history is corrupt (%s); restore it from a copy, or start a new "
                       "history at another path", path, sqlite3_errmsg(db));
    case SQLITE_BUSY:
        return sb_fail("%s: still locked by another process after %d s while %s; try again "
                       "when it is done", path, BUSY_TIMEOUT_MS / 1000, doing);
    default:
        return sb_fail("%s: %s: %s", path, doing, sqlite3_errmsg(db));
    }
}

static int exec(sqlite3 *db, const char *path, const char *sql, const char *doing)
{
    return sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : db_fail(db, path, doing);
}

/* The first columns of the first row of sql into values[0..n-1]. */
static int query_ints(sqlite3 *db, const char *path, const char *sql, long long *values, int n)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, path, "reading it");
    int rc = sqlite3_step(st);
    for (int i = 0; rc == SQLITE_ROW && i < n; i++)
        values[i] = sqlite3_column_int64(st, i);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : db_fail(db, path, "reading it");
}

/* Whether the file is a history (0, *empty = 0), an SQLite file with nothing in it yet (0,
 * *empty = 1), or something else (-1 with the message). Reads only, in one statement: a writer
 * that makes the history in between cannot show half of it. */
static int identify(sqlite3 *db, const char *path, int *empty)
{
    long long id[3]; /* application_id, user_version, schema objects */
    if (query_ints(db, path, "SELECT (SELECT application_id FROM pragma_application_id),"
                   " (SELECT user_version FROM pragma_user_version),"
                   " (SELECT count(*) FROM sqlite_master)", id, 3) != 0)
        return -1;
    *empty = id[0] == 0 && id[1] == 0 && id[2] == 0;
    if (*empty)
        return 0;
    if (id[0] != SB_HISTORY_APPLICATION_ID)
        return sb_fail("%s: an SQLite database of another application (application_id 0x%08llx, "
                       "%lld schema objects), not a stagebench history; name a history written "
                       "by stagebench history add, or a new file", path,
                       (unsigned long long)id[0] & 0xffffffffull, id[2]);
    if (id[1] != SB_HISTORY_SCHEMA)
        return sb_fail("%s: a stagebench history of schema version %lld, and this stagebench "
                       "reads version %d; use the stagebench that wrote it, or start a new "
                       "history at another path", path, id[1], SB_HISTORY_SCHEMA);
    return 0;
}

/* SQLite reads a damaged page only when a query reaches it: check them all before trusting the
 * file (a history is small). */
static int check_integrity(sqlite3 *db, const char *path)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA quick_check(1)", -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, path, "checking it");
    int rc = sqlite3_step(st);
    const char *result = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    int ok = result && strcmp(result, "ok") == 0;
    if (rc != SQLITE_ROW)
        db_fail(db, path, "checking it");
    else if (!ok)
        /* its last line is the damage found ("On tree page 2 cell 2: ..."), after a heading */
        sb_fail("%s: the history is corrupt (%s); restore it from a copy, or start a new history "
                "at another path", path,
                !result ? "no result" : strrchr(result, '\n') ? strrchr(result, '\n') + 1 : result);
    sqlite3_finalize(st);
    return ok ? 0 : -1;
}

/* Opens a history, for writing (a missing file is created, with its directory) or read-only;
 * refuses, before anything is written, what identify refuses and a damaged history. */
static int open_store(const char *path, int writable, sqlite3 **out, int *empty)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT)
            return sb_fail("%s: %s", path, strerror(errno));
        if (!writable)
            return sb_fail("%s: no such history; stagebench history add %s RECORDS.json starts "
                           "one", path, path);
        if (sb_make_parent_dirs(path) != 0)
            return -1;
    } else if (!S_ISREG(st.st_mode)) {
        return sb_fail("%s: not a regular file; name a history file", path);
    }

    sqlite3 *db = NULL;
    int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    if (sqlite3_open_v2(path, &db, flags, NULL) != SQLITE_OK) {
        sb_fail("%s: cannot open: %s", path, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_close(db);
        return -1;
    }
    sqlite3_busy_timeout(db, BUSY_TIMEOUT_MS);
    int refused = identify(db, path, empty) != 0 || (!*empty && check_integrity(db, path) != 0);
    if (!refused && !writable && *empty) {
        sb_fail("%s: holds no history yet; stagebench history add %s RECORDS.json adds records",
                path, path);
        refused = 1;
    }
    if (refused) {
        sqlite3_close(db);
        return -1;
    }
    *out = db;
    return 0;
}

/* ---- Records files ------------------------------------------------------------------------- */

/* One row to write: a benchmark of one records file, its repetitions merged. */
typedef struct pending {
    const char *name, *workload, *variant, *device, *commit, *run_date; /* in the file's doc */
    const char *status; /* "valid", or the first other status among its entries */
    char *params;       /* canonical text */
    double *medians;    /* the valid entries' time.median */
    int nmedians, entries;
    double noise;       /* the last valid entry's time.noise: the row's when it is the only one */
    long long samples;
} pending;

typedef struct batch {
    json_t **docs;
    int ndocs;
    pending *rows;
    int nrows, cap;
} batch;

static void free_batch(batch *b)
{
    for (int i = 0; i < b->nrows; i++) {
        free(b->rows[i].params);
        free(b->rows[i].medians);
    }
    free(b->rows);
    for (int i = 0; i < b->ndocs; i++)
        json_decref(b->docs[i]);
    free(b->docs);
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "k=v,k=v", by name; a path by its base name, as benchmark names give it, so that runs from
 * different checkouts are the same benchmark. NULL with a message when a value is not text. */
static char *canonical_params(const char *path, const char *name, json_t *params)
{
    size_t n = json_object_size(params), i = 0, len;
    const char **keys = malloc((n + 1) * sizeof *keys);
    char *text = NULL;
    const char *key;
    json_t *value;
    if (!keys) {
        sb_fail("%s: out of memory", path);
        return NULL;
    }
    json_object_foreach(params, key, value) {
        if (!json_is_string(value)) {
            sb_fail("%s: %s: stagebench.params.%s is not text; regenerate the file with "
                    "stagebench run", path, name, key);
            free(keys);
            return NULL;
        }
        keys[i++] = key;
    }
    qsort(keys, n, sizeof *keys, compare_strings);
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        sb_fail("%s: out of memory", path);
        free(keys);
        return NULL;
    }
    for (i = 0; i < n; i++) {
        const char *v = json_string_value(json_object_get(params, keys[i]));
        const char *slash = strrchr(v, '/');
        fprintf(f, "%s%s=%s", i ? "," : "", keys[i], slash ? slash + 1 : v);
    }
    fclose(f);
    free(keys);
    return text;
}

/* The name of the GPU an entry timed; a CPU variant's row goes under the machine's first GPU
 * ("none" without one), so that its series stays with the machine it ran on. */
static int device_name(const char *path, const char *name, json_t *devices, json_t *device,
                       const char **out)
{
    size_t ndevices = json_array_size(devices);
    if (json_is_null(device)) {
        *out = ndevices ? json_string_value(json_object_get(json_array_get(devices, 0), "name"))
                        : "none";
    } else {
        json_int_t d = json_integer_value(device);
        *out = d >= 0 && (size_t)d < ndevices
                   ? json_string_value(json_object_get(json_array_get(devices, (size_t)d), "name"))
                   : NULL;
    }
    if (!*out)
        return sb_fail("%s: %s: stagebench.device has no name in context.stagebench.devices; "
                       "regenerate the file with stagebench run", path, name);
    return 0;
}

static int same_key(const pending *r, const char *device, const char *workload,
                    const char *variant, const char *params)
{
    return strcmp(r->device, device) == 0 && strcmp(r->workload, workload) == 0 &&
           strcmp(r->variant, variant) == 0 && strcmp(r->params, params) == 0;
}

static pending *new_row(batch *b, const char *path)
{
    if (b->nrows == b->cap) {
        int cap = b->cap ? 2 * b->cap : 64;
        pending *grown = realloc(b->rows, (size_t)cap * sizeof *grown);
        if (!grown) {
            sb_fail("%s: out of memory for %d rows", path, cap);
            return NULL;
        }
        b->rows = grown;
        b->cap = cap;
    }
    pending *r = &b->rows[b->nrows++];
    *r = (pending){.status = "valid"};
    return r;
}

/* The row of entry's benchmark among the rows of this file (from `first` on), made if new. */
static pending *row_for(batch *b, int first, const char *path, const char *name,
                        const char *device, const char *workload, const char *variant,
                        char *params)
{
    for (int i = first; i < b->nrows; i++) {
        pending *r = &b->rows[i];
        int named = strcmp(r->name, name) == 0, same = same_key(r, device, workload, variant,
                                                                params);
        if (named && same) {
            free(params);
            return r;
        }
        if (named)
            sb_fail("%s: two entries named %s differ in device, workload, variant or params; "
                    "regenerate the file with stagebench run", path, name);
        else if (same) /* a run over several devices of one model: names end in /device:N */
            sb_fail("%s: %s and %s are one benchmark for the history (same device name, "
                    "workload, variant and params); add the records of one device per run "
                    "(stagebench run --device N)", path, r->name, name);
        if (named || same) {
            free(params);
            return NULL;
        }
    }
    pending *r = new_row(b, path);
    if (!r) {
        free(params);
        return NULL;
    }
    r->name = name;
    r->device = device;
    r->workload = workload;
    r->variant = variant;
    r->params = params;
    return r;
}

static int read_entry(batch *b, int first, const char *path, size_t index, json_t *entry,
                      json_t *devices)
{
    const char *name = json_string_value(json_object_get(entry, "name"));
    if (!name)
        return sb_fail("%s: benchmarks[%zu] has no \"name\" string; add records written by "
                       "stagebench run", path, index);
    /* Aggregates (mean, median, stddev over repetitions) summarize entries that are in the
     * file too. */
    const char *run_type = json_string_value(json_object_get(entry, "run_type"));
    if (run_type && strcmp(run_type, "iteration") != 0)
        return 0;

    json_t *sb = json_object_get(entry, "stagebench");
    const char *workload = json_string_value(json_object_get(sb, "workload"));
    const char *variant = json_string_value(json_object_get(sb, "variant"));
    const char *status = json_string_value(json_object_get(sb, "status"));
    json_t *params = json_object_get(sb, "params"), *device = json_object_get(sb, "device");
    if (!workload || !variant || !status || !json_is_object(params) ||
        !(json_is_integer(device) || json_is_null(device)))
        return sb_fail("%s: %s has no stagebench object with workload, variant, params, device "
                       "and status; history keeps records written by stagebench run", path,
                       name);
    const char *gpu;
    if (device_name(path, name, devices, device, &gpu) != 0)
        return -1;
    char *canonical = canonical_params(path, name, params);
    if (!canonical)
        return -1;
    pending *r = row_for(b, first, path, name, gpu, workload, variant, canonical);
    if (!r)
        return -1;

    r->entries++;
    if (strcmp(status, "valid") != 0) {
        if (strcmp(r->status, "valid") == 0)
            r->status = status;
        return 0;
    }
    json_t *time = json_object_get(sb, "time");
    json_t *median = json_object_get(time, "median"), *noise = json_object_get(time, "noise");
    json_t *samples = json_object_get(time, "samples");
    if (!json_is_number(median) || !(json_number_value(median) > 0) || !json_is_number(noise) ||
        !json_is_array(samples))
        return sb_fail("%s: %s is valid but has no stagebench.time with a median (> 0), noise "
                       "and samples; regenerate the file with stagebench run", path, name);
    double *grown = realloc(r->medians, (size_t)(r->nmedians + 1) * sizeof *grown);
    if (!grown)
        return sb_fail("%s: out of memory", path);
    r->medians = grown;
    r->medians[r->nmedians++] = json_number_value(median);
    r->noise = json_number_value(noise);
    r->samples += (long long)json_array_size(samples);
    return 0;
}

/* Reads one records file into rows (commit NULL: the file's own). */
static int read_records(batch *b, const char *path, const char *commit)
{
    json_t *doc = sb_json_load(path);
    if (!doc)
        return -1;
    json_t **grown = realloc(b->docs, (size_t)(b->ndocs + 1) * sizeof *grown);
    if (!grown) {
        json_decref(doc);
        return sb_fail("%s: out of memory", path);
    }
    b->docs = grown;
    b->docs[b->ndocs++] = doc;

    json_t *context = json_object_get(doc, "context");
    json_t *sb = json_object_get(context, "stagebench");
    json_t *benchmarks = json_object_get(doc, "benchmarks");
    if (!json_is_object(sb) || !json_is_array(benchmarks))
        return sb_fail("%s: not a stagebench records file (no context.stagebench or no "
                       "\"benchmarks\" array); add records written by stagebench run", path);
    if (!commit)
        commit = json_string_value(json_object_get(sb, "git_commit"));
    if (!commit || !*commit)
        return sb_fail("%s: no context.stagebench.git_commit; give the commit with --commit C",
                       path);
    const char *run_date = json_string_value(json_object_get(context, "date"));
    if (!run_date)
        return sb_fail("%s: no context.date; add records written by stagebench run", path);

    int first = b->nrows;
    size_t i;
    json_t *entry;
    json_array_foreach(benchmarks, i, entry)
        if (read_entry(b, first, path, i, entry, json_object_get(sb, "devices")) != 0)
            return -1;
    if (b->nrows == first)
        return sb_fail("%s: holds no benchmark entries to add; name the records of a run", path);
    for (int r = first; r < b->nrows; r++) {
        b->rows[r].commit = commit;
        b->rows[r].run_date = run_date;
    }
    return 0;
}

/* ---- Writing ------------------------------------------------------------------------------- */

/* The JSON list of the repetitions' medians, as the row keeps it. */
static char *medians_json(const pending *r)
{
    json_t *list = json_array();
    for (int i = 0; i < r->nmedians; i++)
        json_array_append_new(list, json_real(r->medians[i]));
    char *text = json_dumps(list, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(list);
    return text;
}

static int write_row(sqlite3 *db, const char *db_path, sqlite3_stmt *st, const pending *r,
                     const char *added)
{
    char *medians = medians_json(r);
    if (!medians)
        return sb_fail("%s: out of memory", db_path);
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, r->commit, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, r->device, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, r->workload, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, r->variant, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, r->params, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 6, r->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 7, added, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 8, r->run_date, -1, SQLITE_STATIC);
    if (strcmp(r->status, "valid") == 0) {
        /* Repetitions are separate processes: their spread is the noise between runs that a
         * trend must be read against; one run has only its own samples' noise. */
        sb_stats s;
        sb_stats_compute(r->medians, r->nmedians, &s);
        sqlite3_bind_double(st, 9, s.median);
        sqlite3_bind_double(st, 10, r->nmedians > 1 ? s.noise : r->noise);
    } else {
        sqlite3_bind_null(st, 9);
        sqlite3_bind_null(st, 10);
    }
    sqlite3_bind_int(st, 11, r->entries);
    sqlite3_bind_text(st, 12, medians, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 13, r->samples);
    sqlite3_bind_text(st, 14, r->status, -1, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    free(medians);
    return rc == SQLITE_DONE ? 0 : db_fail(db, db_path, "adding a row");
}

/* The transaction itself: everything or nothing reaches the file. */
static int write_rows(sqlite3 *db, const char *db_path, const batch *b, int *new_rows)
{
    int empty;
    long long before, after;
    char added[32], pragmas[128];
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(added, sizeof added, "%Y-%m-%dT%H:%M:%SZ", &utc);

    /* Another writer may have made the history since open_store looked. */
    if (identify(db, db_path, &empty) != 0)
        return -1;
    if (empty) {
        snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d",
                 SB_HISTORY_APPLICATION_ID, SB_HISTORY_SCHEMA);
        if (exec(db, db_path, create_sql, "creating the history") != 0 ||
            exec(db, db_path, pragmas, "creating the history") != 0)
            return -1;
    }
    if (query_ints(db, db_path, "SELECT count(*) FROM records", &before, 1) != 0)
        return -1;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, upsert_sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(db, db_path, "adding rows");
    for (int i = 0; i < b->nrows; i++)
        if (write_row(db, db_path, st, &b->rows[i], added) != 0) {
            sqlite3_finalize(st);
            return -1;
        }
    sqlite3_finalize(st);
    if (query_ints(db, db_path, "SELECT count(*) FROM records", &after, 1) != 0)
        return -1;
    *new_rows = (int)(after - before);
    return 0;
}

int sb_history_add(const char *db_path, const char *const *paths, int n, const char *commit,
                   int *rows, int *new_rows)
{
    batch b = {0};
    sqlite3 *db = NULL;
    int empty, rc = -1;
    /* Every file is read before the history is opened: a bad one leaves it untouched. */
    for (int i = 0; i < n; i++)
        if (read_records(&b, paths[i], commit) != 0)
            goto done;
    if (open_store(db_path, 1, &db, &empty) != 0)
        goto done;
    /* IMMEDIATE: the write lock is taken now, so two writers queue here rather than both read
     * and one fail at its first write. */
    if (exec(db, db_path, "BEGIN IMMEDIATE", "starting a transaction") != 0)
        goto done;
    if (write_rows(db, db_path, &b, new_rows) != 0 ||
        exec(db, db_path, "COMMIT", "committing the rows") != 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        goto done;
    }
    *rows = b.nrows;
    rc = 0;
done:
    sqlite3_close(db);
    free_batch(&b);
    return rc;
}

/* ---- Reading ------------------------------------------------------------------------------- */

static void free_series(sb_history_series *s)
{
    for (int r = 0; r < s->nrows; r++) {
        free(s->rows[r].commit);
        free(s->rows[r].status);
    }
    free(s->rows);
    free(s->benchmark);
    free(s->device);
    free(s->workload);
    free(s->variant);
    free(s->params);
}

void sb_history_free(sb_history_series *series, int nseries)
{
    for (int i = 0; i < nseries; i++)
        free_series(&series[i]);
    free(series);
}

static char *column_text(sqlite3_stmt *st, int column)
{
    const unsigned char *text = sqlite3_column_text(st, column);
    return strdup(text ? (const char *)text : "");
}

static double column_real(sqlite3_stmt *st, int column)
{
    return sqlite3_column_type(st, column) == SQLITE_NULL ? NAN : sqlite3_column_double(st, column);
}

/* Adds the statement's row to the last series when it has the row's key, else to a new one. */
static int add_loaded_row(sqlite3_stmt *st, const char *path, sb_history_series **series,
                          int *nseries, int *cap)
{
    sb_history_series *s = *nseries ? &(*series)[*nseries - 1] : NULL;
    const char *key[4];
    for (int c = 0; c < 4; c++)
        key[c] = (const char *)sqlite3_column_text(st, c);
    if (!key[0] || !key[1] || !key[2] || !key[3])
        return sb_fail("%s: a row without its key; restore the history from a copy", path);
    if (!s || strcmp(s->device, key[0]) || strcmp(s->workload, key[1]) ||
        strcmp(s->variant, key[2]) || strcmp(s->params, key[3])) {
        if (*nseries == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            sb_history_series *grown = realloc(*series, (size_t)*cap * sizeof *grown);
            if (!grown)
                return sb_fail("%s: out of memory for %d benchmarks", path, *cap);
            *series = grown;
        }
        s = &(*series)[(*nseries)++];
        *s = (sb_history_series){.device = strdup(key[0]), .workload = strdup(key[1]),
                                 .variant = strdup(key[2]), .params = strdup(key[3])};
    }
    sb_history_row *grown = realloc(s->rows, (size_t)(s->nrows + 1) * sizeof *grown);
    if (!grown)
        return sb_fail("%s: out of memory for %d rows", path, s->nrows + 1);
    s->rows = grown;
    /* rows come in the order added: the last one names the benchmark */
    free(s->benchmark);
    s->benchmark = column_text(st, 4);
    s->rows[s->nrows++] = (sb_history_row){.seq = sqlite3_column_int64(st, 5),
                                           .commit = column_text(st, 6),
                                           .status = column_text(st, 7),
                                           .median = column_real(st, 8),
                                           .noise = column_real(st, 9),
                                           .repetitions = sqlite3_column_int(st, 10)};
    return 0;
}

static int compare_series(const void *pa, const void *pb)
{
    const sb_history_series *a = pa, *b = pb;
    int by_name = strcmp(a->benchmark, b->benchmark);
    return by_name ? by_name : strcmp(a->device, b->device);
}

int sb_history_load(const char *db_path, const char *benchmark_glob, const char *device_glob,
                    sb_history_series **series, int *nseries)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    int empty, n = 0, cap = 0, rc;
    sb_history_series *all = NULL;
    if (open_store(db_path, 0, &db, &empty) != 0)
        return -1;
    if (sqlite3_prepare_v2(db, select_sql, -1, &st, NULL) != SQLITE_OK) {
        db_fail(db, db_path, "reading it");
        sqlite3_close(db);
        return -1;
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW)
        if (add_loaded_row(st, db_path, &all, &n, &cap) != 0)
            break;
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        db_fail(db, db_path, "reading it");
    sqlite3_finalize(st);
    sqlite3_close(db);
    if (rc != SQLITE_DONE) {
        sb_history_free(all, n);
        return -1;
    }

    int kept = 0;
    for (int i = 0; i < n; i++) {
        int match = (!benchmark_glob || fnmatch(benchmark_glob, all[i].benchmark, 0) == 0) &&
                    (!device_glob || fnmatch(device_glob, all[i].device, 0) == 0);
        if (match)
            all[kept++] = all[i];
        else
            free_series(&all[i]);
    }
    if (kept > 1) /* all is NULL in a history of no records */
        qsort(all, (size_t)kept, sizeof *all, compare_series);
    *series = all;
    *nseries = kept;
    return 0;
}

/* ---- Change points ------------------------------------------------------------------------- */

static double mean(const double *x, int from, int to)
{
    double sum = 0;
    for (int i = from; i < to; i++)
        sum += x[i];
    return sum / (to - from);
}

int sb_history_changes(const sb_history_series *s, sb_history_change *changes, int max_changes)
{
    double *logs = malloc((size_t)(s->nrows + 1) * sizeof *logs);
    double *p = malloc((size_t)(max_changes + 1) * sizeof *p);
    int *rows = malloc((size_t)(s->nrows + 1) * sizeof *rows);
    int *points = malloc((size_t)(max_changes + 1) * sizeof *points);
    int n = 0, found = -1;
    if (!logs || !p || !rows || !points) {
        sb_fail("%s: out of memory for %d rows", s->benchmark, s->nrows);
        goto done;
    }
    /* log: a change is relative, the same 5 % on a 1 ms and on a 1 s benchmark */
    for (int i = 0; i < s->nrows; i++)
        if (s->rows[i].median > 0) {
            logs[n] = log(s->rows[i].median);
            rows[n++] = i;
        }
    found = sb_changepoints(logs, n, NULL, points, p, max_changes);
    for (int k = 0; k < found; k++) {
        int from = k ? points[k - 1] : 0, to = k + 1 < found ? points[k + 1] : n;
        changes[k] = (sb_history_change){
            .row = rows[points[k]], .p = p[k],
            .change = exp(mean(logs, points[k], to) - mean(logs, from, points[k])) - 1};
    }
done:
    free(points);
    free(rows);
    free(p);
    free(logs);
    return found;
}

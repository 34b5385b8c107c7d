/* The history store (harness/history.h) on records files made up here, in the schema's shape
 * (results/SCHEMA.md): rows, their order, replacing, repetitions, refused files left as they
 * were, concurrent writers, and the change points of a stored series. */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>
#include <sqlite3.h>

#include "cuda/base/error.h"
#include "harness/history.h"
#include "harness/json.h"

static char dir[] = "/tmp/sb_test_history.XXXXXX";

#define PATH_CAP 512

static void in_dir(char *path, const char *file)
{
    snprintf(path, PATH_CAP, "%s/%s", dir, file);
}

/* One benchmarks[] entry as stagebench run writes it (fields history does not read left out):
 * workload "w", parameters n=10 and a path, on GPU 0 or (device < 0) a CPU variant. */
static json_t *entry(const char *variant, int device, const char *status, double median_s,
                     int repetitions, int index)
{
    char name[128];
    snprintf(name, sizeof name, "w/%s/n:10/input:in.txt", variant);
    json_t *time = json_pack("{s:f, s:f, s:[f, f, f]}", "median", median_s, "noise", 0.01,
                             "samples", median_s, median_s, median_s);
    return json_pack("{s:s, s:s, s:i, s:i, s:{s:s, s:s, s:{s:s, s:s}, s:o, s:s, s:o}}", "name",
                     name, "run_type", "iteration", "repetitions", repetitions,
                     "repetition_index", index, "stagebench", "workload", "w", "variant",
                     variant, "params", "n", "10", "input", "/some/checkout/in.txt", "device",
                     device < 0 ? json_null() : json_integer(device), "status", status, "time",
                     strcmp(status, "valid") == 0 ? time : (json_decref(time), json_null()));
}

/* Writes dir/file: records of commit with benchmarks (taken). The path returned stays valid for
 * the next 7 calls. */
static const char *write_records(const char *file, const char *commit, json_t *benchmarks)
{
    static char paths[8][PATH_CAP];
    static int next;
    char *path = paths[next++ % 8];
    in_dir(path, file);
    json_t *doc = json_pack("{s:{s:s, s:{s:s, s:[{s:s}]}}, s:o}", "context", "date",
                            "2025-01-01T00:00:00+00:00", "stagebench", "git_commit", commit,
                            "devices", "name", "Test GPU", "benchmarks", benchmarks);
    assert_non_null(doc);
    assert_int_equal(sb_json_write_atomic(path, doc), 0);
    json_decref(doc);
    return path;
}

/* Records of commit: variants "a" (GPU, median a_ms) and "cpu" (CPU, 2 * a_ms). */
static const char *two_variants(const char *file, const char *commit, double a_ms)
{
    return write_records(file, commit,
                         json_pack("[o, o]", entry("a", 0, "valid", a_ms * 1e-3, 1, 0),
                                   entry("cpu", -1, "valid", 2 * a_ms * 1e-3, 1, 0)));
}

static int add(const char *db, const char *records, const char *commit, int *new_rows)
{
    int rows, fresh;
    int rc = sb_history_add(db, &records, 1, commit, &rows, &fresh);
    if (new_rows)
        *new_rows = fresh;
    return rc == 0 ? rows : -1;
}

static void load(const char *db, sb_history_series **series, int *n)
{
    if (sb_history_load(db, NULL, NULL, series, n) != 0)
        fail_msg("%s", sb_error());
}

static const sb_history_series *find(const sb_history_series *series, int n,
                                     const char *variant)
{
    for (int i = 0; i < n; i++)
        if (strcmp(series[i].variant, variant) == 0)
            return &series[i];
    fail_msg("no series of variant %s", variant);
    return NULL;
}

static void test_add_two_commits(void **state)
{
    (void)state;
    char db[PATH_CAP];
    in_dir(db, "two.db");
    int fresh;
    assert_int_equal(add(db, two_variants("c1.json", "c1", 1.0), NULL, &fresh), 2);
    assert_int_equal(fresh, 2);
    assert_int_equal(add(db, two_variants("c2.json", "c2", 1.5), NULL, &fresh), 2);
    assert_int_equal(fresh, 2);

    sb_history_series *series;
    int n;
    load(db, &series, &n);
    assert_int_equal(n, 2);
    const sb_history_series *a = find(series, n, "a"), *cpu = find(series, n, "cpu");
    assert_string_equal(a->benchmark, "w/a/n:10/input:in.txt");
    assert_string_equal(a->workload, "w");
    /* by name; paths by base name */
    assert_string_equal(a->params, "input=in.txt,n=10");
    assert_string_equal(a->device, "Test GPU");
    /* a CPU variant stays with the machine's GPU */
    assert_string_equal(cpu->device, "Test GPU");
    assert_int_equal(a->nrows, 2);
    assert_string_equal(a->rows[0].commit, "c1");
    assert_string_equal(a->rows[1].commit, "c2");
    assert_true(a->rows[0].seq < a->rows[1].seq);
    assert_float_equal(a->rows[0].median, 1e-3, 1e-15);
    assert_float_equal(a->rows[1].median, 1.5e-3, 1e-15);
    assert_float_equal(cpu->rows[1].median, 3e-3, 1e-15);
    assert_float_equal(a->rows[0].noise, 0.01, 1e-15);
    assert_int_equal(a->rows[0].repetitions, 1);
    assert_string_equal(a->rows[0].status, "valid");
    sb_history_free(series, n);

    /* filters */
    assert_int_equal(sb_history_load(db, "w/cpu/*", NULL, &series, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(series[0].variant, "cpu");
    sb_history_free(series, n);
    assert_int_equal(sb_history_load(db, NULL, "Other*", &series, &n), 0);
    assert_int_equal(n, 0);
    sb_history_free(series, n);
}

static void test_readd_replaces(void **state)
{
    (void)state;
    char db[PATH_CAP];
    in_dir(db, "readd.db");
    int fresh;
    assert_int_equal(add(db, two_variants("r1.json", "c1", 1.0), NULL, NULL), 2);
    assert_int_equal(add(db, two_variants("r2.json", "c2", 1.1), NULL, NULL), 2);
    /* c1 again, measured anew: the same rows, new values, c1 still first */
    assert_int_equal(add(db, two_variants("r3.json", "c1", 0.9), NULL, &fresh), 2);
    assert_int_equal(fresh, 0);
    /* --commit names the rows whatever the file says */
    assert_int_equal(add(db, two_variants("r4.json", "c1", 1.2), "c3", &fresh), 2);
    assert_int_equal(fresh, 2);

    sb_history_series *series;
    int n;
    load(db, &series, &n);
    const sb_history_series *a = find(series, n, "a");
    assert_int_equal(a->nrows, 3);
    assert_string_equal(a->rows[0].commit, "c1");
    assert_float_equal(a->rows[0].median, 0.9e-3, 1e-15);
    assert_string_equal(a->rows[1].commit, "c2");
    assert_string_equal(a->rows[2].commit, "c3");
    sb_history_free(series, n);
}

static void test_repetitions_collapse(void **state)
{
    (void)state;
    char db[PATH_CAP];
    in_dir(db, "reps.db");
    /* three processes' entries and Google Benchmark's aggregate over them */
    json_t *aggregate = entry("a", 0, "valid", 9e-3, 3, 0);
    json_object_set_new(aggregate, "run_type", json_string("aggregate"));
    json_object_set_new(aggregate, "name", json_string("w/a/n:10/input:in.txt_median"));
    const char *records = write_records(
        "reps.json", "c1",
        json_pack("[o, o, o, o, o]", entry("a", 0, "valid", 1e-3, 3, 0),
                  entry("a", 0, "valid", 3e-3, 3, 1), entry("a", 0, "valid", 2e-3, 3, 2),
                  aggregate, entry("b", 0, "failed", 0, 1, 0)));
    assert_int_equal(add(db, records, NULL, NULL), 2);

    sb_history_series *series;
    int n;
    load(db, &series, &n);
    assert_int_equal(n, 2);
    const sb_history_series *a = find(series, n, "a"), *b = find(series, n, "b");
    assert_int_equal(a->nrows, 1);
    assert_float_equal(a->rows[0].median, 2e-3, 1e-15);
    /* between the processes: stdev of 1, 2, 3 over their mean */
    assert_float_equal(a->rows[0].noise, 0.5, 1e-12);
    assert_int_equal(a->rows[0].repetitions, 3);
    /* a failed run is kept, without a time */
    assert_string_equal(b->rows[0].status, "failed");
    assert_true(isnan(b->rows[0].median));
    sb_history_free(series, n);

    /* the repetitions' medians and samples are in the row too */
    sqlite3 *handle;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(db, &handle, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(handle, "SELECT repetition_medians, samples FROM records "
                                        "WHERE variant = 'a'", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    json_t *medians = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
    assert_int_equal(json_array_size(medians), 3);
    assert_float_equal(json_real_value(json_array_get(medians, 1)), 3e-3, 1e-15);
    assert_int_equal(sqlite3_column_int(st, 1), 9);
    json_decref(medians);
    sqlite3_finalize(st);
    sqlite3_close(handle);
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *data = malloc(1 << 20);
    *len = fread(data, 1, 1 << 20, f);
    fclose(f);
    return data;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* db is refused by add and by load, with one message naming it and saying `what`, and is left
 * exactly as it was. */
static void assert_refused(const char *db, const char *what)
{
    size_t before_len, after_len;
    char *before = read_file(db, &before_len);
    const char *records = two_variants("refused.json", "c1", 1.0);
    sb_error_clear();
    assert_int_equal(add(db, records, NULL, NULL), -1);
    assert_non_null(strstr(sb_error(), db));
    assert_non_null(strstr(sb_error(), what));
    assert_null(strchr(sb_error(), '\n'));
    sb_history_series *series;
    int n;
    assert_int_equal(sb_history_load(db, NULL, NULL, &series, &n), -1);
    assert_non_null(strstr(sb_error(), db));
    char *after = read_file(db, &after_len);
    assert_int_equal(after_len, before_len);
    assert_memory_equal(after, before, before_len);
    free(after);
    free(before);
}

static void test_refuses_other_files(void **state)
{
    (void)state;
    unsigned char noise[8192];
    uint64_t x = 88172645463325252ull;
    for (size_t i = 0; i < sizeof noise; i++) { /* xorshift64 */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        noise[i] = (unsigned char)x;
    }
    char random_file[PATH_CAP];
    in_dir(random_file, "random.db");
    write_file(random_file, noise, sizeof noise);
    assert_refused(random_file, "not an SQLite database");

    char text[PATH_CAP];
    in_dir(text, "notes.txt");
    const char notes[] = "commit c1: 1.0 ms\ncommit c2: 1.1 ms\n";
    write_file(text, notes, sizeof notes - 1);
    assert_refused(text, "not an SQLite database");
}

static void test_refuses_corrupt_history(void **state)
{
    (void)state;
    char db[PATH_CAP];
    in_dir(db, "corrupt.db");
    for (int c = 0; c < 40; c++) { /* rows over several pages */
        char commit[32];
        snprintf(commit, sizeof commit, "commit-%02d", c);
        assert_int_equal(add(db, two_variants("corrupt.json", commit, 1.0 + c), NULL, NULL), 2);
    }
    size_t len;
    char *data = read_file(db, &len);
    assert_true(len >= 3 * 4096);
    /* the header stays: only a page of the table is overwritten */
    memset(data + 4096 + 16, 0x5a, 4096 - 32);
    write_file(db, data, len);
    free(data);
    assert_refused(db, "corrupt");
}

static void test_refuses_other_databases(void **state)
{
    (void)state;
    sqlite3 *handle;
    char foreign[PATH_CAP];
    in_dir(foreign, "foreign.db");
    assert_int_equal(sqlite3_open(foreign, &handle), SQLITE_OK);
    assert_int_equal(sqlite3_exec(handle, "CREATE TABLE notes (t TEXT); INSERT INTO notes "
                                  "VALUES ('x')", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(handle);
    assert_refused(foreign, "another application");

    /* a history of a schema this one does not read */
    char newer[PATH_CAP];
    in_dir(newer, "newer.db");
    assert_int_equal(add(newer, two_variants("newer.json", "c1", 1.0), NULL, NULL), 2);
    assert_int_equal(sqlite3_open(newer, &handle), SQLITE_OK);
    assert_int_equal(sqlite3_exec(handle, "PRAGMA user_version = 2", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(handle);
    assert_refused(newer, "schema version 2");
}

static void test_reading_creates_nothing(void **state)
{
    (void)state;
    char db[PATH_CAP];
    in_dir(db, "missing.db");
    sb_history_series *series;
    int n;
    assert_int_equal(sb_history_load(db, NULL, NULL, &series, &n), -1);
    assert_non_null(strstr(sb_error(), db));
    assert_int_equal(access(db, F_OK), -1);
    /* a bad records file: nothing made either */
    char bad[PATH_CAP];
    in_dir(bad, "bad.json");
    write_file(bad, "{\"benchmarks\": 3}", 17);
    assert_int_equal(add(db, bad, NULL, NULL), -1);
    assert_non_null(strstr(sb_error(), bad));
    assert_int_equal(access(db, F_OK), -1);
}

#define WRITERS 4
#define COMMITS_EACH 12

/* WRITERS processes add their own commits to one history, which none of them finds made. */
static void test_concurrent_writers(void **state)
{
    (void)state;
    char db[PATH_CAP];
    in_dir(db, "shared.db");
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        char file[64];
        snprintf(file, sizeof file, "writer%d.json", w);
        const char *records = two_variants(file, "unused", 1.0 + w);
        fflush(NULL);
        pids[w] = fork();
        assert_true(pids[w] >= 0);
        if (pids[w] == 0) {
            for (int c = 0; c < COMMITS_EACH; c++) {
                char commit[32];
                snprintf(commit, sizeof commit, "w%d-c%02d", w, c);
                if (add(db, records, commit, NULL) != 2) {
                    fprintf(stderr, "writer %d: %s\n", w, sb_error());
                    _exit(1);
                }
            }
            _exit(0);
        }
    }
    for (int w = 0; w < WRITERS; w++) {
        int status;
        assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }

    sb_history_series *series;
    int n;
    load(db, &series, &n);
    assert_int_equal(n, 2);
    for (int s = 0; s < n; s++) {
        assert_int_equal(series[s].nrows, WRITERS * COMMITS_EACH);
        int seen[WRITERS][COMMITS_EACH] = {{0}};
        for (int r = 0; r < series[s].nrows; r++) {
            int w, c;
            assert_int_equal(sscanf(series[s].rows[r].commit, "w%d-c%d", &w, &c), 2);
            seen[w][c]++;
            if (r)
                assert_true(series[s].rows[r - 1].seq < series[s].rows[r].seq);
        }
        for (int w = 0; w < WRITERS; w++)
            for (int c = 0; c < COMMITS_EACH; c++)
                assert_int_equal(seen[w][c], 1);
    }
    sb_history_free(series, n);
}

/* 20 commits, the 6th failed, +10 % from the 13th on: one change, at that row. */
static void test_change_in_stored_series(void **state)
{
    (void)state;
    char db[PATH_CAP];
    in_dir(db, "changes.db");
    for (int c = 0; c < 20; c++) {
        char commit[32];
        snprintf(commit, sizeof commit, "c%02d", c);
        double ms = (c < 12 ? 1.0 : 1.1) * (1 + 0.002 * ((c * 7) % 5 - 2));
        const char *records = write_records(
            "series.json", commit,
            json_pack("[o]", entry("a", 0, c == 5 ? "failed" : "valid", ms * 1e-3, 1, 0)));
        assert_int_equal(add(db, records, NULL, NULL), 1);
    }
    sb_history_series *series;
    int n;
    load(db, &series, &n);
    assert_int_equal(n, 1);
    sb_history_change changes[8];
    assert_int_equal(sb_history_changes(&series[0], changes, 8), 1);
    assert_int_equal(changes[0].row, 12);
    assert_float_equal(changes[0].change, 0.10, 0.005);
    assert_true(changes[0].p < 0.05);
    sb_history_free(series, n);
}

static int make_dir(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int remove_dir(void **state)
{
    (void)state;
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_two_commits),
        cmocka_unit_test(test_readd_replaces),
        cmocka_unit_test(test_repetitions_collapse),
        cmocka_unit_test(test_refuses_other_files),
        cmocka_unit_test(test_refuses_corrupt_history),
        cmocka_unit_test(test_refuses_other_databases),
        cmocka_unit_test(test_reading_creates_nothing),
        cmocka_unit_test(test_concurrent_writers),
        cmocka_unit_test(test_change_in_stored_series),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}

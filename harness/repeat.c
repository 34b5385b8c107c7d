#include "repeat.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <time.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <jansson.h>

#include "../cuda/base/error.h"
#include "json.h"
#include "refcache.h"
#include "stats.h"
#include "variant.h"

int sb_repetition_index(int *count)
{
    const char *env = getenv(SB_REPETITION_ENV);
    int k = 0, n = 1;
    if (!env || sscanf(env, "%d/%d", &k, &n) != 2 || k < 0 || n < 1 || k >= n)
        k = 0, n = 1;
    if (count)
        *count = n;
    return k;
}

void sb_repetition_path(const char *out_json, int k, char *path, unsigned cap)
{
    size_t len = sb_is_json_name(out_json) ? sb_records_stem(out_json) : strlen(out_json);
    snprintf(path, cap, "%.*s.rep%d.json", (int)len, out_json, k);
}

/* Runs argv with this executable; `repetition` ("k/N") goes to the child's environment, or
 * the variable is taken out of it when NULL. */
static int run_self(char *const argv[], const char *repetition, const char *what)
{
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return sb_fail("cannot find this executable (/proc/self/exe: %s) to start %s",
                       strerror(errno), what);
    self[len] = '\0';
    sb_refcache_share();
    fflush(NULL); /* the child must not print what the parent buffered */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return sb_fail("cannot start %s: %s", what, strerror(errno));
    if (pid == 0) {
        /* killed with its parent: a run killed with SIGKILL leaves no repetition running on */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        if (repetition)
            setenv(SB_REPETITION_ENV, repetition, 1);
        else
            unsetenv(SB_REPETITION_ENV);
        execv(self, argv);
        fprintf(stderr, "stagebench: cannot run %s: %s\n", self, strerror(errno));
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return sb_fail("waiting for %s: %s", what, strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int sb_run_isolated(const char *program, char *const argv[], const char *env_name,
                    const char *env_value, const char *log_path, double limit_s,
                    sb_child_end *end)
{
    char self[4096];
    memset(end, 0, sizeof *end);
    if (program) {
        snprintf(self, sizeof self, "%s", program);
    } else {
        ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
        if (len <= 0)
            return sb_fail("cannot find this executable (/proc/self/exe: %s) to isolate a "
                           "variant", strerror(errno));
        self[len] = '\0';
    }
    sb_refcache_share();
    fflush(NULL);
    pid_t parent = getpid();
    double start = sb_now();
    pid_t pid = fork();
    if (pid < 0)
        return sb_fail("cannot start a variant's process: %s", strerror(errno));
    if (pid == 0) {
        /* A group of its own (the time limit kills it whole), and killed with its parent: a
         * parent killed with SIGKILL leaves no variant running on. */
        setpgid(0, 0);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        if (env_name)
            setenv(env_name, env_value ? env_value : "", 1);
        if (log_path) {
            int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
            if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0) {
                fprintf(stderr, "stagebench: cannot write %s: %s\n", log_path, strerror(errno));
                _exit(127);
            }
            close(fd);
        }
        execv(self, argv);
        fprintf(stderr, "stagebench: cannot run %s: %s\n", self, strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid); /* as the child does: whichever runs first */
    int status = 0;
    for (long polls = 0;; polls++) {
        /* ended, not yet reaped (WNOWAIT): its pid, the group's id, cannot be taken by another */
        siginfo_t info;
        memset(&info, 0, sizeof info);
        int got = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT);
        if (got == 0 && info.si_pid == pid)
            break;
        if (got < 0 && errno != EINTR) {
            kill(-pid, SIGKILL);
            return sb_fail("waiting for a variant's process: %s", strerror(errno));
        }
        if (limit_s > 0 && sb_now() - start > limit_s) {
            end->timed_out = 1;
            break;
        }
        /* 1 ms polls for the first 0.1 s (short variants), then 20 ms */
        struct timespec nap = {0, polls < 100 ? 1000000L : 20000000L};
        nanosleep(&nap, NULL);
    }
    kill(-pid, SIGKILL); /* at the time limit; else what it started and left in its group */
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    end->seconds = sb_now() - start;
    if (end->timed_out && WIFEXITED(status))
        end->timed_out = 0; /* it ended on its own just then */
    if (WIFSIGNALED(status))
        end->signal = WTERMSIG(status);
    else
        end->status = WEXITSTATUS(status);
    end->exited = !end->timed_out && WIFEXITED(status);
    return 0;
}

const char *sb_signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SIGSEGV"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},
                 {SIGFPE, "SIGFPE"},   {SIGILL, "SIGILL"},   {SIGKILL, "SIGKILL"},
                 {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"},   {SIGHUP, "SIGHUP"},
                 {SIGQUIT, "SIGQUIT"}, {SIGPIPE, "SIGPIPE"}, {SIGTRAP, "SIGTRAP"},
                 {SIGSYS, "SIGSYS"},   {SIGXCPU, "SIGXCPU"}, {SIGALRM, "SIGALRM"},
                 {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    return "a signal";
}

int sb_run_repetition(char *const argv[], int k, int n)
{
    char env[64], what[64];
    snprintf(env, sizeof env, "%d/%d", k, n);
    snprintf(what, sizeof what, "repetition %d of %d", k + 1, n);
    return run_self(argv, env, what);
}

int sb_run_self(char *const argv[], const char *what)
{
    return run_self(argv, NULL, what);
}

/* CSV: the rows of one file after its header, each row ended where a newline falls outside
 * quotes; `repetition` appended to every row. */
static int append_csv(FILE *out, const char *csv_path, int k, int header)
{
    FILE *f = fopen(csv_path, "rb");
    if (!f)
        return 0; /* the JSON is the record; a repetition without its CSV view adds no rows */
    int c, quoted = 0, line = 0;
    while ((c = fgetc(f)) != EOF) {
        if (c == '"')
            quoted = !quoted;
        if (c == '\n' && !quoted) {
            if (line > 0 || header)
                fprintf(out, line == 0 ? ",repetition\n" : ",%d\n", k);
            line++;
            continue;
        }
        if (line > 0 || header)
            fputc(c, out);
    }
    fclose(f);
    return 0;
}

static const char *const aggregate_names[] = {"median", "mean", "stddev", "cv"};

/* Google Benchmark's aggregates over the repetitions of one benchmark: real_time and cpu_time
 * per aggregate, cv as a fraction (aggregate_unit "percentage", as Google Benchmark writes it). */
static int append_aggregates(json_t *benchmarks, const char *name, const double *real,
                             const double *cpu, int n, int total)
{
    sb_stats r, c;
    sb_stats_compute(real, n, &r);
    sb_stats_compute(cpu, n, &c);
    double real_values[] = {r.median, r.mean, r.stdev, r.noise};
    double cpu_values[] = {c.median, c.mean, c.stdev, c.noise};
    for (int a = 0; a < 4; a++) {
        char full[1024];
        snprintf(full, sizeof full, "%s_%s", name, aggregate_names[a]);
        json_t *e = json_pack("{s:s, s:s, s:s, s:i, s:i, s:s, s:s, s:i, s:f, s:f, s:s}", "name",
                              full, "run_name", name, "run_type", "aggregate", "repetitions",
                              total, "threads", 1, "aggregate_name", aggregate_names[a],
                              "aggregate_unit", a == 3 ? "percentage" : "time", "iterations", n,
                              "real_time", real_values[a], "cpu_time", cpu_values[a],
                              "time_unit", "ms");
        if (!e || json_array_append_new(benchmarks, e) != 0)
            return sb_fail("cannot encode the aggregates of %s", name);
    }
    return 0;
}

/* Per distinct name (in first-seen order), the aggregates of its valid repetitions. */
static int add_all_aggregates(json_t *benchmarks, int total)
{
    size_t count = json_array_size(benchmarks);
    double *real = malloc((count + 1) * sizeof *real), *cpu = malloc((count + 1) * sizeof *cpu);
    int rc = 0;
    if (!real || !cpu)
        rc = sb_fail("out of host memory merging %zu records", count);
    for (size_t i = 0; rc == 0 && i < count; i++) {
        const char *name = json_string_value(json_object_get(json_array_get(benchmarks, i), "name"));
        int seen = 0, n = 0;
        for (size_t j = 0; name && j < i && !seen; j++)
            seen = !strcmp(name, json_string_value(json_object_get(json_array_get(benchmarks, j),
                                                                   "name")));
        if (!name || seen)
            continue;
        for (size_t j = i; j < count; j++) {
            json_t *e = json_array_get(benchmarks, j);
            const char *status = json_string_value(
                json_object_get(json_object_get(e, "stagebench"), "status"));
            if (strcmp(name, json_string_value(json_object_get(e, "name"))) != 0 ||
                (status && strcmp(status, "valid") != 0) ||
                json_is_true(json_object_get(e, "error_occurred")))
                continue;
            real[n] = json_number_value(json_object_get(e, "real_time"));
            cpu[n++] = json_number_value(json_object_get(e, "cpu_time"));
        }
        if (n > 0)
            rc = append_aggregates(benchmarks, name, real, cpu, n, total);
    }
    free(real);
    free(cpu);
    return rc;
}

int sb_merge_repetitions(const char *const *paths, int n, int total, const char *out_json)
{
    json_t *merged = NULL, *benchmarks = json_array(), *processes = json_array();
    char *csv = NULL;
    size_t csv_len = 0;
    FILE *csv_f = open_memstream(&csv, &csv_len);
    int merged_count = 0, rc = -1;
    if (!benchmarks || !processes || !csv_f) {
        sb_fail("out of host memory merging repetitions into %s", out_json);
        goto done;
    }
    for (int k = 0; k < n; k++) {
        if (access(paths[k], R_OK) != 0)
            continue;
        json_t *doc = sb_json_load(paths[k]);
        if (!doc)
            goto done;
        json_t *list = json_object_get(doc, "benchmarks"), *e;
        size_t i;
        json_array_foreach(list, i, e) {
            json_t *copy = json_deep_copy(e);
            json_object_set_new(copy, "repetitions", json_integer(total));
            json_object_set_new(copy, "repetition_index", json_integer(k));
            json_array_append_new(benchmarks, copy);
        }
        json_t *ctx = json_object_get(doc, "context");
        json_array_append_new(processes,
                              json_pack("{s:i, s:O?, s:O?}", "repetition", k, "date",
                                        json_object_get(ctx, "date"), "load_avg",
                                        json_object_get(ctx, "load_avg")));
        if (!merged) {
            merged = json_object();
            json_object_set_new(merged, "context", json_deep_copy(ctx));
        }
        json_decref(doc);

        char csv_path[4096];
        sb_records_sibling(paths[k], ".csv", csv_path, sizeof csv_path);
        if (append_csv(csv_f, csv_path, k, merged_count == 0) != 0)
            goto done;
        merged_count++;
    }
    if (merged_count == 0) {
        sb_fail("%s: no repetition wrote records (each failed before its first record)",
                out_json);
        goto done;
    }
    if (add_all_aggregates(benchmarks, total) != 0)
        goto done;
    json_t *sb = json_object_get(json_object_get(merged, "context"), "stagebench");
    json_object_set_new(json_object_get(sb, "measurement"), "repetitions", json_integer(total));
    json_object_set_new(sb, "repetitions",
                        json_pack("{s:i, s:i, s:s, s:O}", "asked", total, "merged", merged_count,
                                  "how", "separate processes", "processes", processes));
    json_object_set(merged, "benchmarks", benchmarks);
    if (fclose(csv_f) != 0) {
        csv_f = NULL;
        sb_fail("cannot buffer the CSV view of %s", out_json);
        goto done;
    }
    csv_f = NULL;
    char out_csv[4096];
    snprintf(out_csv, sizeof out_csv, "%.*s.csv",
             (int)(sb_is_json_name(out_json) ? sb_records_stem(out_json) : strlen(out_json)),
             out_json);
    if (sb_json_write_atomic(out_json, merged) != 0 || sb_write_atomic(out_csv, csv, csv_len) != 0)
        goto done;
    rc = merged_count;
done:
    if (csv_f)
        fclose(csv_f);
    free(csv);
    json_decref(merged);
    json_decref(benchmarks);
    json_decref(processes);
    return rc;
}

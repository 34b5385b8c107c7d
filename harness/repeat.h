/* Repetitions in separate processes. Samples taken inside one process share its clocks, its
 * allocations' placement and the host's state at that moment, so they understate the spread
 * between runs that a regression gate must judge by. `run --repetitions N` (and a study's
 * `option repetitions N`) therefore runs the same command N times, each a process of its own,
 * and merges what each wrote into one records file: every repetition's entries (with
 * repetitions / repetition_index, as Google Benchmark writes them) and, per benchmark, Google
 * Benchmark's aggregates over the repetitions' medians (median, mean, stddev, cv). */
#ifndef SB_REPEAT_H
#define SB_REPEAT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Set in a repetition's process: "k/N". A process that sees it runs once and never repeats. */
#define SB_REPETITION_ENV "SB_REPETITION"

/* The repetition this process is (0-based) and how many there are; 0 and 1 outside them. */
int sb_repetition_index(int *count);

/* Runs argv (argv[0] is replaced by this executable) as repetition k of n and waits for it:
 * its exit status, 128 + the signal that ended it, or -1 (with a message) when it could not
 * start. */
int sb_run_repetition(char *const argv[], int k, int n);

/* Runs argv (argv[0] replaced by this executable) as a command of its own, outside any
 * repetition, and waits: its exit status as sb_run_repetition's; `what` names it in messages. */
int sb_run_self(char *const argv[], const char *what);

/* How an isolated variant's process ended. */
typedef struct sb_child_end {
    int exited;    /* it exited (status holds the code) */
    int status;    /* exit code */
    int signal;    /* the signal that ended it, 0 if none (a time limit's SIGKILL counts) */
    int timed_out; /* killed at the time limit */
    double seconds;
} sb_child_end;

/* Runs argv with `program` (NULL: this executable) in a process group of its own, with
 * env_name=env_value (if not NULL) in its environment, its output appended to log_path (NULL:
 * this process's), and waits at most limit_s seconds (0: no limit): past
 * it the whole group is killed (SIGKILL). The child dies with this process (PR_SET_PDEATHSIG),
 * so a parent killed at any moment leaves no variant running. -1 with a message when it could
 * not start; otherwise 0 and *end says how it ended. */
int sb_run_isolated(const char *program, char *const argv[], const char *env_name,
                    const char *env_value, const char *log_path, double limit_s,
                    sb_child_end *end);
/* "SIGSEGV" for 11, ...; "a signal" for the unusual. */
const char *sb_signal_name(int sig);

/* Merges the records files paths[0..n-1] (repetitions 0..n-1 of one command; a missing one is
 * a repetition that wrote nothing and is left out) into out_json and its CSV beside it, both
 * written atomically. `total` is the number of repetitions asked for. Returns the number of
 * repetitions merged, or -1 with a message. */
int sb_merge_repetitions(const char *const *paths, int n, int total, const char *out_json);

/* "<out without .json>.rep<k>.json": where repetition k writes before the merge. */
void sb_repetition_path(const char *out_json, int k, char *path, unsigned cap);

#ifdef __cplusplus
}
#endif

#endif

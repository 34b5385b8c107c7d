/* Progress of a long command (run, suite, study): "k of N", the time it has taken and an
 * estimate of the time left, as one live line on a terminal (rewritten in place, on stderr) or
 * as plain lines otherwise (a log, CI); nothing with --quiet. The estimate is the elapsed time
 * over the work done, times the work left, each item weighed by what it is expected to cost
 * (1 each unless the caller knows better, e.g. from a reference record's time); before the first
 * item ends, the caller's own estimate of the whole, if it has one. */
#ifndef SB_PROGRESS_H
#define SB_PROGRESS_H

#include <stdio.h>

typedef struct sb_progress {
    const char *what; /* "study rdme-single-gpu", "suite ci.suite", "run rdme" */
    int total, done;  /* items */
    double weight_total, weight_done, weight_now; /* expected costs: all, the ended, the current */
    double started;
    double expected_s; /* the caller's estimate of the whole, 0: none */
    int quiet, live;   /* live: stderr is a terminal */
    FILE *out;
} sb_progress;

/* Starts counting `total` items of expected cost `weight_total` in all (<= 0: one each);
 * expected_s: an estimate of the whole in seconds (0: none), printed in the first line; quiet:
 * print nothing. */
void sb_progress_start(sb_progress *p, const char *what, int total, double weight_total,
                       double expected_s, int quiet);
/* Item `label` starts, expected to cost `weight` (<= 0: 1). */
void sb_progress_item(sb_progress *p, const char *label, double weight);
/* The item that started last has ended. */
void sb_progress_done(sb_progress *p);
/* The last line: "what: 12 of 12 done in 3 min 04 s". */
void sb_progress_end(sb_progress *p);
/* "1 h 02 min", "12 min 03 s", "41 s"; "?" for a negative or infinite time. */
void sb_format_duration(double seconds, char *out, size_t cap);

#endif

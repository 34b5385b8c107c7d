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
    char prefix[256]; /* before each item's label: the parent's item this process does
                         (sb_progress_resume), or what the caller sets ("half A") */
    int resumed, part; /* a parent's progress: its live line may be on the terminal (cleared even
                          when quiet); part: this process does part of its current item */
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
/* On a terminal, erases the live line, so that what is printed next (on stdout, by this process
 * or a child) starts on a line of its own; the next item writes it again. Nothing otherwise. */
void sb_progress_clear(sb_progress *p);

/* A child process that does some of its parent's items (a suite's line: `run --repetitions N`,
 * a repetition an item), or part of one (a repetition's process, an isolated variant's: on a
 * terminal, where its result's line must clear the parent's live line), reports on its
 * parent's progress rather than on one of its own: before starting it the parent puts its
 * state in the child's environment (SB_PROGRESS_ENV), with `label` to put before the child's
 * item labels; the child resumes it; after the child ends the parent counts what it did
 * (sb_progress_skip for items, sb_progress_done for its own item). A child doing part of one
 * item shows its items as that item's parts: the live line relabelled, nothing counted. */
#define SB_PROGRESS_ENV "SB_PROGRESS"
/* 0, or -1 when the environment cannot take it. Quiet: the variable is taken away. */
int sb_progress_hand_over(const sb_progress *p, const char *label, int part);
/* 1 when the environment holds a parent's state: p goes on with it, quiet if told; the variable
 * is taken away (this process's children are handed its own). 0 otherwise, p untouched. */
int sb_progress_resume(sb_progress *p, int quiet);
/* `items` more ended, of expected cost `weight` in all (<= 0: one each), without a line. */
void sb_progress_skip(sb_progress *p, int items, double weight);

/* "1 h 02 min", "12 min 03 s", "41 s"; "?" for a negative or infinite time. */
void sb_format_duration(double seconds, char *out, size_t cap);

#endif

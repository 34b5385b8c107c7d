/* The study engine: a study file's sweeps run (each point through bench/run/runner.c), their
 * records written, their figures drawn (plot.c) and their tables made (table*.c). The file's
 * syntax is in docs/harness.md, "Study files". */
#ifndef SB_STUDY_H
#define SB_STUDY_H

#define SB_STUDY_MAX_DEFINES 32
#define SB_STUDY_MAX_RUNS 16

typedef struct sb_study_args {
    const char *file;  /* the study file */
    const char *out;   /* its folder; NULL: results/runs/<study>-<UTC time> */
    char *defines[SB_STUDY_MAX_DEFINES]; /* KEY=VALUE, over the file's `define` lines */
    int ndefines;
    char *only[SB_STUDY_MAX_RUNS]; /* --run NAME: these sweeps alone */
    int nonly;
    int quiet, figures_only, check, resume;
    const char *estimate_from; /* the reference records of the durations; NULL: this GPU's */
} sb_study_args;

/* Runs the study as `stagebench study` does; argv is the command line, passed on to the
 * processes of repetitions and into the records' context. The exit status: 0, 1 (a record
 * invalid or failed), 2 (the file, a records file or a table at fault, said on stderr). */
int sb_study_main(const sb_study_args *a, int argc, char **argv);

#endif

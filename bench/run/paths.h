/* Where outputs land when the user names no place: a fresh path under results/runs/ (git-ignored).
 * Apart from runner.h so that commands whose own headers clash with the variant contract's names
 * (report.h's sb_report) can use it. */
#ifndef SB_PATHS_H
#define SB_PATHS_H

#include <stddef.h>

/* "results/runs/<name>-<UTC yyyymmdd-hhmmss><suffix>": where a run's outputs go by default
 * (bench/run/runner.c). */
void sb_default_run_path(const char *name, const char *suffix, char *out, size_t cap);

#endif

/* How long a study's points take, from reference records: the records the same study left on a
 * GPU of this machine's kind (results/baselines/<device>/<folder>/, the folder found by the study
 * file its records' context names), or in a folder given (`study --estimate-from DIR`). `study
 * --check` sums them into an estimate of the whole; a study's progress weighs its points by
 * them. */
#ifndef SB_ESTIMATE_H
#define SB_ESTIMATE_H

#include <stddef.h>

typedef struct sb_estimate sb_estimate;

/* The records of the runs runs[0..nruns) of study_file (kept, not copied): from `given` (a
 * study's folder, or a device's folder holding one) when not NULL, else from the folder of this
 * machine's GPU (its name and count) under results/baselines/. coverage(e, ctx) is the share of
 * the study's variant-points a folder's records hold (sb_estimate_record): a folder the study
 * made is taken for any, another for half or more, those the study made first. NULL when there
 * are none, why in `why` (a clause: "no reference records for this study in ..."); *error is
 * then 1 when `given` was at fault (sb_error says why, naming it). */
sb_estimate *sb_estimate_open(const char *study_file, const char *const *runs, int nruns,
                              const char *given, const char *gpu_name, int gpus,
                              double (*coverage)(const sb_estimate *, void *), void *ctx,
                              char *why, size_t cap, int *error);
/* The folder the records come from. */
const char *sb_estimate_dir(const sb_estimate *e);
/* The wall-clock seconds the record `name` of run `run` took to make (its warm-up, validation,
 * samples and counter passes: runs times their wall time; set-up and loading are not in a
 * record), and in *one_run one run's (the median); NAN when there is no such record. */
double sb_estimate_record(const sb_estimate *e, const char *run, const char *name,
                          double *one_run);
void sb_estimate_close(sb_estimate *e);

#endif

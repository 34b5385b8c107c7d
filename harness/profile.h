/* What a benchmark records beside its time, from CUPTI: hardware counters in passes of their own
 * after the timed samples, and activity records (kernels, copies, allocations) over setup and the
 * validation run, checked against the harness' own tracked allocator and transfer counters. */
#ifndef SB_PROFILE_H
#define SB_PROFILE_H

#include "measure.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Before any benchmark: the metrics exist on `device` (else -1, naming close matches) and, when
 * counters are required, can be read there (else -1 saying why). */
int sb_profile_check(const sb_measure_options *opt, int device);

/* The counter pass of an open session whose output was validated. Fills c; -1 only when the
 * counters were required and could not be collected (c->reason says why). */
int sb_profile_counters(sb_session *s, const sb_measure_options *opt, sb_counter_result *c);

/* Activity recording around setup and the validation run: begin returns 0 when recording
 * started (otherwise a->status says why not, and the benchmark goes on); window closes one
 * window into `into`; end stops recording and compares with the tracked counts. */
int sb_profile_activity_begin(const sb_measure_options *opt, sb_activity_result *a);
void sb_profile_activity_window(sb_activity_result *a, const sb_env *env, sb_activity *into);
void sb_profile_activity_end(sb_activity_result *a, const sb_env *env,
                             const sb_transfers *tracked_run);

#ifdef __cplusplus
}
#endif

#endif

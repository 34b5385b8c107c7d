/* stagebench report: a page per GPU of the studies' outputs (bench/cli/cmd_report.c reads the
 * command line; docs/report.md describes the page). */
#ifndef SB_REPORT_H
#define SB_REPORT_H

#include <stdio.h>

/* Reads every folder under dirs[0..ndirs) and writes out_dir/report-<device>.md and .html for
 * each GPU their records name, saying on `log` what it wrote and what it left out. -1 with a
 * message (sb_error) and nothing written when a DIR holds no records or a file there cannot be
 * read. */
int sb_report(const char *const *dirs, int ndirs, const char *out_dir, FILE *log);

/* "NVIDIA H100 80GB HBM3" -> "h100-80gb-hbm3", as bench/scripts/ci-gate names a GPU's baselines
 * (results/baselines/<slug>/) and report names its pages; cap >= 5. */
void sb_device_slug(const char *name, char *slug, size_t cap);

#endif

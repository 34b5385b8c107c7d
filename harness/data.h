/* Where the input data a workload reads lives (the ProCell histograms): one lookup for every
 * command, study and script (bench/scripts/data-dir is its shell twin). */
#ifndef SB_DATA_H
#define SB_DATA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The folder of data set `name` ("procell"): $SB_SHARED_DATA when set (the ProCell folder);
 * else the first that exists of data/<name> in the checkout (where bench/scripts/get-data puts
 * it; the checkout found from this program, build/stagebench, or the source folder it was built
 * from) and ../shared/data/<name> beside the checkout; else data/<name> of the checkout, where
 * get-data would put it. Written to out; returns out. */
const char *sb_data_dir(const char *name, char *out, size_t cap);

/* The hint a missing data file's message ends with. */
#define SB_DATA_HINT "get the ProCell histograms with `sh bench/scripts/get-data`, or set SB_SHARED_DATA"

#ifdef __cplusplus
}
#endif

#endif

/* The reference's output kept between processes: SB_REFERENCE_CACHE=DIR.
 *
 * Every process of a gate run or of a study's isolated variants validates against the same
 * reference output, and each used to run the CPU reference again (RDME's gate line: about half a
 * second of a 2.5 s process). Where SB_REFERENCE_CACHE names a folder, the first process saves
 * the output it made there and the later ones load it; each still runs its own variant on a
 * poisoned output and compares it with output_equal, so validation is unchanged. The key is the
 * workload, the reference variant, every parameter's value, the input files' sizes and times, and
 * the program itself (its commit and the executable's size and time): a rebuilt program, another
 * build, or an edited input never reads another's output. The file holds the whole key and a
 * checksum: a collision, a truncated or a corrupted file is a miss, and the reference runs.
 * Plain C, no CUDA. */
#ifndef SB_REFCACHE_H
#define SB_REFCACHE_H

#include "params.h"
#include "variant.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_REFCACHE_ENV "SB_REFERENCE_CACHE"
/* The folder's bytes at most, and so the largest output cached (motility's M_b reaches tens of
 * GB): SB_REFERENCE_CACHE_MAX (bytes, or with a k, M, G or T suffix) where set, else 1 GiB. */
#define SB_REFCACHE_MAX_ENV "SB_REFERENCE_CACHE_MAX"
#define SB_REFCACHE_MAX_BYTES ((double)(1 << 30))

/* The cache's folder for reference `ref` of w ($SB_REFERENCE_CACHE), or NULL when unset or
 * empty, when w cannot save its outputs (no output_regions), or for a GPU reference: only CPU
 * references are kept (a GPU reference is one short run on the device). */
const char *sb_refcache_dir(const sb_workload *w, const sb_variant *ref);

/* 1 when the processes this one starts will share ref's outputs: as sb_refcache_dir, but with
 * SB_REFERENCE_CACHE unset too (sb_refcache_share makes the folder then). */
int sb_refcache_will_share(const sb_workload *w, const sb_variant *ref);

/* 1: `out` (an output_new of model) now holds the cached output of reference `ref` for these
 * parameters; 0: not cached (or unreadable: a miss, never an error). */
int sb_refcache_load(const sb_workload *w, const sb_variant *ref, const sb_params *p,
                     const void *model, void *out);

/* Saves `out`, the output reference `ref` made, for the next process: written to a temporary
 * file and renamed, so a reader sees a whole file or none. 1: saved; 0: not, with one warning
 * on stderr (the folder not writable, the disk full): the cache only saves time. */
int sb_refcache_save(const sb_workload *w, const sb_variant *ref, const sb_params *p,
                     const void *model, void *out);

/* Before this process starts another (a repetition, an isolated variant, a gate's build): where
 * no SB_REFERENCE_CACHE is set, a folder of its own in $TMPDIR (else /tmp) becomes it, for every
 * process started from here on, and is removed when this one exits; one a killed command left
 * there is removed by the next. Set empty, the cache is off.
 * A save keeps the folder within its bytes at most by removing the files used longest ago. */
void sb_refcache_share(void);

#ifdef __cplusplus
}
#endif

#endif

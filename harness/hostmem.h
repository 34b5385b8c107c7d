/* Host memory: what is available now, and the check that refuses, before anything is allocated,
 * parameters whose host memory would not fit (as cuda/devmem.h's sb_dev_check_fits does for a
 * GPU). Plain C: the parsers and the CPU references use it without CUDA. */
#ifndef SB_HOSTMEM_H
#define SB_HOSTMEM_H

#include <stddef.h>

#include "../cuda/base/error.h" /* sb_format_bytes, SB_REFUSED */

#ifdef __cplusplus
extern "C" {
#endif

/* The environment variable `name` as a size in bytes: a number, or one with a k, M, G or T
 * suffix in powers of 1024 ("512M", "2GiB"); -1 when unset or not a size. */
double sb_env_bytes(const char *name);

/* Bytes of host memory available now: the kernel's MemAvailable (/proc/meminfo; elsewhere the
 * free pages), at most $SB_HOST_MEMORY where that is set (bytes, or with a k, M, G or T suffix
 * in powers of 1024: a share of a machine, or a small host in the tests). */
double sb_host_available(void);

/* 0 when `bytes` fit in sb_host_available(); else 2 (SB_REFUSED, cuda/base/error.h) with the
 * message "needs A of host memory for WHAT, and the host has B free: FIX" (B: what is
 * available, sb_host_available). */
int sb_host_check_fits(double bytes, const char *what, const char *fix);

#ifdef __cplusplus
}
#endif

#endif

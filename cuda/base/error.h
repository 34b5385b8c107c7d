/* The base layer, below cuda/ and everything else (docs/architecture.md): one error message per
 * thread, and the return codes every layer shares. The function that fails says why (naming the
 * input and the fix) and returns -1; callers pass -1 up; the top level prints the message once
 * and exits. */
#ifndef SB_ERROR_H
#define SB_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SB_PRINTF(f, a)
#endif

/* Return codes of a variant's setup/run (and of what they call) besides 0 and -1: the variant
 * cannot run here (does not fit, needs more GPUs...). The message says what it would need; the
 * record says skipped, not failed. */
#define SB_REFUSED 2

/* Records the message and returns -1. */
int sb_fail(const char *fmt, ...) SB_PRINTF(1, 2);
/* Prefixes the current message ("context: message") and returns -1. */
int sb_fail_context(const char *fmt, ...) SB_PRINTF(1, 2);
const char *sb_error(void);
void sb_error_clear(void);

/* "1.50 GiB": a size for a message, in powers of 1024. */
const char *sb_format_bytes(double bytes, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif

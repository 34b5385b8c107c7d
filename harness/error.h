/* One error message per thread: the function that fails says why (naming the input and the fix)
 * and returns -1; callers pass -1 up; the top level prints the message once and exits. */
#ifndef SB_ERROR_H
#define SB_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SB_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SB_PRINTF(f, a)
#endif

/* Records the message and returns -1. */
int sb_fail(const char *fmt, ...) SB_PRINTF(1, 2);
/* Prefixes the current message ("context: message") and returns -1. */
int sb_fail_context(const char *fmt, ...) SB_PRINTF(1, 2);
const char *sb_error(void);
void sb_error_clear(void);

#ifdef __cplusplus
}
#endif

#endif

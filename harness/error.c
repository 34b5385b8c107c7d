#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char message[2048];

int sb_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return -1;
}

int sb_fail_context(const char *fmt, ...)
{
    char old[sizeof message];
    memcpy(old, message, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof message)
        snprintf(message + n, sizeof message - (size_t)n, ": %s", old);
    return -1;
}

const char *sb_error(void)
{
    return message[0] ? message : "unknown error";
}

void sb_error_clear(void)
{
    message[0] = '\0';
}

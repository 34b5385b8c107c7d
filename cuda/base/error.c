#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char message[2048];

int sb_fail(const char *fmt, ...)
{
    /* through a copy: an argument may be sb_error() itself (the message said again, with
     * context), and vsnprintf's output must not overlap its input */
    char text[sizeof message];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    memcpy(message, text, sizeof message);
    return -1;
}

int sb_fail_context(const char *fmt, ...)
{
    char text[sizeof message];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n + 2 < sizeof text) { /* the earlier message after it, cut to fit */
        size_t at = (size_t)n + 2, keep = strlen(message);
        if (keep > sizeof text - 1 - at)
            keep = sizeof text - 1 - at;
        memcpy(text + n, ": ", 2);
        memcpy(text + at, message, keep);
        text[at + keep] = '\0';
    }
    memcpy(message, text, sizeof message);
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

const char *sb_format_bytes(double bytes, char *buf, size_t cap)
{
    const char *unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 6) {
        bytes /= 1024.0;
        u++;
    }
    snprintf(buf, cap, u == 0 ? "%.0f %s" : "%.2f %s", bytes, unit[u]);
    return buf;
}

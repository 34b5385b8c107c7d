/* Host memory available, and the check that refuses what would not fit (hostmem.h). */
#include "hostmem.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cuda/base/error.h"

double sb_env_bytes(const char *name)
{
    const char *text = getenv(name);
    if (!text || !*text)
        return -1;
    char *end;
    double v = strtod(text, &end);
    const char *suffixes = "kmgt";
    const char *s = *end ? strchr(suffixes, tolower((unsigned char)*end)) : NULL;
    if (s) {
        v *= pow(1024.0, (double)(s - suffixes + 1));
        end++;
        if (*end == 'i' || *end == 'I') /* "GiB", "G", "GB" alike */
            end++;
        if (*end == 'b' || *end == 'B')
            end++;
    }
    return end != text && *end == '\0' && v >= 0 && isfinite(v) ? v : -1;
}

double sb_host_available(void)
{
    double bytes = -1;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        unsigned long long kib;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
                bytes = (double)kib * 1024.0;
                break;
            }
        fclose(f);
    }
    if (bytes < 0) {
        long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        bytes = pages > 0 && page > 0 ? (double)pages * (double)page : INFINITY;
    }
    double cap = sb_env_bytes("SB_HOST_MEMORY");
    return cap >= 0 && cap < bytes ? cap : bytes;
}

int sb_host_check_fits(double bytes, const char *what, const char *fix)
{
    double have = sb_host_available();
    if (bytes <= have)
        return 0;
    char need[32], avail[32];
    /* "has B free": the words the study tables shorten a refusal to
     * (bench/report/table-render.c) */
    sb_fail("needs %s of host memory for %s, and the host has %s free%s: %s",
            sb_format_bytes(bytes, need, sizeof need), what,
            sb_format_bytes(have, avail, sizeof avail),
            sb_env_bytes("SB_HOST_MEMORY") >= 0 ? " (as $SB_HOST_MEMORY says)" : "", fix);
    return 2;
}

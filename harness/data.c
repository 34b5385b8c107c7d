#include "data.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef SB_SOURCE_DIR
#define SB_SOURCE_DIR "."
#endif

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *sb_data_dir(const char *name, char *out, size_t cap)
{
    const char *env = getenv("SB_SHARED_DATA");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return out;
    }
    /* the checkouts: the one this program was built in (its folder build/ -> ..), the source
     * folder it was compiled from, and the working directory */
    char exe[4096] = "", roots[3][4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
    }
    snprintf(roots[0], sizeof roots[0], "%s", exe[0] ? exe : ".");
    snprintf(roots[1], sizeof roots[1], "%s", SB_SOURCE_DIR);
    snprintf(roots[2], sizeof roots[2], ".");
    static const char *const where[] = {"%s/data/%s", "%s/../shared/data/%s"};
    for (int w = 0; w < 2; w++)
        for (int r = 0; r < 3; r++) {
            snprintf(out, cap, where[w], roots[r], name);
            if (is_dir(out))
                return out;
        }
    snprintf(out, cap, "%s/data/%s", roots[1], name);
    return out;
}

/* What the fuzz targets share (libFuzzer, tests/fuzz/build-and-run). Every parser reads a file,
 * so each input is written to a file in a private temporary directory and the real parser reads
 * it. A refused input must be refused as the command line refuses it: one line, naming the file
 * (file:line where a line is at fault); a message that is not, aborts (the fuzzer's crash). */
#ifndef SB_FUZZ_H
#define SB_FUZZ_H

#define _GNU_SOURCE /* mkdtemp, setenv */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuda/base/error.h"

static char sb_fuzz_dir[64];

/* Removes path and, a folder, everything under it (symbolic links are not followed). */
static void sb_fuzz_remove(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (!S_ISDIR(st.st_mode)) {
        unlink(path);
        return;
    }
    DIR *dir = opendir(path);
    for (struct dirent *e; dir && (e = readdir(dir));) {
        char sub[4096];
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            (size_t)snprintf(sub, sizeof sub, "%s/%s", path, e->d_name) < sizeof sub)
            sb_fuzz_remove(sub);
    }
    if (dir)
        closedir(dir);
    rmdir(path);
}

static void sb_fuzz_cleanup(void)
{
    sb_fuzz_remove(sb_fuzz_dir);
}

/* The path of `name` in the target's temporary directory (made at the first call); it stays valid
 * for the next seven calls. */
static const char *sb_fuzz_path(const char *name)
{
    static char paths[8][512];
    static int next;
    char *path = paths[next++ % 8];
    if (!sb_fuzz_dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(sb_fuzz_dir, sizeof sb_fuzz_dir, "%s/sbfuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(sb_fuzz_dir)) {
            perror("fuzz: mkdtemp");
            abort();
        }
        atexit(sb_fuzz_cleanup);
    }
    snprintf(path, sizeof paths[0], "%s/%s", sb_fuzz_dir, name);
    return path;
}

/* Writes the input to the file `name` there; its path. */
static const char *sb_fuzz_write(const char *name, const uint8_t *data, size_t size)
{
    const char *path = sb_fuzz_path(name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror("fuzz: writing the input");
        abort();
    }
    return path;
}

/* The parser refused the input: its message must be one line. `at_start`: it begins with `path`
 * and a ':' ("path:line: why; fix" or "path: why; fix", as the text parsers say it); else it
 * names `path` somewhere (the records readers' "no record in path has..."). */
static void sb_fuzz_check_refusal(const char *path, int at_start)
{
    const char *message = sb_error();
    size_t n = strlen(path);
    int named = at_start ? strncmp(message, path, n) == 0 && message[n] == ':'
                         : strstr(message, path) != NULL;
    if (getenv("SB_FUZZ_PRINT")) /* every refusal, to read them: SB_FUZZ_PRINT=1 TARGET DIR */
        fprintf(stderr, "refused: %s\n", message);
    if (strchr(message, '\n') || !named) {
        fprintf(stderr, "fuzz: a refusal that is not one line naming %s%s:\n%s\n", path,
                at_start ? " first" : "", message);
        abort();
    }
    sb_error_clear();
}

static void sb_fuzz_refused(const char *path)
{
    sb_fuzz_check_refusal(path, 1);
}

static void sb_fuzz_refused_naming(const char *path)
{
    sb_fuzz_check_refusal(path, 0);
}

/* sb_fuzz_refused, for a parser that must leave what it reads into as it was when it refuses:
 * `changed` says that it did not (`what` names it). */
static void sb_fuzz_refused_unchanged(const char *path, int changed, const char *what)
{
    sb_fuzz_refused(path);
    if (changed) {
        fprintf(stderr, "fuzz: refusing %s changed %s\n", path, what);
        abort();
    }
}

#endif

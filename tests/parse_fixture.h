/* What the parser tests share: a temporary directory the cases write their input files into,
 * and the check that an error names `file:line`. Include after cmocka.h, with PARSE_FIXTURE_DIR
 * defined as a mkdtemp template ("/tmp/test_name_XXXXXX"). */
#ifndef PARSE_FIXTURE_H
#define PARSE_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cuda/base/error.h"

static char tmpdir[] = PARSE_FIXTURE_DIR;

static int make_tmpdir(void **state)
{
    (void)state;
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int remove_tmpdir(void **state)
{
    (void)state;
    DIR *dir = opendir(tmpdir);
    if (!dir)
        return -1;
    struct dirent *e;
    while ((e = readdir(dir))) {
        char path[1024];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", tmpdir, e->d_name);
        unlink(path);
    }
    closedir(dir);
    return rmdir(tmpdir);
}

/* Writes `len` bytes to the file `name` in the temporary directory; the path stays valid until
 * the next call. */
static const char *write_bytes(const char *name, const char *bytes, size_t len)
{
    static char path[1024];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    return path;
}

static const char *write_case(const char *name, const char *text)
{
    return write_bytes(name, text, strlen(text));
}

/* The last error must name `path:line:` (or `path:` when line is 0) and say `what`. */
static void assert_error_names(const char *path, int line, const char *what)
{
    char where[1100];
    if (line > 0)
        snprintf(where, sizeof where, "%s:%d: ", path, line);
    else
        snprintf(where, sizeof where, "%s: ", path);
    const char *message = sb_error();
    if (!strstr(message, where) || !strstr(message, what))
        print_error("expected '%s' and '%s' in: %s\n", where, what, message);
    assert_non_null(strstr(message, where));
    assert_non_null(strstr(message, what));
}

#endif

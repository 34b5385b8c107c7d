#include "json.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../cuda/base/error.h"

void sb_remove_dir_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char path[4400];
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            remove(path);
        }
    closedir(d);
}

int sb_make_parent_dirs(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return sb_fail("cannot create directory %s: %s", dir, strerror(errno));
        *p = '/';
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return sb_fail("cannot create directory %s: %s", dir, strerror(errno));
    return 0;
}

int sb_is_temp_file(const char *path)
{
    const char *base = strrchr(path, '/');
    const char *tmp = NULL;
    base = base ? base + 1 : path;
    for (const char *p = strstr(base, ".tmp."); p; p = strstr(p + 1, ".tmp."))
        tmp = p; /* the last one */
    if (!tmp || !tmp[5])
        return 0;
    for (const char *c = tmp + 5; *c; c++)
        if (*c < '0' || *c > '9')
            return 0;
    return 1;
}

/* After a rename, the directory entry itself reaches the disk (a crash of the machine, not just
 * of the process, then finds the new file). Best effort where the file system cannot. */
void sb_cut_to_folder(char *path)
{
    char *slash = strrchr(path, '/');
    if (!slash)
        strcpy(path, ".");
    else if (slash == path)
        path[1] = '\0';
    else
        *slash = '\0';
}

static int sync_directory(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    sb_cut_to_folder(dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return 0;
    int rc = fsync(fd) != 0 && errno == EIO ? sb_fail("cannot sync directory %s: %s", dir,
                                                       strerror(errno))
                                            : 0;
    close(fd);
    return rc;
}

int sb_write_atomic(const char *path, const char *data, size_t len)
{
    char tmp[4096];
    if (sb_make_parent_dirs(path) != 0)
        return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return sb_fail("cannot write %s: %s", tmp, strerror(errno));
    int ok = fwrite(data, 1, len, f) == len;
    ok = (fflush(f) == 0) && ok;
    ok = (fsync(fileno(f)) == 0) && ok;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return sb_fail("cannot write %s: %s", path, strerror(e));
    }
    return sync_directory(path);
}

int sb_write_stream_atomic(const char *path, int (*fill)(FILE *f, const void *a, const void *b),
                           const void *a, const void *b)
{
    char *data = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&data, &len);
    if (!f)
        return sb_fail("cannot buffer %s", path);
    int rc = fill(f, a, b);
    if (fclose(f) != 0 && rc == 0)
        rc = sb_fail("cannot buffer %s", path);
    if (rc == 0)
        rc = sb_write_atomic(path, data, len);
    free(data);
    return rc;
}

int sb_json_write_atomic(const char *path, const json_t *doc)
{
    char *text = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    if (!text)
        return sb_fail("cannot encode the records for %s", path);
    size_t len = strlen(text);
    text[len] = '\0';
    int rc = sb_write_atomic(path, text, len);
    free(text);
    return rc;
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

int sb_is_json_name(const char *name)
{
    return has_suffix(name, ".json") || has_suffix(name, ".json.xz");
}

size_t sb_records_stem(const char *path)
{
    size_t n = strlen(path);
    if (has_suffix(path, ".json.xz"))
        return n - 8;
    if (has_suffix(path, ".json"))
        return n - 5;
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) ? (size_t)(dot - path) : n;
}

void sb_records_sibling(const char *records, const char *ext, char *out, size_t cap)
{
    snprintf(out, cap, "%.*s%s", (int)sb_records_stem(records), records, ext);
}

int sb_glob_records(const char *pattern, glob_t *g)
{
    int rc = glob(pattern, 0, NULL, g);
    if (rc == GLOB_NOMATCH && has_suffix(pattern, ".json")) {
        char xz[4200];
        snprintf(xz, sizeof xz, "%s.xz", pattern);
        rc = glob(xz, 0, NULL, g);
    }
    return rc;
}

char *sb_read_xz(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        sb_fail("cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    lzma_stream z = LZMA_STREAM_INIT;
    if (lzma_stream_decoder(&z, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
        fclose(f);
        sb_fail("cannot start decompressing %s (liblzma)", path);
        return NULL;
    }
    uint8_t in[1 << 16];
    size_t cap = 1 << 20, used = 0;
    char *out = malloc(cap);
    lzma_ret r = out ? LZMA_OK : LZMA_MEM_ERROR;
    lzma_action action = LZMA_RUN;
    while (r == LZMA_OK) {
        if (z.avail_in == 0 && action == LZMA_RUN) {
            z.next_in = in;
            z.avail_in = fread(in, 1, sizeof in, f);
            if (ferror(f))
                break;
            if (feof(f))
                action = LZMA_FINISH;
        }
        if (used + 1 == cap) {
            char *grown = realloc(out, cap * 2);
            if (!grown) {
                r = LZMA_MEM_ERROR;
                break;
            }
            out = grown;
            cap *= 2;
        }
        z.next_out = (uint8_t *)out + used;
        z.avail_out = cap - 1 - used;
        r = lzma_code(&z, action);
        used = cap - 1 - z.avail_out;
    }
    int read_error = ferror(f);
    fclose(f);
    lzma_end(&z);
    if (r != LZMA_STREAM_END || read_error) {
        free(out);
        if (read_error)
            sb_fail("cannot read %s: %s", path, strerror(errno));
        else
            sb_fail("%s: %s", path,
                       r == LZMA_MEM_ERROR ? "out of host memory decompressing it"
                       : r == LZMA_FORMAT_ERROR ? "not an xz file (a name ending in .xz is read "
                                                  "as xz; rename it if it is plain JSON)"
                       : r == LZMA_OK || r == LZMA_BUF_ERROR
                           ? "a truncated xz file (compress the records again: xz -9e FILE.json)"
                           : "a corrupt xz file (compress the records again: xz -9e FILE.json)");
        return NULL;
    }
    out[used] = '\0';
    if (len)
        *len = used;
    return out;
}

json_t *sb_json_load(const char *path)
{
    json_error_t e;
    if (sb_is_temp_file(path)) {
        sb_fail("%s: a temporary file of a write that was cut off (the records are in the file "
                "without .tmp.N), not records",
                path);
        return NULL;
    }
    json_t *doc;
    if (has_suffix(path, ".xz")) {
        size_t len;
        char *text = sb_read_xz(path, &len);
        if (!text)
            return NULL;
        doc = json_loadb(text, len, 0, &e);
        free(text);
        if (!doc && e.line <= 0) {
            sb_fail("%s: %s", path, e.text);
            return NULL;
        }
    } else {
        doc = json_load_file(path, 0, &e);
    }
    if (!doc) {
        if (e.line > 0)
            sb_fail("%s:%d: not valid JSON: %s", path, e.line, e.text);
        else /* jansson's text names the file: "unable to open X: No such file..." */
            sb_fail("%s", e.text);
    }
    return doc;
}

int sb_record_caution(const json_t *stagebench)
{
    const char *status = json_string_value(json_object_get(stagebench, "status"));
    if (!status || strcmp(status, "valid") != 0)
        return 0;
    json_t *time = json_object_get(stagebench, "time");
    json_t *samples = json_object_get(time, "samples"), *noise = json_object_get(time, "noise");
    if (json_is_array(samples) && json_array_size(samples) == 1)
        return 1;
    return json_is_number(noise) && json_number_value(noise) > SB_CAUTION_NOISE;
}

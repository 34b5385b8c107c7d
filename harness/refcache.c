#include "refcache.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostmem.h"
#include "json.h"
#include "sb_version.h"

/* A file: MAGIC, the key's length and text, the regions' count and sizes, their bytes, then a
 * checksum of everything before it: FNV-1a's steps over little-endian 64-bit words (the last one
 * padded with zeros), eight bytes a step, since outputs reach hundreds of MB. */
#define MAGIC "stagebench reference output 2\n"
#define FNV_START 0xcbf29ce484222325ull
#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * FNV_PRIME;
    return h;
}

typedef struct checksum {
    uint64_t h;
    unsigned char part[8]; /* the bytes of a word not yet whole */
    size_t nparts;
} checksum;

static void sum_add(checksum *c, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t w;
    while (n && c->nparts) { /* finish the word begun */
        c->part[c->nparts++] = *b++, n--;
        if (c->nparts == 8) {
            memcpy(&w, c->part, 8);
            c->h = (c->h ^ w) * FNV_PRIME, c->nparts = 0;
        }
    }
    if (!n)
        return; /* a word still begun, or none */
    for (; n >= 8; b += 8, n -= 8) {
        memcpy(&w, b, 8);
        c->h = (c->h ^ w) * FNV_PRIME;
    }
    memcpy(c->part, b, n);
    c->nparts = n;
}

static uint64_t sum_end(checksum *c)
{
    if (c->nparts) {
        uint64_t w = 0;
        memcpy(&w, c->part, c->nparts);
        c->h = (c->h ^ w) * FNV_PRIME;
    }
    return c->h;
}

static int cacheable(const sb_workload *w, const sb_variant *ref)
{
    return w->output_regions && !(ref->needs & SB_NEEDS_GPU);
}

const char *sb_refcache_dir(const sb_workload *w, const sb_variant *ref)
{
    const char *dir = getenv(SB_REFCACHE_ENV);
    return dir && *dir && cacheable(w, ref) ? dir : NULL;
}

int sb_refcache_will_share(const sb_workload *w, const sb_variant *ref)
{
    const char *dir = getenv(SB_REFCACHE_ENV);
    return cacheable(w, ref) && (!dir || *dir);
}

/* The size and time of a file ("-" where it cannot be read): what changes when it is rebuilt
 * or edited. */
static void file_identity(FILE *f, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        fprintf(f, "%lld %lld.%09ld", (long long)st.st_size, (long long)st.st_mtim.tv_sec,
                st.st_mtim.tv_nsec);
    else
        fputs("-", f);
}

/* The key: everything the reference's output depends on, as text (free it). */
static char *key_text(const sb_workload *w, const sb_variant *ref, const sb_params *p, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    fprintf(f, "workload %s\nreference %s\nprogram %s ", w->name, ref->name, SB_GIT_COMMIT);
    file_identity(f, "/proc/self/exe");
    fputc('\n', f);
    for (int i = 0; i < p->n; i++) {
        fprintf(f, "param %s=%s\n", p->decls[i].name, p->v[i].is_set ? p->v[i].text : "");
        if (p->decls[i].type == SB_PARAM_PATH && p->v[i].is_set && p->v[i].text[0]) {
            fprintf(f, "file %s ", p->v[i].text);
            file_identity(f, p->v[i].text);
            fputc('\n', f);
        }
    }
    if (fclose(f) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* The folder's bytes at most: SB_REFERENCE_CACHE_MAX where it is a size, else the default. */
static double max_bytes(void)
{
    double x = sb_env_bytes(SB_REFCACHE_MAX_ENV);
    return x >= 0 ? x : SB_REFCACHE_MAX_BYTES;
}

/* The output's regions; -1 where they are larger than the folder may hold (not cached). */
static int regions_of(const sb_workload *w, const void *model, void *out, sb_region *r)
{
    int n = w->output_regions(model, out, r);
    double bytes = 0;
    for (int i = 0; i < n && i < SB_MAX_OUTPUT_REGIONS; i++)
        bytes += (double)r[i].bytes;
    return n >= 0 && n <= SB_MAX_OUTPUT_REGIONS && bytes <= max_bytes() ? n : -1;
}

/* What a load and a save share: the output's regions (*n), the key (returned, to free; *len its
 * length) and the file's path, named by the key's hash. NULL: this output is not cached. */
static char *entry(const sb_workload *w, const sb_variant *ref, const sb_params *p, const void *model,
                   void *out, sb_region *r, int *n, size_t *len, char *path, size_t cap)
{
    const char *dir = sb_refcache_dir(w, ref);
    char *key;
    if (!dir || (*n = regions_of(w, model, out, r)) < 0 || !(key = key_text(w, ref, p, len)))
        return NULL;
    snprintf(path, cap, "%s/%s-%s-%016llx.out", dir, w->name, ref->name,
             (unsigned long long)fnv1a(FNV_START, key, *len));
    return key;
}

/* fread of exactly n bytes, summed */
static int read_summed(FILE *f, void *p, size_t n, checksum *c)
{
    if (n && fread(p, 1, n, f) != n)
        return -1;
    sum_add(c, p, n);
    return 0;
}

int sb_refcache_load(const sb_workload *w, const sb_variant *ref, const sb_params *p,
                     const void *model, void *out)
{
    sb_region r[SB_MAX_OUTPUT_REGIONS];
    int n;
    size_t len;
    char path[4096], *key = entry(w, ref, p, model, out, r, &n, &len, path, sizeof path);
    if (!key)
        return 0;
    FILE *f = fopen(path, "rb");
    int hit = 0;
    if (f) {
        checksum c = {FNV_START, {0}, 0};
        uint64_t flen, sizes[SB_MAX_OUTPUT_REGIONS], sum;
        char magic[sizeof MAGIC - 1], *fkey = malloc(len ? len : 1);
        uint32_t fn;
        hit = fkey && read_summed(f, magic, sizeof magic, &c) == 0 &&
              memcmp(magic, MAGIC, sizeof magic) == 0 &&
              read_summed(f, &flen, sizeof flen, &c) == 0 && flen == len &&
              read_summed(f, fkey, len, &c) == 0 && memcmp(fkey, key, len) == 0 &&
              read_summed(f, &fn, sizeof fn, &c) == 0 && fn == (uint32_t)n &&
              read_summed(f, sizes, n * sizeof *sizes, &c) == 0;
        for (int i = 0; hit && i < n; i++)
            hit = sizes[i] == r[i].bytes;
        for (int i = 0; hit && i < n; i++)
            hit = read_summed(f, r[i].p, r[i].bytes, &c) == 0;
        hit = hit && fread(&sum, sizeof sum, 1, f) == 1 && sum == sum_end(&c) && fgetc(f) == EOF;
        if (hit)
            futimens(fileno(f), NULL); /* its time is its last use (keep_within) */
        free(fkey);
        fclose(f);
    }
    free(key);
    /* a miss may have written part of `out`: the reference's run that follows writes it whole */
    return hit;
}

/* Removes the files of dir used longest ago (their times: written, or read by a load), but
 * `keep`, while they hold more than max_bytes() together. */
static void keep_within(const char *dir, const char *keep)
{
    for (;;) {
        DIR *d = opendir(dir);
        if (!d)
            return;
        char oldest[4096] = "", path[4096];
        double total = 0, oldest_at = 0;
        for (struct dirent *e; (e = readdir(d));) {
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (e->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            total += (double)st.st_size;
            double at = st.st_mtim.tv_sec + 1e-9 * st.st_mtim.tv_nsec;
            if (strcmp(path, keep) != 0 && (!oldest[0] || at < oldest_at))
                snprintf(oldest, sizeof oldest, "%s", path), oldest_at = at;
        }
        closedir(d);
        if (total <= max_bytes() || !oldest[0] || remove(oldest) != 0)
            return;
    }
}

/* fwrite of n bytes, summed */
static int write_summed(FILE *f, const void *p, size_t n, checksum *c)
{
    sum_add(c, p, n);
    return n && fwrite(p, 1, n, f) != n ? -1 : 0;
}

int sb_refcache_save(const sb_workload *w, const sb_variant *ref, const sb_params *p,
                     const void *model, void *out)
{
    sb_region r[SB_MAX_OUTPUT_REGIONS];
    int n;
    size_t len;
    char path[4096], tmp[4200], *key = entry(w, ref, p, model, out, r, &n, &len, path, sizeof path);
    if (!key)
        return 0;
    const char *dir = sb_refcache_dir(w, ref);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = NULL;
    int ok = sb_make_parent_dirs(path) == 0 && (f = fopen(tmp, "wb")) != NULL;
    if (ok) {
        checksum c = {FNV_START, {0}, 0};
        uint64_t flen = len, sizes[SB_MAX_OUTPUT_REGIONS], sum;
        uint32_t fn = (uint32_t)n;
        for (int i = 0; i < n; i++)
            sizes[i] = r[i].bytes;
        ok = write_summed(f, MAGIC, sizeof MAGIC - 1, &c) == 0 &&
             write_summed(f, &flen, sizeof flen, &c) == 0 &&
             write_summed(f, key, len, &c) == 0 && write_summed(f, &fn, sizeof fn, &c) == 0 &&
             write_summed(f, sizes, n * sizeof *sizes, &c) == 0;
        for (int i = 0; ok && i < n; i++)
            ok = write_summed(f, r[i].p, r[i].bytes, &c) == 0;
        sum = sum_end(&c);
        ok = ok && fwrite(&sum, sizeof sum, 1, f) == 1;
        ok = fclose(f) == 0 && ok && rename(tmp, path) == 0;
    }
    if (ok)
        keep_within(dir, path);
    if (!ok) {
        fprintf(stderr, "stagebench: the reference's output was not kept in %s=%s (%s): the next "
                "process runs the reference again\n", SB_REFCACHE_ENV, dir, strerror(errno));
        if (f)
            remove(tmp);
    }
    free(key);
    return ok;
}

/* A command's own folder: PREFIX<its pid>-XXXXXX in $TMPDIR, so that one left by a command
 * killed before its exit can be told and removed by the next. */
#define SHARED_PREFIX "stagebench-reference-"
static char shared_dir[4096];

static void remove_folder(const char *dir)
{
    sb_remove_dir_files(dir);
    rmdir(dir);
}

static void remove_shared(void)
{
    remove_folder(shared_dir);
}

/* The folders in tmp of commands no longer running (killed: no exit removed them). */
static void remove_orphans(const char *tmp)
{
    DIR *d = opendir(tmp);
    if (!d)
        return;
    char path[4400];
    for (struct dirent *e; (e = readdir(d));) {
        long pid;
        char *end;
        if (strncmp(e->d_name, SHARED_PREFIX, strlen(SHARED_PREFIX)) != 0)
            continue;
        pid = strtol(e->d_name + strlen(SHARED_PREFIX), &end, 10);
        if (end == e->d_name + strlen(SHARED_PREFIX) || *end != '-' || pid <= 0 ||
            kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue; /* not such a folder, or its command may still run */
        snprintf(path, sizeof path, "%s/%s", tmp, e->d_name);
        remove_folder(path);
    }
    closedir(d);
}

void sb_refcache_share(void)
{
    if (getenv(SB_REFCACHE_ENV))
        return; /* the caller's, or this process's own already */
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    remove_orphans(tmp);
    snprintf(shared_dir, sizeof shared_dir, "%s/" SHARED_PREFIX "%ld-XXXXXX", tmp,
             (long)getpid());
    if (!mkdtemp(shared_dir)) {
        setenv(SB_REFCACHE_ENV, "", 1); /* no cache, and no second try */
        return;
    }
    setenv(SB_REFCACHE_ENV, shared_dir, 1);
    atexit(remove_shared);
}

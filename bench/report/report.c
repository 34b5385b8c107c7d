/* stagebench report (bench/report/report.h): one page per GPU of the study outputs under some folders.
 * Records (*.json with a context.stagebench) name the GPU: their context's first device. A
 * folder's tables (*.md that a study's `table` lines wrote: "## NAME..." with a "Device:" line)
 * and figures (*.png) go to the page of the records beside them; where a folder holds records
 * of several GPUs, a table whose Device line names one of them goes to that one's page alone.
 * A page is markdown, its figures linked relative to it, and the same page as HTML with the
 * figures embedded (bench/report/markdown.c). Every folder is read and every page made before the
 * first file is written, so that an unreadable input leaves nothing behind. */
#include "report.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <jansson.h>

#include "../../cuda/devmem.h"
#include "../../cuda/base/error.h"
#include "../../harness/json.h"
#include "markdown.h"

typedef struct records_file {
    char *name;           /* in its folder */
    int device;           /* index in report.devices */
    int gpus;             /* devices its context lists */
    double peak;          /* the first one's measured DRAM peak, bytes/s; NaN: not measured */
    long driver, runtime; /* CUDA's 1000 * major + 10 * minor; 0: not recorded */
    char *commit, *nvcc, *date, *study; /* "" where the context has none */
} records_file;

/* A table or a figure. */
typedef struct entry {
    char *name; /* in its folder */
    char *text; /* a table's markdown; NULL: a figure */
    int device; /* a table's GPU, by its Device line, among several in the folder; -1: each */
} entry;

typedef struct folder {
    char *path;  /* as reached from the DIR given */
    char *label; /* its path under that DIR; the DIR's own name for the DIR */
    char *real;  /* absolute, for the figures' links */
    int root;    /* which DIR */
    records_file *records;
    int nrecords;
    entry *entries; /* tables and figures in reading order: fig5 table, fig5.png, fig6... */
    int nentries;
} folder;

typedef struct device {
    char *name, *slug;
    char *first; /* the first records file naming it */
    json_t *facts; /* the first GPU of its first records file, with the facts older records
                      lack from later ones; NULL: records without a GPU */
} device;

typedef struct report {
    const char *const *dirs;
    int ndirs;
    folder *folders;
    int nfolders;
    device *devices;
    int ndevices;
    char **passed_over; /* *.json that are not JSON, nor records */
    int npassed_over;
    FILE *log; /* where the folders passed over are said (NULL: nowhere) */
} report;

/* What a table's Goals list says of each goal, in the order the summary lists them. */
enum { GOAL_MISSED, GOAL_NOT_MEASURED, GOAL_MET, GOAL_STATUSES };
static const char *const goal_status_names[GOAL_STATUSES] = {"missed", "not measured", "met"};

typedef struct goal {
    const char *text; /* what the goal is */
    size_t text_n;
    int status;
    const char *detail; /* inside the parentheses after the status ("measured 410×, goal..."); */
    size_t detail_n;    /* 0: none */
    const folder *folder;
    const entry *table;
} goal;

/* One GPU's page, made before anything is written. */
typedef struct page {
    int device;
    char *md, *html;
    size_t md_len, html_len;
    int folders, tables, figures, goals[GOAL_STATUSES];
} page;

/* ---- small helpers ---- */

static char *copy_text(const char *s)
{
    char *copy = strdup(s);
    if (!copy)
        sb_fail("out of host memory");
    return copy;
}

/* Appends a zeroed element of `size` bytes to the array *array_ptr of *n; NULL on failure. The
 * array's pointer is read and written through memcpy: one helper for arrays of any type. */
static void *append(void *array_ptr, int *n, size_t size)
{
    char *array;
    memcpy(&array, array_ptr, sizeof array);
    char *grown = realloc(array, (size_t)(*n + 1) * size);
    if (!grown) {
        sb_fail("out of host memory");
        return NULL;
    }
    memcpy(array_ptr, &grown, sizeof grown);
    memset(grown + (size_t)*n * size, 0, size);
    return grown + (size_t)(*n)++ * size;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), k = strlen(suffix);
    return n > k && strcmp(name + n - k, suffix) == 0;
}

static const char *text_at(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

static double number_at(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Names in the order a reader expects: runs of digits by their value (fig3.4 before fig3.10). */
static int natural_compare(const char *a, const char *b)
{
    const char *a0 = a, *b0 = b;
    while (*a && *b) {
        if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
            int c = na != nb ? (na < nb ? -1 : 1) : strncmp(a, b, na);
            if (c)
                return c;
            a += na, b += nb;
        } else if (*a != *b) {
            return (unsigned char)*a - (unsigned char)*b;
        } else {
            a++, b++;
        }
    }
    return *a || *b ? (unsigned char)*a - (unsigned char)*b : strcmp(a0, b0);
}

static int ints_order(const void *a, const void *b)
{
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

static int names_order(const void *a, const void *b)
{
    return natural_compare(*(char *const *)a, *(char *const *)b);
}

/* By name without the extension, a table before the figure of the same name. */
static int entries_order(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    char stem_x[1024], stem_y[1024];
    snprintf(stem_x, sizeof stem_x, "%.*s", (int)(strrchr(x->name, '.') - x->name), x->name);
    snprintf(stem_y, sizeof stem_y, "%.*s", (int)(strrchr(y->name, '.') - y->name), y->name);
    int c = natural_compare(stem_x, stem_y);
    return c ? c : (y->text != NULL) - (x->text != NULL);
}

static int join_path(char *out, size_t cap, const char *dir, const char *name)
{
    if ((size_t)snprintf(out, cap, "%s/%s", dir, name) >= cap)
        return sb_fail("%s/%s: the path is too long", dir, name);
    return 0;
}

/* ---- reading the folders ---- */

/* The names in dir but hidden ones, in natural order. */
static int list_names(const char *dir, char ***names, int *n)
{
    DIR *d = opendir(dir);
    if (!d)
        return sb_fail("%s: cannot list the folder (%s): give a study's output folder or a "
                       "folder of them",
                       dir, strerror(errno));
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        char **slot = append(names, n, sizeof *slot);
        rc = slot && (*slot = copy_text(e->d_name)) ? 0 : -1;
    }
    closedir(d);
    if (*names)
        qsort(*names, (size_t)*n, sizeof **names, names_order);
    return rc;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    long size = -1;
    char *text = NULL;
    if (f && fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (text = malloc((size_t)size + 1)) && fread(text, 1, (size_t)size, f) == (size_t)size) {
        fclose(f);
        text[size] = '\0';
        return text;
    }
    int e = errno;
    if (f)
        fclose(f);
    free(text);
    sb_fail("%s: cannot read it (%s): make it readable or move it out of the folder", path,
            e ? strerror(e) : "a short read");
    return NULL;
}

/* A name for a message: control characters as spaces, cut to cap - 1 bytes. */
static const char *one_line(const char *s, char *out, size_t cap)
{
    size_t n = 0;
    for (; *s && n + 1 < cap; s++)
        out[n++] = iscntrl((unsigned char)*s) ? ' ' : *s;
    out[n] = '\0';
    return out;
}

/* At most SLUG_MAX characters, since a slug names the page's files. */
#define SLUG_MAX 64
void sb_device_slug(const char *name, char *slug, size_t cap)
{
    if (strncasecmp(name, "nvidia ", 7) == 0)
        name += 7;
    size_t n = 0;
    for (const char *p = name; *p && n < SLUG_MAX && n + 4 < cap; p++) {
        int c = tolower((unsigned char)*p);
        if (isalnum(c) || c == '.')
            slug[n++] = (char)c;
        else if (n && slug[n - 1] != '-')
            slug[n++] = '-';
    }
    while (n && slug[n - 1] == '-')
        n--;
    snprintf(slug + n, cap - n, "%s", n ? "" : "gpu");
}

static char *make_slug(const char *name)
{
    char *slug = malloc(strlen(name) + 4);
    if (!slug) {
        sb_fail("out of host memory");
        return NULL;
    }
    sb_device_slug(name, slug, strlen(name) + 4);
    return slug;
}

/* The device a records file (path) names by its first GPU (gpu NULL: a machine without one). */
static int device_index(report *r, json_t *gpu, const char *path)
{
    const char *name = gpu ? json_string_value(json_object_get(gpu, "name")) : "no GPU";
    name = name ? name : "unnamed GPU";
    for (int i = 0; i < r->ndevices; i++)
        if (strcmp(r->devices[i].name, name) == 0) {
            /* facts older records lack (the FP32:FP64 rate came later) from newer ones */
            if (gpu && r->devices[i].facts && json_object_update_missing(r->devices[i].facts, gpu))
                return sb_fail("out of host memory");
            return i;
        }
    device *d = append(&r->devices, &r->ndevices, sizeof *d);
    if (!d || !(d->name = copy_text(name)) || !(d->slug = make_slug(name)) ||
        !(d->first = copy_text(path)))
        return -1;
    if (gpu && !(d->facts = json_deep_copy(gpu)))
        return sb_fail("out of host memory");
    return r->ndevices - 1;
}

/* A *.json or *.json.xz of the folder: records when its context has a "stagebench" object. Other JSON (a
 * calibration, Google Benchmark's own output) is not, and neither is a file that is not JSON
 * and has no "stagebench" in it (Google Benchmark writes NaN, which JSON lacks): those are
 * passed over, the latter said to be. A records file that does not parse is an error. */
static int load_records(report *r, folder *f, const char *path, const char *name)
{
    char *text = has_suffix(name, ".xz") ? sb_read_xz(path, NULL) : read_text(path);
    if (!text)
        return -1;
    json_error_t e;
    json_t *doc = json_loads(text, 0, &e);
    int records_text = strstr(text, "\"stagebench\"") != NULL;
    free(text);
    if (!doc && records_text)
        return sb_fail("%s:%d: not valid JSON: %s: fix the file or move it out of the folder", path,
                       e.line, e.text);
    if (!doc) {
        char **slot = append(&r->passed_over, &r->npassed_over, sizeof *slot);
        return slot && (*slot = copy_text(path)) ? 0 : -1;
    }
    json_t *context = json_object_get(doc, "context"), *sb = json_object_get(context, "stagebench");
    if (!json_is_object(sb)) {
        json_decref(doc);
        return 0;
    }
    json_t *gpus = json_object_get(sb, "devices"), *cuda = json_object_get(sb, "cuda");
    const char *command = text_at(sb, "command");
    char study[1024] = ""; /* the study file of `stagebench study FILE ...` */
    if (strncmp(command, "study ", 6) == 0)
        snprintf(study, sizeof study, "%.*s", (int)strcspn(command + 6, " "), command + 6);
    int rc = -1, dev = device_index(r, json_array_get(gpus, 0), path);
    records_file *rf = dev < 0 ? NULL : append(&f->records, &f->nrecords, sizeof *rf);
    if (rf) {
        rf->device = dev;
        rf->gpus = (int)json_array_size(gpus);
        rf->peak = number_at(json_array_get(gpus, 0), "peak_dram_bytes_per_second");
        rf->driver = (long)json_integer_value(json_object_get(cuda, "driver_version"));
        rf->runtime = (long)json_integer_value(json_object_get(cuda, "runtime_version"));
        rf->name = copy_text(name);
        rf->commit = copy_text(text_at(sb, "git_commit"));
        rf->nvcc = copy_text(text_at(json_object_get(sb, "build"), "cuda_compiler"));
        rf->date = copy_text(text_at(context, "date"));
        rf->study = copy_text(study);
        rc = rf->name && rf->commit && rf->nvcc && rf->date && rf->study ? 0 : -1;
    }
    json_decref(doc);
    return rc;
}

static int add_table(folder *f, const char *path, const char *name)
{
    char *text = read_text(path);
    if (!text)
        return -1;
    if (strncmp(text, "## ", 3) != 0 || !strstr(text, "\nDevice: ")) {
        free(text); /* not a study's table: a README, a report page, notes */
        return 0;
    }
    entry *e = append(&f->entries, &f->nentries, sizeof *e);
    if (!e) {
        free(text);
        return -1;
    }
    e->text = text;
    return (e->name = copy_text(name)) ? 0 : -1;
}

static int add_figure(folder *f, const char *path, const char *name)
{
    static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    unsigned char head[8];
    FILE *file = fopen(path, "rb");
    if (!file)
        return sb_fail("%s: cannot read it (%s): make it readable or move it out of the folder",
                       path, strerror(errno));
    size_t got = fread(head, 1, sizeof head, file);
    fclose(file);
    if (got != sizeof head || memcmp(head, signature, sizeof head) != 0)
        return sb_fail("%s: not a PNG image: draw it again (stagebench study FILE --figures-only) "
                       "or move it out of the folder",
                       path);
    entry *e = append(&f->entries, &f->nentries, sizeof *e);
    return e && (e->name = copy_text(name)) ? 0 : -1;
}

/* The one GPU among the folder's records that a table's Device line names, else -1 (each of
 * them: the line names none of them, or several). */
static int table_device(const report *r, const folder *f, const char *text)
{
    const char *start = strstr(text, "\nDevice: ") + 1;
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(start, "\n"), start);
    int found = -1, count = 0;
    for (int i = 0; i < f->nrecords; i++) {
        int dev = f->records[i].device, seen = 0;
        for (int k = 0; k < i; k++)
            seen |= f->records[k].device == dev;
        char key[1024];
        snprintf(key, sizeof key, "%s (", r->devices[dev].name);
        if (!seen && strstr(line, key)) {
            found = dev;
            count++;
        }
    }
    return count == 1 ? found : -1;
}

static void free_folder(folder *f)
{
    for (int i = 0; i < f->nrecords; i++) {
        records_file *rf = &f->records[i];
        free(rf->name), free(rf->commit), free(rf->nvcc), free(rf->date), free(rf->study);
    }
    for (int i = 0; i < f->nentries; i++)
        free(f->entries[i].name), free(f->entries[i].text);
    free(f->records), free(f->entries), free(f->path), free(f->label), free(f->real);
}

/* The folder at path, then the folders under it (depth first, in natural order; folders that
 * are symbolic links are not followed, so that no tree is read twice). label names it on the
 * pages; its subfolders are named prefix/NAME. */
static int scan(report *r, int root, const char *path, const char *label, const char *prefix)
{
    char **names = NULL;
    int n = 0, rc = list_names(path, &names, &n);
    folder f = {.root = root};
    int csv = 0; /* CSV views, which name neither the GPU nor the commit */
    for (int i = 0; i < n && rc == 0; i++) {
        char file[4096];
        struct stat st;
        if ((rc = join_path(file, sizeof file, path, names[i])) != 0)
            break;
        if (stat(file, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        csv += has_suffix(names[i], ".csv");
        if (sb_is_json_name(names[i]))
            rc = load_records(r, &f, file, names[i]);
        else if (has_suffix(names[i], ".md"))
            rc = add_table(&f, file, names[i]);
        else if (has_suffix(names[i], ".png"))
            rc = add_figure(&f, file, names[i]);
    }
    if (rc == 0 && csv && !f.nrecords && r->log)
        fprintf(r->log, "%s: %s: CSV records only, which name no GPU: keep their JSON (NAME.json "
                        "or .json.xz) beside them to include them\n",
                f.nentries ? "records passed over (its tables kept)" : "passed over", path);
    if (rc == 0 && (f.nrecords || f.nentries)) {
        for (int i = 0; i < f.nentries; i++)
            f.entries[i].device = f.entries[i].text ? table_device(r, &f, f.entries[i].text) : -1;
        if (f.entries)
            qsort(f.entries, (size_t)f.nentries, sizeof *f.entries, entries_order);
        folder *slot = NULL;
        if (!(f.real = realpath(path, NULL)))
            rc = sb_fail("%s: cannot resolve the path: %s", path, strerror(errno));
        else if ((f.path = copy_text(path)) && (f.label = copy_text(label)) &&
                 (slot = append(&r->folders, &r->nfolders, sizeof *slot)))
            *slot = f;
        else
            rc = -1;
        if (slot)
            f = (folder){0}; /* the report owns it now */
    }
    free_folder(&f);
    for (int i = 0; i < n && rc == 0; i++) {
        char sub[4096], sub_label[4096];
        struct stat st;
        if ((rc = join_path(sub, sizeof sub, path, names[i])) != 0)
            break;
        if (lstat(sub, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        /* a device's reference is its current folders: superseded runs (earlier/) and the
         * experiments' evidence (*-limits/) are read only when named as a DIR themselves */
        if (strcmp(names[i], "earlier") == 0 || has_suffix(names[i], "-limits")) {
            if (r->log)
                fprintf(r->log, "passed over: %s (%s: name it as a DIR to include it)\n", sub,
                        strcmp(names[i], "earlier") == 0 ? "superseded runs"
                                                         : "an experiment's evidence");
            continue;
        }
        snprintf(sub_label, sizeof sub_label, "%s%s%s", prefix, prefix[0] ? "/" : "", names[i]);
        rc = scan(r, root, sub, sub_label, sub_label);
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

/* ---- the page ---- */

static int folder_has(const folder *f, int dev)
{
    for (int i = 0; i < f->nrecords; i++)
        if (f->records[i].device == dev)
            return 1;
    return 0;
}

static int folder_devices(const folder *f)
{
    int count = 0;
    for (int i = 0; i < f->nrecords; i++) {
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= f->records[k].device == f->records[i].device;
        count += !seen;
    }
    return count;
}

/* Whether a table or figure of a folder holding dev's records goes on dev's page. */
static int entry_on(const entry *e, int dev)
{
    return !e->text || e->device < 0 || e->device == dev;
}

/* Text of the records, a table or a file name, as markdown that shows it: "![" written "!\\[",
 * so that none of it is an image, which the HTML page would embed (any PNG file of the machine)
 * or refuse, naming a figure that is not there; in a pipe table's cell (cell) its unescaped '|'
 * escaped too. */
static void put_text(FILE *f, const char *s, size_t n, int cell)
{
    for (size_t i = 0; i < n && s[i]; i++) {
        if (cell && s[i] == '|' && (i == 0 || s[i - 1] != '\\'))
            fputc('\\', f);
        fputc(s[i], f);
        if (s[i] == '!' && i + 1 < n && s[i + 1] == '[')
            fputc('\\', f);
    }
}

static void put_string(FILE *f, const char *s)
{
    put_text(f, s, strlen(s), 0);
}

/* "1", "1 and 4", "1, 4 and 8" */
static void put_list(FILE *f, const int *values, int n)
{
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%d", i == 0 ? "" : i == n - 1 ? " and " : ", ", values[i]);
}

static void cuda_version(long v, char *out, size_t cap)
{
    if (v > 0)
        snprintf(out, cap, "%ld.%ld", v / 1000, v % 1000 / 10);
    else
        snprintf(out, cap, "—");
}

/* The path of `to` relative to the directory `from`; both absolute, without . or .. parts. */
static void relative_path(const char *from, const char *to, char *out, size_t cap)
{
    size_t i = 0, common = 0;
    while (from[i] && from[i] == to[i])
        if (from[i++] == '/')
            common = i;
    if (!from[i] && to[i] == '/') { /* to is under from */
        snprintf(out, cap, "%s", to + i + 1);
        return;
    }
    size_t len = 0;
    for (const char *p = from + common; *p; p++)
        if ((p == from + common || p[-1] == '/') && *p != '/')
            len += (size_t)snprintf(out + (len < cap ? len : 0), len < cap ? cap - len : 0, "../");
    snprintf(out + (len < cap ? len : cap - 1), len < cap ? cap - len : 1, "%s", to + common);
}

/* "- TEXT: **met** (measured 410×, goal ≥ 300×)", or **missed**, or not measured (plain, in
 * *italics* or in **bold**): a line of a table's Goals list; 0 for any other line. */
static int parse_goal(const char *line, size_t len, goal *g)
{
    static const struct {
        const char *mark;
        int status;
    } marks[] = {{": **met**", GOAL_MET},
                 {": **missed**", GOAL_MISSED},
                 {": not measured", GOAL_NOT_MEASURED},
                 {": *not measured*", GOAL_NOT_MEASURED},
                 {": **not measured**", GOAL_NOT_MEASURED}};
    while (len && (isspace((unsigned char)line[len - 1]) || line[len - 1] == '.'))
        len--;
    if (len < 3 || strncmp(line, "- ", 2) != 0)
        return 0;
    for (size_t at = len; at-- > 2;) /* the last mark on the line */
        for (size_t k = 0; k < sizeof marks / sizeof marks[0]; k++) {
            size_t m = strlen(marks[k].mark);
            if (at + m > len || memcmp(line + at, marks[k].mark, m) != 0)
                continue;
            size_t rest = len - at - m;
            if (rest && !(rest >= 3 && !strncmp(line + at + m, " (", 2) && line[len - 1] == ')'))
                continue;
            *g = (goal){.text = line + 2,
                        .text_n = at - 2,
                        .status = marks[k].status,
                        .detail = rest ? line + at + m + 2 : NULL,
                        .detail_n = rest ? rest - 3 : 0};
            return 1;
        }
    return 0;
}

/* The goals of the tables on dev's page, in page order. */
static int gather_goals(const report *r, int dev, goal **goals, int *n)
{
    for (int i = 0; i < r->nfolders; i++) {
        const folder *f = &r->folders[i];
        if (!folder_has(f, dev))
            continue;
        for (int k = 0; k < f->nentries; k++) {
            const entry *e = &f->entries[k];
            if (!e->text || !entry_on(e, dev))
                continue;
            for (const char *line = e->text; *line;) {
                size_t len = strcspn(line, "\n");
                goal g;
                if (parse_goal(line, len, &g)) {
                    goal *slot = append(goals, n, sizeof *slot);
                    if (!slot)
                        return -1;
                    g.folder = f, g.table = e;
                    *slot = g;
                }
                line += len + (line[len] == '\n');
            }
        }
    }
    return 0;
}

static void put_device(FILE *out, const report *r, int dev)
{
    const device *d = &r->devices[dev];
    double low = INFINITY, high = -INFINITY;
    int counts[16], ncounts = 0;
    for (int i = 0; i < r->nfolders; i++)
        for (int k = 0; k < r->folders[i].nrecords; k++) {
            const records_file *rf = &r->folders[i].records[k];
            int seen = 0;
            if (rf->device != dev)
                continue;
            low = fmin(low, rf->peak); /* fmin and fmax pass NaN over */
            high = fmax(high, rf->peak);
            for (int c = 0; c < ncounts; c++)
                seen |= counts[c] == rf->gpus;
            if (!seen && ncounts < 16)
                counts[ncounts++] = rf->gpus;
        }
    qsort(counts, (size_t)ncounts, sizeof *counts, ints_order);
    if (!d->facts) {
        fputs("**Device**: no GPU in these records (CPU stages only).\n\n", out);
        return;
    }
    char bytes[32];
    double sms = number_at(d->facts, "sm_count"), memory = number_at(d->facts, "memory_bytes");
    double ratio = number_at(d->facts, "single_to_double_perf_ratio");
    double theoretical = number_at(d->facts, "peak_dram_bytes_per_second_theoretical");
    fputs("**Device**: ", out);
    put_string(out, d->name);
    if (*text_at(d->facts, "compute_capability")) {
        fputs(", compute capability ", out);
        put_string(out, text_at(d->facts, "compute_capability"));
    }
    if (isfinite(sms))
        fprintf(out, ", %.0f SMs", sms);
    if (isfinite(memory))
        fprintf(out, ", %s", sb_format_bytes(memory, bytes, sizeof bytes));
    if (isfinite(ratio) && ratio > 0)
        fprintf(out, ", FP32:FP64 throughput %g:1", ratio);
    if (isfinite(low)) {
        fprintf(out, ", measured DRAM peak %.0f", low / 1e9);
        if (round(high / 1e9) != round(low / 1e9))
            fprintf(out, " to %.0f", high / 1e9);
        fputs(" GB/s", out);
    }
    if (isfinite(theoretical))
        fprintf(out, " (theoretical %.0f GB/s)", theoretical / 1e9);
    fputs("; machines of ", out);
    put_list(out, counts, ncounts);
    fprintf(out, " GPU%s.\n\n", ncounts == 1 && counts[0] == 1 ? "" : "s");
}

/* Where the records come from and when: files, folders, the DIRs, their dates. */
static void put_sources(FILE *out, const report *r, int dev, const page *pg)
{
    const char *first = NULL, *last = NULL;
    int files = 0, roots = 0;
    for (int i = 0; i < r->nfolders; i++)
        for (int k = 0; k < r->folders[i].nrecords; k++) {
            const records_file *rf = &r->folders[i].records[k];
            if (rf->device != dev)
                continue;
            files++;
            if (rf->date[0] && (!first || strcmp(rf->date, first) < 0))
                first = rf->date;
            if (rf->date[0] && (!last || strcmp(rf->date, last) > 0))
                last = rf->date;
        }
    fprintf(out, "**Records**: %d file%s in %d folder%s of ", files, files == 1 ? "" : "s",
            pg->folders, pg->folders == 1 ? "" : "s");
    for (int root = 0; root < r->ndirs; root++) {
        int here = 0;
        for (int i = 0; i < r->nfolders && !here; i++)
            here = r->folders[i].root == root && folder_has(&r->folders[i], dev);
        if (here) {
            fprintf(out, "%s`", roots++ ? ", " : "");
            put_string(out, r->dirs[root]);
            fputc('`', out);
        }
    }
    if (first) {
        fputs(", dated ", out);
        put_text(out, first, 10, 0);
    }
    if (first && strncmp(first, last, 10) != 0) {
        fputs(" to ", out);
        put_text(out, last, 10, 0);
    }
    fputs(".\n\n", out);
}

static int same_build(const records_file *a, const records_file *b)
{
    return a->device == b->device && !strcmp(a->commit, b->commit) && !strcmp(a->nvcc, b->nvcc) &&
           a->driver == b->driver && a->runtime == b->runtime;
}

/* Records files of the folder that the build of `build` made on its GPU. */
static int files_of_build(const folder *f, const records_file *build)
{
    int files = 0;
    for (int k = 0; k < f->nrecords; k++)
        files += same_build(&f->records[k], build);
    return files;
}

static int builds_order(const void *a, const void *b)
{
    return strcmp((*(const records_file *const *)a)->date, (*(const records_file *const *)b)->date);
}

/* A row per distinct build (commit, nvcc, CUDA driver and runtime), the earliest first: its
 * records files, their dates and folders. */
static void put_builds(FILE *out, const report *r, int dev)
{
    fputs("**Build**:\n\n| git commit | nvcc | CUDA driver | CUDA runtime | records files | "
          "dated | folders |\n|---|---|---|---|---|---|---|\n",
          out);
    const records_file *builds[256]; /* each one's earliest records file */
    int nbuilds = 0;
    for (int i = 0; i < r->nfolders; i++)
        for (int k = 0; k < r->folders[i].nrecords; k++) {
            const records_file *rf = &r->folders[i].records[k];
            int known = 0;
            for (int b = 0; b < nbuilds && !known; b++)
                if (same_build(builds[b], rf)) {
                    known = 1;
                    builds[b] = strcmp(rf->date, builds[b]->date) < 0 ? rf : builds[b];
                }
            if (rf->device == dev && !known && nbuilds < 256)
                builds[nbuilds++] = rf;
        }
    qsort(builds, (size_t)nbuilds, sizeof *builds, builds_order);
    for (int b = 0; b < nbuilds; b++) {
        const records_file *build = builds[b], *last = build;
        char driver[32], runtime[32];
        int files = 0;
        cuda_version(build->driver, driver, sizeof driver);
        cuda_version(build->runtime, runtime, sizeof runtime);
        for (int i = 0; i < r->nfolders; i++)
            for (int k = 0; k < r->folders[i].nrecords; k++) {
                const records_file *rf = &r->folders[i].records[k];
                files += same_build(rf, build);
                last = same_build(rf, build) && strcmp(rf->date, last->date) > 0 ? rf : last;
            }
        const char *dirty = strchr(build->commit, '+');
        const char *nvcc = build->nvcc[0] ? build->nvcc : "—";
        fputs("| `", out); /* in a code span, where a '|' needs no escape */
        put_text(out, build->commit[0] ? build->commit : "—", 12, 0);
        put_string(out, dirty ? dirty : "");
        fputs("` | ", out);
        put_text(out, nvcc, strlen(nvcc), 1);
        fprintf(out, " | %s | %s | %d | ", driver, runtime, files);
        put_text(out, build->date, 10, 1);
        if (strncmp(build->date, last->date, 10) != 0) {
            fputs(" to ", out);
            put_text(out, last->date, 10, 1);
        }
        fputs(" | ", out);
        for (int i = 0, shown = 0; i < r->nfolders; i++)
            if (files_of_build(&r->folders[i], build)) {
                fputs(shown++ ? ", " : "", out);
                put_text(out, r->folders[i].label, strlen(r->folders[i].label), 1);
            }
        fputs(" |\n", out);
    }
    fputc('\n', out);
}

static void put_goals(FILE *out, const goal *goals, int n, page *pg)
{
    fputs("## Goals\n\n", out);
    for (int i = 0; i < n; i++)
        pg->goals[goals[i].status]++;
    if (n == 0) {
        fputs("None of the tables on this page states goals.\n\n", out);
        return;
    }
    int tables = 0;
    for (int i = 0; i < n; i++)
        tables += i == 0 || goals[i].table != goals[i - 1].table;
    fprintf(out, "**%d met, %d missed, %d not measured** (%d goal%s in %d table%s).\n\n",
            pg->goals[GOAL_MET], pg->goals[GOAL_MISSED], pg->goals[GOAL_NOT_MEASURED], n,
            n == 1 ? "" : "s", tables, tables == 1 ? "" : "s");
    fputs("| goal | status | measured (or why not) | table |\n|---|---|---|---|\n", out);
    for (int status = 0; status < GOAL_STATUSES; status++)
        for (int i = 0; i < n; i++) {
            const goal *g = &goals[i];
            if (g->status != status)
                continue;
            fputs("| ", out);
            put_text(out, g->text, g->text_n, 1);
            fprintf(out, " | %s%s%s | ", status == GOAL_NOT_MEASURED ? "" : "**",
                    goal_status_names[status], status == GOAL_NOT_MEASURED ? "" : "**");
            if (g->detail_n)
                put_text(out, g->detail, g->detail_n, 1);
            else
                fputs("—", out);
            fputs(" | ", out);
            put_text(out, g->folder->label, strlen(g->folder->label), 1);
            fputc('/', out);
            put_text(out, g->table->name,
                     (size_t)(strrchr(g->table->name, '.') - g->table->name), 1);
            fputs(" |\n", out);
        }
    fputc('\n', out);
}

/* A table as the study wrote it, its headings one level down to sit under the folder's. */
static void put_table(FILE *out, const char *text)
{
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        fputs(line[0] == '#' ? "#" : "", out);
        put_text(out, line, len, 0);
        fputc('\n', out);
        line += len + (line[len] == '\n');
    }
    fputc('\n', out);
}

/* An image's alt text: the markdown that shows s as it is, whatever it holds ("]" would end the
 * alt, "`" open a code span, "&amp;" be read as an entity, a line end end the paragraph). */
static void put_alt(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (strchr("\\[]`*_<>&!", *s))
            fputc('\\', f);
        fputc(iscntrl((unsigned char)*s) ? ' ' : *s, f);
    }
}

/* An image's path as a link destination: every byte but letters, digits and -._~/+,;=@
 * percent-encoded (%XX), so that no name can end the link (")", ">", a space, a line end), be
 * read as an entity ("&") or a scheme (":"); bench/report/markdown.c decodes it to embed the file. */
static void put_destination(FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            strchr("-._~/+,;=@", c))
            fputc(c, f);
        else
            fprintf(f, "%%%02X", c);
    }
}

static void put_figure(FILE *out, const folder *f, const entry *e, const char *out_real)
{
    char target[8192], link[8192];
    snprintf(target, sizeof target, "%s/%s", f->real, e->name);
    relative_path(out_real, target, link, sizeof link);
    fputs("### ", out);
    put_string(out, e->name);
    fputs("\n\n![", out);
    put_alt(out, f->label);
    fputc('/', out);
    put_alt(out, e->name);
    fputs("](", out);
    put_destination(out, link);
    fputs(")\n\n", out);
}

/* The folder's section: where it is, its records, its tables and figures. */
static void put_folder(FILE *out, const folder *f, int dev, const char *out_real, page *pg)
{
    int nfiles = 0, shown = 0;
    fputs("## ", out);
    put_string(out, f->label);
    fputs("\n\n`", out);
    put_string(out, f->path);
    fputs("`: ", out);
    for (int i = 0; i < f->nrecords; i++)
        nfiles += f->records[i].device == dev;
    fprintf(out, "%d records file%s (", nfiles, nfiles == 1 ? "" : "s");
    for (int i = 0; i < f->nrecords; i++)
        if (f->records[i].device == dev && shown++ < 8) {
            fputs(shown > 1 ? ", " : "", out);
            put_string(out, f->records[i].name);
        }
    if (shown > 8)
        fprintf(out, " and %d more", shown - 8);
    fputc(')', out);
    for (int i = 0, studies = 0; i < f->nrecords; i++) {
        const records_file *rf = &f->records[i];
        int seen = 0;
        for (int k = 0; k < i; k++)
            seen |= f->records[k].device == dev && !strcmp(f->records[k].study, rf->study);
        if (rf->device == dev && rf->study[0] && !seen) {
            fprintf(out, "%s`", studies++ ? ", " : "; made by stagebench study ");
            put_string(out, rf->study);
            fputc('`', out);
        }
    }
    int ndevices = folder_devices(f);
    if (ndevices > 1)
        fprintf(out,
                "; the folder holds records of %d GPUs: its figures are on each one's page, "
                "a table on the page of the GPU its Device line names",
                ndevices);
    fputs(".\n\n", out);
    for (int i = 0; i < f->nentries; i++) {
        const entry *e = &f->entries[i];
        if (!entry_on(e, dev))
            continue;
        if (e->text) {
            put_table(out, e->text);
            pg->tables++;
        } else {
            put_figure(out, f, e, out_real);
            pg->figures++;
        }
    }
}

/* "1 table, 9 figures" */
static void put_contents(FILE *out, const folder *f)
{
    int tables = 0;
    for (int i = 0; i < f->nentries; i++)
        tables += f->entries[i].text != NULL;
    int figures = f->nentries - tables;
    if (tables)
        fprintf(out, "%d table%s%s", tables, tables == 1 ? "" : "s", figures ? ", " : "");
    if (figures)
        fprintf(out, "%d figure%s", figures, figures == 1 ? "" : "s");
}

static int has_entries_on(const folder *f, int dev)
{
    for (int i = 0; i < f->nentries; i++)
        if (entry_on(&f->entries[i], dev))
            return 1;
    return 0;
}

/* The page's markdown: the device, the records and builds, the goals, a section per folder with
 * tables or figures, then the folders that have neither and those left out. */
static int write_markdown(FILE *out, const report *r, page *pg, const char *out_real)
{
    int dev = pg->device;
    goal *goals = NULL;
    int ngoals = 0;
    if (gather_goals(r, dev, &goals, &ngoals) != 0) {
        free(goals);
        return -1;
    }
    for (int i = 0; i < r->nfolders; i++)
        pg->folders += folder_has(&r->folders[i], dev);
    fputs("# stagebench report: ", out);
    put_string(out, r->devices[dev].name);
    fputs("\n\n", out);
    put_device(out, r, dev);
    put_sources(out, r, dev, pg);
    put_builds(out, r, dev);
    put_goals(out, goals, ngoals, pg);
    free(goals);
    for (int i = 0; i < r->nfolders; i++)
        if (folder_has(&r->folders[i], dev) && has_entries_on(&r->folders[i], dev))
            put_folder(out, &r->folders[i], dev, out_real, pg);
    int other = 0, left_out = 0;
    for (int i = 0; i < r->nfolders; i++) {
        other += folder_has(&r->folders[i], dev) && !has_entries_on(&r->folders[i], dev);
        left_out += r->folders[i].nrecords == 0;
    }
    if (other)
        fputs("## Other records\n\nFolders of these records without tables or figures (records "
              "files): ",
              out);
    for (int i = 0, shown = 0; i < r->nfolders; i++) {
        const folder *f = &r->folders[i];
        int files = 0;
        for (int k = 0; k < f->nrecords; k++)
            files += f->records[k].device == dev;
        if (files && !has_entries_on(f, dev)) {
            fprintf(out, "%s`", shown++ ? ", " : "");
            put_string(out, f->label);
            fprintf(out, "` (%d)", files);
        }
    }
    fputs(other ? ".\n\n" : "", out);
    if (left_out)
        fputs("## Left out\n\nFolders with tables or figures but no records beside them, so no "
              "GPU to put them under: ",
              out);
    for (int i = 0, shown = 0; i < r->nfolders; i++)
        if (r->folders[i].nrecords == 0) {
            fprintf(out, "%s`", shown++ ? ", " : "");
            put_string(out, r->folders[i].path);
            fputs("` (", out);
            put_contents(out, &r->folders[i]);
            fputc(')', out);
        }
    fputs(left_out ? ". Records files beside them (a study writes NAME.json for each run) would "
                     "put them on their GPU's page.\n"
                   : "",
          out);
    return ferror(out) ? sb_fail("formatting the page of %s failed", r->devices[dev].name) : 0;
}

static const char html_style[] =
    "body { font: 15px/1.5 system-ui, sans-serif; color: #1b1b1b; max-width: 84rem;\n"
    "       margin: 2rem auto; padding: 0 1.5rem; }\n"
    "h1, h2, h3, h4 { line-height: 1.25; }\n"
    "h2 { border-bottom: 1px solid #ddd; padding-bottom: .2rem; margin-top: 2.5rem; }\n"
    "table { border-collapse: collapse; margin: 1rem 0; font-size: 13px; display: block;\n"
    "        overflow-x: auto; }\n"
    "th, td { border: 1px solid #d0d0d0; padding: .25rem .5rem; vertical-align: top; }\n"
    "th { background: #f0f0f0; }\n"
    "tbody tr:nth-child(even) { background: #fafafa; }\n"
    "code { font: 13px ui-monospace, monospace; background: #f3f3f3; padding: 0 .2rem; }\n"
    "img { max-width: 100%; border: 1px solid #eee; }\n";

/* The markdown's HTML in a page of its own: the figures embedded, no file needed beside it. */
static int write_html(FILE *out, const report *r, const page *pg, const char *out_real)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>stagebench report: ",
          out);
    sb_html_text(out, r->devices[pg->device].name);
    fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", html_style);
    if (sb_markdown_to_html(out, pg->md, out_real) != 0)
        return -1;
    fputs("</body>\n</html>\n", out);
    return ferror(out)
               ? sb_fail("formatting the HTML page of %s failed", r->devices[pg->device].name)
               : 0;
}

static int make_page(const report *r, page *pg, const char *out_real)
{
    FILE *f = open_memstream(&pg->md, &pg->md_len);
    if (!f)
        return sb_fail("out of host memory");
    int rc = write_markdown(f, r, pg, out_real);
    fclose(f);
    if (rc != 0)
        return -1;
    if (!(f = open_memstream(&pg->html, &pg->html_len)))
        return sb_fail("out of host memory");
    rc = write_html(f, r, pg, out_real);
    fclose(f);
    return rc;
}

/* The DIR's own name on the pages: its last part, or the real folder's for "." and "..". */
static int root_label(const char *dir, char *out, size_t cap)
{
    char *real = realpath(dir, NULL);
    if (!real)
        return sb_fail("%s: no such folder (%s): give a study's output folder or a folder of "
                       "them",
                       dir, strerror(errno));
    const char *base = strrchr(real, '/');
    snprintf(out, cap, "%s", base && base[1] ? base + 1 : real);
    free(real);
    return 0;
}

static int read_all(report *r)
{
    for (int root = 0; root < r->ndirs; root++) {
        const char *dir = r->dirs[root];
        char label[1024];
        struct stat st;
        if (root_label(dir, label, sizeof label) != 0)
            return -1;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return sb_fail("%s: not a folder: give a study's output folder (stagebench study "
                           "writes one) or a folder of them",
                           dir);
        int before = r->nfolders, records = 0;
        if (scan(r, root, dir, label, r->ndirs > 1 ? label : "") != 0)
            return -1;
        for (int i = before; i < r->nfolders; i++)
            records += r->folders[i].nrecords;
        if (records == 0)
            return sb_fail("%s: no records in it or its folders (*.json whose context has a "
                           "\"stagebench\" object): give a study's output folder (stagebench "
                           "study writes one) or a folder of them",
                           dir);
    }
    return 0;
}

static int write_pages(const report *r, const page *pages, const char *out_dir, FILE *log)
{
    for (int i = 0; i < r->ndevices; i++) {
        char md_path[4096], html_path[4096];
        const device *d = &r->devices[pages[i].device];
        snprintf(md_path, sizeof md_path, "%s/report-%s.md", out_dir, d->slug);
        snprintf(html_path, sizeof html_path, "%s/report-%s.html", out_dir, d->slug);
        if (sb_write_atomic(md_path, pages[i].md, pages[i].md_len) != 0 ||
            sb_write_atomic(html_path, pages[i].html, pages[i].html_len) != 0)
            return -1;
        fprintf(log,
                "report: %s and .html: %s, %d folder%s, %d table%s, %d figure%s; goals %d met, "
                "%d missed, %d not measured\n",
                md_path, d->name, pages[i].folders, pages[i].folders == 1 ? "" : "s",
                pages[i].tables, pages[i].tables == 1 ? "" : "s", pages[i].figures,
                pages[i].figures == 1 ? "" : "s", pages[i].goals[GOAL_MET],
                pages[i].goals[GOAL_MISSED], pages[i].goals[GOAL_NOT_MEASURED]);
    }
    for (int i = 0; i < r->npassed_over; i++)
        fprintf(log, "passed over: %s: not valid JSON, and no \"stagebench\" in it: not records\n",
                r->passed_over[i]);
    for (int i = 0; i < r->nfolders; i++)
        if (r->folders[i].nrecords == 0) {
            fprintf(log, "left out: %s (", r->folders[i].path);
            put_contents(log, &r->folders[i]);
            fputs("): no records beside them\n", log);
        }
    return 0;
}

int sb_report(const char *const *dirs, int ndirs, const char *out_dir, FILE *log)
{
    report r = {.dirs = dirs, .ndirs = ndirs, .log = log};
    page *pages = NULL;
    char probe[4096], *out_real = NULL;
    int rc = read_all(&r);
    for (int i = 0; rc == 0 && i < r.ndevices; i++)
        for (int k = 0; rc == 0 && k < i; k++)
            if (strcmp(r.devices[i].slug, r.devices[k].slug) == 0) {
                char a[128], b[128];
                rc = sb_fail("%s: its GPU '%s' and %s's '%s' would both be report-%s.md: report "
                             "them apart (stagebench report on each one's folders, --out apart)",
                             r.devices[i].first, one_line(r.devices[i].name, a, sizeof a),
                             r.devices[k].first, one_line(r.devices[k].name, b, sizeof b),
                             r.devices[i].slug);
            }
    /* the figures' links are relative to the pages' folder: it must exist to be resolved */
    if (rc == 0 && (rc = join_path(probe, sizeof probe, out_dir, "report")) == 0 &&
        (rc = sb_make_parent_dirs(probe)) == 0 && !(out_real = realpath(out_dir, NULL)))
        rc = sb_fail("%s: cannot resolve the path: %s", out_dir, strerror(errno));
    if (rc == 0 && !(pages = calloc((size_t)r.ndevices, sizeof *pages)))
        rc = sb_fail("out of host memory");
    for (int i = 0; rc == 0 && i < r.ndevices; i++) {
        pages[i].device = i;
        rc = make_page(&r, &pages[i], out_real);
    }
    if (rc == 0)
        rc = write_pages(&r, pages, out_dir, log);
    for (int i = 0; pages && i < r.ndevices; i++)
        free(pages[i].md), free(pages[i].html);
    free(pages);
    free(out_real);
    for (int i = 0; i < r.nfolders; i++)
        free_folder(&r.folders[i]);
    for (int i = 0; i < r.ndevices; i++)
        free(r.devices[i].name), free(r.devices[i].slug), free(r.devices[i].first),
            json_decref(r.devices[i].facts);
    for (int i = 0; i < r.npassed_over; i++)
        free(r.passed_over[i]);
    free(r.passed_over);
    free(r.folders);
    free(r.devices);
    return rc;
}

/* Fuzz target: a study's output folder as `stagebench report` reads it (bench/report/report.c,
 * sb_report): its records files (*.json), a table a study wrote (*.md: its Device line, its
 * Goals list) and a figure (*.png), then a page per GPU in markdown and in HTML
 * (bench/report/markdown.c, the table's text in it). The input is split at form feeds (\f): its first
 * part is the folder's records file, the second (if any) the table, the third (if any) a
 * second records file beside them (another GPU, another build). */
#include "fuzz.h"
#include "bench/report/report.h"

#include <sys/stat.h>

static const uint8_t png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0};
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    if (mkdir(sb_fuzz_path("study"), 0700) != 0 || !(devnull = fopen("/dev/null", "w"))) {
        perror("fuzz: setting up");
        abort();
    }
    sb_fuzz_write("study/fig5.png", png, sizeof png);
    return 0;
}

/* The file of `name` in the folder: the input's part if it has one, else none. */
static const char *part(const char *name, const uint8_t *data, size_t size, int present)
{
    if (present)
        return sb_fuzz_write(name, data, size);
    const char *path = sb_fuzz_path(name);
    sb_fuzz_remove(path);
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *start[3] = {data, NULL, NULL};
    size_t len[3] = {size, 0, 0};
    int parts = 1;
    for (size_t i = 0; i < size && parts < 3; i++)
        if (data[i] == '\f') {
            len[parts - 1] = (size_t)(data + i - start[parts - 1]);
            start[parts] = data + i + 1;
            len[parts] = size - i - 1;
            parts++;
        }
    const char *files[4] = {part("study/run.json", start[0], len[0], 1),
                            part("study/fig5.md", start[1], len[1], parts > 1),
                            part("study/other.json", start[2], len[2], parts > 2),
                            sb_fuzz_path("study")};
    const char *dirs[1] = {files[3]};
    const char *out = sb_fuzz_path("out");
    sb_fuzz_remove(out); /* the pages of the last input (their names are the GPUs') */
    if (sb_report(dirs, 1, out, devnull) != 0) {
        /* the refusal begins with the file at fault, or the folder when it holds no records */
        const char *at_fault = files[0];
        for (int i = 0; i < 4; i++) {
            size_t n = strlen(files[i]);
            if (strncmp(sb_error(), files[i], n) == 0 && sb_error()[n] == ':')
                at_fault = files[i];
        }
        sb_fuzz_refused(at_fault);
    }
    return 0;
}

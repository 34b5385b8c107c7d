/* Lines of blank-separated fields (lines.h). */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "lines.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "../cuda/base/error.h"

/* Cuts the comment and splits the rest in place; the count of fields, of which the first cap are
 * stored. */
static int split(char *line, char **field, int cap)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    int n = 0;
    for (char *c = line;;) {
        while (isspace((unsigned char)*c))
            c++;
        if (!*c)
            return n;
        if (n < cap)
            field[n] = c;
        n++;
        while (*c && !isspace((unsigned char)*c))
            c++;
        if (*c)
            *c++ = '\0';
    }
}

int sb_read_lines(const char *path, char **field, int cap, sb_line_fn on_line, void *ctx)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return sb_fail("%s: cannot open: %s", path, strerror(errno));
    char *line = NULL;
    size_t room = 0;
    ssize_t got;
    long number = 0;
    int rc = 0;
    while (rc == 0 && (got = getline(&line, &room, file)) >= 0) {
        size_t length = (size_t)got;
        number++;
        /* a NUL would hide the rest of the line from the string functions */
        if (memchr(line, '\0', length)) {
            rc = sb_fail("%s:%ld: the line contains a NUL byte; give a text file", path, number);
            break;
        }
        if (length > 0 && line[length - 1] == '\n')
            length--;
        if (length > 0 && line[length - 1] == '\r')
            length--;
        rc = on_line(ctx, number, length, field, split(line, field, cap));
    }
    if (rc == 0 && ferror(file))
        rc = sb_fail("%s:%ld: read error: %s", path, number + 1, strerror(errno));
    free(line);
    fclose(file);
    return rc ? -1 : 0;
}

int sb_keyword(const char *word, const char *const *keyword, int count)
{
    for (int k = 0; k < count; k++)
        if (strcmp(word, keyword[k]) == 0)
            return k;
    return -1;
}

int sb_header_statement(const char *path, long number, int k, int n, int *next, long *line_of,
                        const char *const *keyword, const char *const *usage, const char *order)
{
    if (k < *next)
        return sb_fail("%s:%ld: '%s' given twice (first at line %ld); keep one", path, number,
                       keyword[k], line_of[k]);
    if (k > *next)
        return sb_fail("%s:%ld: '%s' before '%s': the statements come in the order %s", path,
                       number, keyword[k], usage[*next], order);
    if (n != 2)
        return sb_fail("%s:%ld: wrong number of fields (%d after '%s'); write '%s'", path, number,
                       n - 1, keyword[k], usage[k]);
    line_of[k] = number;
    *next = k + 1;
    return 0;
}

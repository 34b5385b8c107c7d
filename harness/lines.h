/* Text input files read as lines of blank-separated fields: rdme's model file and the saved
 * states of angio and motility. One reader, so that every such file treats comments, blanks,
 * CRLF line ends, NUL bytes and read errors alike. */
#ifndef SB_LINES_H
#define SB_LINES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One line: its number (from 1), its length without the line end, its first `cap` fields (the
 * caller's array) and how many it has (more than cap: the caller refuses the line). Called for
 * every line, also those without fields (n = 0); non-zero stops the reading. */
typedef int (*sb_line_fn)(void *ctx, long number, size_t length, char **field, int n);

/* Reads `path` line by line: a '#' and what follows it on the line is a comment; fields are
 * separated by blanks (the line end and CRLF's '\r' among them). A line holding a NUL byte is
 * refused. -1 at the first failure (sb_fail says "path:line: why"; on_line's own message when it
 * failed), 0 when every line was read. */
int sb_read_lines(const char *path, char **field, int cap, sb_line_fn on_line, void *ctx);

/* The index of `word` among keyword[0 .. count - 1]; -1 when it is none of them. */
int sb_keyword(const char *word, const char *const *keyword, int count);

/* Statement k of a header whose statements come once each, in order, with one value each:
 * keyword[k] names statement k, usage[k] shows how to write it, `order` lists them ("angio-state,
 * side, cells, tubes"). Met at line `number` of `path` with n fields, the keyword among them. 0
 * when it is the one expected (*next): line_of[k] = number and *next = k + 1; else -1, sb_fail
 * saying "path:number: why" (given twice, early, or with the wrong field count). */
int sb_header_statement(const char *path, long number, int k, int n, int *next, long *line_of,
                        const char *const *keyword, const char *const *usage, const char *order);

#ifdef __cplusplus
}
#endif

#endif

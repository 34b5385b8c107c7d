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

#ifdef __cplusplus
}
#endif

#endif

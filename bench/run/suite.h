/* Suite files (stagebench suite, calibrate and gate): one `stagebench run` a line, its arguments
 * after the word `run`:
 *   procell --variant subtree-dfs --param histogram=${SB_SHARED_DATA}/UT1.txt --param t_max=240
 * '#' starts a comment; ${NAME} is the environment variable NAME (an unset one is an error). A
 * line `not-gated NAME REASON...` runs nothing: it names a benchmark (or a glob of them) left
 * out of the regression gate and why, which the gate's summary prints. */
#ifndef SB_SUITE_H
#define SB_SUITE_H

#define SB_SUITE_MAX_LINES 64
#define SB_SUITE_MAX_FIELDS 48

typedef struct sb_suite_line {
    long number;
    int n;
    char *field[SB_SUITE_MAX_FIELDS];
} sb_suite_line;

typedef struct sb_not_gated {
    long number;
    char *what, *why;
} sb_not_gated;

typedef struct sb_suite {
    const char *path;
    sb_suite_line lines[SB_SUITE_MAX_LINES];
    int n;
    sb_not_gated not_gated[SB_SUITE_MAX_LINES];
    int n_not_gated;
} sb_suite;

/* Reads `path` (every ${NAME} expanded); -1 with a message naming path:line. Free it with
 * sb_suite_free also after a failure. */
int sb_suite_read(sb_suite *s, const char *path);
void sb_suite_free(sb_suite *s);

#endif

#include "progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../harness/variant.h" /* sb_now */

void sb_format_duration(double seconds, char *out, size_t cap)
{
    if (!(seconds >= 0) || !isfinite(seconds)) {
        snprintf(out, cap, "?");
        return;
    }
    long s = (long)(seconds + 0.5);
    if (s >= 3600)
        snprintf(out, cap, "%ld h %02ld min", s / 3600, s % 3600 / 60);
    else if (s >= 60)
        snprintf(out, cap, "%ld min %02ld s", s / 60, s % 60);
    else
        snprintf(out, cap, "%ld s", s);
}

void sb_progress_start(sb_progress *p, const char *what, int total, double weight_total,
                       double expected_s, int quiet)
{
    memset(p, 0, sizeof *p);
    p->what = what;
    p->total = total;
    p->weight_total = weight_total > 0 ? weight_total : total;
    p->expected_s = expected_s;
    p->quiet = quiet || total <= 0;
    p->out = stderr;
    p->live = isatty(fileno(stderr));
    p->started = sb_now();
    if (p->quiet)
        return;
    char expected[32] = "";
    if (expected_s > 0)
        sb_format_duration(expected_s, expected, sizeof expected);
    fprintf(p->out, "%s: %d item%s%s%s\n", what, total, total == 1 ? "" : "s",
            expected[0] ? ", expected to take about " : "", expected);
}

/* Seconds left: the elapsed time over the work ended, times the work left; before any ended,
 * the caller's estimate less the time elapsed; NAN when neither is known. */
static double seconds_left(const sb_progress *p, double elapsed)
{
    if (p->weight_done > 0) {
        double rest = p->weight_total - p->weight_done;
        return elapsed / p->weight_done * (rest > 0 ? rest : 0);
    }
    return p->expected_s > 0 ? fmax(p->expected_s - elapsed, 0) : NAN;
}

void sb_progress_item(sb_progress *p, const char *label, double weight)
{
    p->weight_now = weight > 0 ? weight : 1;
    if (p->quiet)
        return;
    double elapsed = sb_now() - p->started, rest = seconds_left(p, elapsed);
    char took[32], left[48] = "";
    sb_format_duration(elapsed, took, sizeof took);
    if (isfinite(rest)) {
        char r[32];
        sb_format_duration(rest, r, sizeof r);
        snprintf(left, sizeof left, ", about %s left", r);
    }
    /* on a terminal one line, rewritten; in a log a line each */
    int comma = p->prefix[0] && label && label[0];
    fprintf(p->out, "%s%s: %d of %d %s%s%s, %s elapsed%s%s", p->live ? "\r\033[K" : "",
            p->what, p->done + 1, p->total, p->prefix, comma ? ", " : "", label ? label : "",
            took, left, p->live ? "" : "\n");
    fflush(p->out);
}

void sb_progress_done(sb_progress *p)
{
    if (p->part) /* the parent counts its item when this process ends */
        return;
    p->done++;
    p->weight_done += p->weight_now > 0 ? p->weight_now : 1;
    p->weight_now = 0;
}

void sb_progress_end(sb_progress *p)
{
    if (p->quiet)
        return;
    char took[32];
    sb_format_duration(sb_now() - p->started, took, sizeof took);
    fprintf(p->out, "%s%s: %d of %d done in %s\n", p->live ? "\r\033[K" : "", p->what, p->done,
            p->total, took);
}

void sb_progress_clear(sb_progress *p)
{
    if (!p->live || (p->quiet && !p->resumed)) /* a parent's line may be there, quiet or not */
        return;
    fprintf(p->out, "\r\033[K");
    fflush(p->out);
}

/* The state a child resumes: counts, whether it does part of an item, weights, the start
 * (CLOCK_MONOTONIC: one clock for every process of the machine), the estimate; then the
 * prefix's length, the prefix (the parent's own and `label`, cut to fit) and what. */
int sb_progress_hand_over(const sb_progress *p, const char *label, int part)
{
    if (p->quiet)
        return unsetenv(SB_PROGRESS_ENV);
    char prefix[sizeof p->prefix], state[sizeof p->prefix + 1200];
    int comma = p->prefix[0] && label && label[0];
    if (snprintf(prefix, sizeof prefix, "%s%s%s", p->prefix, comma ? ", " : "",
                 label ? label : "") >= (int)sizeof prefix)
        prefix[sizeof prefix - 1] = '\0'; /* cut: a label, not a name */
    snprintf(state, sizeof state, "%d %d %d %.17g %.17g %.17g %.17g %zu %s%.1000s", p->done,
             p->total, part || p->part, p->weight_done, p->weight_total, p->started,
             p->expected_s, strlen(prefix), prefix, p->what);
    return setenv(SB_PROGRESS_ENV, state, 1);
}

int sb_progress_resume(sb_progress *p, int quiet)
{
    static char what[1024];
    const char *state = getenv(SB_PROGRESS_ENV);
    sb_progress q;
    size_t prefix_len;
    int at = 0;
    memset(&q, 0, sizeof q);
    if (!state || sscanf(state, "%d %d %d %lg %lg %lg %lg %zu %n", &q.done, &q.total, &q.part,
                         &q.weight_done, &q.weight_total, &q.started, &q.expected_s, &prefix_len,
                         &at) < 8 ||
        at == 0 || q.total <= 0 || strlen(state + at) < prefix_len ||
        prefix_len >= sizeof q.prefix)
        return 0;
    snprintf(q.prefix, sizeof q.prefix, "%.*s", (int)prefix_len, state + at);
    snprintf(what, sizeof what, "%s", state + at + prefix_len);
    unsetenv(SB_PROGRESS_ENV);
    q.what = what;
    q.resumed = 1;
    q.quiet = quiet || q.total <= 0;
    q.out = stderr;
    q.live = isatty(fileno(stderr));
    *p = q;
    return 1;
}

void sb_progress_skip(sb_progress *p, int items, double weight)
{
    p->done += items;
    p->weight_done += weight > 0 ? weight : items;
    p->weight_now = 0;
}

#include "progress.h"

#include <math.h>
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
    fprintf(p->out, "%s%s: %d of %d %s, %s elapsed%s%s", p->live ? "\r\033[K" : "", p->what,
            p->done + 1, p->total, label ? label : "", took, left, p->live ? "" : "\n");
    fflush(p->out);
}

void sb_progress_done(sb_progress *p)
{
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

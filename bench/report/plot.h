/* Figures from records through gnuplot (PNG and SVG). Used by `stagebench plot` and by studies. */
#ifndef SB_PLOT_H
#define SB_PLOT_H

typedef enum sb_plot_kind {
    SB_PLOT_TIME,     /* median time per variant vs x, with min..max spread */
    SB_PLOT_SPEEDUP,  /* baseline median / variant median vs x */
    SB_PLOT_SERIES,   /* a reported series (y vs its x) per variant, at one parameter point */
    SB_PLOT_COUNTERS, /* hardware counters per GPU variant as bars, at one parameter point */
    SB_PLOT_DATA,     /* a figure script of its own reads the records' CSV and the dump files */
} sb_plot_kind;

typedef struct sb_plot_request {
    sb_plot_kind kind;
    const char *const *inputs; /* records files (JSON) */
    int ninputs;
    const char *out_prefix;    /* writes <out_prefix>.png, .svg and the data as <out_prefix>.dat */
    const char *title;         /* NULL: made from the workload and kind */
    const char *x_param;       /* TIME/SPEEDUP: x-axis parameter; NULL = the one that varies */
    const char *variants;      /* comma-separated subset in this order; NULL = every valid one */
    const char *baseline;      /* SPEEDUP: variant whose time is the numerator */
    const char *series;        /* SERIES: series name, e.g. device_bytes_by_generation */
    const char *where;         /* "k=v,k=v": only records whose params match */
    const char *script;        /* gnuplot script; NULL = the kind's generic one (DATA has none) */
    const char *const *dumps;  /* DATA: output dumps (run --dump-output) for the script */
    int ndumps;
} sb_plot_request;

/* Variables a script gets: outbase (it writes outbase.'.png' and outbase.'.svg'), title,
 * title_given (1: the user's, keep it), names (the figure's variants, space-separated: those
 * asked for, else those with valid records by stage) and count. TIME, SPEEDUP, SERIES,
 * COUNTERS: datafile (<out_prefix>.dat, one block per variant), xlabel, ylabel. DATA: datafile
 * (the first records file's CSV view), csvfiles (each one's), dumpfiles and dumpcount; those
 * lists are words in double quotes, for word(csvfiles, i). Every kind: cautions (how many
 * points, or a data figure's records, are to be read with care: sb_record_caution), caution (the
 * key's words for them) and caution_note (the note that label 990 shows at the figure's foot
 * when cautions > 0); a TIME or SPEEDUP point's last column, caution, is 1 for such a point. */

/* "time", "speedup", "series", "counters", "data" */
const char *sb_plot_kind_name(sb_plot_kind kind);

/* 0 on success; -1 with a message (no usable records, gnuplot failing...); SB_REFUSED with a
 * message when everything was ready but gnuplot is not installed (a study reports such a figure
 * skipped, not failed). */
int sb_plot(const sb_plot_request *r);

/* Where the gnuplot scripts are: $STAGEBENCH_PLOTS, <exe>/../plots, or the source tree's. */
const char *sb_plots_dir(void);

/* Runs `gnuplot -e <variables> <script>`: -1 with a message (the script unreadable, or
 * gnuplot's own last line on a failure), SB_REFUSED with one when gnuplot is not installed. `where` says what names the script
 * dir, for the message. The caller checks the files the script writes. */
int sb_run_gnuplot(const char *variables, const char *script, const char *where);

#endif

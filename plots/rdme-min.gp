# The Min oscillator on one GPU (paper sec. 4, fig. 10): top, a kymograph of membrane MinD
# (MinDm + MinDEm) per z-plane along the 4 µm cell over simulated time; bottom, the same summed
# over the lower and the upper half of the cell, which alternate when MinD oscillates pole to
# pole. The subtitle gives the measured period (min_period_s) and the step loop's simulated
# seconds per wall-clock hour (steady_simulated_s_per_hour) beside the paper's 134 on one
# GTX 680. Reads the run's dump (index 1: one block per sample, columns step time_s z all
# MinD-ATP MinD-ADP MinE MinDm MinDEm) and its CSV view; the samples must be evenly spaced
# (sample_steps dividing steps) for the image.
#   stagebench study bench/studies/rdme-min.study (figure min, kind data)
needed = ""
load "records.gp"
if (dumpcount < 1) {
    exit error "no dump file: the figure's run needs a `dump NAME` line"
}
dump = word(dumpfiles, 1)
# the measured figures of the valid record (the study has one; the least of several)
stats datafile using (strcol("status") eq "valid" && has("min_period_s") ? \
                      column("min_period_s") : 1e300) nooutput
period = STATS_min < 1e300 ? sprintf("%.1f s", STATS_min) : "not seen (fewer than 3 cycles)"
stats datafile using (strcol("status") eq "valid" && has("steady_simulated_s_per_hour") ? \
                      column("steady_simulated_s_per_hour") : 1e300) nooutput
rate = STATS_min < 1e300 ? sprintf("%.0f", STATS_min) : "not measured (no step-loop timing)"
measured = sprintf("period %s; %s simulated s per wall-clock hour (paper: 134 on one GTX 680)", \
                   period, rate)

# the dump is whitespace-separated text with # comments
set datafile separator whitespace
unset datafile columnheaders
stats dump index 1 using 3 nooutput
nz = int(STATS_max) + 1
micrometres_per_plane = 0.016 # the min-system lattice is 16 nm
# time, z and membrane MinD ($8 + $9: MinDm + MinDEm) without the blank lines between samples,
# which would cut the halves' sums over time into single points
set table $planes
plot dump index 1 using 2:3:($8 + $9) with table
unset table
stats $planes using 1 nooutput
t_first = STATS_min
t_last = STATS_max
if (!title_given) title = "Min oscillator, 64x64x256 sites at 16 nm, one GPU"
set palette defined (0 "#ffffff", 0.25 "#9ecae1", 0.6 "#2171b5", 1 "#08306b")
do for [format in "png svg"] {
    if (format eq "png") {
        set terminal pngcairo size 1100,1000 noenhanced font ",11"
    } else {
        set terminal svg size 1100,1000 noenhanced font ",11"
    }
    set output outbase.".".format
    set multiplot layout 2,1 title title . "\n" . measured
    # both panels share the time axis: the same range and margins (room for the colour box)
    set xrange [t_first : t_last]
    set lmargin at screen 0.09
    set rmargin at screen 0.86

    set xlabel "simulated time (s)"
    set ylabel "position along the cell (µm)"
    set cblabel "MinDm + MinDEm per z-plane"
    set yrange [0 : nz * micrometres_per_plane]
    set cbrange [0 : *]
    set colorbox
    plot dump index 1 using 2:($3 * micrometres_per_plane):($8 + $9) with image notitle

    set ylabel "MinDm + MinDEm"
    set yrange [0 : *]
    unset colorbox
    set key top right box opaque
    set grid
    plot $planes using 1:($2 < nz / 2 ? $3 : 0) smooth frequency \
             with lines linewidth 1.5 title sprintf("lower half (z < %d)", nz / 2), \
         $planes using 1:($2 >= nz / 2 ? $3 : 0) smooth frequency \
             with lines linewidth 1.5 title sprintf("upper half (z >= %d)", nz / 2)
    unset grid
    unset multiplot
}
set output

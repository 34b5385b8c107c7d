# Paper fig. 6, one GPU: time per step against the number of particles on 64x64x256 sites at
# 16 nm (capacity 7 per site in packed32), a line per stage (left axis), and the particles that
# overflowed their site per step (right axis, from the first stage's records: every valid
# record has the same output), so the overflow onset shows where the time steepens. The step
# loop alone (steady_s), without upload and download.
#   stagebench study bench/studies/rdme-single-gpu.study (figure fig6, kind data)
needed = "steady_s overflow_particles"
load "records.gp"
us_per_step(v) = row_of(v) ? 1e6 * column("steady_s") / column("steps") : NaN
overflow_per_step(v) = row_of(v) ? column("overflow_particles") / column("steps") : NaN
# the onset: the fewest particles swept that overflowed
stats datafile using (row_of(word(names, 1)) && column("overflow_particles") > 0 ? \
                      column("particles") : 1e300) nooutput
onset = STATS_min
if (onset < 1e300) {
    set arrow 1 from first onset / 1e6, graph 0 to first onset / 1e6, graph 1 nohead \
        dashtype 3 linecolor "gray40"
    set label 1 sprintf(" first overflow at %.3g million particles", onset / 1e6) \
        at first onset / 1e6, graph 0.5 left textcolor "gray40"
}
if (!title_given) title = "RDME on one GPU: time per step vs particles, 64x64x256 sites " . \
                          "(paper fig. 6)"
set title title
set xlabel "particles (millions; 7.3 million fit, 7 per site)"
set ylabel "time per step, step loop (µs)"
set y2label "overflowed particles per step"
set ytics nomirror
set y2tics
set yrange [0 : *]
set y2range [0 : *]
set key left top
set grid
set terminal pngcairo size 1000,700 noenhanced font ",11"
set output outbase.".png"
plot for [i=1:count] datafile using (column("particles") / 1e6):(us_per_step(word(names, i))) \
         smooth unique with linespoints linewidth 1.5 pointtype i title word(names, i), \
     datafile using (column("particles") / 1e6):(overflow_per_step(word(names, 1))) axes x1y2 \
         smooth unique with linespoints dashtype 2 linecolor "black" pointtype 6 \
         title "overflowed particles per step (right axis)"
set terminal svg size 1000,700 noenhanced font ",11"
set output outbase.".svg"
replot
set output

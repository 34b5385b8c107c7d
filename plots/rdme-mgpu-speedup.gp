# Paper table 2 / fig. 5 shape: speed-up of each multi-GPU stage on 2, 4 and 8 GPUs against the same
# stage on one GPU, per homogeneous cell, a panel per lattice spacing, the ideal line dashed.
# From the step loop alone (steady_s). Also writes <outbase>.txt: speed-up and parallel
# efficiency per stage, cell, spacing and GPU count (paper: 1.91 and 3.30 for the dividing
# E. coli on 2 and 4 GTX 680s).
#   stagebench study bench/studies/rdme-multi-gpu.study (figure table2, kind data)
needed = "steady_s gpus"
load "records.gp"
call "distinct.gp" "spacing"
spacings = values
call "distinct.gp" "gpus"
gpu_counts = values
# the cells the study ran, in order of size
cells = ""
do for [c in "ecoli dividing-ecoli yeast rbc"] {
    stats datafile using (strcol("status") eq "valid" && strcol("cell") eq c ? 1 : 0) nooutput
    if (STATS_sum > 0) { cells = cells . " " . c }
}
# per (stage, cell, spacing): the step loop's seconds per step on one GPU (1e300: none)
step_s = 'column("steady_s") / column("steps")'
array base[words(cells) * 16 * 8]
slot(i, k, j) = ((i - 1) * words(cells) + (k - 1)) * 8 + j
set print outbase.".txt"
print "stage cell spacing_nm gpus speedup efficiency steady_step_us"
do for [i = 1:count] {
    do for [k = 1:words(cells)] {
        do for [j = 1:words(spacings)] {
            v = word(names, i)
            c = word(cells, k)
            s = real(word(spacings, j))
            stats datafile using (row_of(v) && strcol("cell") eq c && column("spacing") == s && \
                                  column("gpus") == 1 ? @step_s : 1e300) nooutput
            base[slot(i, k, j)] = STATS_min
            do for [g in gpu_counts] {
                stats datafile using (row_of(v) && strcol("cell") eq c && \
                                      column("spacing") == s && column("gpus") == real(g) ? \
                                      @step_s : 1e300) nooutput
                if (STATS_min < 1e300 && base[slot(i, k, j)] < 1e300) {
                    sp = base[slot(i, k, j)] / STATS_min
                    print sprintf("%s %s %g %s %.3f %.3f %.1f", v, c, s, g, sp, sp / real(g), \
                                  STATS_min * 1e6)
                }
            }
        }
    }
}
unset print
speedup(i, k, j) = row_of(word(names, i)) && strcol("cell") eq word(cells, k) && \
                   column("spacing") == real(word(spacings, j)) && base[slot(i, k, j)] < 1e300 ? \
                   base[slot(i, k, j)] / (@step_s) : NaN
if (!title_given) title = "RDME over GPUs: speed-up against one GPU (paper table 2, fig. 5)"
set xlabel "GPUs"
set ylabel "speed-up (step loop)"
set key left top
set grid
set xtics 1
set terminal pngcairo size 1400,700 noenhanced font ",11"
set output outbase.".png"
set multiplot layout 1, words(spacings) title title
do for [j = 1:words(spacings)] {
    set title sprintf("%s nm", word(spacings, j))
    plot for [i = 1:count] for [k = 1:words(cells)] datafile \
             using (column("gpus")):(speedup(i, k, j)) smooth unique with linespoints \
             linewidth 1.5 dashtype k pointtype i \
             title sprintf("%s, %s", word(names, i), word(cells, k)), \
         x with lines dashtype 2 linecolor "gray" title "ideal"
}
unset multiplot
set terminal svg size 1400,700 noenhanced font ",11"
set output outbase.".svg"
set multiplot layout 1, words(spacings) title title
do for [j = 1:words(spacings)] {
    set title sprintf("%s nm", word(spacings, j))
    plot for [i = 1:count] for [k = 1:words(cells)] datafile \
             using (column("gpus")):(speedup(i, k, j)) smooth unique with linespoints \
             linewidth 1.5 dashtype k pointtype i \
             title sprintf("%s, %s", word(names, i), word(cells, k)), \
         x with lines dashtype 2 linecolor "gray" title "ideal"
}
unset multiplot
set output

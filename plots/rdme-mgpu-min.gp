# The Min oscillator on 1, 2, 4 (and 8) GPUs: simulated seconds per wall-clock hour of each
# stage's step loop (steady_simulated_s_per_hour) against the GPU count, beside the paper's 134,
# 249 and 384 on 1, 2 and 4 GTX 680s (it gives no 8-GPU value). Also writes <outbase>.txt with
# the values and the speed-ups.
#   stagebench study bench/studies/rdme-multi-gpu.study (figure min, kind data)
needed = "steady_simulated_s_per_hour gpus"
load "records.gp"
call "distinct.gp" "gpus"
gpu_counts = values
paper(g) = g == 1 ? 134.0 : g == 2 ? 249.0 : g == 4 ? 384.0 : NaN
set print outbase.".txt"
print "stage gpus simulated_s_per_hour speedup paper_s_per_hour paper_speedup"
do for [i = 1:count] {
    v = word(names, i)
    stats datafile using (row_of(v) && column("gpus") == 1 ? \
                          column("steady_simulated_s_per_hour") : 1e300) nooutput
    one = STATS_min
    do for [g in gpu_counts] {
        stats datafile using (row_of(v) && column("gpus") == real(g) ? \
                              column("steady_simulated_s_per_hour") : 1e300) nooutput
        if (STATS_min < 1e300) {
            p = paper(real(g))
            print sprintf("%s %s %.0f %s %s", v, g, STATS_min, \
                          one < 1e300 ? sprintf("%.2f", STATS_min / one) : "-", \
                          p == p ? sprintf("%.0f %.2f", p, p / 134) : "- -")
        }
    }
}
unset print
if (!title_given) title = "Min oscillator: simulated seconds per wall-clock hour (paper: 134, 249, 384)"
set title title
set xlabel "GPUs"
set ylabel "simulated s per wall-clock hour (step loop)"
set logscale y
set xtics 1
set key left top
set grid
set terminal pngcairo size 1000,700 noenhanced font ",11"
set output outbase.".png"
plot for [i = 1:count] datafile using (column("gpus")):(of(word(names, i), \
         "steady_simulated_s_per_hour")) smooth unique with linespoints linewidth 1.5 \
         pointtype i title word(names, i), \
     "+" using (1):(134) with points pointtype 7 linecolor "black" title "paper (GTX 680)", \
     "+" using (2):(249) with points pointtype 7 linecolor "black" notitle, \
     "+" using (4):(384) with points pointtype 7 linecolor "black" notitle
set terminal svg size 1000,700 noenhanced font ",11"
set output outbase.".svg"
replot
set output

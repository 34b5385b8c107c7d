# Paper fig. 5: speed-up of the M_b and F kernels (the records' micro + force phases, per outer
# step) on 2 and 4 GPUs against multi-gpu on one, a line per outer x inner resolution, the ideal
# line dashed; mpi's points (records from mpirun, in the other CSV files) where they are there,
# placed at their `gpus` parameter, or at the process count their file name gives (mpi-npN-...).
# Also writes <outbase>.txt: the speed-ups and parallel efficiency, with the seconds per step.
#   stagebench study bench/studies/motility-paper.study (figure fig5, kind data)
needed = "phase:micro phase:force"
load "records.gp"
call "distinct.gp" "outer"
outers = values
call "distinct.gp" "inner"
inners = values
nres = words(outers) * words(inners)
res_o(k) = real(word(outers, int((k - 1) / words(inners)) + 1))
res_i(k) = real(word(inners, int(k - 1) % words(inners) + 1))
at_res(k) = column("outer") == res_o(k) && column("inner") == res_i(k)
mbf = '(column("phase:micro") + column("phase:force")) / column("steps")'
# the base: multi-gpu on one GPU at each resolution (1e300: none)
array base[nres]
do for [k = 1:nres] {
    stats datafile using (row_of("multi-gpu") && at_res(k) && column("gpus") == 1 ? @mbf : 1e300) \
        nooutput
    base[k] = STATS_min
}
# mpi files: the process count from the gpus column, else from "-npN" in the file name
np_of(f) = strstrt(f, "-np") > 0 ? int(substr(f, strstrt(f, "-np") + 3, strstrt(f, "-np") + 3)) : 0
mpi_x(f) = (g = column("gpus"), g == g ? g : np_of(f))
set print outbase.".txt"
print "variant outer inner gpus mbf_s_per_step speedup efficiency"
do for [k = 1:nres] {
    if (base[k] < 1e300) {
        do for [g in "1 2 4 8"] {
            stats datafile using (row_of("multi-gpu") && at_res(k) && column("gpus") == real(g) ? \
                                  @mbf : 1e300) nooutput
            if (STATS_min < 1e300) {
                print sprintf("multi-gpu %g %g %s %.6g %.3f %.3f", res_o(k), res_i(k), g, STATS_min, \
                              base[k] / STATS_min, base[k] / STATS_min / real(g))
            }
        }
    }
}
unset print
speedup(k) = row_of("multi-gpu") && at_res(k) && base[k] < 1e300 ? base[k] / (@mbf) : NaN
mpi_speedup(k) = row_of("mpi") && at_res(k) && base[k] < 1e300 ? base[k] / (@mbf) : NaN
nfiles = words(csvfiles)
if (!title_given) title = "M_b and F over GPUs: speed-up against one GPU (paper fig. 5)"
set xlabel "GPUs"
set ylabel "speed-up of micro + force (per outer step)"
set key left top
set grid
set xtics 1
set xrange [0.5:*]
set yrange [0:*]
do for [format in "png svg"] {
    if (format eq "png") {
        set terminal pngcairo size 1000,700 noenhanced font ",11"
    } else {
        set terminal svg size 1000,700 noenhanced font ",11"
    }
    set output outbase.".".format
    set title title
    plot for [k = 1:nres] datafile using (column("gpus")):(speedup(k)) smooth unique \
             with linespoints linewidth 1.5 pointtype 7 dashtype 1 linecolor k \
             title sprintf("%g² × %g²", res_o(k), res_i(k)), \
         for [f = 2:(nfiles > 1 ? nfiles : 1)] for [k = 1:(nfiles > 1 ? nres : 0)] \
             word(csvfiles, f) using (mpi_x(word(csvfiles, f))):(mpi_speedup(k)) \
             with points pointtype 6 pointsize 2 linecolor k \
             title (f == 2 && k == 1 ? "mpi (open circles)" : ""), \
         x with lines dashtype 2 linecolor "gray" title "ideal"
}
set output

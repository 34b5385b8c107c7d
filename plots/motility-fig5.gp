# Paper fig. 5: speed-up of the M_b and F kernels (the records' micro + force phases, per outer
# step) on 2 and 4 GPUs against `optimized` on one, a line per outer x inner resolution through
# multi-gpu's points, the ideal line dashed; mpi's points (records from mpirun) as open circles,
# placed at their `gpus` parameter or at the process count their file name gives (mpi-npN-...).
# Reads every CSV file the figure draws from (table 2's runs for optimized, table 4's, mpi's).
# Also writes <outbase>.txt: the speed-ups and parallel efficiency, with the seconds per step.
#   stagebench study bench/studies/motility-paper.study (figure fig5, kind data)
needed = "phase:micro phase:force"
load "records.gp"
nfiles = words(csvfiles)
# the resolutions with a valid record in any file, in increasing order
outers = ""
inners = ""
first_datafile = datafile
do for [f = 1:nfiles] {
    datafile = word(csvfiles, f)
    call "distinct.gp" "outer"
    do for [v in values] { if (strstrt(outers." ", " ".v." ") == 0) { outers = outers." ".v } }
    call "distinct.gp" "inner"
    do for [v in values] { if (strstrt(inners." ", " ".v." ") == 0) { inners = inners." ".v } }
}
datafile = first_datafile
sorted(list) = system("echo '".list."' | tr ' ' '\\n' | grep . | sort -n | tr '\\n' ' '")
outers = sorted(outers)
inners = sorted(inners)
nres = words(outers) * words(inners)
res_o(k) = real(word(outers, int((k - 1) / words(inners)) + 1))
res_i(k) = real(word(inners, int(k - 1) % words(inners) + 1))
at_res(k) = column("outer") == res_o(k) && column("inner") == res_i(k)
mbf = '(column("phase:micro") + column("phase:force")) / column("steps")'
# mpi files: the process count from the gpus column, else from "-npN" in the file name
np_of(f) = strstrt(f, "-np") > 0 ? int(substr(f, strstrt(f, "-np") + 3, strstrt(f, "-np") + 3)) : 0
gpus_of(v, f) = v eq "optimized" ? 1 : \
                (gpus_col = column("gpus"), gpus_col == gpus_col ? gpus_col : np_of(f))
# the base: optimized on one GPU at each resolution (1e300: none), from any file
array base[nres > 0 ? nres : 1]
do for [k = 1:nres] {
    base[k] = 1e300
    do for [f = 1:nfiles] {
        stats word(csvfiles, f) using (row_of("optimized") && at_res(k) ? @mbf : 1e300) nooutput
        if (STATS_min < base[k]) { base[k] = STATS_min }
    }
}
set print outbase.".txt"
print "variant outer inner gpus mbf_s_per_step speedup efficiency"
do for [k = 1:nres] {
    if (base[k] < 1e300) {
        print sprintf("optimized %g %g 1 %.6g 1.000 1.000", res_o(k), res_i(k), base[k])
        do for [v in "multi-gpu mpi"] {
            do for [f = 1:nfiles] {
                file = word(csvfiles, f)
                do for [g in "2 3 4 8"] {
                    stats file using (row_of(v) && at_res(k) && gpus_of(v, file) == real(g) ? \
                                      @mbf : 1e300) nooutput
                    if (STATS_min < 1e300) {
                        print sprintf("%s %g %g %s %.6g %.3f %.3f", v, res_o(k), res_i(k), g, \
                                      STATS_min, base[k] / STATS_min, base[k] / STATS_min / real(g))
                    }
                }
            }
        }
    }
}
unset print
if (!title_given) {
    title = "M_b and F over GPUs: speed-up against optimized on one GPU (paper fig. 5)"
}
# the points: from <outbase>.txt, written above
set datafile separator whitespace
set xlabel "GPUs"
set ylabel "speed-up of micro + force (per outer step)"
set key left top
set grid
set xtics 1
set xrange [0.5:4.5]
set yrange [0:4.5]
do for [format in "png svg"] {
    if (format eq "png") {
        set terminal pngcairo size 1000,700 noenhanced font ",11"
    } else {
        set terminal svg size 1000,700 noenhanced font ",11"
    }
    set output outbase.".".format
    set title title
    # optimized (x = 1) and multi-gpu, joined per resolution across the files
    plot for [k = 1:nres] outbase.".txt" \
             using (strcol(1) ne "mpi" && $2 == res_o(k) && $3 == res_i(k) ? $4 : NaN):6 \
             smooth unique with linespoints linewidth 1.5 pointtype 7 linecolor k \
             title sprintf("%g² × %g²", res_o(k), res_i(k)), \
         for [k = 1:nres] outbase.".txt" \
             using (strcol(1) eq "mpi" && $2 == res_o(k) && $3 == res_i(k) ? $4 : NaN):6 \
             with points pointtype 6 pointsize 2 linecolor k \
             title (k == 1 ? "mpi (open circles)" : ""), \
         x with lines dashtype 2 linecolor "gray" title "ideal"
}
set output

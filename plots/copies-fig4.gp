# Paper fig. 4: copies against payload size, a line per variant (host to GPU, GPU to GPU staged
# through pinned host memory, peer, NCCL, and MPI when its records are there). Top: time per
# copy (median, µs); bottom: bandwidth (the records' items_per_second: the items are bytes),
# GB/s; both log-log. A dashed line marks 32 KiB, the halo copy the paper times (4.7 µs peered
# on its GTX 680s).
#   stagebench study bench/studies/copies-fig4.study (figure fig4, kind data)
# stagebench sets datafile (the run's CSV), names (the variants with valid records) and count.
set encoding utf8
set datafile separator comma
set datafile columnheaders
set datafile missing NaN
# column c of a valid record of variant v; NaN (no point) on any other row
of(v, c) = strcol("status") eq "valid" && strcol("variant") eq v ? column(c) : NaN
if (!title_given) title = "Copies against payload size (paper fig. 4)"
set logscale x 2
set xtics ("4 B" 4, "64 B" 64, "1 KiB" 1024, "16 KiB" 16384, "256 KiB" 262144, \
           "4 MiB" 4194304, "64 MiB" 67108864, "1 GiB" 1073741824, "16 GiB" 17179869184)
set xlabel "payload"
set logscale y
set format y "%g"
set key left top
set grid
set arrow 1 from first 32768, graph 0 to first 32768, graph 1 nohead dashtype 3 \
    linecolor "gray40"
set label 1 " 32 KiB: the paper's halo copy" at first 32768, graph 0.05 left textcolor "gray40"
do for [format in "png svg"] {
    if (format eq "png") {
        set terminal pngcairo size 1000,1000 noenhanced font ",11"
    } else {
        set terminal svg size 1000,1000 noenhanced font ",11"
    }
    set output outbase.".".format
    set multiplot layout 2,1 title title
    set ylabel "time per copy (µs)"
    plot for [i=1:count] datafile \
             using (column("bytes")):(1e6 * of(word(names, i), "median_s")) \
             smooth unique with linespoints linewidth 1.5 pointtype i title word(names, i)
    set ylabel "bandwidth (GB/s)"
    plot for [i=1:count] datafile \
             using (column("bytes")):(of(word(names, i), "items_per_second") / 1e9) \
             smooth unique with linespoints linewidth 1.5 pointtype i title word(names, i)
    unset multiplot
}
set output

# Paper fig. 4: the neighbour-list kernel against the number of cells, built by a thread per
# cell over its 27 boxes (neighbor-list) or a box per block with the boxes staged in shared
# memory (shared-memory, alg. 4); milliseconds per step, log-log.
needed = "phase:cell-cell_lists"
X = "cells"
load "angio-common.gp"
if (!title_given) title = "Neighbour-list kernels: plain vs shared memory (paper fig. 4)"
set title title
set xlabel "cells"
set ylabel "neighbour-list building per step (ms)"
set logscale y
do for [format in "png svg"] {
    if (format eq "png") { set terminal pngcairo size 1000,650 noenhanced font ",11" }
    else { set terminal svg size 1000,650 noenhanced font ",11" }
    set output outbase.".".format
    plot for [v in "neighbor-list shared-memory"] datafile \
             using (column("cells")):(ms(v, "phase:cell-cell_lists")) smooth unique \
             with linespoints linewidth 1.5 title v
}
set output

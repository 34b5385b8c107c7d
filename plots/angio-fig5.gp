# Paper fig. 5: the cell-cell kernels with a neighbour list (lists + interactions, neighbor-list)
# and without (one kernel over 27 boxes, gpu-naive), against the number of cells; log-log.
needed = "phase:cell-cell_kernels"
X = "cells"
load "angio-common.gp"
kernels(v) = row_of(v) ? 1e3 * (column("phase:cell-cell_kernels") + \
             (has("phase:cell-cell_lists") ? column("phase:cell-cell_lists") : 0)) : NaN
if (!title_given) title = "Cell-cell kernels with and without a neighbour list (paper fig. 5)"
set title title
set xlabel "cells"
set ylabel "cell-cell kernels per step (ms)"
set logscale y
do for [format in "png svg"] {
    if (format eq "png") { set terminal pngcairo size 1000,650 noenhanced font ",11" }
    else { set terminal svg size 1000,650 noenhanced font ",11" }
    set output outbase.".".format
    plot for [v in "gpu-naive neighbor-list"] datafile using (column("cells")):(kernels(v)) \
             smooth unique with linespoints linewidth 1.5 \
             title v . (v eq "gpu-naive" ? " (no list)" : " (lists + interactions)")
}
set output

# Paper fig. 7: the share of the model's conversion and the copies in the cell-cell phase
# against the number of cells (paper: about 40 %), for the co-processor stages.
needed = "phase:cell-cell_conversion"
X = "cells"
load "angio-common.gp"
share(v) = row_of(v) ? 100 * (column("phase:cell-cell_conversion") + column("phase:cell-cell_copies")) / \
           (column("phase:cell-cell_conversion") + column("phase:cell-cell_copies") + \
            column("phase:cell-cell_kernels") + \
            (has("phase:cell-cell_lists") ? column("phase:cell-cell_lists") : 0)) : NaN
if (!title_given) title = "Conversion and copies in the cell-cell phase (paper fig. 7: about 40 %)"
set title title
set xlabel "cells"
set ylabel "conversion + copies, % of the phase"
set yrange [0:100]
do for [format in "png svg"] {
    if (format eq "png") { set terminal pngcairo size 1000,650 noenhanced font ",11" }
    else { set terminal svg size 1000,650 noenhanced font ",11" }
    set output outbase.".".format
    plot for [v in "gpu-naive texture pinned"] datafile using (column("cells")):(share(v)) \
             smooth unique with linespoints linewidth 1.5 title v, \
         40 with lines dashtype 2 linecolor "gray40" title "paper: about 40 %"
}
set output

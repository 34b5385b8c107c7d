# Paper fig. 8: speed-up of the tube-cell phase (conversion, copies and kernels) over
# cpu-reference's against the number of tubes, 2^18 cells: each cell searching its box's tubes
# (texture) against tube lists (tube-lists, pinned); and the whole step of sorted.
needed = "phase:tube-cell"
X = "tubes"
load "angio-common.gp"
tube_phase(v) = column("phase:tube-cell_conversion") + column("phase:tube-cell_copies") + \
                column("phase:tube-cell_kernels")
phase_speedup(v) = row_of(v) ? ref(column("tubes"), "phase:tube-cell") / \
                   (has("phase:tube-cell_kernels") ? tube_phase(v) : column("phase:tube-cell")) : NaN
whole_speedup(v) = row_of(v) ? ref(column("tubes"), "median_s") / column("median_s") : NaN
if (!title_given) title = "Tube-cell speed-up over cpu-reference against tubes, 2^18 cells (paper fig. 8)"
set title title
set xlabel "tubes"
set ylabel "speed-up over cpu-reference"
set logscale x 10
set logscale y
do for [format in "png svg"] {
    if (format eq "png") { set terminal pngcairo size 1000,650 noenhanced font ",11" }
    else { set terminal svg size 1000,650 noenhanced font ",11" }
    set output outbase.".".format
    plot for [v in "texture tube-lists pinned sorted"] datafile \
             using (column("tubes")):(phase_speedup(v)) smooth unique with linespoints \
             linewidth 1.5 title v . ": tube-cell phase", \
         datafile using (column("tubes")):(whole_speedup("sorted")) smooth unique \
             with linespoints linewidth 1.5 dashtype 2 title "sorted: whole step"
}
set output

# Paper fig. 6: speed-ups of the cell-cell phase over cpu-reference against the number of
# cells: of the kernels alone (lists + interactions), of the phase with its conversion and
# copies, of the whole step; for the paper's last kernel (texture) and the resident stages'
# cell-cell phase and step. Also writes <outbase>.txt beside the paper's 57x (kernel), 30x
# (phase) and 20x (whole simulation).
needed = "phase:cell-cell"
X = "cells"
load "angio-common.gp"
gpu_kernels(v) = column("phase:cell-cell_kernels") + \
                 (has("phase:cell-cell_lists") ? column("phase:cell-cell_lists") : 0)
gpu_phase(v) = gpu_kernels(v) + column("phase:cell-cell_conversion") + \
               column("phase:cell-cell_copies")
kernel_speedup(v) = row_of(v) ? ref(column("cells"), "phase:cell-cell") / \
                    (has("phase:cell-cell_kernels") ? gpu_kernels(v) : column("phase:cell-cell")) : NaN
phase_speedup(v) = row_of(v) ? ref(column("cells"), "phase:cell-cell") / gpu_phase(v) : NaN
whole_speedup(v) = row_of(v) ? ref(column("cells"), "median_s") / column("median_s") : NaN
set print outbase.".txt"
print "# angio, paper fig. 6: cell-cell speed-ups over cpu-reference (paper: kernel 57x, phase 30x, whole 20x)"
print "# variant cells kernel phase whole"
do for [v in "gpu-naive texture pinned resident sorted"] {
    do for [k = 1:words(xs)] {
        n = real(word(xs, k))
        # a missing value reads as 1e300 (stats leaves no STATS_* when every point is NaN)
        stats datafile using (row_of(v) && column("cells") == n ? kernel_speedup(v) : 1e300) nooutput
        kk = STATS_min
        stats datafile using (row_of(v) && column("cells") == n && \
                              has("phase:cell-cell_conversion") ? phase_speedup(v) : 1e300) nooutput
        pp = STATS_min
        stats datafile using (row_of(v) && column("cells") == n ? whole_speedup(v) : 1e300) nooutput
        ww = STATS_min
        if (kk < 1e300 || ww < 1e300) {
            print sprintf("%s %d %s %s %s", v, n, kk < 1e300 ? sprintf("%.1f", kk) : "-", \
                          pp < 1e300 ? sprintf("%.1f", pp) : "-", ww < 1e300 ? sprintf("%.1f", ww) : "-")
        }
    }
}
unset print
if (!title_given) title = "Cell-cell speed-ups over cpu-reference (paper fig. 6: kernel 57x, phase 30x)"
set title title
set xlabel "cells"
set ylabel "speed-up over cpu-reference"
set logscale y
do for [format in "png svg"] {
    if (format eq "png") { set terminal pngcairo size 1100,700 noenhanced font ",11" }
    else { set terminal svg size 1100,700 noenhanced font ",11" }
    set output outbase.".".format
    plot datafile using (column("cells")):(kernel_speedup("texture")) smooth unique \
             with linespoints linewidth 1.5 title "texture: kernels", \
         datafile using (column("cells")):(phase_speedup("texture")) smooth unique \
             with linespoints linewidth 1.5 title "texture: phase with conversion and copies", \
         datafile using (column("cells")):(whole_speedup("texture")) smooth unique \
             with linespoints linewidth 1.5 title "texture: whole step", \
         datafile using (column("cells")):(kernel_speedup("sorted")) smooth unique \
             with linespoints linewidth 1.5 title "sorted: cell-cell phase", \
         datafile using (column("cells")):(whole_speedup("sorted")) smooth unique \
             with linespoints linewidth 1.5 title "sorted: whole step", \
         57 with lines dashtype 2 linecolor "gray40" title "paper: kernel 57x", \
         30 with lines dashtype 3 linecolor "gray40" title "paper: phase 30x"
}
set output

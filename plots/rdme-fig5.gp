# Paper fig. 5, one GPU: wall-clock hours to simulate one hour of each homogeneous cell system
# against its volume, a line per lattice spacing and stage, log-log. From the step loop alone
# (steady_simulated_s_per_hour: no upload or download), as the paper extrapolated short runs to
# one simulated hour; at 8 nm a cell has 8x the sites of 16 nm and needs 4x the steps. Values
# are labelled for the first stage.
#   stagebench study bench/studies/rdme-single-gpu.study (figure fig5, kind data)
needed = "steady_simulated_s_per_hour"
load "records.gp"
call "distinct.gp" "spacing"
spacings = values
# the spec's cell sizes (variants/rdme/scenario.c), in cubic micrometres
volume(cell) = cell eq "ecoli" ? 2 : cell eq "dividing-ecoli" ? 4 : cell eq "yeast" ? 64 : \
               cell eq "rbc" ? 128 : NaN
hours(v, spacing) = row_of(v) && column("spacing") == spacing ? \
                    3600 / column("steady_simulated_s_per_hour") : NaN
if (!title_given) title = "RDME on one GPU: wall-clock time per simulated hour (paper fig. 5)"
set title title
set logscale xy
set format y "%g"
set xrange [1.4 : 180]
# room above the top point for its label
set offsets 0, 0, graph 0.08, 0
set xtics ("E. coli\n1x1x2 µm" 2, "dividing E. coli\n1x1x4 µm" 4, "yeast\n4x4x4 µm" 64, \
           "red blood cell\n8x8x2 µm" 128)
set xlabel "homogeneous cell (volume, log scale)"
set ylabel "wall-clock hours per simulated hour (step loop)"
set key right bottom
set grid
set terminal pngcairo size 1000,700 noenhanced font ",11"
set output outbase.".png"
plot for [i=1:count] for [j=1:words(spacings)] datafile \
         using (volume(strcol("cell"))):(hours(word(names, i), real(word(spacings, j)))) \
         smooth unique with linespoints linewidth 1.5 dashtype i pointtype j \
         title sprintf("%s, %s nm", word(names, i), word(spacings, j)), \
     for [j=1:words(spacings)] datafile \
         using (volume(strcol("cell"))):(hours(word(names, 1), real(word(spacings, j)))):\
               (sprintf("%.3g h", hours(word(names, 1), real(word(spacings, j))))) \
         with labels offset 0,0.9 font ",9" notitle
set terminal svg size 1000,700 noenhanced font ",11"
set output outbase.".svg"
replot
set output

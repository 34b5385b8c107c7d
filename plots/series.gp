# A series per variant (y vs its own x, e.g. device bytes per generation). y is divided by
# yscale (default 1), so that a figure script can plot bytes as MiB or GiB.
# stagebench plot sets datafile (one block per variant: x, y), outbase, title, xlabel, ylabel,
# names (the variants in block order) and count.
if (!exists("yscale")) yscale = 1
set format y "%g"
set title title
set xlabel xlabel
set ylabel ylabel
set key left top
set grid
set terminal pngcairo size 1000,700 noenhanced font ",11"
set output outbase.".png"
plot for [i=1:count] datafile index (i - 1) using 1:($2 / yscale) \
     with linespoints linewidth 1.5 pointtype i title word(names, i)
set terminal svg size 1000,700 noenhanced font ",11"
set output outbase.".svg"
replot
set output

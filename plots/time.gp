# Median time per variant vs x, min..max as error bars; log y, and log x when x spans > 10x.
# A point whose record is to be read with care (one sample, or noise above 5 %: its caution
# column is 1) is ringed in black, with a line in the key.
# stagebench plot sets datafile (one block per variant: x, median_s, min_s, max_s, caution),
# cautions (how many points are ringed), caution (the key's words), outbase,
# title, xlabel, ylabel, names (the variants in block order), colors, rgbcolors and dashes (a
# line's colour index, its colour as "#rrggbb" from plot.c's palette, 20 distinct, and its dash:
# one colour per variant, one dash per machine) and count. Figure scripts set their own labels
# and `load "time.gp"`.
stats datafile using 1 nooutput
if (STATS_min > 0 && STATS_max > 10 * STATS_min) set logscale x
set logscale y
set format y "%g"
set title title
set xlabel xlabel
set ylabel ylabel
set key left top
# more lines than fit beside the curves (several machines' variants): the key goes outside
if (count > 10) set key outside right top
set grid
set terminal pngcairo size 1000,700 noenhanced font ",11"
set output outbase.".png"
# the ringed points and their key line, only where there are some
ringed = cautions > 0 ? ', for [i=1:count] datafile index (i - 1) using 1:($5 > 0 ? $2 : NaN) with points pointtype 6 pointsize 2.5 linewidth 1.5 linecolor "black" notitle, keyentry with points pointtype 6 pointsize 2.5 linewidth 1.5 linecolor "black" title caution' : ''
plot for [i=1:count] datafile index (i - 1) using 1:2:3:4 \
     with yerrorlines linewidth 1.5 linecolor rgb word(rgbcolors, i) \
     dashtype int(word(dashes, i)) pointtype int(word(colors, i)) title word(names, i) @ringed
set terminal svg size 1000,700 noenhanced font ",11"
set output outbase.".svg"
replot
set output

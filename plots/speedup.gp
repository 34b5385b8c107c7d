# Speed-up over a baseline vs x, with a dashed line at 1 (as fast as the baseline) that the y
# range always includes. Log x when x spans > 10x, log y when the speed-ups and 1 span > 10x.
# A point whose record, or its baseline's, is to be read with care (one sample, or noise above
# 5 %: its caution column is 1) is ringed in black, with a line in the key.
# stagebench plot sets datafile (one block per variant: x, speedup, baseline_median_s,
# median_s, caution), cautions (how many points are ringed), caution (the key's words),
# outbase, title, xlabel, ylabel, names (the variants in block order), colors,
# rgbcolors and dashes (a line's colour index, its colour as "#rrggbb", 20 distinct, and its
# dash: one colour per variant, one dash per machine) and count.
stats datafile using 1:2 nooutput
if (STATS_min_x > 0 && STATS_max_x > 10 * STATS_min_x) set logscale x
low = STATS_min_y < 1 ? STATS_min_y : 1
high = STATS_max_y > 1 ? STATS_max_y : 1
if (low > 0 && high > 10 * low) set logscale y
set yrange [*<1:1<*]
set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 linecolor "black"
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
plot for [i=1:count] datafile index (i - 1) using 1:2 \
     with linespoints linewidth 1.5 linecolor rgb word(rgbcolors, i) \
     dashtype int(word(dashes, i)) pointtype int(word(colors, i)) title word(names, i) @ringed
set terminal svg size 1000,700 noenhanced font ",11"
set output outbase.".svg"
replot
set output

# One benchmark's history (stagebench history show --plot): each row's median in the order added,
# each segment's geometric mean as a level, and a dashed line where a segment starts (a change
# point). stagebench sets datafile (index 0: position, median, commit; index 1: the segments'
# levels, two points each), outbase, title, ylabel, changes (the positions that start a segment,
# space-separated) and rows (how many positions there are).
set title title
set xlabel "commit, in the order added"
set ylabel ylabel
set grid
set key left top
set xrange [0.5 : rows + 0.5]
# at most about 40 commit labels
label_step = rows > 40 ? int(ceil(rows / 40.0)) : 1
set xtics rotate by 90 right font ",8"
do for [i = 1 : words(changes)] {
    x = real(word(changes, i)) - 0.5
    set arrow from x, graph 0 to x, graph 1 nohead dashtype 2 linewidth 1.5 linecolor rgb "#c00000"
}
set terminal pngcairo size 1000,600 noenhanced font ",11"
set output outbase.".png"
plot datafile index 0 using 1:2:xtic((int($1) - 1) % label_step == 0 ? stringcolumn(3) : "") \
         with linespoints pointtype 7 pointsize 0.8 linewidth 1.5 title "median", \
     "" index 1 using 1:2 with lines linewidth 2 linecolor rgb "#c00000" title "segment mean"
set output

# Hardware counters at one parameter point, one bar per variant in block order, three panels:
# DRAM throughput as % of the measured peak, achieved occupancy, and DRAM bytes read + written
# beside the bytes the variant must move by its own count (log y; no floor bar, NaN, where the
# variant does not count them), labelled with measured / floor.
# A label's expressions test valid(4) before reading the floor: gnuplot 5.4 crashes on a label
# whose y reads a NaN column.
# stagebench plot sets datafile (one block per variant, one row: dram_pct_peak, occupancy_pct,
# dram_bytes, bytes_moved), outbase, title, names (the variants in block order) and count.
set style fill solid 0.8 border -1
set grid ytics
set xrange [0.4 : count + 0.6]
set xtics nomirror scale 0 rotate by 20 right ()
do for [i=1:count] { set xtics add (word(names, i) i) }
set key top right
# bytes of 0 have no place on a log axis: with nothing else, the panel gets a range of its own
stats datafile using 3 nooutput
bytes_range = STATS_max > 0 ? "[* : *]" : "[0.1 : 10]"

# The three panels; a multiplot cannot be replotted, so each terminal draws them again.
do for [format in "png svg"] {
    if (format eq "png") {
        set terminal pngcairo size 1000,1200 noenhanced font ",11"
    } else {
        set terminal svg size 1000,1200 noenhanced font ",11"
    }
    set output outbase.".".format
    set multiplot layout 3,1 title title

    # % of the peak measured by the suite: a kernel can pass it a little, so 100 is a line
    unset logscale y
    set format y "%g"
    set yrange [0 : 100 < *]
    set ylabel "DRAM throughput (% of measured peak)"
    set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead dashtype 2 linecolor "black"
    set boxwidth 0.6
    plot for [i=1:count] datafile index (i - 1) using (i):1 with boxes linecolor 1 notitle, \
         for [i=1:count] datafile index (i - 1) using (i):1:(sprintf("%.3g%%", $1)) \
             with labels offset 0,0.7 notitle
    unset arrow 1

    set yrange [0 : 100 < *]
    set ylabel "achieved occupancy (% of max warps per SM)"
    plot for [i=1:count] datafile index (i - 1) using (i):2 with boxes linecolor 2 notitle, \
         for [i=1:count] datafile index (i - 1) using (i):2:(sprintf("%.3g%%", $2)) \
             with labels offset 0,0.7 notitle

    set logscale y
    set format y "%.0e"
    set yrange @bytes_range
    set ylabel "DRAM bytes"
    set boxwidth 0.35
    # key entries of their own: a variant without a floor has no floor bar to carry one
    plot keyentry with boxes linecolor 3 title "measured (read + written)", \
         keyentry with boxes linecolor 4 title "floor (the variant's own count)", \
         for [i=1:count] datafile index (i - 1) using (i - 0.18):3 with boxes linecolor 3 \
             notitle, \
         for [i=1:count] datafile index (i - 1) using (i + 0.18):4 with boxes linecolor 4 \
             notitle, \
         for [i=1:count] datafile index (i - 1) \
             using (i):(valid(4) && $4 > $3 ? $4 : $3):(valid(4) ? sprintf("%.2fx", $3 / $4) : "") \
             with labels offset 0,0.7 notitle
    unset multiplot
}
set output

# Beside paper fig. 5, one GPU: how close the step loop of each homogeneous cell comes to the
# memory system, against the lattice's site count, a line per lattice spacing and stage. Top:
# the stage's floor of DRAM bytes per step (each sweep reads and writes the lattice once, plus
# the site types) over the step time, as % of the device's measured peak
# (steady_pct_peak_dram). Bottom: lattice-site updates per second (steady_items_per_second).
#   stagebench study bench/studies/rdme-single-gpu.study (figure fig5-bandwidth, kind data)
needed = "steady_pct_peak_dram steady_items_per_second"
load "records.gp"
call "distinct.gp" "spacing"
spacings = values
# lattice sites of a row, as a macro (@sites): items are site updates, sites x steps
sites = 'column("items") / column("steps")'
of_spacing(v, spacing, c) = row_of(v) && column("spacing") == spacing ? column(c) : NaN
if (!title_given) title = "RDME on one GPU: step loop against the DRAM floor, per lattice"
set logscale x
set format x "%.0e"
set xlabel "lattice sites"
set key left top
set grid
do for [format in "png svg"] {
    if (format eq "png") {
        set terminal pngcairo size 1000,1000 noenhanced font ",11"
    } else {
        set terminal svg size 1000,1000 noenhanced font ",11"
    }
    set output outbase.".".format
    set multiplot layout 2,1 title title

    unset logscale y
    set format y "%g"
    set yrange [0 : 100 < *]
    set ylabel "floor bytes / step time (% of measured DRAM peak)"
    set arrow 1 from graph 0, first 100 to graph 1, first 100 nohead dashtype 2 linecolor "black"
    plot for [i=1:count] for [j=1:words(spacings)] datafile \
             using (@sites):(of_spacing(word(names, i), real(word(spacings, j)), \
                                          "steady_pct_peak_dram")) \
             smooth unique with linespoints linewidth 1.5 dashtype i pointtype j \
             title sprintf("%s, %s nm", word(names, i), word(spacings, j))
    unset arrow 1

    set logscale y
    set format y "%.0e"
    set yrange [* : *]
    set ylabel "lattice-site updates per second"
    plot for [i=1:count] for [j=1:words(spacings)] datafile \
             using (@sites):(of_spacing(word(names, i), real(word(spacings, j)), \
                                          "steady_items_per_second")) \
             smooth unique with linespoints linewidth 1.5 dashtype i pointtype j \
             title sprintf("%s, %s nm", word(names, i), word(spacings, j))
    unset multiplot
}
set output

# The whole simulation (the tumour, 600 steps): each stage's speed-up over cpu-reference, a bar
# each, the paper's 10-20x marked; also <outbase>.txt with the times.
needed = "median_s"
load "records.gp"
stats datafile using (row_of("cpu-reference") ? column("median_s") : 1e300) nooutput
reference_s = STATS_min
set print outbase.".txt"
print "# angio tumour, whole simulation: speed-up over cpu-reference (paper: 10-20x)"
print "# variant median_s speedup"
do for [i = 1:count] {
    stats datafile using (row_of(word(names, i)) ? column("median_s") : 1e300) nooutput
    print sprintf("%s %.4g %.1f", word(names, i), STATS_min, reference_s / STATS_min)
}
unset print
if (!title_given) title = "Whole simulation, the tumour: speed-up over cpu-reference (paper: 10-20x)"
set title title
set ylabel "speed-up over cpu-reference"
set logscale y
set style fill solid 0.6
set boxwidth 0.7
set xtics rotate by -30
set grid ytics
set key off
do for [format in "png svg"] {
    if (format eq "png") { set terminal pngcairo size 1000,650 noenhanced font ",11" }
    else { set terminal svg size 1000,650 noenhanced font ",11" }
    set output outbase.".".format
    plot for [i = 1:count] datafile \
             using (i):(row_of(word(names, i)) ? reference_s / column("median_s") : NaN):xtic(word(names, i)) \
             with boxes, \
         10 with lines dashtype 2 linecolor "gray40", 20 with lines dashtype 2 linecolor "gray40"
}
set output

# Paper fig. 7, one GPU: time per step against the number of first-order reactions (1/s) on
# 64x64x256 sites holding 100,000 particles: points per stage and its least-squares line. The
# slope (µs per reaction per step; the paper: +40 µs on one GTX 680) is in the key and, with
# its standard error and the intercept, in <outbase>-slope.txt. The step loop alone (steady_s).
#   stagebench study bench/studies/rdme-single-gpu.study (figure fig7, kind data)
needed = "steady_s"
load "records.gp"
us_per_step(v) = row_of(v) ? 1e6 * column("steady_s") / column("steps") : NaN
set fit quiet nolog
array slope[count]
array slope_err[count]
array intercept[count]
line(x) = a + b * x
do for [i=1:count] {
    a = 0
    b = 1
    fit line(x) datafile using (column("reactions")):(us_per_step(word(names, i))) via a, b
    slope[i] = b
    slope_err[i] = b_err
    intercept[i] = a
}
set print outbase."-slope.txt"
print "# rdme, paper fig. 7: time per step = intercept + slope x reactions, least squares"
print "# paper: slope 40 us per reaction per step on one GTX 680"
print "# variant slope_us_per_reaction_per_step slope_stderr_us intercept_us"
do for [i=1:count] {
    print sprintf("%s %.4g %.2g %.4g", word(names, i), slope[i], slope_err[i], intercept[i])
}
unset print
if (!title_given) title = "RDME on one GPU: time per step vs reactions, 100,000 particles " . \
                          "(paper fig. 7: +40 µs per reaction on a GTX 680)"
set title title
set xlabel "first-order reactions (1/s each)"
set ylabel "time per step, step loop (µs)"
set yrange [0 : *]
set key left top
set grid
set terminal pngcairo size 1000,700 noenhanced font ",11"
set output outbase.".png"
plot for [i=1:count] datafile using (column("reactions")):(us_per_step(word(names, i))) \
         smooth unique with points linecolor i pointtype i pointsize 1.5 title word(names, i), \
     for [i=1:count] intercept[i] + slope[i] * x with lines linecolor i linewidth 1.5 \
         title sprintf("%s fit: %+.3g µs per reaction per step", word(names, i), slope[i])
set terminal svg size 1000,700 noenhanced font ",11"
set output outbase.".svg"
replot
set output

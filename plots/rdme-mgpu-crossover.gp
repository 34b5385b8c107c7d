# Where more GPUs start to pay (the multi-GPU paper: 8 GPUs give no speed-up below 64 um^3 at
# 16 nm, on M2070s): one stage's speed-up against one GPU as the lattice grows, a panel per
# spacing, a line per GPU count, from the step loop alone (steady_s). Also writes
# <outbase>.txt: each lattice's step time on every GPU count, then per spacing, and for both
# spacings by sites, the size from which 8 GPUs beat one GPU and beat four, interpolated in log
# size between the last lattice where they lose and the first from which they win (or said to
# lie outside the lattices measured).
#   stagebench study bench/studies/rdme-multi-gpu.study (figure crossover, kind data, one stage)
needed = "steady_s gpus items steps spacing"
load "records.gp"
call "distinct.gp" "spacing"
spacings = values
call "distinct.gp" "gpus"
gpu_counts = values
stage = word(names, 1)
# the cells the study ran, in order of size
cells = ""
do for [c in "ecoli dividing-ecoli yeast rbc"] {
    stats datafile using (row_of(stage) && strcol("cell") eq c ? 1 : 0) nooutput
    if (STATS_sum > 0) { cells = cells . " " . c }
}
ncells = words(cells)
nsp = words(spacings)
ngpu = words(gpu_counts)
array step_s[ncells * nsp * ngpu]
array volume[ncells * nsp]
at(k, j) = (k - 1) * nsp + j
slot(k, j, g) = (at(k, j) - 1) * ngpu + g
gpu_slot(n) = sum [g = 1:ngpu] (real(word(gpu_counts, g)) == n ? g : 0)
do for [k = 1:ncells] {
    do for [j = 1:nsp] {
        c = word(cells, k)
        s = real(word(spacings, j))
        stats datafile using (row_of(stage) && strcol("cell") eq c && column("spacing") == s ? \
                              column("items") / column("steps") : NaN) nooutput
        volume[at(k, j)] = STATS_records > 0 ? STATS_min * (s * 1e-3) ** 3 : NaN
        do for [g = 1:ngpu] {
            stats datafile using (row_of(stage) && strcol("cell") eq c && column("spacing") == s \
                                  && column("gpus") == real(word(gpu_counts, g)) ? \
                                  column("steady_s") / column("steps") : 1e300) nooutput
            step_s[slot(k, j, g)] = STATS_min < 1e300 ? STATS_min : NaN
        }
    }
}
one = gpu_slot(1)
eight = gpu_slot(8)
four = gpu_slot(4)
# the speed-up of 8 GPUs against `other` GPUs on lattice k (NaN: a count not measured)
gain(k, j, other) = other > 0 && eight > 0 ? step_s[slot(k, j, other)] / step_s[slot(k, j, eight)] \
                                           : NaN
spacing_um(j) = real(word(spacings, j)) * 1e-3
msites(k, j) = volume[at(k, j)] / spacing_um(j) ** 3 * 1e-6
# log-log interpolation of the size where the gain crosses 1 between lattices a and b
cross_at(j, other, a, b) = exp(log(volume[at(a, j)]) + (log(volume[at(b, j)]) - \
                                                        log(volume[at(a, j)])) \
                               * -log(gain(a, j, other)) \
                               / (log(gain(b, j, other)) - log(gain(a, j, other))))

set print outbase.".txt"
print sprintf("%s: step loop time per step (us) against lattice size", stage)
header = "spacing_nm cell volume_um3 msites"
do for [g = 1:ngpu] { header = header . sprintf(" gpus%s_us", word(gpu_counts, g)) }
print header . " speedup_8v1 speedup_8v4"
do for [j = 1:nsp] {
    do for [k = 1:ncells] {
        line = sprintf("%s %s %.3g %.3g", word(spacings, j), word(cells, k), volume[at(k, j)], \
                       volume[at(k, j)] / (spacing_um(j) ** 3) * 1e-6)
        do for [g = 1:ngpu] { line = line . sprintf(" %.1f", step_s[slot(k, j, g)] * 1e6) }
        print line . sprintf(" %.2f %.2f", gain(k, j, one), gain(k, j, four))
    }
}
print ""
# per spacing and count: the first lattice from which 8 GPUs win on every larger one, and the
# last where they lose
do for [j = 1:nsp] {
    do for [n in "1 4"] {
        other = gpu_slot(real(n))
        label = sprintf("%s GPU%s", n, n eq "1" ? "" : "s")
        if (eight == 0 || other == 0) {
            print sprintf("%s nm: 8 GPUs against %s: no records on %s (the machine had fewer " . \
                          "GPUs)", word(spacings, j), label, eight == 0 ? "8 GPUs" : label)
            continue
        }
        first = 0
        last_loss = 0
        do for [k = 1:ncells] {
            r = gain(k, j, other)
            if (r == r) {
                if (r > 1) { if (first == 0) { first = k } } else { first = 0; last_loss = k }
            }
        }
        if (first == 0) {
            print sprintf("%s nm: 8 GPUs never beat %s, up to %.3g um^3 (%.3g M sites)", \
                          word(spacings, j), label, volume[at(ncells, j)], msites(ncells, j))
        } else { if (last_loss == 0) {
            print sprintf("%s nm: 8 GPUs beat %s already at %.3g um^3 (%.3g M sites), the " . \
                          "smallest lattice measured", word(spacings, j), label, \
                          volume[at(first, j)], msites(first, j))
        } else {
            v = cross_at(j, other, last_loss, first)
            print sprintf("%s nm: 8 GPUs beat %s from about %.3g um^3 (%.3g M sites): %.2fx at " . \
                          "%.3g um^3, %.2fx at %.3g um^3", word(spacings, j), label, v, \
                          v / spacing_um(j) ** 3 * 1e-6, gain(last_loss, j, other), \
                          volume[at(last_loss, j)], gain(first, j, other), volume[at(first, j)])
        } }
    }
}
# both spacings together, by sites (a step's work follows the sites, whatever the spacing): the
# lattices in order of sites, and the crossover between the last that loses and the first from
# which all win, also as the volume those sites make at 16 nm
npoints = ncells * nsp
array by_sites[npoints]
do for [i = 1:npoints] { by_sites[i] = i }
site_count(i) = msites((i - 1) / nsp + 1, (i - 1) % nsp + 1)
do for [i = 1:npoints] {
    do for [q = i + 1:npoints] {
        if (site_count(by_sites[q]) < site_count(by_sites[i])) {
            swap = by_sites[i]; by_sites[i] = by_sites[q]; by_sites[q] = swap
        }
    }
}
do for [n in "1 4"] {
    other = gpu_slot(real(n))
    label = sprintf("%s GPU%s", n, n eq "1" ? "" : "s")
    if (eight == 0 || other == 0) { continue }
    first = 0
    last_loss = 0
    do for [i = 1:npoints] {
        k = (by_sites[i] - 1) / nsp + 1
        j = (by_sites[i] - 1) % nsp + 1
        r = gain(k, j, other)
        if (r == r) {
            if (r > 1) { if (first == 0) { first = i } } else { first = 0; last_loss = i }
        }
    }
    if (first > 0 && last_loss > 0) {
        ka = (by_sites[last_loss] - 1) / nsp + 1; ja = (by_sites[last_loss] - 1) % nsp + 1
        kb = (by_sites[first] - 1) / nsp + 1; jb = (by_sites[first] - 1) % nsp + 1
        ra = gain(ka, ja, other); rb = gain(kb, jb, other)
        sa = msites(ka, ja); sb = msites(kb, jb)
        m = exp(log(sa) + (log(sb) - log(sa)) * -log(ra) / (log(rb) - log(ra)))
        print sprintf("both spacings by sites: 8 GPUs beat %s from about %.3g M sites (%.3g um^3 " . \
                      "at 16 nm): %.2fx at %.3g M sites (%s, %s nm), %.2fx at %.3g M sites (%s, " . \
                      "%s nm)", label, m, m * 1e6 * 0.016 ** 3, ra, sa, word(cells, ka), \
                      word(spacings, ja), rb, sb, word(cells, kb), word(spacings, jb))
    }
}
print "paper: 8 GPUs give no speed-up below 64 um^3 at 16 nm (8 Tesla M2070s)"
unset print

# the plotted points: spacing, GPUs, size, speed-up against one GPU
set print $points
do for [j = 1:nsp] {
    do for [g = 1:ngpu] {
        do for [k = 1:ncells] {
            print sprintf("%s %s %g %g", word(spacings, j), word(gpu_counts, g), \
                          volume[at(k, j)], step_s[slot(k, j, one)] / step_s[slot(k, j, g)])
        }
        print ""
    }
}
unset print
if (!title_given) title = sprintf("RDME, %s: speed-up against one GPU as the lattice grows (paper: 8 GPUs pay above 64 um^3 at 16 nm)", stage)
set datafile separator whitespace
set xlabel "lattice volume (um^3)"
set ylabel "speed-up (step loop)"
set logscale x
set key left top
set grid
set arrow 1 from 64, graph 0 to 64, graph 1 nohead dashtype 3 linecolor "black"
set label 1 "paper: 64 um^3 (16 nm)" at 64, graph 0.95 right offset -0.5, 0
do for [term in "pngcairo svg"] {
    if (term eq "svg") { set terminal svg size 1400,700 noenhanced font ",11"; set output outbase.".svg" }
    if (term ne "svg") { set terminal pngcairo size 1400,700 noenhanced font ",11"; set output outbase.".png" }
    set multiplot layout 1, nsp title title
    do for [j = 1:nsp] {
        set title sprintf("%s nm", word(spacings, j))
        plot for [g = 1:ngpu] $points using 3:(real(word(spacings, j)) == $1 && \
                                              real(word(gpu_counts, g)) == $2 ? $4 : NaN) \
                 with linespoints linewidth 1.5 pointtype g title sprintf("%s GPU%s", word(gpu_counts, g), g == one ? "" : "s"), \
             1 with lines dashtype 2 linecolor "gray" notitle
    }
    unset multiplot
}
set output

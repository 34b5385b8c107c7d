# Shared by the figure scripts of the studies (figure kind data: rdme-*, angio-*): the
# records' CSV view read by column name, the rows of one variant, and a one-line stop when no
# record has a column the figure needs (set `needed` to their names before loading this).
# stagebench sets datafile (the run's CSV), names (the variants with valid records) and count.
set encoding utf8
set datafile separator comma
set datafile columnheaders
# rows a using expression turns to NaN (other variants, other spacings) are left out, so that
# they do not break a line
set datafile missing NaN
row_of(v) = strcol("status") eq "valid" && strcol("variant") eq v
# column c of a valid record of variant v; NaN (no point) on any other row
of(v, c) = row_of(v) ? column(c) : NaN
# whether column c holds a number: an empty field reads as NaN (gnuplot 5.4's strcol of an
# empty last field is not "", so emptiness is tested on the number)
has(c) = (has_number = column(c), has_number == has_number)
do for [c in needed] {
    stats datafile using (strcol("status") eq "valid" && has(c) ? 1 : 0) nooutput
    if (STATS_sum == 0) {
        # gnuplot keeps about 120 characters of this message
        exit error sprintf("no valid record has a %s value: GPU stages' records do", c)
    }
}

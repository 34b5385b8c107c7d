# Shared by the angio figure scripts (bench/studies/angio-paper.study): the records' CSV helpers,
# the phases as milliseconds, the swept values of X (set X, and `needed`, before loading this)
# in `xs`, and ref(k, c): column c of cpu-reference's record at the k-th of them.
load "records.gp"
ms(v, c) = row_of(v) ? 1e3 * column(c) : NaN
call "distinct.gp" X
xs = values
array ref_value[words(xs) * 16]
ref_columns = "median_s phase:cell-cell phase:tube-cell"
do for [k = 1:words(xs)] {
    do for [j = 1:words(ref_columns)] {
        stats datafile using (row_of("cpu-reference") && column(X) == real(word(xs, k)) ? \
                              column(word(ref_columns, j)) : 1e300) nooutput
        ref_value[(k - 1) * 16 + j] = STATS_min < 1e300 ? STATS_min : NaN
    }
}
# the index of x among xs (0: not swept)
at(x) = sum [k = 1:words(xs)] (real(word(xs, k)) == x ? k : 0)
ref(x, c) = at(x) > 0 ? ref_value[(at(x) - 1) * 16 + \
            sum [j = 1:words(ref_columns)] (word(ref_columns, j) eq c ? j : 0)] : NaN
set grid
set logscale x 2
set format x "%.0f"
set key left top

# call "distinct.gp" "COLUMN": the distinct numbers of COLUMN among the valid records of
# datafile, in increasing order, as words in `values` (e.g. " 8 16"): the lines a swept
# parameter gives, whichever values the study swept.
values = ""
distinct_above = -1e300
while (1) {
    stats datafile using (strcol("status") eq "valid" && column(ARG1) > distinct_above ? \
                          column(ARG1) : 1e300) nooutput
    if (STATS_min >= 1e300) { break }
    distinct_above = STATS_min
    values = values . sprintf(" %.10g", distinct_above)
}

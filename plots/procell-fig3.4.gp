# Thesis fig. 3.4: the first CUDA version (one kernel per generation) against the CPU reference.
#   stagebench plot RUN.json --variants cpu-reference,host-loop --x t_max \
#       --script plots/procell-fig3.4.gp
if (!title_given) title = "ProCell: CPU reference vs host loop (thesis fig. 3.4)"
xlabel = "t_max (hours)"
load "time.gp"

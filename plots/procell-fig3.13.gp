# Thesis fig. 3.13: speed-up of every stage over the CPU reference vs t_max.
#   stagebench plot RUN.json --kind speedup --baseline cpu-reference --x t_max \
#       --script plots/procell-fig3.13.gp
if (!title_given) title = "ProCell: speed-up of every stage over the CPU reference (thesis fig. 3.13)"
xlabel = "t_max (hours)"
load "speedup.gp"

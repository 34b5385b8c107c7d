# Thesis fig. 3.12: time of every stage vs t_max (one run per GPU; both phi_min cases apart).
#   stagebench plot RUN.json --x t_max --script plots/procell-fig3.12.gp
if (!title_given) title = "ProCell: time of every stage (thesis fig. 3.12)"
xlabel = "t_max (hours)"
load "time.gp"

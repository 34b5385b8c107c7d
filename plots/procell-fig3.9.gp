# Thesis fig. 3.9: histogram built on the host vs on the device.
#   stagebench plot RUN.json --variants depth-inference,gpu-histogram --x t_max \
#       --script plots/procell-fig3.9.gp
if (!title_given) title = "ProCell: depth inference vs GPU histogram (thesis fig. 3.9)"
xlabel = "t_max (hours)"
load "time.gp"

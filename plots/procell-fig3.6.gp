# Thesis fig. 3.6: generations launched from the host vs from the device.
#   stagebench plot RUN.json --variants host-loop,dynamic-parallelism --x t_max \
#       --script plots/procell-fig3.6.gp
if (!title_given) title = "ProCell: host loop vs dynamic parallelism (thesis fig. 3.6)"
xlabel = "t_max (hours)"
load "time.gp"

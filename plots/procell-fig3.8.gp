# Thesis fig. 3.8: levels bounded by a block vote vs levels inferred from the parameters.
#   stagebench plot RUN.json --variants bounding,depth-inference --x t_max \
#       --script plots/procell-fig3.8.gp
if (!title_given) title = "ProCell: bounding vs depth inference (thesis fig. 3.8)"
xlabel = "t_max (hours)"
load "time.gp"

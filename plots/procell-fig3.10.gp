# Thesis fig. 3.10: device memory per generation, filtered populations (host loop) vs unfiltered
# ones (GPU histogram), at one parameter point:
#   stagebench plot RUN.json --kind series --series device_bytes_by_generation \
#       --variants host-loop,gpu-histogram --where t_max=240 --script plots/procell-fig3.10.gp
stats datafile using 2 nooutput
yscale = STATS_max >= 2**30 ? 2**30 : 2**20
if (!title_given) title = "ProCell: device memory per generation (thesis fig. 3.10)"
ylabel = "device memory (" . (yscale == 2**30 ? "GiB" : "MiB") . ")"
set logscale y
load "series.gp"

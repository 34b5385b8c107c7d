#!/bin/sh
# The kept kernels (c93a86c's) against ce14c15's where more sites change: the paper's fig. 6
# lattice with 0.4, 1.6 and 2.8 million particles, and the red blood cell at 8 nm as a control,
# RDME's gpu stage, two processes of each build alternating (bench/device-check ab). Both builds
# without dynamic parallelism (the gpu stage launches from the host either way): two of them fit
# the carry beside the tree, two default builds do not. Packed as .carry/density.tar.xz.
set -u
tar -xJf .carry/density.tar.xz
SB_AB_REPS=2 SB_AB_RUNS="rbc rdme --variant gpu --param cell=rbc --param spacing=8 --param steps=20 --reference gpu;p400k rdme --variant gpu --param scenario=particles --param particles=400000 --param steps=100 --reference gpu;p1600k rdme --variant gpu --param scenario=particles --param particles=1600000 --param steps=100 --reference gpu;p2800k rdme --variant gpu --param scenario=particles --param particles=2800000 --param steps=100 --reference gpu" \
    sh bench/device-check ab

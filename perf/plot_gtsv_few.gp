# perf/plot_gtsv_few.gp -- equations/s of few long tridiagonal systems (1..64 systems of
# 2^16..2^22 equations, FP64, nrhs = 1, device memory) against the batch, one line per m,
# ours (THOMAS, contiguous) beside cuSPARSE gtsv2StridedBatch, from the few-regime CSV.
#   gnuplot -e "csv='perf/bench_gtsv_gpu_few_h100.csv'; out='perf/gtsv_few_gpu.png'" perf/plot_gtsv_few.gp
if (!exists("csv")) csv = 'perf/bench_gtsv_gpu_few_h100.csv'
if (!exists("out")) out = 'perf/gtsv_few_gpu.png'
set terminal pngcairo size 1300,700 font ',11'
set output out
set datafile separator ','
set logscale x 2
set xrange [0.8:80]
set yrange [0:80]
set xlabel 'systems in the batch'
set ylabel '10^9 equations solved per second'
set key outside right top
set grid
set title "batched tridiagonal solve, few long systems: FP64, 1 rhs, device memory, H100 80GB HBM3, 2026-11-26"
# columns: regime,m,batch,solver,eq_per_s,fraction_of_floor
sel(v, m) = sprintf("< awk -F, '$1 ~ /^few/ && $4==\"%s\" && $2==%d {print $3 \",\" $5/1e9}' %s", v, m, csv)
plot for [e=16:22:2] sel('bs-thom-ct', 2**e) using 1:2 with linespoints lw 2 pt 7 lc e title sprintf('ours THOMAS, m = 2^{%d}', e), \
     for [e=16:22:2] sel('cs-strided', 2**e) using 1:2 with linespoints lw 1 dt 2 pt 6 lc e title sprintf('cuSPARSE gtsv2StridedBatch, m = 2^{%d}', e), \
     sel('floor', 4194304) using 1:2 with lines lw 2 dt 3 lc rgb '#888888' title 'copy floor (m = 2^{22})'

# perf/plot_gtsv_gpu.gp -- equations/s against m for many tridiagonal systems (2^25
# equations per case, FP64, nrhs = 1, device memory) from bench_gtsv_gpu.csv.
#   gnuplot -e "csv='perf/bench_gtsv_gpu_h100.csv'; out='perf/gtsv_gpu.png'" perf/plot_gtsv_gpu.gp
if (!exists("csv")) csv = 'perf/bench_gtsv_gpu_h100.csv'
if (!exists("out")) out = 'perf/gtsv_gpu.png'
set terminal pngcairo size 1000,700 font ',11'
set output out
set datafile separator ','
set logscale x 2
set xrange [6:5500]
set yrange [0:80]
set xlabel 'm (equations per system; 2^{25}/m systems)'
set ylabel '10^9 equations solved per second'
set key inside right top
set grid
set title "batched tridiagonal solve, many systems: FP64, 1 rhs, device memory, H100 80GB HBM3, 2026-11-26"
# columns: regime,m,batch,solver,eq_per_s,fraction_of_floor
sel(v) = sprintf("< awk -F, '$1 ~ /^many/ && $4==\"%s\" {print $2 \",\" $5/1e9}' %s", v, csv)
plot sel('floor') using 1:2 with lines lw 2 dt 2 lc rgb '#888888' title 'copy floor', \
     sel('bs-thom-il') using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'ours THOMAS, interleaved', \
     sel('bs-thom-ct') using 1:2 with linespoints lw 1 pt 6 lc rgb '#1f77b4' title 'ours THOMAS, contiguous', \
     sel('bs-part-ct') using 1:2 with linespoints lw 2 pt 5 lc rgb '#2ca02c' title 'ours PARTIAL, contiguous', \
     sel('bs-givn-ct') using 1:2 with linespoints lw 1 pt 4 lc rgb '#9467bd' title 'ours GIVENS, contiguous', \
     sel('cs-ib0') using 1:2 with linespoints lw 2 pt 9 lc rgb '#d62728' title 'cuSPARSE gtsvInterleavedBatch 0', \
     sel('cs-ib1') using 1:2 with linespoints lw 1 pt 8 lc rgb '#ff7f0e' title 'cuSPARSE gtsvInterleavedBatch 1', \
     sel('cs-strided') using 1:2 with linespoints lw 1 pt 11 lc rgb '#8c564b' title 'cuSPARSE gtsv2StridedBatch'

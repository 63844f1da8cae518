# perf/plot_gpu.gp -- systems/s against n from bench_gpu.csv (FP64, 1 rhs, device memory).
#   gnuplot -e "csv='perf/bench_gpu_h100.csv'; out='perf/lu_gpu.png'" perf/plot_gpu.gp
if (!exists("csv")) csv = 'perf/bench_gpu_h100.csv'
if (!exists("out")) out = 'perf/lu_gpu.png'
set terminal pngcairo size 1000,700 font ',11'
set output out
set datafile separator ','
set logscale xy
set xrange [1.8:140]
set xtics (2,3,4,5,6,8,10,12,16,20,24,32,40,48,64,80,96,128)
set format y '10^{%L}'
set xlabel 'n (order of each system)'
set ylabel 'systems solved per second'
set key inside right top
set grid
set title "batched LU solve: FP64, 1 rhs, about 1 GB of matrices in device memory, H100 80GB HBM3, 2026-11-22"
sel(v) = sprintf("< awk -F, -v OFS=, '$1==\"d\" && $3==\"%s\" {print $2, $6, $8}' %s", v, csv)
plot sel('gesv_partial_il') using 1:($2/($3/100)) with lines lw 2 dt 2 lc rgb '#888888' title 'copy floor (D2D bandwidth)', \
     sel('gesv_partial_il') using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'ours gesv PARTIAL, interleaved', \
     sel('gesv_partial_cm') using 1:2 with linespoints lw 1 pt 6 lc rgb '#2ca02c' title 'ours gesv PARTIAL, column-major', \
     sel('gesv_full_il') using 1:2 with linespoints lw 1 pt 5 lc rgb '#9467bd' title 'ours gesv FULL, interleaved', \
     sel('getrf_getrs_il') using 1:2 with linespoints lw 1 pt 4 lc rgb '#17becf' title 'ours getrf + getrs, interleaved', \
     sel('cublas_partial') using 1:2 with linespoints lw 2 pt 9 lc rgb '#d62728' title 'cuBLAS getrfBatched + getrsBatched'

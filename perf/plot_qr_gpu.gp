# perf/plot_qr_gpu.gp -- least-squares systems/s against n from bench_qr_gpu.csv
# (FP64, nrhs = 1, device memory; m = n solid, m = 2n dashed).
#   gnuplot -e "csv='perf/bench_qr_gpu_h100.csv'; out='perf/qr_gpu.png'" perf/plot_qr_gpu.gp
if (!exists("csv")) csv = 'perf/bench_qr_gpu_h100.csv'
if (!exists("out")) out = 'perf/qr_gpu.png'
set terminal pngcairo size 1000,700 font ',11'
set output out
set datafile separator ','
set logscale xy
set xrange [3.5:72]
set xtics (4,8,16,32,64)
set format y '10^{%L}'
set xlabel 'n (columns of each system; m = n solid, m = 2n dashed)'
set ylabel 'systems solved per second'
set key inside right top
set grid
set title "batched least squares (QR): FP64, 1 rhs, 512 MB of matrices in device memory, H100 80GB HBM3, 2026-11-27"
# columns: n,m,batch,team,ours_il,ours_cm,cublas_gels,cublas_geqrf,lu_gesv_il,floor,maxrel
sq(c) = sprintf("< awk -F, 'NR>1 && $4==\"auto\" && $1==$2 {print $1 \",\" $%d}' %s", c, csv)
tall(c) = sprintf("< awk -F, 'NR>1 && $4==\"auto\" && 2*$1==$2 {print $1 \",\" $%d}' %s", c, csv)
plot sq(10) using 1:2 with lines lw 2 dt 2 lc rgb '#888888' title 'copy floor, m = n', \
     sq(5) using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'ours gels, interleaved', \
     tall(5) using 1:2 with linespoints lw 2 dt 2 pt 7 lc rgb '#1f77b4' notitle, \
     sq(6) using 1:2 with linespoints lw 1 pt 6 lc rgb '#2ca02c' title 'ours gels, column-major', \
     sq(9) using 1:2 with linespoints lw 1 pt 5 lc rgb '#9467bd' title 'ours LU gesv (square), interleaved', \
     sq(7) using 1:2 with linespoints lw 2 pt 9 lc rgb '#d62728' title 'cublasDgelsBatched', \
     tall(7) using 1:2 with linespoints lw 2 dt 2 pt 9 lc rgb '#d62728' notitle, \
     sq(8) using 1:2 with linespoints lw 1 pt 8 lc rgb '#ff7f0e' title 'cublasDgeqrfBatched (factor only)'

# plot_cpu.gp -- systems/s vs n (log-log) from bench_cpu's CSV.
#   gnuplot -e "csv='build/perf/bench_cpu.csv'; out='perf/lu_cpu.png'" perf/plot_cpu.gp
# bench_cpu runs it itself at the end of a full run.
# CSV columns: 1 n, 2 prec, 3 batch, 4 ours_il_1t, 5 ours_cm_1t, 6 ours_il_2t, 7 ours_cm_2t,
#              8 lapacke, 9 gsl, 10 ours_full_il_1t, 11 lapack_getc2, ...
if (!exists("csv")) csv = 'build/perf/bench_cpu.csv'
if (!exists("out")) out = 'perf/lu_cpu.png'
if (!exists("cpu")) cpu = ''

set terminal pngcairo size 1500,620 font ",10"
set output out
set datafile separator ","
set key autotitle columnhead
set logscale xy
set xrange [1.7:150]
set xtics (2, 4, 8, 12, 16, 24, 32, 48, 64, 96, 128)
set format y "10^{%L}"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set xlabel "n (order of each system)"
set ylabel "systems solved per second"
set key top right font ",9"

# Rows of one precision only; the CSV lists all double rows, then all float rows,
# so each selection is contiguous and the lines are unbroken.
d(c) = (strcol(2) eq "d") ? column(c) : NaN
s(c) = (strcol(2) eq "s") ? column(c) : NaN

set multiplot layout 1,2 title "batchsolve CPU backend vs LAPACKE (OpenBLAS, 1 thread) and GSL, ?gesv nrhs=1".(cpu ne "" ? " -- ".cpu : "")

set title "double precision (partial pivoting; full pivoting dashed)"
plot csv using 1:(d(4))  with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "ours 1 thread, interleaved", \
     ''  using 1:(d(5))  with linespoints lw 2 pt 5 lc rgb "#17becf" title "ours 1 thread, col-major", \
     ''  using 1:(d(6))  with linespoints lw 2 pt 9 lc rgb "#2ca02c" title "ours 2 threads, interleaved", \
     ''  using 1:(d(8))  with linespoints lw 2 pt 4 lc rgb "#d62728" title "LAPACKE\\_dgesv loop", \
     ''  using 1:(d(9))  with linespoints lw 2 pt 6 lc rgb "#ff7f0e" title "GSL LU\\_decomp+LU\\_solve loop", \
     ''  using 1:(d(10)) with linespoints lw 2 dt 2 pt 7 lc rgb "#9467bd" title "ours full pivoting, 1 thread", \
     ''  using 1:(d(11)) with linespoints lw 2 dt 2 pt 4 lc rgb "#8c564b" title "dgetc2+dgesc2 loop"

set title "single precision, partial pivoting (GSL has no float LU)"
plot csv using 1:(s(4))  with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "ours 1 thread, interleaved", \
     ''  using 1:(s(5))  with linespoints lw 2 pt 5 lc rgb "#17becf" title "ours 1 thread, col-major", \
     ''  using 1:(s(6))  with linespoints lw 2 pt 9 lc rgb "#2ca02c" title "ours 2 threads, interleaved", \
     ''  using 1:(s(8))  with linespoints lw 2 pt 4 lc rgb "#d62728" title "LAPACKE\\_sgesv loop"

unset multiplot

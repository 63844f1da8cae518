# plot_qr_cpu.gp -- batched least squares (dgels, nrhs = 1) on one core, from bench_qr_cpu's
# CSV: systems per second and the ratio to the LAPACKE dgels loop, against n.
#   gnuplot -e "csv='perf/bench_qr_cpu.csv'; out='perf/qr_cpu.png'" perf/plot_qr_cpu.gp
# bench_qr_cpu runs it itself when gnuplot is installed.
# CSV columns: 1 m, 2 n, 3 batch, 4 bsolve_sys_per_s, 5 lapacke_sys_per_s, 6 gsl_sys_per_s,
#              7 ratio_lapacke, 8 ratio_gsl, 9 maxreldiff.
# Square (m = n) and tall (m = 2n) rows are picked by awk: they alternate in the CSV, and
# filtered in gnuplot the lines would break.
if (!exists("csv")) csv = 'perf/bench_qr_cpu.csv'
if (!exists("out")) out = 'perf/qr_cpu.png'
if (!exists("cpu")) cpu = ''

sq = sprintf("< awk -F, 'NR > 1 && $1 == $2' %s", csv)
tall = sprintf("< awk -F, 'NR > 1 && $1 == 2 * $2' %s", csv)

set datafile separator ","
set terminal pngcairo size 1500,620 font ",10"
set output out
set logscale x 2
set xrange [1.6:80]
set xtics (2, 4, 8, 12, 16, 24, 32, 48, 64)
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set xlabel "n (unknowns; m = n solid, m = 2n dashed)"
set multiplot layout 1,2 title "bsolve\\_dgels (Givens QR), CPU backend, interleaved, one core, nrhs = 1".(cpu ne "" ? " -- ".cpu : "")

set title "throughput"
set ylabel "systems per second"
set logscale y
set format y "10^{%L}"
set key top right font ",9"
plot sq using 2:4 with linespoints lw 2 pt 7 lc rgb "#d62728" title "bsolve m = n", \
     tall using 2:4 with linespoints lw 2 pt 6 dt 2 lc rgb "#d62728" title "bsolve m = 2n", \
     sq using 2:5 with linespoints lw 2 pt 5 lc rgb "black" title "LAPACKE dgels loop m = n", \
     tall using 2:5 with linespoints lw 2 pt 4 dt 2 lc rgb "black" title "LAPACKE dgels loop m = 2n", \
     sq using 2:6 with linespoints lw 2 pt 9 lc rgb "#7f7f7f" title "GSL QR loop m = n", \
     tall using 2:6 with linespoints lw 2 pt 8 dt 2 lc rgb "#7f7f7f" title "GSL QR loop m = 2n"

set title "speed-up over the LAPACKE dgels loop (target: >= 5x for n <= 16)"
set ylabel "x LAPACKE"
unset logscale y
set format y "%g"
set yrange [0:*]
set arrow 1 from 1.6,5 to 16,5 nohead lw 2 dt 3 lc rgb "black"
plot sq using 2:7 with linespoints lw 2 pt 7 lc rgb "#d62728" title "m = n", \
     tall using 2:7 with linespoints lw 2 pt 6 dt 2 lc rgb "#d62728" title "m = 2n"
unset multiplot

# plot_gtsv_cpu.gp -- batched tridiagonal solves on one core (bench_gtsv_cpu's CSV):
# million equations per second and the ratio to the LAPACKE dgtsv loop, against m.
#   gnuplot -e "csv='perf/bench_gtsv_cpu.csv'; out='perf/gtsv_cpu.png'" perf/plot_gtsv_cpu.gp
# bench_gtsv_cpu runs it itself when gnuplot is installed.
# CSV columns: 1 m, 2 batch, 3 solver, 4 layout, 5 seconds, 6 meq_per_s, 7 speedup_vs_lapacke.
# Rows of one solver and layout are picked by awk: filtered in gnuplot they would not be
# contiguous, and the lines would break.
if (!exists("csv")) csv = 'perf/bench_gtsv_cpu.csv'
if (!exists("out")) out = 'perf/gtsv_cpu.png'
if (!exists("cpu")) cpu = ''

sel(s, l) = sprintf("< awk -F, '$3 == \"%s\" && $4 == \"%s\"' %s", s, l, csv)

set datafile separator ","
set terminal pngcairo size 1500,620 font ",10"
set output out
set logscale x 2
set xrange [6:5500]
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set xlabel "m (equations per system)"
set key top right font ",9"
set multiplot layout 1,2 title "bsolve\\_dgtsv, CPU backend, one core, nrhs = 1, 2^{20} equations per call".(cpu ne "" ? " -- ".cpu : "")

set title "throughput"
set ylabel "million equations per second"
set yrange [0:*]
plot sel("bsolve_thomas", "interleaved") using 1:6 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "THOMAS interleaved", \
     sel("bsolve_thomas", "contiguous") using 1:6 with linespoints lw 2 pt 6 dt 2 lc rgb "#1f77b4" title "THOMAS contiguous", \
     sel("bsolve_partial", "interleaved") using 1:6 with linespoints lw 2 pt 5 lc rgb "#2ca02c" title "PARTIAL interleaved", \
     sel("bsolve_partial", "contiguous") using 1:6 with linespoints lw 2 pt 4 dt 2 lc rgb "#2ca02c" title "PARTIAL contiguous", \
     sel("bsolve_givens", "interleaved") using 1:6 with linespoints lw 2 pt 9 lc rgb "#d62728" title "GIVENS interleaved", \
     sel("bsolve_givens", "contiguous") using 1:6 with linespoints lw 2 pt 8 dt 2 lc rgb "#d62728" title "GIVENS contiguous", \
     sel("lapacke_dgtsv_loop", "contiguous") using 1:6 with linespoints lw 2 pt 3 lc rgb "black" title "LAPACKE dgtsv loop", \
     sel("gsl_solve_tridiag_loop", "contiguous") using 1:6 with linespoints lw 2 pt 2 lc rgb "#7f7f7f" title "GSL solve\\_tridiag loop"

set title "speed-up over the LAPACKE dgtsv loop (target: >= 5x for m <= 64)"
set key bottom left font ",9"
set ylabel "x LAPACKE"
set yrange [0:*]
set arrow 1 from 6,5 to 64,5 nohead lw 2 dt 3 lc rgb "black"
plot sel("bsolve_thomas", "interleaved") using 1:7 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "THOMAS interleaved", \
     sel("bsolve_thomas", "contiguous") using 1:7 with linespoints lw 2 pt 6 dt 2 lc rgb "#1f77b4" title "THOMAS contiguous", \
     sel("bsolve_partial", "interleaved") using 1:7 with linespoints lw 2 pt 5 lc rgb "#2ca02c" title "PARTIAL interleaved", \
     sel("bsolve_partial", "contiguous") using 1:7 with linespoints lw 2 pt 4 dt 2 lc rgb "#2ca02c" title "PARTIAL contiguous", \
     sel("bsolve_givens", "interleaved") using 1:7 with linespoints lw 2 pt 9 lc rgb "#d62728" title "GIVENS interleaved", \
     sel("bsolve_givens", "contiguous") using 1:7 with linespoints lw 2 pt 8 dt 2 lc rgb "#d62728" title "GIVENS contiguous"
unset multiplot

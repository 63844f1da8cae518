# device: Nsight Compute on our dgels kernel for the shapes in $SHAPES (n x m),
# interleaved layout (the first dgels launch of each shape is profiled)
cd build/perf || exit 1
for sh in ${SHAPES:-16x16 32x32}; do
echo "##### $sh"
ncu --clock-control none -k regex:bsq_k_ -c 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats \
  --section SchedulerStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis \
  env BSOLVE_BENCH_OURS=1 BSOLVE_BENCH_MB=${MB:-64} BSOLVE_BENCH_RUNS=1 BSOLVE_BENCH_SHAPES=$sh ./bench_qr_gpu 2>&1 | grep -v "^==PROF==" | grep -v "^ *-*$" | cut -c1-120
done

/*
 * cpu_isa.h -- the CPU kernels, compiled once per instruction-set level.
 *
 * A kernel's vector width, and with it the number of systems in a tile, is
 * fixed when it is compiled (simd.h).  So that one installed library runs
 * at full speed on every x86-64 CPU, each kernel file (lu_cpu.c, qr_cpu.c,
 * gtsv_cpu.c, layout.c, cpu_kernels.c) is compiled once per level with that
 * level's compiler flags and -DBSI_ISA=<level> (see the Makefile):
 *   avx512  -march=x86-64-v4  64-byte vectors, AVX-512 F/BW/CD/DQ/VL
 *   avx2    -march=x86-64-v3  32-byte vectors, AVX2 + FMA
 *   base    -march=x86-64     16-byte vectors (SSE2), any x86-64 CPU
 *   arch    the build's ARCH flags (a build for one machine or a non-x86 CPU)
 * With BSI_ISA defined, this header renames every external symbol of the
 * kernel files to <name>_<level>, so that the copies link side by side
 * while their source is written once; each copy's entry points are
 * gathered in its table (cpu_kernels.h), and cpu_dispatch.c, compiled like
 * the front end, calls the table of the level the CPU supports.  Without
 * BSI_ISA (the front end, the dispatcher) the names stay as written:
 * bsi_cpu_gesv and the rest are then the dispatcher's entry points.
 */
#ifndef BSOLVE_CPU_ISA_H
#define BSOLVE_CPU_ISA_H

/* Levels, as the test-only knob BSI_FORCE_CPU_ISA numbers them (internal.h). */
#define BSI_CPU_ISA_BASE 1
#define BSI_CPU_ISA_AVX2 2
#define BSI_CPU_ISA_AVX512 3
#define BSI_CPU_ISA_MAX 3

/* Test-only: 1 when this build holds level isa's kernels and this CPU runs
 * them (cpu_dispatch.c). */
int bsi_cpu_isa_runs(int isa);

#define BSI_ISA_CAT_(a, b) a##_##b
#define BSI_ISA_CAT(a, b) BSI_ISA_CAT_(a, b)
#define BSI_ISA_STR_(a) #a
#define BSI_ISA_STR(a) BSI_ISA_STR_(a)

#ifdef BSI_ISA
/* name -> name_<level>: the one macro every renamed symbol goes through. */
#define BSI_ISA_NAME(name) BSI_ISA_CAT(name, BSI_ISA)

/* The entry points (lu_cpu.h, qr_cpu.h, gtsv_cpu.h). */
#define bsi_cpu_gesv BSI_ISA_NAME(bsi_cpu_gesv)
#define bsi_cpu_lu_alloc BSI_ISA_NAME(bsi_cpu_lu_alloc)
#define bsi_cpu_lu_free BSI_ISA_NAME(bsi_cpu_lu_free)
#define bsi_cpu_getrf BSI_ISA_NAME(bsi_cpu_getrf)
#define bsi_cpu_getrs BSI_ISA_NAME(bsi_cpu_getrs)
#define bsi_cpu_lu_export BSI_ISA_NAME(bsi_cpu_lu_export)
#define bsi_cpu_convert BSI_ISA_NAME(bsi_cpu_convert)
#define bsi_cpu_gels BSI_ISA_NAME(bsi_cpu_gels)
#define bsi_cpu_qr_alloc BSI_ISA_NAME(bsi_cpu_qr_alloc)
#define bsi_cpu_qr_free BSI_ISA_NAME(bsi_cpu_qr_free)
#define bsi_cpu_geqrf BSI_ISA_NAME(bsi_cpu_geqrf)
#define bsi_cpu_geqrs BSI_ISA_NAME(bsi_cpu_geqrs)
#define bsi_cpu_qr_export BSI_ISA_NAME(bsi_cpu_qr_export)
#define bsi_cpu_gtsv BSI_ISA_NAME(bsi_cpu_gtsv)
#define bsi_cpu_gt_alloc BSI_ISA_NAME(bsi_cpu_gt_alloc)
#define bsi_cpu_gt_free BSI_ISA_NAME(bsi_cpu_gt_free)
#define bsi_cpu_gttrf BSI_ISA_NAME(bsi_cpu_gttrf)
#define bsi_cpu_gttrs BSI_ISA_NAME(bsi_cpu_gttrs)
/* What the kernel files share among themselves (lu_cpu.h, layout.h). */
#define bsi_cpu_threads BSI_ISA_NAME(bsi_cpu_threads)
#define bsi_chunk_systems BSI_ISA_NAME(bsi_chunk_systems)
#define bsi_chunk_cap BSI_ISA_NAME(bsi_chunk_cap)
#define bsi_pack_d BSI_ISA_NAME(bsi_pack_d)
#define bsi_pack_s BSI_ISA_NAME(bsi_pack_s)
#define bsi_unpack_d BSI_ISA_NAME(bsi_unpack_d)
#define bsi_unpack_s BSI_ISA_NAME(bsi_unpack_s)
#define bsi_pack_sel_d BSI_ISA_NAME(bsi_pack_sel_d)
#define bsi_pack_sel_s BSI_ISA_NAME(bsi_pack_sel_s)
#define bsi_unpack_sel_d BSI_ISA_NAME(bsi_unpack_sel_d)
#define bsi_unpack_sel_s BSI_ISA_NAME(bsi_unpack_sel_s)
/* The level's table (cpu_kernels.h). */
#define bsi_cpu_kernels_here BSI_ISA_NAME(bsi_cpu_kernels)
#endif

#endif

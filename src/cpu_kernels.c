/*
 * cpu_kernels.c -- the table of this instruction-set level's CPU kernels
 * (cpu_kernels.h); compiled once per level, like the kernels it lists.
 */
#include "cpu_isa.h"
#include "cpu_kernels.h"
#include "gtsv_cpu.h"
#include "lu_cpu.h"
#include "qr_cpu.h"
#include "simd.h"

#ifndef BSI_ISA
#error "cpu_kernels.c is compiled once per level with -DBSI_ISA=<level> (see cpu_isa.h)"
#endif

const struct bsi_cpu_kernels bsi_cpu_kernels_here = {
    .name = BSI_ISA_STR(BSI_ISA),
    .lanes_d = BSI_LANES_D,
    .lanes_s = BSI_LANES_S,
    .gesv = bsi_cpu_gesv,
    .lu_alloc = bsi_cpu_lu_alloc,
    .lu_free = bsi_cpu_lu_free,
    .getrf = bsi_cpu_getrf,
    .getrs = bsi_cpu_getrs,
    .lu_export = bsi_cpu_lu_export,
    .convert = bsi_cpu_convert,
    .gels = bsi_cpu_gels,
    .qr_alloc = bsi_cpu_qr_alloc,
    .qr_free = bsi_cpu_qr_free,
    .geqrf = bsi_cpu_geqrf,
    .geqrs = bsi_cpu_geqrs,
    .qr_export = bsi_cpu_qr_export,
    .gtsv = bsi_cpu_gtsv,
    .gt_alloc = bsi_cpu_gt_alloc,
    .gt_free = bsi_cpu_gt_free,
    .gttrf = bsi_cpu_gttrf,
    .gttrs = bsi_cpu_gttrs,
};

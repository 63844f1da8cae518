/*
 * bench_force.h -- kernel choices forced on a benchmark's context, for A/B
 * comparisons of the dispatch tables' alternatives on the device: the
 * benchmark's own variable BSOLVE_BENCH_FORCE="QR_HH=1,QR_TEAM=64" names
 * src/internal.h's BSI_FORCE_* knobs of the CUDA dense LU and QR (without
 * the prefix) and their values, set through the test-only entry
 * bsi_test_force (the benchmarks link the static library).  The library
 * reads no environment variable.
 */
#ifndef BSI_BENCH_FORCE_H
#define BSI_BENCH_FORCE_H

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "internal.h"

/* Sets the knobs of BSOLVE_BENCH_FORCE on ctx; returns them as a label for
 * tables and CSV files ("auto" when none; entries joined by '+'). Ends the
 * program on a name it does not know. */
static inline std::string bench_force(bsolve_ctx *ctx)
{
    static const struct { const char *name; int knob; } knobs[] = {
        {"LU_WARP", BSI_FORCE_LU_WARP},   {"LU_TILE", BSI_FORCE_LU_TILE}, {"LU_PANEL", BSI_FORCE_LU_PANEL}, {"LU_SOLVE", BSI_FORCE_LU_SOLVE}, {"LU_SMEM", BSI_FORCE_LU_SMEM}, {"LU_RSTEAM", BSI_FORCE_LU_RSTEAM}, {"QR_REG", BSI_FORCE_QR_REG},   {"QR_HH", BSI_FORCE_QR_HH},
        {"QR_HH_C", BSI_FORCE_QR_HH_C},   {"QR_WARP", BSI_FORCE_QR_WARP}, {"QR_PAIR", BSI_FORCE_QR_PAIR},
        {"QR_PAIR_SEG", BSI_FORCE_QR_PAIR_SEG}, {"QR_TEAM", BSI_FORCE_QR_TEAM}};
    const char *e = getenv("BSOLVE_BENCH_FORCE");
    std::string label;
    for (const char *p = e ? e : ""; *p;) {
        const size_t len = strcspn(p, ",;"), eq = strcspn(p, "=");
        bool found = false;
        for (const auto &k : knobs)
            if (eq < len && strlen(k.name) == eq && strncmp(p, k.name, eq) == 0) {
                const int v = atoi(p + eq + 1);
                if (bsi_test_force(ctx, k.knob, v) != BSOLVE_SUCCESS) break;
                label += (label.empty() ? "" : "+") + std::string(p, len);
                found = true;
            }
        if (!found) {
            fprintf(stderr, "BSOLVE_BENCH_FORCE: '%.*s' is not NAME=value with a NAME of perf/bench_force.h\n", (int)len, p);
            exit(1);
        }
        p += len;
        if (*p) p++;
    }
    return label.empty() ? "auto" : label;
}

#endif

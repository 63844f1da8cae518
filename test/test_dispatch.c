/*
 * test_dispatch.c -- the CUDA backend's dispatch tables (cuda/lu_dispatch.cuh,
 * cuda/qr_dispatch.cuh), enumerated on the host: they are plain functions of
 * the shape, so this runs on any machine.
 *
 * For every shape the front end accepts, each choice must be a kernel that
 * is compiled (a bucket in the instantiation lists below) and able to take
 * the call (bucket >= the shape, the operations and precisions the family
 * has); every compiled kernel must be reached, by the table or by one of
 * the forced configurations that test/gpu_lu.c and test/gpu_qr.c run; each
 * forced configuration must do what it says; and a few pinned shapes on each
 * side of each crossover must keep their kernels (the measured choices:
 * change them here when the table changes).  The kernel does not depend on
 * how the systems are given (whole batch, list, list of an interleaved
 * batch); a masked getrf gathers its systems exactly where the table says.
 * BSOLVE_TEST_DUMP=1 prints both tables as ranges of n (LU) or m (QR).
 */
#define _POSIX_C_SOURCE 200809L
#include "testlib.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "../cuda/lu_dispatch.cuh"
#include "../cuda/qr_dispatch.cuh"

static int dumping(void)
{
    const char *e = getenv("BSOLVE_TEST_DUMP");
    return e && *e && strcmp(e, "0") != 0;
}

/* ------------------------------------------------------------------- LU */

static const char *const lu_op[] = {"gesv", "getrf", "getrs"};

/* compiled buckets: lu_small_*.cu (TEAM), lu_warp_*.cu (WARP) */
static int lu_team_bucket(int N)
{
    return (N >= 1 && N <= 8) || N == 10 || N == 12 || N == 14 || N == 16 || N == 20 || N == 24 || N == 28 ||
           N == 32;
}
static int lu_warp_bucket(int N, int es)
{
    return (N >= 10 && lu_team_bucket(N)) || N == 40 || N == 48 || (N == 64 && es == 4);
}

/* The choice is a compiled kernel that can take the call. */
static void lu_valid(struct bsi_lu_choice c, int es, int op, int n, int nrhs, int pv, const char *what)
{
    switch (c.family) {
    case BSI_LU_TEAM:
        TL_EXPECT(lu_team_bucket(c.bucket) && c.bucket >= n && c.lanes == bsi_lu_team(c.bucket, es),
                  "%s: team bucket %d T %d", what, c.bucket, c.lanes);
        break;
    case BSI_LU_WARP:
        TL_EXPECT(lu_warp_bucket(c.bucket, es) && c.bucket >= n && n >= 9 && c.lanes == bsi_lu_warp_team(c.bucket),
                  "%s: warp bucket %d T %d", what, c.bucket, c.lanes);
        TL_EXPECT(op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1), "%s: warp kernel for %s nrhs %d", what,
                  lu_op[op], nrhs);
        break;
    case BSI_LU_BLOCK:
        TL_EXPECT(n > BSI_LU_TEAM_MAX_N && c.lanes == BSI_LU_BLOCK_THREADS, "%s: block kernel", what);
        break;
    case BSI_LU_TILE:
        TL_EXPECT(n >= 33 && c.bucket >= n && c.bucket <= 128 &&
                      (c.bucket <= 64 ? c.bucket % 8 == 0 && c.bucket - n < 8 && c.lanes == 64
                                      : c.bucket % 16 == 0 && c.bucket - n < 16 && c.lanes == 256),
                  "%s: tile bucket %d T %d", what, c.bucket, c.lanes);
        TL_EXPECT((op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && (pv != BSOLVE_PIVOT_FULL || c.lanes == 1),
                  "%s: tile kernel for %s nrhs %d pivot %d", what, lu_op[op], nrhs, pv);
        break;
    case BSI_LU_PANEL:
        TL_EXPECT(n >= 33 && c.bucket >= n && (c.bucket == 64 || c.bucket == 96 || c.bucket == 128) &&
                      c.bucket - n < 32 && c.lanes == (c.bucket <= 64 ? 64 : 128),
                  "%s: panel bucket %d T %d", what, c.bucket, c.lanes);
        TL_EXPECT((op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && (pv != BSOLVE_PIVOT_FULL || c.lanes == 1),
                  "%s: panel kernel for %s nrhs %d pivot %d", what, lu_op[op], nrhs, pv);
        break;
    case BSI_LU_SOLVE:
        TL_EXPECT(op == BSI_OP_GETRS && c.lanes == 1, "%s: solve kernel for %s", what, lu_op[op]);
        break;
    case BSI_LU_RSTEAM:
        TL_EXPECT(op == BSI_OP_GETRS && c.bucket == 0 && bsi_lu_rsteam_compiled(c.shape) &&
                      c.lanes == c.shape / 100 % 10 * (c.shape / 10 % 10),
                  "%s: team getrs shape %d T %d for %s", what, c.shape, c.lanes, lu_op[op]);
        break;
    case BSI_LU_SMEM:
        TL_EXPECT(c.bucket == n && n >= 9 && n <= BSI_LU_SMEM_MAX_N && c.lanes == bsi_lu_smem_team(es, n) &&
                      (c.lanes == 1 || c.lanes == 2 || c.lanes == 4 || c.lanes == 8),
                  "%s: smem bucket %d T %d", what, c.bucket, c.lanes);
        TL_EXPECT((op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && (pv != BSOLVE_PIVOT_FULL || c.lanes == 1),
                  "%s: smem kernel for %s nrhs %d pivot %d", what, lu_op[op], nrhs, pv);
        break;
    default: TL_EXPECT(0, "%s: family %d", what, c.family);
    }
    TL_EXPECT(c.gather == 0 || c.gather == 1, "%s: gather %d", what, c.gather);
    TL_EXPECT(!c.gather || op == BSI_OP_GETRF, "%s: %s gathered", what, lu_op[op]);
}

static const char *const lu_list[] = {"batch", "list", "list of an interleaved batch"};

/* Every call shape and way of giving the systems with one knob at each of
 * the values fs[0 .. nf - 1]: the choice, checked valid, goes to visit with
 * its description. */
typedef void (*lu_visit_fn)(void *u, int f, int es, int op, int n, int nrhs, int pv, int list, struct bsi_lu_choice c,
                            const char *what);
static void lu_sweep(int knob, const int *fs, int nf, const char *name, lu_visit_fn visit, void *u)
{
    int force[BSI_FORCE_COUNT + 1];
    for (int t = 0; t < nf; t++) {
        const int f = fs[t];
        memset(force, 0, sizeof force);
        force[knob] = f;
        for (int es = 4; es <= 8; es += 4)
            for (int op = 0; op < 3; op++)
                for (int n = 1; n <= BSOLVE_MAX_N; n++)
                    for (int nrhs = 1; nrhs <= 2; nrhs++)
                        for (int pvl = 0; pvl < 9; pvl++) {
                            const int pv = pvl % 3, list = pvl / 3;
                            char what[128];
                            snprintf(what, sizeof what, "%s %d es %d %s n %d nrhs %d pivot %d, %s", name, f, es,
                                     lu_op[op], n, nrhs, pv, lu_list[list]);
                            const struct bsi_lu_choice c = bsi_lu_dispatch(es, op, n, nrhs, pv, list, force);
                            lu_valid(c, es, op, n, nrhs, pv, what);
                            visit(u, f, es, op, n, nrhs, pv, list, c, what);
                        }
    }
}

/* One force knob of a family swept over 0 (the table's choice), 1 (never)
 * and 2 (forced on): the family is chosen exactly where takes(f, ...) says,
 * and reached[bucket] marks the buckets it ran with. */
typedef int (*lu_takes_fn)(int f, int es, int op, int n, int nrhs, int pv, int list);
struct lu_knob {
    int family;
    const char *name;
    lu_takes_fn takes;
    int *reached;
};
static void lu_knob_visit(void *u, int f, int es, int op, int n, int nrhs, int pv, int list, struct bsi_lu_choice c,
                          const char *what)
{
    const struct lu_knob *k = u;
    const int t = k->takes(f, es, op, n, nrhs, pv, list);
    TL_EXPECT((c.family == k->family) == t, "%s: %s kernel %s", what, k->name, t ? "not chosen" : "chosen");
    if (c.family == k->family) k->reached[c.bucket] = 1;
}
static void lu_knob_sweep(int knob, int family, const char *name, lu_takes_fn takes, int reached[129])
{
    static const int fs[] = {0, 1, 2};
    struct lu_knob k = {family, name, takes, reached};
    lu_sweep(knob, fs, 3, name, lu_knob_visit, &k);
}

/* The family of an FP64 gesv (nrhs = 1, PARTIAL) of order n with knobs k1
 * and k2 both forced on. */
static int lu_both_forced(int k1, int k2, int n)
{
    int force[BSI_FORCE_COUNT + 1];
    memset(force, 0, sizeof force);
    force[k1] = force[k2] = 2;
    return bsi_lu_dispatch(8, BSI_OP_GESV, n, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_BATCH, force).family;
}

/* The calls TILE and PANEL can run: gesv nrhs = 1 and getrf, PARTIAL or
 * NONE, n = 33..128. */
static int lu_big(int op, int n, int nrhs, int pv)
{
    return (op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && n >= 33 && n <= 128 && pv != BSOLVE_PIVOT_FULL;
}

/* The register-tile kernel takes those calls (into each of its buckets): by
 * the table's choice on n = 33..40 (lu_dispatch.cuh's crossovers), and only
 * where the row-per-lane kernel is not forced; forced on, everywhere;
 * forced off, nowhere. */
static int tile_takes(int f, int es, int op, int n, int nrhs, int pv, int list)
{
    (void)list;
    (void)es;
    return lu_big(op, n, nrhs, pv) && (f == 2 || (f == 0 && n <= 40));
}
START_TEST(t_lu_tile)
{
    int reached[129] = {0};
    lu_knob_sweep(BSI_FORCE_LU_TILE, BSI_LU_TILE, "tile", tile_takes, reached);
    for (int N = 40; N <= 128; N += N < 64 ? 8 : 16) TL_EXPECT(reached[N], "tile bucket %d never chosen", N);
    TL_CLEAN("LU tile kernel's knob");
}
END_TEST

/* The blocked panel kernel: the same calls as the register-tile kernel, by
 * the table's choice on n = 41..128, forced on everywhere (where TILE is not
 * forced too), forced off nowhere; buckets 64, 96, 128. */
static int panel_takes(int f, int es, int op, int n, int nrhs, int pv, int list)
{
    (void)list;
    (void)es;
    return lu_big(op, n, nrhs, pv) && (f == 2 || (f == 0 && n > 40));
}
START_TEST(t_lu_panel)
{
    int reached[129] = {0};
    lu_knob_sweep(BSI_FORCE_LU_PANEL, BSI_LU_PANEL, "panel", panel_takes, reached);
    TL_EXPECT(reached[64] && reached[96] && reached[128], "a panel bucket never chosen");
    TL_EXPECT(lu_both_forced(BSI_FORCE_LU_PANEL, BSI_FORCE_LU_TILE, 64) == BSI_LU_TILE,
              "TILE forced wins over PANEL forced");
    TL_CLEAN("LU panel kernel's knob");
}
END_TEST

/* The thread-per-system getrs: by the table's choice every getrs with one
 * right-hand side and n >= 9 that the team getrs does not take, forced on
 * every getrs, forced off none, and never another operation. */
static int solve_takes(int f, int es, int op, int n, int nrhs, int pv, int list)
{
    (void)pv;
    return op == BSI_OP_GETRS && (f == 2 || (f == 0 && nrhs == 1 && n >= 9 && (list != BSI_LU_BATCH || !bsi_lu_rsteam_takes(es, n))));
}
START_TEST(t_lu_solve)
{
    int reached[129] = {0};
    lu_knob_sweep(BSI_FORCE_LU_SOLVE, BSI_LU_SOLVE, "solve", solve_takes, reached);
    TL_CLEAN("LU getrs kernel's knob");
}
END_TEST

/* The team getrs: by the table's choice getrs with one right-hand side,
 * FP64 n >= 65 and FP32 n >= 9 (lu_dispatch.cuh's crossovers); forced on
 * (2) every getrs with the table's shape for its order, forced off none,
 * never another operation.  Each compiled shape forced by its code runs on
 * every getrs (test/gpu_lu.c's configuration that compares every shape
 * with the thread-per-system getrs reaches them all), a code that is not
 * compiled gives the table's shape, and forced on it wins over a forced
 * SOLVE. */
static int rsteam_takes(int f, int es, int op, int n, int nrhs, int pv, int list)
{
    (void)pv;
    return op == BSI_OP_GETRS && (f == 2 || (f == 0 && nrhs == 1 && list == BSI_LU_BATCH && bsi_lu_rsteam_takes(es, n)));
}
START_TEST(t_lu_rsteam)
{
    int reached[129] = {0};
    lu_knob_sweep(BSI_FORCE_LU_RSTEAM, BSI_LU_RSTEAM, "rsteam", rsteam_takes, reached);
#define RS_CODE(tl, tw, v, d, w) w * 10000 + (d - 1) * 1000 + tl * 100 + tw * 10 + v,
    static const int shapes[] = {BSI_LU_RSTEAM_SHAPES(RS_CODE)};
#undef RS_CODE
    int force[BSI_FORCE_COUNT + 1];
    int ncompiled = 0;
    for (int code = 0; code <= 99999; code++) ncompiled += bsi_lu_rsteam_compiled(code);
    TL_EXPECT(ncompiled == (int)(sizeof shapes / sizeof *shapes), "%d shape codes compiled", ncompiled);
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        TL_EXPECT(bsi_lu_rsteam_compiled(shapes[i]) && shapes[i] > 2, "shape %d", shapes[i]);
        memset(force, 0, sizeof force);
        force[BSI_FORCE_LU_RSTEAM] = shapes[i];
        force[BSI_FORCE_LU_SOLVE] = 2;
        for (int es = 4; es <= 8; es += 4)
            for (int n = 1; n <= BSOLVE_MAX_N; n++)
                for (int nrhs = 1; nrhs <= 3; nrhs++) {
                    const struct bsi_lu_choice c =
                        bsi_lu_dispatch(es, BSI_OP_GETRS, n, nrhs, BSOLVE_PIVOT_FULL, nrhs == 2 ? BSI_LU_LIST_IL : BSI_LU_BATCH, force);
                    TL_EXPECT(c.family == BSI_LU_RSTEAM && c.shape == shapes[i], "shape %d forced: es %d n %d nrhs %d got %d",
                              shapes[i], es, n, nrhs, c.shape);
                    lu_valid(c, es, BSI_OP_GETRS, n, nrhs, BSOLVE_PIVOT_FULL, "forced shape");
                    const struct bsi_lu_choice g = bsi_lu_dispatch(es, BSI_OP_GESV, n, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_BATCH, force);
                    TL_EXPECT(g.family != BSI_LU_RSTEAM, "shape %d forced: gesv n %d on the team getrs", shapes[i], n);
                }
    }
    /* the table's shapes at the borders of its orders (lu_dispatch.cuh) */
    static const struct { int es, n, shape; } spin[] = {
        {8, 9, 112},    {8, 24, 112},   {8, 25, 1112},  {8, 64, 1112},  {8, 65, 412},   {8, 88, 412},
        {8, 89, 10141}, {8, 112, 10141}, {8, 113, 10181}, {8, 128, 10181}, {4, 8, 112},    {4, 56, 112},
        {4, 57, 1112},  {4, 88, 1112},  {4, 89, 412},   {4, 112, 412}, {4, 113, 10141}, {4, 128, 10141}};
    for (size_t i = 0; i < sizeof spin / sizeof *spin; i++)
        TL_EXPECT(bsi_lu_rsteam_shape(spin[i].es, spin[i].n) == spin[i].shape, "es %d n %d: shape %d, pinned %d", spin[i].es,
                  spin[i].n, bsi_lu_rsteam_shape(spin[i].es, spin[i].n), spin[i].shape);
    memset(force, 0, sizeof force);
    force[BSI_FORCE_LU_RSTEAM] = 999; /* not a compiled shape: the table's */
    for (int es = 4; es <= 8; es += 4)
        for (int n = 1; n <= BSOLVE_MAX_N; n++) {
            const struct bsi_lu_choice c = bsi_lu_dispatch(es, BSI_OP_GETRS, n, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_BATCH, force);
            TL_EXPECT(c.family == BSI_LU_RSTEAM && c.shape == bsi_lu_rsteam_shape(es, n), "code 999: es %d n %d shape %d", es,
                      n, c.shape);
        }
    TL_CLEAN("LU team getrs's knob");
}
END_TEST

/* The shared-memory kernel: gesv nrhs = 1 and getrf, PARTIAL or NONE, n =
 * 9..22; by the table's choice FP64 gesv n <= 20 and getrf n <= 15, FP32
 * gesv n <= 17 and getrf n <= 15; forced on everywhere it can run, forced
 * off nowhere; every order its own instantiation, a thread per system up
 * to FP64 n = 15 and FP32 n = 17, teams of 4 lanes beyond. */
static int smem_takes(int f, int es, int op, int n, int nrhs, int pv, int list)
{
    (void)list;
    const int can = (op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && n >= 9 && n <= 22 &&
                    (pv != BSOLVE_PIVOT_FULL || n <= (es == 8 ? 11 : 16));
    const int table = es == 8 ? (op == BSI_OP_GETRF ? n <= 18 || n == 20 : n <= 20)
                              : (op == BSI_OP_GETRF ? n <= 15 || (n >= 17 && n <= 21) : n <= 21);
    return can && (f == 2 || (f == 0 && table));
}
START_TEST(t_lu_smem)
{
    int reached[129] = {0};
    lu_knob_sweep(BSI_FORCE_LU_SMEM, BSI_LU_SMEM, "smem", smem_takes, reached);
    for (int n = 9; n <= 22; n++) TL_EXPECT(reached[n], "smem order %d never chosen", n);
    /* the teams perf/tune_smem picked, order 9..22 */
    static const int t8[23] = {[9] = 1, 1, 1, 1, 1, 1, 1, 4, 2, 2, 4, 4, 4, 4},
                     t4[23] = {[9] = 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 4, 4, 4, 4};
    for (int es = 4; es <= 8; es += 4)
        for (int n = 9; n <= 22; n++)
            TL_EXPECT(bsi_lu_smem_team(es, n) == (es == 8 ? t8 : t4)[n], "smem team size es %d n %d: %d", es, n,
                      bsi_lu_smem_team(es, n));
    TL_EXPECT(lu_both_forced(BSI_FORCE_LU_SMEM, BSI_FORCE_LU_WARP, 12) == BSI_LU_WARP,
              "WARP forced wins over SMEM forced");
    TL_EXPECT(lu_both_forced(BSI_FORCE_LU_SMEM, BSI_FORCE_LU_WARP, 20) == BSI_LU_WARP,
              "WARP forced wins over SMEM forced (a team)");
    TL_CLEAN("LU shared-memory kernel's knob");
}
END_TEST

/* A masked getrf gathers its systems: by the table's choice where they lie
 * in an interleaved A and its kernel gives each system a block (TILE,
 * PANEL, BLOCK, WARP above 32; lu_dispatch.cuh's GATHER); forced on (2, or
 * a segment size), every masked getrf of an interleaved A; forced off,
 * none; never another operation or way of giving the systems, and the
 * kernel is the one chosen without the knob. */
static void lu_gather_visit(void *u, int f, int es, int op, int n, int nrhs, int pv, int list, struct bsi_lu_choice c,
                            const char *what)
{
    int *reached = u;
    const struct bsi_lu_choice d = bsi_lu_dispatch(es, op, n, nrhs, pv, list, NULL);
    TL_EXPECT(c.family == d.family && c.bucket == d.bucket && c.lanes == d.lanes, "%s: the knob changed the kernel",
              what);
    const int block = c.family == BSI_LU_TILE || c.family == BSI_LU_PANEL || c.family == BSI_LU_BLOCK ||
                      (c.family == BSI_LU_WARP && c.bucket > 32);
    const int want = op == BSI_OP_GETRF && list == BSI_LU_LIST_IL && (f >= 2 || (f == 0 && block));
    TL_EXPECT(c.gather == want, "%s: %s", what, want ? "not gathered" : "gathered");
    if (c.gather && f == 0) reached[c.family == BSI_LU_WARP ? 5 : c.family - BSI_LU_BLOCK] = 1;
}
START_TEST(t_lu_gather)
{
    static const int fs[] = {0, 1, 2, 7};
    int reached[6] = {0};
    lu_sweep(BSI_FORCE_LU_GATHER, fs, 4, "gather", lu_gather_visit, reached);
    TL_EXPECT(reached[0] && reached[1] && reached[2] && reached[5],
              "the table gathers for BLOCK %d, TILE %d, PANEL %d, WARP %d", reached[0], reached[1], reached[2],
              reached[5]);
    /* pinned: the ensemble's order, each side of n = 32, FULL beyond 48 */
    static const struct { int es, n, pv, list, family, gather; } pin[] = {
        {8, 54, BSOLVE_PIVOT_PARTIAL, BSI_LU_LIST_IL, BSI_LU_PANEL, 1},
        {8, 54, BSOLVE_PIVOT_PARTIAL, BSI_LU_LIST, BSI_LU_PANEL, 0},
        {8, 54, BSOLVE_PIVOT_PARTIAL, BSI_LU_BATCH, BSI_LU_PANEL, 0},
        {8, 33, BSOLVE_PIVOT_NONE, BSI_LU_LIST_IL, BSI_LU_TILE, 1},
        {8, 32, BSOLVE_PIVOT_PARTIAL, BSI_LU_LIST_IL, BSI_LU_WARP, 0},
        {4, 32, BSOLVE_PIVOT_PARTIAL, BSI_LU_LIST_IL, BSI_LU_WARP, 0},
        {8, 12, BSOLVE_PIVOT_PARTIAL, BSI_LU_LIST_IL, BSI_LU_SMEM, 0},
        {8, 40, BSOLVE_PIVOT_FULL, BSI_LU_LIST_IL, BSI_LU_WARP, 1},
        {8, 100, BSOLVE_PIVOT_FULL, BSI_LU_LIST_IL, BSI_LU_BLOCK, 1},
        {4, 128, BSOLVE_PIVOT_PARTIAL, BSI_LU_LIST_IL, BSI_LU_PANEL, 1},
    };
    for (size_t i = 0; i < sizeof pin / sizeof *pin; i++) {
        const struct bsi_lu_choice c = bsi_lu_dispatch(pin[i].es, BSI_OP_GETRF, pin[i].n, 0, pin[i].pv, pin[i].list, NULL);
        char got[64];
        TL_EXPECT(c.family == pin[i].family && c.gather == pin[i].gather, "gather pin %zu (es %d n %d pivot %d, %s): %s",
                  i, pin[i].es, pin[i].n, pin[i].pv, lu_list[pin[i].list], bsi_lu_name(c, got, sizeof got));
    }
    /* getrs is never gathered, and a masked getrs of one right-hand side
     * takes the thread-per-system getrs (the team getrs on a list lost) */
    const struct bsi_lu_choice r = bsi_lu_dispatch(8, BSI_OP_GETRS, 54, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_LIST_IL, NULL);
    TL_EXPECT(r.family == BSI_LU_SOLVE && !r.gather, "masked getrs n 54: family %d shape %d gather %d", r.family, r.shape,
              r.gather);
    TL_CLEAN("LU gather");
}
END_TEST

START_TEST(t_lu_table)
{
    int force[BSI_FORCE_COUNT + 1];
    int reached[3][2][65]; /* [family-1][es == 8][bucket] */
    memset(reached, 0, sizeof reached);
    for (int f = 0; f <= 2; f++) {
        memset(force, 0, sizeof force);
        force[BSI_FORCE_LU_WARP] = f;
        for (int es = 4; es <= 8; es += 4)
            for (int op = 0; op < 3; op++)
                for (int n = 1; n <= BSOLVE_MAX_N; n++)
                    for (int nrhs = 1; nrhs <= 2; nrhs++)
                        for (int pvl = 0; pvl < 9; pvl++) {
                            const int pv = pvl % 3, list = pvl / 3;
                            char what[128];
                            snprintf(what, sizeof what, "force %d es %d %s n %d nrhs %d pivot %d, %s", f, es, lu_op[op],
                                     n, nrhs, pv, lu_list[list]);
                            const struct bsi_lu_choice c = bsi_lu_dispatch(es, op, n, nrhs, pv, list, force);
                            const struct bsi_lu_choice cb = bsi_lu_dispatch(es, op, n, nrhs, pv, BSI_LU_BATCH, force);
                            /* a list takes the whole batch's kernel, but a getrs the
                             * team getrs would take (SOLVE on lists: lu_dispatch.cuh) */
                            const int rs_list = cb.family == BSI_LU_RSTEAM && list != BSI_LU_BATCH;
                            TL_EXPECT(rs_list ? (c.family == BSI_LU_SOLVE || c.family == BSI_LU_TEAM)
                                              : (c.family == cb.family && c.bucket == cb.bucket && c.lanes == cb.lanes &&
                                                 c.shape == cb.shape),
                                      "%s: another kernel than the whole batch's", what);
                            lu_valid(c, es, op, n, nrhs, pv, what);
                            if (c.family >= 1 && c.family <= 3) reached[c.family - 1][es == 8][c.bucket] = 1;
                            const int wtakes = (op == BSI_OP_GETRF || (op == BSI_OP_GESV && nrhs == 1)) && n >= 9 &&
                                               n <= (es == 8 ? BSI_LU_WARP_MAX_N_D : BSI_LU_WARP_MAX_N_S);
                            if (f == 1) TL_EXPECT(c.family != BSI_LU_WARP, "%s: warp kernel forced off", what);
                            if (f == 2) TL_EXPECT((c.family == BSI_LU_WARP) == wtakes, "%s: warp kernel forced on", what);
                            /* no context and a context of zeros choose alike */
                            if (f == 0) {
                                const struct bsi_lu_choice d = bsi_lu_dispatch(es, op, n, nrhs, pv, list, NULL);
                                TL_EXPECT(d.family == c.family && d.bucket == c.bucket && d.lanes == c.lanes &&
                                              d.gather == c.gather,
                                          "%s: NULL force differs", what);
                            }
                        }
    }
    for (int es8 = 0; es8 <= 1; es8++)
        for (int N = 1; N <= 64; N++) {
            if (lu_team_bucket(N)) TL_EXPECT(reached[0][es8][N], "team bucket %d (%s) never chosen", N, es8 ? "d" : "s");
            if (lu_warp_bucket(N, es8 ? 8 : 4))
                TL_EXPECT(reached[1][es8][N], "warp bucket %d (%s) never chosen", N, es8 ? "d" : "s");
        }
    TL_EXPECT(reached[2][0][0] && reached[2][1][0], "block kernel never chosen");
    /* FP32 FULL at n = 64 on the row-per-lane kernel: only when forced */
    memset(force, 0, sizeof force);
    force[BSI_FORCE_LU_WARP] = 2;
    TL_EXPECT(bsi_lu_dispatch(4, BSI_OP_GESV, 64, 1, BSOLVE_PIVOT_FULL, BSI_LU_BATCH, force).family == BSI_LU_WARP,
              "forced FULL 64");
    /* pinned crossovers (lu_dispatch.cuh) */
    static const struct { int es, op, n, nrhs, pv, family, bucket, lanes; } pin[] = {
        {8, BSI_OP_GESV, 8, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_TEAM, 8, 1},
        {8, BSI_OP_GESV, 12, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 12, 1},
        {8, BSI_OP_GESV, 11, 1, BSOLVE_PIVOT_FULL, BSI_LU_SMEM, 11, 1},
        {8, BSI_OP_GESV, 12, 1, BSOLVE_PIVOT_FULL, BSI_LU_TEAM, 12, 4},
        {8, BSI_OP_GESV, 13, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 13, 1},
        {8, BSI_OP_GESV, 13, 1, BSOLVE_PIVOT_FULL, BSI_LU_WARP, 14, 16},
        {8, BSI_OP_GETRF, 15, 0, BSOLVE_PIVOT_NONE, BSI_LU_SMEM, 15, 1},
        {8, BSI_OP_GESV, 16, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 16, 4},
        {8, BSI_OP_GESV, 20, 1, BSOLVE_PIVOT_NONE, BSI_LU_SMEM, 20, 4},
        {8, BSI_OP_GESV, 21, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_WARP, 24, 32},
        {8, BSI_OP_GETRF, 16, 0, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 16, 4},
        {8, BSI_OP_GETRF, 19, 0, BSOLVE_PIVOT_PARTIAL, BSI_LU_WARP, 20, 32},
        {8, BSI_OP_GESV, 16, 1, BSOLVE_PIVOT_FULL, BSI_LU_WARP, 16, 16},
        {8, BSI_OP_GESV, 16, 2, BSOLVE_PIVOT_PARTIAL, BSI_LU_TEAM, 16, 8},
        {4, BSI_OP_GESV, 17, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 17, 2},
        {4, BSI_OP_GESV, 22, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_WARP, 24, 32},
        {4, BSI_OP_GESV, 18, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 18, 2},
        {4, BSI_OP_GETRF, 16, 0, BSOLVE_PIVOT_PARTIAL, BSI_LU_TEAM, 16, 4},
        {8, BSI_OP_GESV, 17, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 17, 2},
        {8, BSI_OP_GESV, 13, 2, BSOLVE_PIVOT_PARTIAL, BSI_LU_TEAM, 14, 8},
        {8, BSI_OP_GETRS, 20, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_RSTEAM, 0, 1},
        {8, BSI_OP_GETRS, 8, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_TEAM, 8, 1},
        {8, BSI_OP_GETRS, 128, 1, BSOLVE_PIVOT_FULL, BSI_LU_RSTEAM, 0, 8},
        {8, BSI_OP_GETRS, 64, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_RSTEAM, 0, 1},
        {8, BSI_OP_GETRS, 96, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_RSTEAM, 0, 4},
        {8, BSI_OP_GETRS, 65, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_RSTEAM, 0, 4},
        {8, BSI_OP_GETRS, 100, 2, BSOLVE_PIVOT_PARTIAL, BSI_LU_BLOCK, 0, 128},
        {4, BSI_OP_GETRS, 8, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_RSTEAM, 0, 1},
        {4, BSI_OP_GETRS, 7, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_TEAM, 7, 1},
        {4, BSI_OP_GETRS, 9, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_RSTEAM, 0, 1},
        {4, BSI_OP_GETRS, 48, 1, BSOLVE_PIVOT_NONE, BSI_LU_RSTEAM, 0, 1},
        {4, BSI_OP_GETRS, 128, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_RSTEAM, 0, 4},
        {8, BSI_OP_GETRS, 20, 2, BSOLVE_PIVOT_PARTIAL, BSI_LU_TEAM, 20, 8},
        {4, BSI_OP_GETRS, 64, 3, BSOLVE_PIVOT_NONE, BSI_LU_BLOCK, 0, 128},
        {8, BSI_OP_GETRF, 48, 0, BSOLVE_PIVOT_FULL, BSI_LU_WARP, 48, 64},
        {8, BSI_OP_GETRF, 49, 0, BSOLVE_PIVOT_PARTIAL, BSI_LU_PANEL, 64, 64},
        {8, BSI_OP_GESV, 33, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_TILE, 40, 64},
        {8, BSI_OP_GESV, 40, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_TILE, 40, 64},
        {8, BSI_OP_GESV, 41, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_PANEL, 64, 64},
        {8, BSI_OP_GESV, 128, 1, BSOLVE_PIVOT_NONE, BSI_LU_PANEL, 128, 128},
        {8, BSI_OP_GESV, 100, 1, BSOLVE_PIVOT_FULL, BSI_LU_BLOCK, 0, 128},
        {8, BSI_OP_GESV, 33, 2, BSOLVE_PIVOT_NONE, BSI_LU_BLOCK, 0, 128},
        {4, BSI_OP_GESV, 16, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 16, 1},
        {4, BSI_OP_GESV, 16, 1, BSOLVE_PIVOT_FULL, BSI_LU_SMEM, 16, 1},
        {4, BSI_OP_GESV, 17, 1, BSOLVE_PIVOT_FULL, BSI_LU_WARP, 20, 32},
        {4, BSI_OP_GESV, 25, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_WARP, 28, 32},
        {4, BSI_OP_GETRF, 17, 0, BSOLVE_PIVOT_PARTIAL, BSI_LU_SMEM, 17, 2},
        {4, BSI_OP_GETRF, 21, 0, BSOLVE_PIVOT_NONE, BSI_LU_SMEM, 21, 4},
        {4, BSI_OP_GESV, 64, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_PANEL, 64, 64},
        {4, BSI_OP_GESV, 49, 1, BSOLVE_PIVOT_FULL, BSI_LU_BLOCK, 0, 128},
        {4, BSI_OP_GESV, 65, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_PANEL, 96, 128},
        {4, BSI_OP_GESV, 40, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_TILE, 40, 64},
        {4, BSI_OP_GESV, 48, 1, BSOLVE_PIVOT_PARTIAL, BSI_LU_PANEL, 64, 64},
        {4, BSI_OP_GESV, 96, 1, BSOLVE_PIVOT_NONE, BSI_LU_PANEL, 96, 128},
        {4, BSI_OP_GETRF, 97, 0, BSOLVE_PIVOT_PARTIAL, BSI_LU_PANEL, 128, 128},
    };
    for (size_t i = 0; i < sizeof pin / sizeof *pin; i++) {
        const struct bsi_lu_choice c =
            bsi_lu_dispatch(pin[i].es, pin[i].op, pin[i].n, pin[i].nrhs, pin[i].pv, BSI_LU_BATCH, NULL);
        char got[64];
        TL_EXPECT(c.family == pin[i].family && c.bucket == pin[i].bucket && c.lanes == pin[i].lanes,
                  "pin %zu (es %d %s n %d nrhs %d pivot %d): %s", i, pin[i].es, lu_op[pin[i].op], pin[i].n, pin[i].nrhs,
                  pin[i].pv, bsi_lu_name(c, got, sizeof got));
    }
    TL_CLEAN("LU dispatch table");
}
END_TEST

/* ------------------------------------------------------------------- QR */

/* The forced configurations of test/gpu_qr.c (besides the table's own). */
enum { QC_TABLE, QC_TEAM64, QC_TEAM256, QC_PAIR1, QC_PAIR2, QC_PAIR4, QC_HH_OFF, QC_HH_ALL, QC_HH_C1, QC_REG_OFF, QC_COUNT };
static const char *const qc_name[] = {"table", "team T=64", "team T=256", "pair SEG=1", "pair SEG=2", "pair SEG=4",
                                      "Householder off", "Householder everywhere", "Householder one column per lane",
                                      "register kernel off"};

static void qc_force(int cfg, int *force)
{
    memset(force, 0, sizeof(int) * (BSI_FORCE_COUNT + 1));
    switch (cfg) {
    case QC_TEAM64:
    case QC_TEAM256:
        force[BSI_FORCE_QR_REG] = force[BSI_FORCE_QR_HH] = force[BSI_FORCE_QR_WARP] = force[BSI_FORCE_QR_PAIR] = 1;
        force[BSI_FORCE_QR_TEAM] = cfg == QC_TEAM64 ? 64 : 256;
        break;
    case QC_PAIR1:
    case QC_PAIR2:
    case QC_PAIR4:
        force[BSI_FORCE_QR_REG] = force[BSI_FORCE_QR_HH] = force[BSI_FORCE_QR_WARP] = 1;
        force[BSI_FORCE_QR_PAIR] = 2;
        force[BSI_FORCE_QR_PAIR_SEG] = cfg == QC_PAIR1 ? 1 : cfg == QC_PAIR2 ? 2 : 4;
        break;
    case QC_HH_OFF: force[BSI_FORCE_QR_HH] = 1; break;
    case QC_HH_ALL: force[BSI_FORCE_QR_HH] = 2; break;
    case QC_HH_C1: force[BSI_FORCE_QR_HH_C] = 1; break;
    case QC_REG_OFF: force[BSI_FORCE_QR_REG] = 1; break;
    default: break;
    }
}

static const char *const qr_op[] = {"gels", "geqrf", "geqrs"};

/* Every compiled kernel, named as bsq_name() names its choice (the suffixes
 * " pair" and " full" are the copies of qr_hh_d.cu / qr_warp_dv.cu and the
 * FULL copies at M = 64); "d:" or "s:" for the precision. */
#define QR_HH(S) "d:hh M=16 L=8 H=1 C=1" S, "d:hh M=16 L=16 H=1 C=1" S, "d:hh M=32 L=8 H=1 C=1" S,           \
    "d:hh M=32 L=16 H=1 C=1" S, "d:hh M=32 L=32 H=1 C=1" S, "d:hh M=64 L=8 H=1 C=1" S, "d:hh M=64 L=16 H=1 C=1" S, \
    "d:hh M=64 L=32 H=1 C=1" S, "d:hh M=64 L=64 H=1 C=1" S, "d:hh M=64 L=32 H=2 C=1" S, "d:hh M=64 L=64 H=2 C=1" S, \
    "d:hh M=16 L=4 H=1 C=2" S, "d:hh M=16 L=8 H=1 C=2" S
static const char *const qr_kernels[] = {
    "d:hh M=32 L=8 H=1 C=2",
    "s:reg 4x4", "s:reg 8x4", "s:reg 12x4", "s:reg 16x4", "s:reg 8x8", "s:reg 12x8", "s:reg 16x8", "s:reg 12x12",
    "d:reg 4x4", "d:reg 8x4", "d:reg 12x4", "d:reg 16x4", "d:reg 8x8",
    "d:regw 8x4", "d:regw 12x4", "d:regw 16x4", "d:regw 8x8",
    QR_HH(""), QR_HH(" pair"), /* but M = 32 with C = 2: interleaved A only, no pair copy */
    "s:warp M=16 L=8 C=1", "s:warp M=16 L=16 C=1", "s:warp M=32 L=8 C=1", "s:warp M=32 L=16 C=1",
    "s:warp M=32 L=32 C=1", "s:warp M=64 L=8 C=1", "s:warp M=64 L=16 C=1", "s:warp M=64 L=32 C=1",
    "s:warp M=64 L=8 C=1 full", "s:warp M=64 L=16 C=1 full", "s:warp M=64 L=32 C=1 full",
    "d:warp M=16 L=8 C=1", "d:warp M=16 L=16 C=1", "d:warp M=32 L=8 C=1", "d:warp M=32 L=16 C=1",
    "d:warp M=32 L=32 C=1", "d:warp M=64 L=8 C=1", "d:warp M=64 L=16 C=1", "d:warp M=64 L=32 C=1",
    "d:warp M=64 L=8 C=1 full", "d:warp M=64 L=16 C=1 full", "d:warp M=64 L=32 C=1 full", "d:warp M=16 L=4 C=2",
    "d:warp M=16 L=8 C=1 pair", "d:warp M=16 L=16 C=1 pair", "d:warp M=32 L=8 C=1 pair",
    "d:warp M=32 L=16 C=1 pair", "d:warp M=32 L=32 C=1 pair",
    "d:pair TC=32 SEG=1", "d:pair TC=32 SEG=2", "d:pair TC=32 SEG=4", "d:pair TC=64 SEG=1", "d:pair TC=64 SEG=2",
    "d:pair TC=64 SEG=4",
    "s:geqrs MB=32", "s:geqrs MB=128", "d:geqrs MB=32", "d:geqrs MB=128",
};
#define QR_NK ((int)(sizeof qr_kernels / sizeof *qr_kernels))

/* The choice is a compiled kernel that can take the call. */
static void qr_valid(struct bsq_choice c, int es, int op, int m, int n, int nrhs, int a_il, int a_pair, const char *what)
{
    const int gels1 = op == BSQ_GELS && nrhs == 1;
    switch (c.family) {
    case BSQ_K_REG:
    case BSQ_K_REGW:
        TL_EXPECT(op != BSQ_GEQRS && (op == BSQ_GEQRF || nrhs == 1) && c.M >= m && c.N >= n && c.N <= c.M,
                  "%s: register kernel %dx%d", what, c.M, c.N);
        if (c.family == BSQ_K_REGW)
            TL_EXPECT(es == 8 && op == BSQ_GELS && m == c.M && n == c.N && c.M > 4, "%s: wavefront copy", what);
        break;
    case BSQ_K_HH:
        TL_EXPECT(es == 8 && gels1 && c.M * c.H >= m && c.L * c.C >= n && c.ld_pair == a_pair && (c.H == 1 || c.M == 64),
                  "%s: Householder M %d L %d H %d C %d", what, c.M, c.L, c.H, c.C);
        break;
    case BSQ_K_WARP:
        TL_EXPECT(gels1 && c.M >= m && c.L * c.C >= n && c.M <= 64 && (c.C == 1 || (es == 8 && a_il)),
                  "%s: column-per-lane M %d L %d C %d", what, c.M, c.L, c.C);
        TL_EXPECT(!c.ld_pair || (es == 8 && a_pair && c.M <= 32), "%s: pair loads", what);
        TL_EXPECT(!c.full || (c.M == 64 && m == 64 && n == c.L * c.C), "%s: full copy", what);
        break;
    case BSQ_K_PAIR:
        TL_EXPECT(es == 8 && gels1 && m >= 2 && c.L >= n && (c.seg == 1 || c.seg == 2 || c.seg == 4),
                  "%s: paired steps TC %d SEG %d", what, c.L, c.seg);
        break;
    case BSQ_K_TEAM: {
        const int T = c.g.T;
        TL_EXPECT(op != BSQ_GEQRS && T >= 1 && T <= 256 && (T & (T - 1)) == 0, "%s: team T %d", what, T);
        TL_EXPECT(c.g.smem <= BSQ_MAX_SMEM && c.g.wpb >= 1 && (T <= 32 || c.g.wpb == T / 32), "%s: team geometry", what);
        TL_EXPECT(c.g.ldm >= m && c.g.mstride >= c.g.ldm * (n + c.g.nbp), "%s: team strides", what);
        TL_EXPECT(op == BSQ_GELS ? c.g.nbp >= 1 && c.g.nbp <= nrhs && c.g.nbp <= 8 : c.g.nbp == 0, "%s: nbp %d", what,
                  c.g.nbp);
        break;
    }
    case BSQ_K_GEQRS: TL_EXPECT(op == BSQ_GEQRS && c.M >= m, "%s: geqrs bound %d", what, c.M); break;
    default: TL_EXPECT(0, "%s: family %d", what, c.family);
    }
}

/* What a forced configuration promises (qc_name). */
static void qr_forced(int cfg, struct bsq_choice c, int es, int op, int m, int nrhs, const char *what)
{
    const int gels1 = op == BSQ_GELS && nrhs == 1;
    switch (cfg) {
    case QC_TEAM64:
    case QC_TEAM256:
        if (op != BSQ_GEQRS)
            TL_EXPECT(c.family == BSQ_K_TEAM && c.g.T >= (cfg == QC_TEAM64 ? 64 : 256), "%s: not on the team kernel", what);
        break;
    case QC_PAIR1:
    case QC_PAIR2:
    case QC_PAIR4:
        if (es == 8 && gels1 && m >= 2)
            TL_EXPECT(c.family == BSQ_K_PAIR && c.seg == (cfg == QC_PAIR1 ? 1 : cfg == QC_PAIR2 ? 2 : 4),
                      "%s: not on the paired steps", what);
        else if (op != BSQ_GEQRS) TL_EXPECT(c.family == BSQ_K_TEAM, "%s: not on the team kernel", what);
        break;
    case QC_HH_OFF: TL_EXPECT(c.family != BSQ_K_HH, "%s: Householder kernel forced off", what); break;
    case QC_HH_ALL:
        if (es == 8 && gels1 && c.family != BSQ_K_REG && c.family != BSQ_K_REGW)
            TL_EXPECT(c.family == BSQ_K_HH, "%s: Householder kernel forced on", what);
        break;
    case QC_HH_C1: TL_EXPECT(c.family != BSQ_K_HH || c.C == 1, "%s: two columns per lane", what); break;
    case QC_REG_OFF: TL_EXPECT(c.family != BSQ_K_REG && c.family != BSQ_K_REGW, "%s: register kernel", what); break;
    default: break;
    }
}

START_TEST(t_qr_table)
{
    int force[BSI_FORCE_COUNT + 1];
    char reached[QR_NK];
    int team_t[2][9]; /* [es == 8][log2 T] */
    memset(reached, 0, sizeof reached);
    memset(team_t, 0, sizeof team_t);
    static const int nrhss[] = {1, 2, 3, 9, 100};
    for (int cfg = 0; cfg < QC_COUNT; cfg++) {
        qc_force(cfg, force);
        for (int es = 4; es <= 8; es += 4)
            for (int op = 0; op < 3; op++)
                for (int m = 1; m <= BSOLVE_QR_MAX_M; m++)
                    for (int n = 1; n <= m && n <= BSOLVE_QR_MAX_N; n++)
                        for (int r = 0; r < 5; r++)
                            for (int lay = 0; lay < 3; lay++) { /* A interleaved, column-major (pair loads), other */
                                const int nrhs = nrhss[r], a_il = lay == 0, a_pair = lay == 1;
                                char what[128], name[96], key[100];
                                snprintf(what, sizeof what, "%s: es %d %s %dx%d nrhs %d A %s", qc_name[cfg], es, qr_op[op],
                                         m, n, nrhs, lay == 0 ? "il" : lay == 1 ? "cm-pair" : "other");
                                const struct bsq_choice c = bsq_dispatch(es, op, m, n, nrhs, a_il, a_pair, force);
                                qr_valid(c, es, op, m, n, nrhs, a_il, a_pair, what);
                                qr_forced(cfg, c, es, op, m, nrhs, what);
                                if (c.family == BSQ_K_TEAM) {
                                    int lg = 0;
                                    while ((1 << lg) < c.g.T) lg++;
                                    team_t[es == 8][lg] = 1;
                                }
                                snprintf(key, sizeof key, "%c:%s", es == 8 ? 'd' : 's', bsq_name(c, name, sizeof name));
                                for (int k = 0; k < QR_NK; k++)
                                    if (strcmp(key, qr_kernels[k]) == 0) reached[k] = 1;
                            }
    }
    for (int k = 0; k < QR_NK; k++) TL_EXPECT(reached[k], "kernel \"%s\" never chosen", qr_kernels[k]);
    /* the team kernel: every team size in each precision (T = 64 by force only) */
    for (int e = 0; e <= 1; e++)
        for (int lg = 0; lg <= 8; lg++) TL_EXPECT(team_t[e][lg], "team T = %d (%s) never chosen", 1 << lg, e ? "d" : "s");
    /* pinned crossovers (qr_dispatch.cuh): es, op, m, n, nrhs, A interleaved, the choice */
    static const struct { int es, op, m, n, nrhs, il; const char *want; } pin[] = {
        {8, BSQ_GELS, 4, 4, 1, 1, "reg 4x4"},
        {8, BSQ_GELS, 8, 8, 1, 1, "regw 8x8"},
        {8, BSQ_GELS, 7, 8, 1, 1, "reg 8x8"},
        {8, BSQ_GEQRF, 16, 4, 0, 0, "reg 16x4"},
        {4, BSQ_GELS, 12, 12, 1, 0, "reg 12x12"},
        {8, BSQ_GELS, 16, 8, 1, 1, "hh M=16 L=4 H=1 C=2"},
        {8, BSQ_GELS, 32, 16, 1, 1, "hh M=32 L=8 H=1 C=2"},
        {8, BSQ_GELS, 32, 16, 1, 0, "hh M=32 L=16 H=1 C=1"},
        {8, BSQ_GELS, 64, 64, 1, 1, "hh M=64 L=64 H=1 C=1"},
        {8, BSQ_GELS, 71, 48, 1, 1, "pair TC=64 SEG=4"},
        {8, BSQ_GELS, 71, 39, 1, 1, "team T=32 nbp=1"},
        {8, BSQ_GELS, 79, 16, 1, 1, "team T=32 nbp=1"},
        {8, BSQ_GELS, 72, 17, 1, 1, "hh M=64 L=32 H=2 C=1"},
        {8, BSQ_GELS, 128, 64, 1, 1, "hh M=64 L=64 H=2 C=1"},
        {8, BSQ_GELS, 128, 64, 2, 1, "team T=256 nbp=2"},
        {4, BSQ_GELS, 16, 16, 1, 1, "warp M=16 L=16 C=1"},
        {4, BSQ_GELS, 64, 32, 1, 1, "warp M=64 L=32 C=1 full"},
        {4, BSQ_GELS, 64, 33, 1, 1, "team T=32 nbp=1"},
        {4, BSQ_GELS, 128, 64, 1, 1, "team T=128 nbp=1"},
        {8, BSQ_GEQRF, 64, 64, 0, 1, "team T=128 nbp=0"},
        {8, BSQ_GEQRF, 16, 16, 0, 1, "team T=8 nbp=0"},
        {8, BSQ_GEQRS, 32, 5, 3, 1, "geqrs MB=32"},
        {8, BSQ_GEQRS, 33, 5, 3, 1, "geqrs MB=128"},
    };
    for (size_t i = 0; i < sizeof pin / sizeof *pin; i++) {
        char got[96];
        bsq_name(bsq_dispatch(pin[i].es, pin[i].op, pin[i].m, pin[i].n, pin[i].nrhs, pin[i].il, 0, NULL), got, sizeof got);
        TL_EXPECT(strcmp(got, pin[i].want) == 0, "pin %zu (es %d %s %dx%d nrhs %d): %s, expected %s", i, pin[i].es,
                  qr_op[pin[i].op], pin[i].m, pin[i].n, pin[i].nrhs, got, pin[i].want);
    }
    /* forced values out of range fall back to the table's */
    memset(force, 0, sizeof force);
    force[BSI_FORCE_QR_TEAM] = 48;
    TL_EXPECT(bsq_dispatch(8, BSQ_GEQRF, 64, 64, 0, 1, 0, force).g.T == 128, "team T = 48 forced");
    TL_CLEAN("QR dispatch table");
}
END_TEST

/* ------------------------------------------------------------------- dump */

static void dump_lu(void)
{
    static const struct { int op, nrhs, list; const char *name; } ops[] = {
        {BSI_OP_GESV, 1, BSI_LU_BATCH, "gesv nrhs=1"}, {BSI_OP_GESV, 2, BSI_LU_BATCH, "gesv nrhs>1"},
        {BSI_OP_GETRF, 0, BSI_LU_BATCH, "getrf"}, {BSI_OP_GETRF, 0, BSI_LU_LIST_IL, "getrf mask IL"},
        {BSI_OP_GETRS, 1, BSI_LU_BATCH, "getrs"}};
    static const char *const pvn[] = {"NONE", "PARTIAL", "FULL"};
    printf("== CUDA LU dispatch table (cuda/lu_dispatch.cuh): precision, operation, pivoting: n ranges\n");
    for (int es = 8; es >= 4; es -= 4)
        for (int o = 0; o < 5; o++)
            for (int pv = 0; pv < 3; pv++) {
                printf("%c %-12s %-8s:", es == 8 ? 'd' : 's', ops[o].name, pvn[pv]);
                char prev[64] = "", cur[64];
                int n0 = 1;
                for (int n = 1; n <= BSOLVE_MAX_N + 1; n++) {
                    if (n <= BSOLVE_MAX_N)
                        bsi_lu_name(bsi_lu_dispatch(es, ops[o].op, n, ops[o].nrhs, pv, ops[o].list, NULL), cur, sizeof cur);
                    if (n > BSOLVE_MAX_N || (n > 1 && strcmp(cur, prev) != 0)) {
                        printf(" %d..%d %s;", n0, n - 1, prev);
                        n0 = n;
                    }
                    memcpy(prev, cur, sizeof prev);
                }
                printf("\n");
            }
}

/* one line per n: runs of m with the same choice */
static void dump_qr_runs(int es, int op, int nrhs, int n, int a_il, int a_pair, char *out, size_t len)
{
    char prev[96] = "", cur[96];
    size_t at = 0;
    int m0 = n;
    out[0] = 0;
    for (int m = n; m <= BSOLVE_QR_MAX_M + 1; m++) {
        if (m <= BSOLVE_QR_MAX_M) bsq_name(bsq_dispatch(es, op, m, n, nrhs, a_il, a_pair, NULL), cur, sizeof cur);
        if (m > BSOLVE_QR_MAX_M || (m > n && strcmp(cur, prev) != 0)) {
            const int w = snprintf(out + at, len - at, " m=%d..%d %s;", m0, m - 1, prev);
            if (w > 0 && (size_t)w < len - at) at += (size_t)w;
            m0 = m;
        }
        memcpy(prev, cur, sizeof prev);
    }
}

static void dump_qr(void)
{
    static const struct { int op, nrhs; const char *name; } ops[] = {
        {BSQ_GELS, 1, "gels nrhs=1"}, {BSQ_GELS, 2, "gels nrhs=2"}, {BSQ_GELS, 9, "gels nrhs=9"},
        {BSQ_GEQRF, 0, "geqrf"}, {BSQ_GEQRS, 1, "geqrs"}};
    static const char *const lay[] = {"A il", "A cm (pair loads)", "A other"};
    printf("== CUDA QR dispatch table (cuda/qr_dispatch.cuh): precision, operation, n: m ranges (per layout of A\n"
           "   where they differ)\n");
    static char r[3][4096];
    for (int es = 8; es >= 4; es -= 4)
        for (int o = 0; o < 5; o++)
            for (int n = 1; n <= BSOLVE_QR_MAX_N; n++) {
                for (int l = 0; l < 3; l++) dump_qr_runs(es, ops[o].op, ops[o].nrhs, n, l == 0, l == 1, r[l], sizeof r[l]);
                if (strcmp(r[0], r[1]) == 0 && strcmp(r[0], r[2]) == 0)
                    printf("%c %-11s n=%2d:%s\n", es == 8 ? 'd' : 's', ops[o].name, n, r[0]);
                else
                    for (int l = 0; l < 3; l++) printf("%c %-11s n=%2d %s:%s\n", es == 8 ? 'd' : 's', ops[o].name, n, lay[l], r[l]);
            }
}

static Suite *suite(void)
{
    Suite *s = suite_create("dispatch");
    TCase *tc = tl_tcase("dispatch");
    tcase_add_test(tc, t_lu_table);
    tcase_add_test(tc, t_lu_tile);
    tcase_add_test(tc, t_lu_panel);
    tcase_add_test(tc, t_lu_solve);
    tcase_add_test(tc, t_lu_rsteam);
    tcase_add_test(tc, t_lu_smem);
    tcase_add_test(tc, t_lu_gather);
    tcase_add_test(tc, t_qr_table);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (dumping()) {
        dump_lu();
        dump_qr();
    }
    return tl_main(suite());
}

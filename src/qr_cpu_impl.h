/*
 * qr_cpu_impl.h -- precision-generic QR by Givens rotations on tiles of
 * BSI_W systems, one system per SIMD lane; included by qr_cpu.c once per
 * precision between tmpl_on.h and tmpl_off.h.
 *
 * Column j = 0..n-1 is swept bottom-up: the rotation of rows i-1 and i
 * (i = m-1 down to j+1) zeroes A(i,j).  The entry carried up the column is
 * the previous rotation's r, the one value a rotation waits for from the
 * one before, so it stays in a register while the other columns are
 * rotated in place.  Lanes never branch apart: zero guards and rank tests
 * are selects.  The one branch, to the scaled rotation, is taken by a whole
 * vector when some lane holds an entry outside [RTMIN, RTMAX] (dlartg's
 * safe range), i.e. practically never for data of ordinary scale.
 *
 * Tile of an m-row matrix (A, R, B, Q): entry (i, j) of lane l at
 * M[(i + j*m)*W + l].  Rotations: (c, s) vector pairs, in the order made.
 */

#define QX(i, j) (((ptrdiff_t)(i) + (ptrdiff_t)(j) * m) * BSI_W)
#define QV(M, i, j) (*(vreal *)((M) + QX(i, j)))

#define QR_MBITS (sizeof(real) == 8 ? 52 : 23)     /* mantissa bits */
#define QR_EMAXB (sizeof(real) == 8 ? 2046 : 254)  /* twice the exponent bias */
/* dlartg's rtmin = sqrt(safmin) and rtmax = sqrt(safmax / 2), as powers of
 * two: inside [RTMIN, RTMAX] f*f + g*g neither overflows nor loses bits. */
#define QR_RTMIN ((real)(sizeof(real) == 8 ? 0x1p-511 : 0x1p-63))
#define QR_RTMAX ((real)(sizeof(real) == 8 ? 0x1p+511 : 0x1p+63))
#define QR_EPS ((real)(sizeof(real) == 8 ? DBL_EPSILON : FLT_EPSILON))
#define QR_TINY ((real)(sizeof(real) == 8 ? DBL_MIN : FLT_MIN))

static inline vreal FN(qr_splat)(real x) { return FN(bsi_set1)(x); }
static inline vreal FN(qr_max)(vreal a, vreal b) { return FN(bsi_sel)(FN(bsi_gt)(a, b), a, b); }

/* down = 2^-e and up = 2^e for u >= 0 in [2^e, 2^(e+1)), e clamped so that
 * both are normal numbers: scaling by them is exact. */
static inline void FN(qr_pow2)(vreal u, vreal *down, vreal *up)
{
    vmask eb = (vmask)u >> QR_MBITS;
    const vmask lo = (vmask){0} + 1, hi = (vmask){0} + (QR_EMAXB - 1);
    vmask t = FN(bsi_ilt)(eb, lo);
    eb = (t & lo) | (~t & eb);
    t = FN(bsi_igt)(eb, hi);
    eb = (t & hi) | (~t & eb);
    *down = (vreal)(((vmask){0} + QR_EMAXB - eb) << QR_MBITS);
    *up = (vreal)(eb << QR_MBITS);
}

/* sqrt(x) and 1/sqrt(x) for normal x > 0.  The reciprocal comes from the
 * 14-bit estimate and Newton steps on the FMA units, so that the divider
 * only computes the square root on which the next rotation waits. */
static inline void FN(qr_sqrt_rsqrt)(vreal x, vreal *sq, vreal *rs)
{
#if BSI_AVX512
    if (sizeof(real) == 8) {
        *sq = (vreal)_mm512_sqrt_pd((__m512d)x);
        *rs = (vreal)_mm512_rsqrt14_pd((__m512d)x);
    } else {
        *sq = (vreal)_mm512_sqrt_ps((__m512)x);
        *rs = (vreal)_mm512_rsqrt14_ps((__m512)x);
    }
    /* y += y (1/2 - x/2 y^2): relative error 2^-14 -> 2^-27 -> 2^-53 */
    const vreal h = x * (real)0.5, half = FN(qr_splat)((real)0.5);
    for (int it = 0; it < (sizeof(real) == 8 ? 2 : 1); it++) *rs += *rs * (half - h * *rs * *rs);
#else
    *sq = FN(bsi_sqrt)(x);
    *rs = 1 / *sq;
#endif
}

/* The rotation [c s; -s c] taking (f, g) to (r, 0), as LAPACK's dlartg
 * (3.10): r has the sign of f, c >= 0; g = 0 gives (1, 0), f = g = 0 gives
 * (1, 0, r = 0); entries outside the safe range are scaled by an exact
 * power of two first.  Returns r. */
static inline __attribute__((always_inline)) vreal FN(qr_rot)(vreal f, vreal g, vreal *c, vreal *s)
{
    const vreal one = FN(qr_splat)(1), zro = FN(qr_splat)(0);
    const vreal u = FN(qr_max)(FN(bsi_abs)(f), FN(bsi_abs)(g));
    const int scaled =
        !FN(bsi_all)((FN(bsi_ge)(u, FN(qr_splat)(QR_RTMIN)) & FN(bsi_le)(u, FN(qr_splat)(QR_RTMAX))) | FN(bsi_eq)(u, zro));
    vreal fs = f, gs = g, up = one;
    if (__builtin_expect(scaled, 0)) {
        vreal down;
        FN(qr_pow2)(u, &down, &up);
        fs = f * down;
        gs = g * down;
    }
    const vreal d2 = fs * fs + gs * gs;
    const vmask z = FN(bsi_eq)(d2, zro); /* f = g = 0: nothing else underflows to 0 here */
    vreal d, rd;
    FN(qr_sqrt_rsqrt)(FN(bsi_sel)(z, one, d2), &d, &rd);
    const vmask sgn = (vmask)f & (vmask)FN(qr_splat)(-0.0f);
    const vreal rinv = (vreal)((vmask)rd | sgn); /* 1/r */
    *c = FN(bsi_sel)(z, one, fs * rinv);
    *s = gs * rinv;
    vreal r = (vreal)((vmask)FN(bsi_sel)(z, zro, d) | sgn);
    if (__builtin_expect(scaled, 0)) r *= up;
    return r;
}

/* Tiles swept together by the factorization: nt independent rotation
 * chains interleave, so that the FMA and square-root latency of one tile's
 * chain (the r of one rotation is the g of the next) is hidden behind the
 * others' instead of stalling the out-of-order window (as the tridiagonal
 * code's super-tiles do).  nt = 4 up to m = QR_M4 rows, 2 above: the
 * rotations of two columns of 4 tiles (qr_apply2 reads them for every
 * trailing column) take 4 (4m - 6) vectors, about L1's 48 KiB at m = 48,
 * and past that the loads of (c, s) went to L2 (64 x 32: 10% slower with 4
 * tiles than with 2; 96 x 48: 30%).  The chunk's last tiles go 1 at a time.
 * Loops over t < nt (a constant after inlining) unroll. */
#define QR_NT 4
#define QR_M4 48
/* Reals from one half of a tile's rotation buffer to the other (gels keeps
 * two pairs of columns' rotations: qr_factor makes the next pair's while
 * this pair's are applied). */
#define QR_GHALF ((ptrdiff_t)4 * m * BSI_W)
static inline int FN(qr_group)(const int m, const int left)
{
    const int nt = m <= QR_M4 ? 4 : 2;
    return left >= nt ? nt : 1;
}

/* Applies the rotations of column j to one m-vector of each of nt tiles
 * (b[t]: a tile column of A, B or Q^T; G[t]: that tile's rotations, in the
 * order made), walking up the columns with the carried entries in
 * registers: one load and one store per entry. */
static inline __attribute__((always_inline)) void FN(qr_apply)(const int m, const int j, const int nt,
                                                              const real *const *G, real *const *b)
{
    vreal y[QR_NT];
    for (int t = 0; t < nt; t++) y[t] = ((vreal *)b[t])[m - 1];
    for (int i = m - 1, o = 0; i > j; i--, o += 2 * BSI_W)
        for (int t = 0; t < nt; t++) {
            vreal *v = (vreal *)b[t];
            const vreal c = *(const vreal *)(G[t] + o), s = *(const vreal *)(G[t] + o + BSI_W), x = v[i - 1];
            v[i] = c * y[t] - s * x;
            y[t] = c * x + s * y[t];
        }
    for (int t = 0; t < nt; t++) ((vreal *)b[t])[j] = y[t];
}

/* Applies the rotations of column j (at Ga[t]) and then those of column
 * j+1 (at Ga[t] + db: one offset for all tiles spares registers) to one
 * m-vector of each of nt tiles, in one walk up the vector: entry i is final
 * for column j's rotations once the rotation of rows i-1, i has been
 * applied, and is then all that column j+1's rotation of rows i, i+1 waits
 * for, with its own carried entry.  The very operations of two qr_apply
 * calls, on the same operands (the results are bitwise the same), with half
 * the loads and stores: a trailing column is read and written once per two
 * columns of R. */
static inline __attribute__((always_inline)) void FN(qr_apply2_first)(const int m, const int nt,
                                                                     const real *const *Ga, real *const *b,
                                                                     vreal *y, vreal *z)
{
    for (int t = 0; t < nt; t++) { /* column j's rotation of rows m-2, m-1 */
        vreal *v = (vreal *)b[t];
        const vreal c = *(const vreal *)Ga[t], s = *(const vreal *)(Ga[t] + BSI_W), x = v[m - 2];
        z[t] = c * v[m - 1] - s * x;
        y[t] = c * x + s * v[m - 1];
    }
}
static inline __attribute__((always_inline)) void FN(qr_apply2_row)(const int i, const ptrdiff_t o, const int nt,
                                                                   const real *const *Ga, const ptrdiff_t db,
                                                                   real *const *b, vreal *y, vreal *z)
{
    for (int t = 0; t < nt; t++) {
        vreal *v = (vreal *)b[t];
        const vreal c = *(const vreal *)(Ga[t] + o), s = *(const vreal *)(Ga[t] + o + BSI_W), x = v[i - 1];
        const vreal u = c * y[t] - s * x; /* entry i, final for column j */
        y[t] = c * x + s * y[t];
        const vreal cb = *(const vreal *)(Ga[t] + db + o - 2 * BSI_W), sb = *(const vreal *)(Ga[t] + db + o - BSI_W);
        v[i + 1] = cb * z[t] - sb * u;
        z[t] = cb * u + sb * z[t];
    }
}
static inline __attribute__((always_inline)) void FN(qr_apply2_last)(const int j, const int nt, real *const *b,
                                                                    const vreal *y, const vreal *z)
{
    for (int t = 0; t < nt; t++) {
        ((vreal *)b[t])[j + 1] = z[t];
        ((vreal *)b[t])[j] = y[t];
    }
}
static inline __attribute__((always_inline)) void FN(qr_apply2)(const int m, const int j, const int nt,
                                                               const real *const *Ga, const ptrdiff_t db,
                                                               real *const *b)
{
    vreal y[QR_NT], z[QR_NT];
    FN(qr_apply2_first)(m, nt, Ga, b, y, z);
    for (int i = m - 2, o = 2 * BSI_W; i > j; i--, o += 2 * BSI_W) FN(qr_apply2_row)(i, o, nt, Ga, db, b, y, z);
    FN(qr_apply2_last)(j, nt, b, y, z);
}

/* Makes the rotations of column j of the nt tiles T[t], zeroing
 * T(m-1..j+1, j) bottom-up, and stores them at G[t]; R(j,j) lands in
 * T(j,j) (the zeroed entries are not written, nothing reads below R's
 * diagonal).  The tiles' chains interleave. */
static inline __attribute__((always_inline)) void FN(qr_chain_row)(const int m, const int i, const ptrdiff_t o,
                                                                  const int j, const int nt, real *const *T, real *const *G,
                                                                  vreal *g)
{
    for (int t = 0; t < nt; t++) {
        vreal c, s;
        g[t] = FN(qr_rot)(QV(T[t], i - 1, j), g[t], &c, &s);
        *(vreal *)(G[t] + o) = c;
        *(vreal *)(G[t] + o + BSI_W) = s;
    }
}
static inline __attribute__((always_inline)) void FN(qr_chain)(const int m, const int j, const int nt,
                                                              real *const *T, real *const *G)
{
    vreal g[QR_NT];
    for (int t = 0; t < nt; t++) g[t] = QV(T[t], m - 1, j);
    for (int i = m - 1, o = 0; i > j; i--, o += 2 * BSI_W) FN(qr_chain_row)(m, i, o, j, nt, T, G, g);
    for (int t = 0; t < nt; t++) QV(T[t], j, j) = g[t];
}

/* qr_chain of column jc and qr_apply2 of the rotations of columns ja, ja+1
 * (at Ga[t], Ga[t] + db; ja + 2 <= jc) to the m-vectors b[t], in one walk
 * up the rows: the chain waits on square-root latency with the FMA units
 * idle, the update keeps them busy, and the two are independent (column jc
 * is final for columns ja, ja+1 before the chain starts; b is a later
 * column).  The very operations of the two calls, in another order. */
static inline __attribute__((always_inline)) void FN(qr_chain_apply2)(const int m, const int jc, const int nt,
                                                                     real *const *T, real *const *Gc,
                                                                     const int ja, const real *const *Ga,
                                                                     const ptrdiff_t db, real *const *b)
{
    vreal g[QR_NT], y[QR_NT], z[QR_NT];
    for (int t = 0; t < nt; t++) g[t] = QV(T[t], m - 1, jc);
    FN(qr_apply2_first)(m, nt, Ga, b, y, z);
    /* update row i (m-2 .. ja+1) with the chain's row i+1 (m-1 .. jc+1) */
    int i = m - 2;
    ptrdiff_t o = 2 * BSI_W;
    for (; i >= jc; i--, o += 2 * BSI_W) {
        FN(qr_chain_row)(m, i + 1, o - 2 * BSI_W, jc, nt, T, Gc, g);
        FN(qr_apply2_row)(i, o, nt, Ga, db, b, y, z);
    }
    for (; i > ja; i--, o += 2 * BSI_W) FN(qr_apply2_row)(i, o, nt, Ga, db, b, y, z);
    FN(qr_apply2_last)(ja, nt, b, y, z);
    for (int t = 0; t < nt; t++) QV(T[t], jc, jc) = g[t];
}

/* Applies the rotations of column j (at Ga[t]), and of column j+1 (right
 * after them) when two, to tile column k of the nt tiles M[t] (A or B). */
static inline __attribute__((always_inline)) void FN(qr_apply_col)(const int m, const int j, const int two,
                                                                  const int nt, real *const *Ga, real *const *M,
                                                                  const int k)
{
    real *col[QR_NT];
    for (int t = 0; t < nt; t++) col[t] = M[t] + QX(0, k);
    if (two)
        FN(qr_apply2)(m, j, nt, (const real *const *)Ga, (ptrdiff_t)2 * (m - 1 - j) * BSI_W, col);
    else
        FN(qr_apply)(m, j, nt, (const real *const *)Ga, col);
}

/* Lanes whose R(j,j) is negligible, for each of nt tiles (neg[t]):
 * |R(j,j)| <= m eps ||R(0:j, j)||_2, the norm of column j of A (Q
 * preserves it); squares taken after an exact power-of-two scaling so that
 * neither 1e-300 nor 1e300 columns misjudge.  The tiles' maxima and sums
 * are chains of their own, interleaved (each tile's sum in row order). */
static inline __attribute__((always_inline)) void FN(qr_negligible)(const int m, const int j, const int nt,
                                                                   real *const *T, vmask *neg)
{
    vreal mx[QR_NT], ss[QR_NT], down[QR_NT], up;
    for (int t = 0; t < nt; t++) mx[t] = ss[t] = FN(qr_splat)(0);
    for (int i = 0; i <= j; i++)
        for (int t = 0; t < nt; t++) mx[t] = FN(qr_max)(mx[t], FN(bsi_abs)(QV(T[t], i, j)));
    for (int t = 0; t < nt; t++) FN(qr_pow2)(mx[t], &down[t], &up);
    for (int i = 0; i <= j; i++)
        for (int t = 0; t < nt; t++) {
            const vreal x = QV(T[t], i, j) * down[t];
            ss[t] += x * x;
        }
    const vreal tol = FN(qr_splat)((real)m * QR_EPS);
    for (int t = 0; t < nt; t++) {
        const vreal d = QV(T[t], j, j) * down[t];
        neg[t] = FN(bsi_le)(d * d, tol * tol * ss[t]);
    }
}

/* Lanes where multiplying by rd = 1/R(j,j) would lose the answer: R(j,j)
 * below 1/REAL_MAX (rd infinite) or so large that rd is subnormal. */
static inline vmask FN(qr_rd_bad)(vreal rd)
{
    const vreal a = FN(bsi_abs)(rd);
    return FN(bsi_eq)(a, FN(qr_splat)(INFINITY)) | FN(bsi_lt)(a, FN(qr_splat)(QR_TINY));
}

/* Scales each lane of the `count` vectors at X by an exact power of two
 * that brings its largest magnitude into [1, 2), as LAPACK's dgels scales
 * A and B into a safe range: then the back substitution's products R(k,i)
 * x_i stay near cond(A) |b| and cannot overflow (nor underflow) for data
 * of extreme scale, e.g. 1e35 in float.  Lanes already within
 * [2^-QR_SAFE, 2^QR_SAFE] (all lanes, in practice) are left alone: the pass
 * then only reads.  Returns the factor undoing the scaling (1 if none). */
#define QR_SAFE (sizeof(real) == 8 ? 64 : 16)
#define QR_ACC 8
static inline vreal FN(qr_scale)(real *restrict X, const int64_t count)
{
    /* QR_ACC running maxima: one would be a chain of compare and select
     * latencies through the whole tile (a sixth of the time at m = 32,
     * n = 16).  The maximum of finite entries does not depend on the order
     * it is taken in (a NaN lane's does, and the lane is reported and
     * NaN-filled whatever its scale). */
    vreal mq[QR_ACC], down, up;
    for (int q = 0; q < QR_ACC; q++) mq[q] = FN(qr_splat)(0);
    int64_t e = 0;
    for (; e + QR_ACC <= count; e += QR_ACC)
        for (int q = 0; q < QR_ACC; q++) mq[q] = FN(qr_max)(mq[q], FN(bsi_abs)(*(vreal *)(X + (e + q) * BSI_W)));
    for (; e < count; e++) mq[0] = FN(qr_max)(mq[0], FN(bsi_abs)(*(vreal *)(X + e * BSI_W)));
    vreal mx = mq[0];
    for (int q = 1; q < QR_ACC; q++) mx = FN(qr_max)(mx, mq[q]);
    const vreal lo = FN(qr_splat)((real)ldexp(1, -QR_SAFE)), hi = FN(qr_splat)((real)ldexp(1, QR_SAFE));
    if (FN(bsi_all)(FN(bsi_ge)(mx, lo) & FN(bsi_le)(mx, hi))) return FN(qr_splat)(1);
    FN(qr_pow2)(mx, &down, &up);
    for (e = 0; e < count; e++) *(vreal *)(X + e * BSI_W) *= down;
    return up;
}

/* The residual part of a solved B in the header's canonical form, the same
 * on every backend and kernel: rows n..m-1 of column c, the last m - n
 * entries of Q^T b, rotated onto their first coordinate, B(n,c) = their
 * 2-norm (the residual norm ||A x - b||_2, >= 0) and B(n+1..m-1,c) = 0.  The
 * squares are taken after an exact power-of-two scaling by the largest
 * entry, so that neither 1e-300 nor 1e300 data loses the norm. */
static inline void FN(qr_tail)(const int m, const int n, real *restrict B, const int nrhs)
{
    const vreal zro = FN(qr_splat)(0);
    for (int c = 0; c < nrhs && n < m; c++) {
        vreal mx = zro, ss = zro, down, up;
        for (int i = n; i < m; i++) mx = FN(qr_max)(mx, FN(bsi_abs)(QV(B, i, c)));
        FN(qr_pow2)(mx, &down, &up);
        for (int i = n; i < m; i++) {
            const vreal x = QV(B, i, c) * down;
            ss += x * x;
            QV(B, i, c) = zro;
        }
        QV(B, n, c) = FN(bsi_sqrt)(ss) * up;
    }
}

/* Undoes the scalings of A (sa) and B (sb) on a solved B: x = x' sb / sa,
 * the residual rows n..m-1 times sb. */
static inline void FN(qr_unscale)(const int m, const int n, real *restrict B, const int nrhs, vreal sa, vreal sb)
{
    const vreal one = FN(qr_splat)(1);
    if (FN(bsi_all)(FN(bsi_eq)(sa, one) & FN(bsi_eq)(sb, one))) return;
    const vreal sx = sb / sa;
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < m; i++) QV(B, i, c) *= i < n ? sx : sb;
}

/* The prefetch hook of qr_factor, before each trailing column's update
 * (layout.h, bsi_pf): pf[0] is the next chunk's A, pf[1] its B; NULL for
 * none.  qr_pf_calls counts the hook's calls per group of tiles. */
static inline void FN(qr_pf)(bsi_pf *pf)
{
    if (pf) bsi_pf_step(pf[0].left ? &pf[0] : &pf[1]);
}
static int FN(qr_pf_calls)(const int n, const int nrhs)
{
    int calls = 0;
    for (int j = 0; j < n; j += 2) calls += n - (j + 1 + (j + 1 < n)) + nrhs;
    return calls;
}

/* Factors the nt tiles T[t] (m x n) in place, keeping the rotations at
 * G[t] (all of them, in order, when keep; otherwise two pairs of
 * columns' at a time, in the two halves of G[t]) and 1/R(j,j) in rd[t] (1 for negligible R(j,j)).
 * With B (nrhs columns of m rows per tile), applies the rotations to B as
 * well, then solves R x = (Q^T b)(0:n-1) in place (fused gels).  zinfo[t]
 * receives, per lane, the first negligible column (1-based) or 0.
 *
 * Columns go in pairs j, j+1: the rotations of column j, applied to column
 * j+1 alone; those of column j+1; then both sets to the trailing columns
 * (and B) in one walk each (qr_apply2), the next pair's two chains
 * made during the walks of the third and fourth (qr_chain_apply2), so
 * that the chains' dependent operations overlap the walks' independent
 * ones (up to 5% faster at 24 x 12 and 16 x 16; results bitwise the
 * same).  Column by column rather than
 * rotation by rotation: a column is contiguous, where a row of a tile
 * strides m*W reals, and for large m*n rows map to few cache sets. */
static inline __attribute__((always_inline)) void FN(qr_factor)(const int m, const int n, const int nt,
                                                               real *const *T, real *const *G, const int keep,
                                                               vreal *const *rd, real *const *B, const int nrhs,
                                                               vreal *zinfo, bsi_pf *pf)
{
    const vreal zro = FN(qr_splat)(0), one = FN(qr_splat)(1);
    real *Ga[QR_NT], *Gb[QR_NT], *Gn[QR_NT], *Gnb[QR_NT];
    for (int t = 0; t < nt; t++) Ga[t] = G[t], zinfo[t] = zro;
    int made = 0; /* the chains of pair j were made during pair j-2's updates */
    for (int j = 0; j < n; j += 2) {
        const int two = j + 1 < n;
        for (int t = 0; t < nt; t++) Gb[t] = Ga[t] + (ptrdiff_t)2 * (m - 1 - j) * BSI_W;
        if (!made) {
            FN(qr_chain)(m, j, nt, T, Ga);
            if (two) {
                FN(qr_apply_col)(m, j, 0, nt, Ga, T, j + 1);
                FN(qr_chain)(m, j + 1, nt, T, Gb);
            }
        }
        /* The next pair's chains (columns jn, jn+1) go with this pair's
         * updates of later trailing columns (qr_chain_apply2), once column
         * jn (and jn+1) have this pair's rotations; its rotations go after
         * this pair's (keep) or to the other half of G. */
        const int jn = j + 2, next = two && jn < n, nt_cols = n - j - 1 - two, len = nt_cols + (B ? nrhs : 0);
        for (int t = 0; t < nt; t++) {
            Gn[t] = keep ? Gb[t] + (ptrdiff_t)2 * (m - 2 - j) * BSI_W : G[t] + (Ga[t] == G[t]) * QR_GHALF;
            Gnb[t] = Gn[t] + (ptrdiff_t)2 * (m - 1 - jn) * BSI_W;
        }
        int chains = 0; /* of the next pair, made so far */
        const int need = next ? 1 + (jn + 1 < n) : 0, from = jn + 1 < n ? 2 : 1;
        for (int q = 0; q < len; q++) {
            real *const *M = q < nt_cols ? T : B;
            const int k = q < nt_cols ? j + 1 + two + q : q - nt_cols;
            FN(qr_pf)(pf);
            if (chains < need && q >= from) {
                real *col[QR_NT];
                for (int t = 0; t < nt; t++) col[t] = M[t] + QX(0, k);
                FN(qr_chain_apply2)(m, jn + chains, nt, T, chains ? Gnb : Gn, j, (const real *const *)Ga,
                                    (ptrdiff_t)2 * (m - 1 - j) * BSI_W, col);
                if (++chains == 1 && need == 2) FN(qr_apply_col)(m, jn, 0, nt, Gn, T, jn + 1);
            } else {
                FN(qr_apply_col)(m, j, two, nt, Ga, M, k);
            }
        }
        if (chains < need && chains == 0) { /* too few trailing columns to go with */
            FN(qr_chain)(m, jn, nt, T, Gn);
            if (need == 2) FN(qr_apply_col)(m, jn, 0, nt, Gn, T, jn + 1);
            chains = 1;
        }
        if (chains < need) FN(qr_chain)(m, jn + 1, nt, T, Gnb);
        made = next;
        for (int jj = j; jj <= j + two; jj++) {
            vmask neg[QR_NT];
            FN(qr_negligible)(m, jj, nt, T, neg);
            for (int t = 0; t < nt; t++) {
                zinfo[t] = FN(bsi_sel)(neg[t] & FN(bsi_eq)(zinfo[t], zro), FN(qr_splat)((real)(jj + 1)), zinfo[t]);
                rd[t][jj] = one / FN(bsi_sel)(neg[t], one, QV(T[t], jj, jj));
            }
        }
        for (int t = 0; t < nt; t++) Ga[t] = Gn[t];
    }
}

/* b <- R^{-1} b for the nrhs columns of B (rows 0..n-1), column-oriented:
 * each solved x_i is subtracted from the rows above at once (independent
 * FMAs rather than one dot-product chain per row). */
static inline __attribute__((always_inline)) void FN(qr_back)(const int m, const int n, const real *restrict T,
                                                             const vreal *restrict rd, real *restrict B,
                                                             const int nrhs)
{
    int divide = 0;
    for (int i = 0; i < n; i++) divide |= FN(bsi_any)(FN(qr_rd_bad)(rd[i]));
    for (int c = 0; c < nrhs; c++) {
        vreal *b = (vreal *)(B + QX(0, c));
        for (int i = n - 1; i >= 0; i--) {
            vreal x = b[i] * rd[i];
            if (divide) x = FN(bsi_sel)(FN(qr_rd_bad)(rd[i]), b[i] / QV(T, i, i), x);
            b[i] = x;
            const vreal *t = (const vreal *)(T + QX(0, i));
            for (int k = 0; k < i; k++) b[k] -= t[k] * x;
        }
    }
}

/* Per-lane info of a solve (non-finite input wins over rank deficiency);
 * the m x nrhs block of every failed lane is NaN-filled. */
static inline void FN(qr_verdict)(const int m, const int nrhs, const int32_t *nf, vreal zinfo, real *X,
                                  int32_t *linfo)
{
    for (int l = 0; l < BSI_W; l++) {
        linfo[l] = nf[l] ? BSOLVE_INFO_NONFINITE : (int32_t)zinfo[l];
        for (int64_t e = 0; linfo[l] != 0 && e < (int64_t)m * nrhs; e++) X[e * BSI_W + l] = (real)NAN;
    }
}

/* The tile operations, instantiated with a compile-time n for n <= 16
 * (the column loops then unroll) and with a run-time n otherwise; a table
 * indexed by n picks one (index 0: run-time n).  gels and geqrf take nt
 * tiles (4, 2 or 1: qr_group) at T[0..nt-1], likewise G, rd and B, and
 * return each tile's zinfo in zinfo[t]. */
#define QR_TILE_FNS(N)                                                                                       \
    static void FN(qr_gels_t##N)(int m, int n, int nt, real *const *T, real *const *G, vreal *const *rd,      \
                                 real *const *B, int nrhs, vreal *zinfo, bsi_pf *pf)                         \
    {                                                                                                        \
        const int nn = (N) ? (N) : n;                                                                        \
        vreal sa[QR_NT], sb[QR_NT];                                                                          \
        for (int t = 0; t < nt; t++) {                                                                       \
            sa[t] = FN(qr_scale)(T[t], (int64_t)m * nn);                                                     \
            sb[t] = FN(qr_scale)(B[t], (int64_t)m * nrhs);                                                   \
        }                                                                                                    \
        if (nt == 4)                                                                                         \
            FN(qr_factor)(m, nn, 4, T, G, 0, rd, B, nrhs, zinfo, pf);                                        \
        else if (nt == 2)                                                                                    \
            FN(qr_factor)(m, nn, 2, T, G, 0, rd, B, nrhs, zinfo, pf);                                        \
        else                                                                                                 \
            FN(qr_factor)(m, nn, 1, T, G, 0, rd, B, nrhs, zinfo, pf);                                        \
        for (int t = 0; t < nt; t++) {                                                                       \
            FN(qr_back)(m, nn, T[t], rd[t], B[t], nrhs);                                                     \
            FN(qr_tail)(m, nn, B[t], nrhs);                                                                  \
            FN(qr_unscale)(m, nn, B[t], nrhs, sa[t], sb[t]);                                                 \
        }                                                                                                    \
    }                                                                                                        \
    /* rd[t][n] receives A's scale factor */                                                                 \
    static void FN(qr_geqrf_t##N)(int m, int n, int nt, real *const *T, real *const *G, vreal *const *rd,     \
                                  vreal *zinfo, bsi_pf *pf)                                                  \
    {                                                                                                        \
        const int nn = (N) ? (N) : n;                                                                        \
        for (int t = 0; t < nt; t++) rd[t][nn] = FN(qr_scale)(T[t], (int64_t)m * nn);                        \
        if (nt == 4)                                                                                         \
            FN(qr_factor)(m, nn, 4, T, G, 1, rd, NULL, 0, zinfo, pf);                                        \
        else if (nt == 2)                                                                                    \
            FN(qr_factor)(m, nn, 2, T, G, 1, rd, NULL, 0, zinfo, pf);                                        \
        else                                                                                                 \
            FN(qr_factor)(m, nn, 1, T, G, 1, rd, NULL, 0, zinfo, pf);                                        \
    }                                                                                                        \
    static void FN(qr_geqrs_t##N)(int m, int n, const real *T, const real *G, const vreal *rd, real *B,       \
                                  int nrhs)                                                                  \
    {                                                                                                        \
        const int nn = (N) ? (N) : n;                                                                        \
        const vreal sb = FN(qr_scale)(B, (int64_t)m * nrhs);                                                 \
        for (int c = 0; c < nrhs; c++) {                                                                     \
            real *Ga = (real *)G; /* qr_apply_col only reads the rotations */                                 \
            for (int j = 0; j < nn; Ga += (ptrdiff_t)2 * (2 * m - 3 - 2 * j) * BSI_W, j += 2)                \
                FN(qr_apply_col)(m, j, j + 1 < nn, 1, &Ga, &B, c);                                           \
        }                                                                                                    \
        FN(qr_back)(m, nn, T, rd, B, nrhs);                                                                  \
        FN(qr_tail)(m, nn, B, nrhs);                                                                         \
        FN(qr_unscale)(m, nn, B, nrhs, rd[nn], sb);                                                          \
    }
QR_TILE_FNS(0) QR_TILE_FNS(1) QR_TILE_FNS(2) QR_TILE_FNS(3) QR_TILE_FNS(4) QR_TILE_FNS(5) QR_TILE_FNS(6)
QR_TILE_FNS(7) QR_TILE_FNS(8) QR_TILE_FNS(9) QR_TILE_FNS(10) QR_TILE_FNS(11) QR_TILE_FNS(12) QR_TILE_FNS(13)
QR_TILE_FNS(14) QR_TILE_FNS(15) QR_TILE_FNS(16)
#undef QR_TILE_FNS

#define QR_TABLE(op)                                                                                         \
    {FN(op##0), FN(op##1), FN(op##2), FN(op##3), FN(op##4), FN(op##5), FN(op##6), FN(op##7), FN(op##8),       \
     FN(op##9), FN(op##10), FN(op##11), FN(op##12), FN(op##13), FN(op##14), FN(op##15), FN(op##16)}
static void (*const FN(qr_gels_tab)[17])(int, int, int, real *const *, real *const *, vreal *const *,
                                         real *const *, int, vreal *, bsi_pf *) = QR_TABLE(qr_gels_t);
static void (*const FN(qr_geqrf_tab)[17])(int, int, int, real *const *, real *const *, vreal *const *,
                                          vreal *, bsi_pf *) = QR_TABLE(qr_geqrf_t);
static void (*const FN(qr_geqrs_tab)[17])(int, int, const real *, const real *, const vreal *, real *,
                                          int) = QR_TABLE(qr_geqrs_t);
#undef QR_TABLE
#define QR_NIX(n) ((n) <= 16 ? (n) : 0)

/* ---- batch drivers: chunks of tiles distributed over OpenMP threads ------ */

/* Workspace bytes for `elems` reals, rounded to a cache line so that
 * regions and per-thread slices never share one. */
static size_t FN(qr_region)(size_t elems) { return (elems * sizeof(real) + 63) / 64 * 64; }

/* Reals per system-tile of a factorization object: R (of A scaled by
 * qr_scale), the rotations, then rd: 1/R(j,j) and A's scale factor. */
static int64_t FN(qr_ft)(int64_t m, int64_t n)
{
    const int64_t nrot = n * (m - 1) - n * (n - 1) / 2;
    return (m * n + 2 * nrot + n + 1) * BSI_W;
}

typedef struct {
    int S;           /* systems per chunk (a multiple of W) */
    int64_t nchunks;
    int nth;
} FN(qr_plan_t);

/* bcols: columns of B per system in the chunk (0 for geqrf); il: the
 * packed input (A, or B for geqrs) is interleaved. */
static FN(qr_plan_t) FN(qr_plan)(const bsolve_ctx *ctx, int m, int n, int64_t batch, int bcols, int il)
{
    FN(qr_plan_t) p;
    p.S = bsi_chunk_cap(bsi_chunk_systems(m, n, BSI_W, sizeof(real), il), BSI_W, batch,
                        (size_t)m * bcols * sizeof(real));
    /* whole groups of QR_NT tiles (a lone tile sweeps its chains alone:
     * 24 x 12 made chunks of 7 tiles, 4 + 1 + 1 + 1, 35% slower) */
    p.S = (p.S + QR_NT * BSI_W - 1) / (QR_NT * BSI_W) * (QR_NT * BSI_W);
    p.nchunks = (batch + p.S - 1) / p.S;
    p.nth = bsi_cpu_threads(ctx, p.nchunks);
    return p;
}

/* Prefetch cursors for the chunk from system k1 on (none past the batch),
 * its entries spread evenly over the hook's calls for the ntl tiles of
 * the current chunk (calls per group of tiles). */
static void FN(qr_pf_plan)(bsi_pf *pf, int m, int n, int nrhs, int64_t k1, int64_t batch, int S, int ntl,
                           int calls, const real *A, bsolve_layout la, const real *B, bsolve_layout lb)
{
    const int cnt = k1 < batch ? (batch - k1 < S ? (int)(batch - k1) : S) : 0;
    bsi_pf_init(&pf[0], A, la, m * n, k1, cnt, sizeof(real));
    bsi_pf_init(&pf[1], B, lb, B ? m * nrhs : 0, k1, cnt, sizeof(real));
    int groups = 0;
    for (int t = 0; t < ntl; groups++) t += FN(qr_group)(m, ntl - t);
    const int64_t hooks = (int64_t)groups * calls;
    const int per = hooks ? (int)((pf[0].left + pf[1].left + hooks - 1) / hooks) : 1;
    pf[0].per = pf[1].per = per;
}

static bsolve_status FN(qr_gels)(bsolve_ctx *ctx, int m, int n, int nrhs, int64_t batch, const real *A,
                                 bsolve_layout la, real *B, bsolve_layout lb, int32_t *info)
{
    const FN(qr_plan_t) pl = FN(qr_plan)(ctx, m, n, batch, nrhs, la.kind == BSOLVE_INTERLEAVED);
    const int64_t tsa = (int64_t)m * n * BSI_W, tsb = (int64_t)m * nrhs * BSI_W;
    const size_t sa = FN(qr_region)((size_t)pl.S * m * n), sb = FN(qr_region)((size_t)pl.S * m * nrhs),
                 sg = FN(qr_region)((size_t)8 * m * BSI_W), sr = FN(qr_region)((size_t)n * BSI_W);
    const size_t per = sa + sb + QR_NT * (sg + sr);
    char *ws = bsi_workspace(ctx, per * pl.nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_gels: out of memory for a %zu-byte workspace", per * pl.nth);
    void (*const tile)(int, int, int, real *const *, real *const *, vreal *const *, real *const *, int, vreal *,
                       bsi_pf *) = FN(qr_gels_tab)[QR_NIX(n)];
    const int calls = FN(qr_pf_calls)(n, nrhs);
#pragma omp parallel num_threads(pl.nth)
    {
        char *my = ws + per * omp_get_thread_num();
        real *TA = (real *)my, *TB = (real *)(my + sa), *G[QR_NT];
        vreal *rd[QR_NT];
        for (int t = 0; t < QR_NT; t++) {
            G[t] = (real *)(my + sa + sb + t * sg);
            rd[t] = (vreal *)(my + sa + sb + QR_NT * sg + t * sr);
        }
        int32_t nfa[BSI_CHUNK_MAX], nfb[BSI_CHUNK_MAX], nf[BSI_W], linfo[BSI_W];
#pragma omp for schedule(static)
        for (int64_t ch = 0; ch < pl.nchunks; ch++) {
            const int64_t k0 = ch * pl.S;
            const int cnt = batch - k0 < pl.S ? (int)(batch - k0) : pl.S, ntl = (cnt + BSI_W - 1) / BSI_W;
            FN(bsi_pack)(TA, tsa, A, la, m, n, k0, cnt, 1, nfa);
            FN(bsi_pack)(TB, tsb, B, lb, m, nrhs, k0, cnt, 0, nfb);
            bsi_pf pf[2];
            FN(qr_pf_plan)(pf, m, n, nrhs, k0 + pl.S, batch, pl.S, ntl, calls, A, la, B, lb);
            for (int t0 = 0; t0 < ntl;) {
                const int nt = FN(qr_group)(m, ntl - t0);
                real *T[QR_NT], *X[QR_NT];
                vreal zinfo[QR_NT];
                for (int u = 0; u < nt; u++) T[u] = TA + (t0 + u) * tsa, X[u] = TB + (t0 + u) * tsb;
                tile(m, n, nt, T, G, rd, X, nrhs, zinfo, pf);
                for (int u = 0; u < nt; u++, t0++) {
                    for (int l = 0; l < BSI_W; l++) {
                        const int s = t0 * BSI_W + l;
                        nf[l] = s < cnt ? nfa[s] | nfb[s] : 0;
                    }
                    FN(qr_verdict)(m, nrhs, nf, zinfo[u], X[u], linfo);
                    for (int l = 0; l < BSI_W && t0 * BSI_W + l < cnt; l++) info[k0 + t0 * BSI_W + l] = linfo[l];
                }
            }
            FN(bsi_unpack)(TB, tsb, B, lb, m, nrhs, k0, cnt);
        }
    }
    return BSOLVE_SUCCESS;
}

static bsolve_status FN(qr_alloc)(bsolve_ctx *ctx, bsolve_qr *qr)
{
    const int64_t ntiles = qr->batch / BSI_W + (qr->batch % BSI_W != 0); /* no overflow near INT64_MAX */
    const size_t nt = ntiles > 0 ? (size_t)ntiles : 1, ft = (size_t)FN(qr_ft)(qr->m, qr->n) * sizeof(real);
    if (nt > (SIZE_MAX - 64) / ft)
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_qr_create: %lld systems of %lld x %lld exceed the address space",
                        (long long)qr->batch, (long long)qr->m, (long long)qr->n);
    qr->f = aligned_alloc(64, (ft * nt + 63) / 64 * 64);
    qr->info = malloc(sizeof(int32_t) * (qr->batch > 0 ? (size_t)qr->batch : 1));
    if (!qr->f || !qr->info) {
        bsi_cpu_qr_free(qr);
        return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_qr_create: out of memory for %lld systems of %lld x %lld",
                        (long long)qr->batch, (long long)qr->m, (long long)qr->n);
    }
    qr->ld = ntiles * BSI_W;
    return BSOLVE_SUCCESS;
}

static bsolve_status FN(qr_geqrf)(bsolve_ctx *ctx, const real *A, bsolve_layout la, bsolve_qr *qr, int32_t *info)
{
    const int m = (int)qr->m, n = (int)qr->n;
    const int64_t batch = qr->batch, ft = FN(qr_ft)(m, n), tsa = (int64_t)m * n * BSI_W;
    const FN(qr_plan_t) pl = FN(qr_plan)(ctx, m, n, batch, 0, la.kind == BSOLVE_INTERLEAVED);
    real *F = qr->f;
    void (*const tile)(int, int, int, real *const *, real *const *, vreal *const *, vreal *, bsi_pf *) =
        FN(qr_geqrf_tab)[QR_NIX(n)];
    const int calls = FN(qr_pf_calls)(n, 0);
#pragma omp parallel num_threads(pl.nth)
    {
        int32_t nf[BSI_CHUNK_MAX];
#pragma omp for schedule(static)
        for (int64_t ch = 0; ch < pl.nchunks; ch++) {
            const int64_t k0 = ch * pl.S, t0 = k0 / BSI_W;
            const int cnt = batch - k0 < pl.S ? (int)(batch - k0) : pl.S, ntl = (cnt + BSI_W - 1) / BSI_W;
            /* packed straight into the object's own tiles */
            FN(bsi_pack)(F + ft * t0, ft, A, la, m, n, k0, cnt, 1, nf);
            bsi_pf pf[2];
            FN(qr_pf_plan)(pf, m, n, 0, k0 + pl.S, batch, pl.S, ntl, calls, A, la, NULL, la);
            for (int t = 0; t < ntl;) {
                const int nt = FN(qr_group)(m, ntl - t);
                real *T[QR_NT], *G[QR_NT];
                vreal *rd[QR_NT], zinfo[QR_NT];
                for (int u = 0; u < nt; u++) {
                    T[u] = F + ft * (t0 + t + u);
                    G[u] = T[u] + tsa;
                    rd[u] = (vreal *)(T[u] + ft - (int64_t)(n + 1) * BSI_W);
                }
                tile(m, n, nt, T, G, rd, zinfo, pf);
                for (int u = 0; u < nt; u++, t++)
                    for (int l = 0; l < BSI_W && t * BSI_W + l < cnt; l++) {
                        const int s = t * BSI_W + l;
                        const int32_t v = nf[s] ? BSOLVE_INFO_NONFINITE : (int32_t)zinfo[u][l];
                        qr->info[k0 + s] = v;
                        info[k0 + s] = v;
                    }
            }
        }
    }
    return BSOLVE_SUCCESS;
}

static bsolve_status FN(qr_geqrs)(bsolve_ctx *ctx, const bsolve_qr *qr, int nrhs, real *B, bsolve_layout lb,
                                  int32_t *info)
{
    const int m = (int)qr->m, n = (int)qr->n;
    const int64_t batch = qr->batch, ft = FN(qr_ft)(m, n), tsa = (int64_t)m * n * BSI_W,
                  tsb = (int64_t)m * nrhs * BSI_W;
    const FN(qr_plan_t) pl = FN(qr_plan)(ctx, m, n, batch, nrhs, lb.kind == BSOLVE_INTERLEAVED);
    const size_t per = FN(qr_region)((size_t)pl.S * m * nrhs);
    char *ws = bsi_workspace(ctx, per * pl.nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_geqrs: out of memory for a %zu-byte workspace", per * pl.nth);
    const real *F = qr->f;
    void (*const tile)(int, int, const real *, const real *, const vreal *, real *, int) =
        FN(qr_geqrs_tab)[QR_NIX(n)];
#pragma omp parallel num_threads(pl.nth)
    {
        real *TB = (real *)(ws + per * omp_get_thread_num());
        int32_t nfb[BSI_CHUNK_MAX], nf[BSI_W], linfo[BSI_W];
#pragma omp for schedule(static)
        for (int64_t ch = 0; ch < pl.nchunks; ch++) {
            const int64_t k0 = ch * pl.S, t0 = k0 / BSI_W;
            const int cnt = batch - k0 < pl.S ? (int)(batch - k0) : pl.S;
            FN(bsi_pack)(TB, tsb, B, lb, m, nrhs, k0, cnt, 0, nfb);
            for (int t = 0; t * BSI_W < cnt; t++) {
                const real *T = F + ft * (t0 + t);
                real *X = TB + t * tsb;
                tile(m, n, T, T + tsa, (const vreal *)(T + ft - (int64_t)(n + 1) * BSI_W), X, nrhs);
                vreal finfo;
                for (int l = 0; l < BSI_W; l++) {
                    const int s = t * BSI_W + l;
                    nf[l] = s < cnt ? nfb[s] : 0;
                    finfo[l] = s < cnt ? qr->info[k0 + s] : 0;
                }
                FN(qr_verdict)(m, nrhs, nf, finfo, X, linfo);
                if (info)
                    for (int l = 0; l < BSI_W && t * BSI_W + l < cnt; l++) info[k0 + t * BSI_W + l] = linfo[l];
            }
            FN(bsi_unpack)(TB, tsb, B, lb, m, nrhs, k0, cnt);
        }
    }
    return BSOLVE_SUCCESS;
}

/* Q = G_1^T G_2^T ... (Q^T A = R with Q^T = ... G_2 G_1), formed from the
 * identity by applying each rotation to a pair of columns; R with zeros
 * below the diagonal.  One tile at a time through the workspace. */
static bsolve_status FN(qr_export)(bsolve_ctx *ctx, const bsolve_qr *qr, real *Q, bsolve_layout lq, real *R,
                                   bsolve_layout lr)
{
    const int m = (int)qr->m, n = (int)qr->n;
    const int64_t batch = qr->batch, ntiles = (batch + BSI_W - 1) / BSI_W, ft = FN(qr_ft)(m, n),
                  tsa = (int64_t)m * n * BSI_W;
    const int nth = bsi_cpu_threads(ctx, ntiles);
    const size_t sq = FN(qr_region)((size_t)m * m * BSI_W), per = sq + FN(qr_region)((size_t)n * n * BSI_W);
    char *ws = bsi_workspace(ctx, per * nth);
    if (!ws) return bsi_fail(ctx, BSOLVE_ENOMEM, "bsolve_qr_export: out of memory for a %zu-byte workspace", per * nth);
    const real *F = qr->f;
#pragma omp parallel for num_threads(nth) schedule(static)
    for (int64_t t = 0; t < ntiles; t++) {
        real *TQ = (real *)(ws + per * omp_get_thread_num()), *TR = (real *)((char *)TQ + sq);
        const real *T = F + ft * t, *G = T + tsa;
        const int64_t k0 = t * BSI_W;
        const int nl = batch - k0 < BSI_W ? (int)(batch - k0) : BSI_W;
        if (Q) {
            for (int j = 0; j < m; j++)
                for (int i = 0; i < m; i++) QV(TQ, i, j) = FN(qr_splat)(i == j);
            for (int j = 0; j < n; j++)
                for (int i = m - 1; i > j; i--, G += 2 * BSI_W) {
                    const vreal c = *(const vreal *)G, s = *(const vreal *)(G + BSI_W);
                    for (int r = 0; r < m; r++) {
                        const vreal x = QV(TQ, r, i - 1), y = QV(TQ, r, i);
                        QV(TQ, r, i - 1) = c * x + s * y;
                        QV(TQ, r, i) = c * y - s * x;
                    }
                }
            FN(bsi_unpack)(TQ, 0, Q, lq, m, m, k0, nl);
        }
        if (R) {
            const vreal sa = *(const vreal *)(T + ft - BSI_W); /* A's scale factor */
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    *(vreal *)(TR + ((ptrdiff_t)i + (ptrdiff_t)j * n) * BSI_W) =
                        i <= j ? QV(T, i, j) * sa : FN(qr_splat)(0);
            FN(bsi_unpack)(TR, 0, R, lr, n, n, k0, nl);
        }
    }
    return BSOLVE_SUCCESS;
}

#undef QR_NIX
#undef QR_NT
#undef QR_M4
#undef QR_GHALF
#undef QX
#undef QV
#undef QR_MBITS
#undef QR_EMAXB
#undef QR_RTMIN
#undef QR_RTMAX
#undef QR_EPS
#undef QR_TINY
#undef QR_SAFE
#undef QR_ACC

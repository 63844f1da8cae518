/*
 * newton_reuse.c -- chemical equilibrium in many cells by Newton's method
 * with a frozen Jacobian: factor once (bsolve_dgetrf), solve every iteration
 * (bsolve_dgetrs), refactor only when convergence slows down.
 *
 * Each cell of a (made-up) flame holds hydrogen and oxygen at its own
 * temperature T, pressure P and equivalence ratio phi.  Its equilibrium
 * composition over six species
 *
 *     H2  O2  H2O  H  O  OH
 *
 * solves six nonlinear equations: four equilibria
 *
 *     H2 <=> 2 H,  O2 <=> 2 O,  H2 + 1/2 O2 <=> H2O,  1/2 H2 + 1/2 O2 <=> OH
 *
 * and the conservation of H and O atoms.  The unknowns are y_i = ln n_i
 * (n_i: moles of species i), which keeps every n_i positive.
 *
 * Equilibrium constants come from the 298 K enthalpies and free energies of
 * formation with the van 't Hoff equation at constant enthalpy: rough at
 * flame temperatures, but the numerics are those of a real code.
 */
#include "batchsolve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NS 6 /* species = unknowns = equations */
enum { H2, O2, H2O, H, O, OH };
static const char *species[NS] = {"H2", "O2", "H2O", "H", "O", "OH"};

typedef struct {
    double T, P;     /* K, bar */
    double bH, bO;   /* moles of H and O atoms */
    double lnK[4];   /* the four equilibrium constants (standard state 1 bar) */
} cell_data;

/* ln K(T) of a reaction of standard enthalpy dH and free energy dG (J/mol at 298.15 K). */
static double ln_K(double dH, double dG, double T)
{
    const double R = 8.314462618, T0 = 298.15;
    return -dG / (R * T0) - dH / R * (1.0 / T - 1.0 / T0);
}

static void setup_cell(cell_data *c, double T, double P, double phi)
{
    c->T = T;
    c->P = P;
    c->bH = 2.0 * phi; /* phi mol H2 ... */
    c->bO = 1.0;       /* ... with 0.5 mol O2 */
    c->lnK[0] = ln_K(2 * 218.0e3, 2 * 203.3e3, T); /* H2 <=> 2H */
    c->lnK[1] = ln_K(2 * 249.2e3, 2 * 231.7e3, T); /* O2 <=> 2O */
    c->lnK[2] = ln_K(-241.8e3, -228.6e3, T);       /* H2 + 1/2 O2 <=> H2O */
    c->lnK[3] = ln_K(39.0e3, 34.3e3, T);           /* 1/2 H2 + 1/2 O2 <=> OH */
}

/* Residual F(y) of one cell, and, if J != NULL, its Jacobian dF/dy
 * (J[i + j*NS] = dF_i/dy_j, column-major). */
static void equations(const cell_data *c, const double *y, double *F, double *J)
{
    double n[NS], N = 0.0;
    for (int i = 0; i < NS; i++) N += n[i] = exp(y[i]);
    const double lnN = log(N), lnP = log(c->P);

    /* ln p_i = y_i - ln N + ln P: partial pressures in bar */
    F[0] = 2 * y[H] - y[H2] - lnN + lnP - c->lnK[0];
    F[1] = 2 * y[O] - y[O2] - lnN + lnP - c->lnK[1];
    F[2] = y[H2O] - y[H2] - 0.5 * y[O2] + 0.5 * lnN - 0.5 * lnP - c->lnK[2];
    F[3] = y[OH] - 0.5 * y[H2] - 0.5 * y[O2] - c->lnK[3];
    F[4] = (2 * n[H2] + 2 * n[H2O] + n[H] + n[OH]) / c->bH - 1.0;
    F[5] = (2 * n[O2] + n[H2O] + n[O] + n[OH]) / c->bO - 1.0;
    if (!J) return;

    for (int j = 0; j < NS; j++) {
        double w = n[j] / N; /* d lnN / d y_j */
        double *col = J + j * NS;
        col[0] = 2.0 * (j == H) - (j == H2) - w;
        col[1] = 2.0 * (j == O) - (j == O2) - w;
        col[2] = (j == H2O) - (j == H2) - 0.5 * (j == O2) + 0.5 * w;
        col[3] = (j == OH) - 0.5 * (j == H2) - 0.5 * (j == O2);
        col[4] = n[j] * (2.0 * (j == H2) + 2.0 * (j == H2O) + (j == H) + (j == OH)) / c->bH;
        col[5] = n[j] * (2.0 * (j == O2) + (j == H2O) + (j == O) + (j == OH)) / c->bO;
    }
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void)
{
    const int64_t ncells = 200000;
    const double tol = 1e-10;  /* on max |F_i| */
    const int max_iter = 60;

    /* The batch is built directly in the INTERLEAVED layout: entry (i, j) of
     * cell c's Jacobian at J[(i + j*NS)*ncells + c], F_i at F[i*ncells + c]. */
    cell_data *cells = malloc(ncells * sizeof *cells);
    double *y = malloc(ncells * NS * sizeof *y);       /* interleaved too */
    double *J = malloc(ncells * NS * NS * sizeof *J);
    double *F = malloc(ncells * NS * sizeof *F);
    double *res = malloc(ncells * sizeof *res);        /* max |F| per cell */
    int32_t *info = malloc(ncells * sizeof *info);
    if (!cells || !y || !J || !F || !res || !info) {
        fprintf(stderr, "newton_reuse: out of memory\n");
        return 1;
    }

    /* Cells: T in [1500, 3500] K, P in [1, 20] bar, phi in [0.5, 2] -- the
     * first three are fixed probes printed at the end. */
    srand(42);
    for (int64_t c = 0; c < ncells; c++) {
        double T = 1500 + 2000 * (rand() / (double)RAND_MAX);
        double P = 1 + 19 * (rand() / (double)RAND_MAX);
        double phi = 0.5 + 1.5 * (rand() / (double)RAND_MAX);
        if (c < 3) { T = 1500 + 1000 * c; P = 1; phi = 1; }
        setup_cell(&cells[c], T, P, phi);
        /* Initial guess: complete combustion to H2O, traces of the rest. */
        double n0[NS] = {1e-3, 1e-3, 0, 1e-3, 1e-3, 1e-3};
        n0[H2O] = phi <= 1 ? phi : 1.0;
        if (phi < 1) n0[O2] = 0.5 * (1 - phi);
        if (phi > 1) n0[H2] = phi - 1;
        for (int i = 0; i < NS; i++) y[i * ncells + c] = log(n0[i]);
    }

    bsolve_ctx *ctx;
    bsolve_lu *lu;
    if (bsolve_ctx_create(&ctx, BSOLVE_BACKEND_AUTO) != BSOLVE_SUCCESS) return 1;
    printf("newton_reuse: %lld cells x %d species on the %s backend\n", (long long)ncells, NS,
           bsolve_backend_name(bsolve_ctx_backend(ctx)));
    /* One factorization object for the whole batch, reused by every refactorization. */
    bsolve_status st = bsolve_lu_create(ctx, BSOLVE_PREC_D, BSOLVE_PIVOT_PARTIAL, NS, ncells, &lu);
    if (st != BSOLVE_SUCCESS) {
        fprintf(stderr, "bsolve_lu_create: %s\n", bsolve_ctx_message(ctx));
        return 1;
    }
    const bsolve_layout L = bsolve_layout_interleaved(ncells);

    int factorizations = 0, iter;
    int refactor = 1;            /* the first iteration needs a Jacobian */
    double prev_worst = INFINITY, t_getrf = 0, t_getrs = 0;
    int64_t failed = 0;

    printf("%5s %8s %14s %12s\n", "iter", "Jacobian", "max |F|", "unconverged");
    for (iter = 0; iter <= max_iter; iter++) {
        /* Residuals (and, when refactoring, Jacobians) of every cell. */
        double worst = 0.0;
        int64_t unconverged = 0;
        for (int64_t c = 0; c < ncells; c++) {
            double yc[NS], Fc[NS], Jc[NS * NS];
            for (int i = 0; i < NS; i++) yc[i] = y[i * ncells + c];
            equations(&cells[c], yc, Fc, refactor ? Jc : NULL);
            double r = 0.0;
            for (int i = 0; i < NS; i++) {
                F[i * ncells + c] = Fc[i];
                if (!(fabs(Fc[i]) <= r)) r = fabs(Fc[i]); /* NaN counts as worst */
            }
            if (refactor)
                for (int e = 0; e < NS * NS; e++) J[e * ncells + c] = Jc[e];
            res[c] = r;
            if (!(r <= worst)) worst = r;
            unconverged += !(r <= tol);
        }
        printf("%5d %8s %14.3e %12lld\n", iter, refactor ? "new" : "frozen", worst, (long long)unconverged);
        if (unconverged == 0 || iter == max_iter) break;

        /* Convergence slowed down (or went backwards) with the frozen
         * Jacobian: the next iteration refactors.  This iteration still uses
         * the current factors. */
        int slow = !refactor && worst > 0.25 * prev_worst;
        prev_worst = worst;

        if (refactor) {
            double t0 = seconds();
            st = bsolve_dgetrf(ctx, J, L, lu, info);
            t_getrf += seconds() - t0;
            if (st != BSOLVE_SUCCESS) {
                fprintf(stderr, "bsolve_dgetrf: %s\n", bsolve_ctx_message(ctx));
                return 1;
            }
            factorizations++;
        }

        /* Newton step: J d = F, y <- y - d.  One call for all cells. */
        double t0 = seconds();
        st = bsolve_dgetrs(ctx, lu, 1, F, L, info);
        t_getrs += seconds() - t0;
        if (st != BSOLVE_SUCCESS) {
            fprintf(stderr, "bsolve_dgetrs: %s\n", bsolve_ctx_message(ctx));
            return 1;
        }

        for (int64_t c = 0; c < ncells; c++) {
            if (info[c] != 0 || res[c] <= tol) continue; /* failed cells keep y; converged ones stay */
            /* Damping: no species changes by more than a factor e^2 per step. */
            double dmax = 0.0;
            for (int i = 0; i < NS; i++) dmax = fmax(dmax, fabs(F[i * ncells + c]));
            double scale = dmax > 2.0 ? 2.0 / dmax : 1.0;
            for (int i = 0; i < NS; i++) y[i * ncells + c] -= scale * F[i * ncells + c];
        }
        refactor = slow;
    }

    /* Report. */
    for (int64_t c = 0; c < ncells; c++) failed += !(res[c] <= tol);
    printf("\n%d iterations, %d factorizations (bsolve_dgetrf %.3f s in all, bsolve_dgetrs %.3f s)\n", iter,
           factorizations, t_getrf, t_getrs);
    printf("%lld of %lld cells converged to max |F| <= %.0e\n", (long long)(ncells - failed), (long long)ncells, tol);

    printf("\nequilibrium mole fractions at P = 1 bar, phi = 1:\n%8s", "T [K]");
    for (int i = 0; i < NS; i++) printf(" %10s", species[i]);
    printf("\n");
    for (int c = 0; c < 3; c++) {
        double N = 0.0;
        for (int i = 0; i < NS; i++) N += exp(y[i * ncells + c]);
        printf("%8.0f", cells[c].T);
        for (int i = 0; i < NS; i++) printf(" %10.3e", exp(y[i * ncells + c]) / N);
        printf("\n");
    }

    bsolve_lu_destroy(lu);
    bsolve_ctx_destroy(ctx);
    free(cells); free(y); free(J); free(F); free(res); free(info);
    return failed ? 1 : 0;
}

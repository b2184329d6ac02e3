/* models/fit.c: see fit.h. gsl_multifit_wlinear on the design matrix;
 * the roofline fit solves one such problem per linear piece. */
#include "models/fit.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>

#include "sim/core/util.h"

/* The prefill form's attention regressor, (n - p + h) * (n + p) =
 * n^2 - p^2 + h * (n + p); written as n^2 - p^2 when h = 0, so that the
 * form before the ramp gives its values bit for bit. */
static double prefill_attn(double h, double n, double p)
{
    return h > 0 ? (n - p + h) * (n + p) : n * n - p * p;
}

double model_fit_prefill_eval(const double c[MODEL_FIT_NCOEF], double h, double n, double p)
{
    return c[0] + c[1] * (n - p) + c[2] * prefill_attn(h, n, p);
}

double model_fit_decode_linear_eval(const double c[MODEL_FIT_NCOEF], double b, double ctx)
{
    return c[0] + c[1] * b + c[2] * ctx;
}

/* coef[0..p) minimizing sum w_i (x_i . coef - t_i)^2, rows of p regressors
 * in x. 0, or -1 on a zero column or a GSL failure. */
static int wls(const double *x, size_t p, const double *t, const double *w, size_t n, double *coef)
{
    /* Columns differ by ~10 orders of magnitude (1, n, n^2): scale each to
     * unit max so the SVD inside GSL stays well conditioned. */
    double scale[MODEL_FIT_NCOEF] = {0};
    SIM_ASSERT(p <= MODEL_FIT_NCOEF);
    if (n < p)
        return -1;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < p; j++)
            if (fabs(x[i * p + j]) > scale[j])
                scale[j] = fabs(x[i * p + j]);
    for (size_t j = 0; j < p; j++)
        if (scale[j] == 0)
            return -1;
    gsl_matrix *X = gsl_matrix_alloc(n, p), *cov = gsl_matrix_alloc(p, p);
    gsl_vector *T = gsl_vector_alloc(n), *W = gsl_vector_alloc(n), *c = gsl_vector_alloc(p);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, p);
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < p; j++)
            gsl_matrix_set(X, i, j, x[i * p + j] / scale[j]);
        gsl_vector_set(T, i, t[i]);
        gsl_vector_set(W, i, w[i]);
    }
    double chisq;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int st = gsl_multifit_wlinear(X, W, T, c, cov, &chisq, ws);
    gsl_set_error_handler(old);
    for (size_t j = 0; st == GSL_SUCCESS && j < p; j++)
        coef[j] = gsl_vector_get(c, j) / scale[j];
    gsl_multifit_linear_free(ws);
    gsl_matrix_free(cov);
    gsl_matrix_free(X);
    gsl_vector_free(c);
    gsl_vector_free(W);
    gsl_vector_free(T);
    return st == GSL_SUCCESS ? 0 : -1;
}

void model_fit_stats(const double *pred, const double *y, size_t n, model_fit_t *out)
{
    double mean = 0, ss_tot = 0, ss_res = 0, max_rel = 0, sum_rel = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; i < n; i++) {
        double rel = fabs(pred[i] - y[i]) / y[i];
        max_rel = rel > max_rel ? rel : max_rel;
        sum_rel += rel;
        ss_res += (pred[i] - y[i]) * (pred[i] - y[i]);
        ss_tot += (y[i] - mean) * (y[i] - mean);
    }
    out->max_rel_err = max_rel;
    out->mean_rel_err = n ? sum_rel / (double)n : 0;
    out->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
    out->n_points = n;
}

int model_fit_wls(const double *x, const double *y, size_t n, model_fit_t *out)
{
    if (n < MODEL_FIT_NCOEF)
        return -1;
    double *w = sim_xmalloc(n * sizeof *w, "fit w"), *pred = sim_xmalloc(n * sizeof *pred, "fit pred");
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        if (!(y[i] > 0))
            goto done;
        w[i] = 1.0 / (y[i] * y[i]);
    }
    if (wls(x, MODEL_FIT_NCOEF, y, w, n, out->coef) != 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        pred[i] = 0;
        for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
            pred[i] += out->coef[j] * x[i * MODEL_FIT_NCOEF + j];
    }
    model_fit_stats(pred, y, n, out);
    rc = 0;
done:
    sim_free(w);
    sim_free(pred);
    return rc;
}

double model_fit_roof_eval(const model_fit_roof_pt_t *pt, double d0, double u)
{
    double a = u * pt->m[0], b = u * pt->m[1];
    return d0 + (a > pt->c[0] ? a : pt->c[0]) + (b > pt->c[1] ? b : pt->c[1]);
}

static double roof_objective(const model_fit_roof_pt_t *pts, size_t n, double d0, double u)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double r = (model_fit_roof_eval(&pts[i], d0, u) - pts[i].y) / pts[i].y;
        s += r * r;
    }
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The best so far of the candidates (d0, u) tried. */
typedef struct roof_best {
    double obj, d0, u;
} roof_best_t;

static void roof_try(roof_best_t *b, const model_fit_roof_pt_t *pts, size_t n, double d0, double u)
{
    if (!(u > 0) || !isfinite(u) || !(d0 >= 0))
        return;
    double obj = roof_objective(pts, n, d0, u);
    if (obj < b->obj)
        *b = (roof_best_t){obj, d0, u};
}

/* Check the points and collect the sorted, distinct breakpoints u = c/m
 * at which a term of some point turns from compute- to memory-bound into
 * bk[0..*nb) (room for 2n). 0, or -1 when a point is invalid (y <= 0, a
 * negative time), no point has memory time, or (with_d0) the memory
 * times do not differ, so d0 cannot be told from them. */
static int roof_breakpoints(const model_fit_roof_pt_t *pts, size_t n, int with_d0, double *bk,
                            size_t *nb)
{
    double mlo = INFINITY, mhi = 0;
    size_t nbk = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(pts[i].y > 0))
            return -1;
        for (int j = 0; j < 2; j++) {
            if (!(pts[i].m[j] >= 0) || !(pts[i].c[j] >= 0))
                return -1;
            if (pts[i].m[j] > 0 && pts[i].c[j] > 0)
                bk[nbk++] = pts[i].c[j] / pts[i].m[j];
        }
        double m = pts[i].m[0] + pts[i].m[1];
        mlo = m < mlo ? m : mlo;
        mhi = m > mhi ? m : mhi;
    }
    if (!(mhi > 0) || (with_d0 && !(mhi - mlo > 1e-9 * mhi)))
        return -1; /* no memory time, or none that differs from d0 */
    qsort(bk, nbk, sizeof *bk, cmp_double);
    size_t k = 0;
    for (size_t i = 0; i < nbk; i++)
        if (k == 0 || bk[i] > bk[k - 1])
            bk[k++] = bk[i];
    *nb = k;
    return 0;
}

/* Try the candidates of the piece u in [lo, hi] on best. Within it,
 * pred_i = d0 + u A_i + K_i: A_i sums the memory-bound terms' m, K_i the
 * compute-bound terms' c. The objective is a convex quadratic there, so
 * its minimum over the box is the free minimum or the best of the edges
 * d0 = 0, u = lo, u = hi, each solved exactly. x (2n), t and w (n) are
 * scratch. */
static void roof_piece(roof_best_t *best, const model_fit_roof_pt_t *pts, size_t n, int with_d0,
                       double lo, double hi, double *x, double *t, double *w)
{
    double probe = isfinite(hi) ? 0.5 * (lo + hi) : (lo > 0 ? 2 * lo : 1);
    double sw = 0, sa = 0, saa = 0, sr = 0, sar = 0;
    for (size_t i = 0; i < n; i++) {
        double a = 0, kk = 0;
        for (int j = 0; j < 2; j++) {
            if (probe * pts[i].m[j] >= pts[i].c[j])
                a += pts[i].m[j];
            else
                kk += pts[i].c[j];
        }
        w[i] = 1.0 / (pts[i].y * pts[i].y);
        t[i] = pts[i].y - kk;
        x[2 * i] = 1;
        x[2 * i + 1] = a;
        sw += w[i];
        sa += w[i] * a;
        saa += w[i] * a * a;
        sr += w[i] * t[i];
        sar += w[i] * a * t[i];
    }
    double coef[2];
    if (with_d0 && wls(x, 2, t, w, n, coef) == 0 && coef[1] >= lo && coef[1] <= hi)
        roof_try(best, pts, n, coef[0], coef[1]);
    if (saa > 0) { /* the edge d0 = 0 (all of it without d0) */
        double u = sar / saa;
        roof_try(best, pts, n, 0, u < lo ? lo : u > hi ? hi : u);
    }
    /* Edges u = lo and u = hi; where no point is memory-bound (saa = 0) u
     * is only bounded, and hi, the slowest memory still hidden, is what
     * is kept. */
    for (int e = 0; e < 2; e++) {
        double ub = e ? lo : hi;
        if (ub > 0 && isfinite(ub)) {
            double d0 = with_d0 ? (sr - ub * sa) / sw : 0;
            roof_try(best, pts, n, d0 > 0 ? d0 : 0, ub);
        }
    }
}

int model_fit_roof(const model_fit_roof_pt_t *pts, size_t n, int with_d0, double *d0_out,
                   double *u_out)
{
    if (n < (with_d0 ? 2u : 1u))
        return -1;
    double *bk = sim_xmalloc(2 * n * sizeof *bk, "fit breakpoints");
    double *x = sim_xmalloc(2 * n * sizeof *x, "fit x"), *t = sim_xmalloc(n * sizeof *t, "fit t");
    double *w = sim_xmalloc(n * sizeof *w, "fit w");
    size_t nb = 0;
    int rc = -1;
    if (roof_breakpoints(pts, n, with_d0, bk, &nb) == 0) {
        roof_best_t best = {INFINITY, 0, 0};
        /* Pieces [0, bk[0]], [bk[0], bk[1]], ..., [bk[nb-1], inf). */
        for (size_t p = 0; p <= nb; p++)
            roof_piece(&best, pts, n, with_d0, p ? bk[p - 1] : 0, p < nb ? bk[p] : INFINITY, x, t,
                       w);
        if (isfinite(best.obj)) {
            *d0_out = best.d0;
            *u_out = best.u;
            rc = 0;
        }
    }
    sim_free(bk);
    sim_free(x);
    sim_free(t);
    sim_free(w);
    return rc;
}

/* The prefill fit at ramp h: coefficients into f, and the objective (sum
 * of squared relative errors), or INFINITY when the fit fails or breaks a
 * constraint of model_fit_prefill. x is scratch for 3 * cnt. */
static double prefill_at(const double *n, const double *p, const double *y, size_t cnt, double h,
                         double *x, model_fit_t *f)
{
    for (size_t i = 0; i < cnt; i++) {
        x[3 * i] = 1;
        x[3 * i + 1] = n[i] - p[i];
        x[3 * i + 2] = prefill_attn(h, n[i], p[i]);
    }
    if (model_fit_wls(x, y, cnt, f) != 0)
        return INFINITY;
    if (!(f->coef[0] >= 0 && f->coef[1] >= 0 && f->coef[2] >= 0) || f->coef[2] * h > f->coef[1])
        return INFINITY;
    double obj = 0;
    for (size_t i = 0; i < cnt; i++) {
        double r = (model_fit_prefill_eval(f->coef, h, n[i], p[i]) - y[i]) / y[i];
        obj += r * r;
    }
    return obj;
}

int model_fit_prefill(const double *n, const double *p, const double *y, size_t cnt,
                      model_fit_t *out, double *ramp_tok)
{
    enum { STEPS = 16 * 20 + 1 }; /* 2^0 .. 2^20 in steps of 2^(1/16) */
    if (cnt < MODEL_FIT_NCOEF)
        return -1;
    double *x = sim_xmalloc(3 * cnt * sizeof *x, "fit prefill x");
    double grid[STEPS + 1], obj[STEPS + 1];
    model_fit_t f;
    size_t best = 0, steps = STEPS;
    /* Without a pass over a cached prefix the ramp cannot be told from
     * the dense term (at p = 0, c2 h k adds to c1 k), so it stays 0. */
    int prefix = 0;
    for (size_t i = 0; i < cnt; i++)
        prefix |= p[i] > 0;
    if (!prefix)
        steps = 0;
    grid[0] = 0;
    for (size_t i = 1; i <= STEPS; i++)
        grid[i] = exp2((double)(i - 1) / 16);
    for (size_t i = 0; i <= steps; i++) {
        obj[i] = prefill_at(n, p, y, cnt, grid[i], x, &f);
        if (obj[i] < obj[best])
            best = i;
    }
    int rc = -1;
    if (isfinite(obj[best])) {
        /* Golden-section search between the neighbours of the best grid
         * point (the objective is smooth in h there); a fixed number of
         * steps, so the result is the same on every run. */
        double lo = grid[best > 0 ? best - 1 : 0], hi = grid[best < steps ? best + 1 : steps];
        double h = grid[best], fh = obj[best];
        const double g = 0.5 * (sqrt(5.0) - 1);
        double a = hi - g * (hi - lo), b = lo + g * (hi - lo);
        double fa = prefill_at(n, p, y, cnt, a, x, &f), fb = prefill_at(n, p, y, cnt, b, x, &f);
        for (int it = 0; it < 60; it++) {
            if (fa < fb) {
                hi = b, b = a, fb = fa, a = hi - g * (hi - lo);
                fa = prefill_at(n, p, y, cnt, a, x, &f);
            } else {
                lo = a, a = b, fa = fb, b = lo + g * (hi - lo);
                fb = prefill_at(n, p, y, cnt, b, x, &f);
            }
        }
        if (fa < fh)
            h = a, fh = fa;
        if (fb < fh)
            h = b, fh = fb;
        prefill_at(n, p, y, cnt, h, x, out);
        double *pred = sim_xmalloc(cnt * sizeof *pred, "fit prefill pred");
        for (size_t i = 0; i < cnt; i++)
            pred[i] = model_fit_prefill_eval(out->coef, h, n[i], p[i]);
        model_fit_stats(pred, y, cnt, out);
        sim_free(pred);
        *ramp_tok = h;
        rc = 0;
    }
    sim_free(x);
    return rc;
}

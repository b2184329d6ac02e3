/* models/fit.h: weighted least squares (GSL) for cost-model fits, and the
 * polynomial forms the fitted cost model evaluates. Relative-error
 * weighting (w = 1/y^2) so short and long prompts, small and large
 * batches count alike. */
#ifndef MODEL_FIT_H
#define MODEL_FIT_H

#include <stddef.h>
#include <stdint.h>

#define MODEL_FIT_NCOEF 3

typedef struct model_fit {
    double coef[MODEL_FIT_NCOEF];
    double max_rel_err;  /* max |pred - y| / y over the points */
    double mean_rel_err;
    double r2;           /* unweighted coefficient of determination */
    size_t n_points;
} model_fit_t;

/* Prefill form, seconds, for a pass of k = n - p new tokens over a prefix
 * of p (models/cost_fitted.c gives its derivation):
 *   T(n, p) = c0 + c1*k + c2*(k + h)*(n + p)
 * c0 the fixed time of a pass, c1 the dense (weight-GEMM) time per token at
 * saturation, c2 the attention time per unit of n^2 - p^2 = k*(n + p) at
 * saturation, and h = ramp_tok the new tokens at which attention runs at
 * half its saturated rate (its utilization is k / (k + h)). ramp_tok = 0
 * is the form before the ramp, c0 + c1*(n - p) + c2*(n^2 - p^2). */
double model_fit_prefill_eval(const double coef[MODEL_FIT_NCOEF], double ramp_tok, double n_tok,
                              double prefix_tok);
/* The linear decode form of calibration files written before the
 * bounded one (models/roof.h): T(B, ctx) = d0 + d1*B + d2*ctx, seconds.
 * Still read; `calib fit` no longer writes it. */
double model_fit_decode_linear_eval(const double coef[MODEL_FIT_NCOEF], double batch,
                                    double ctx_tok);

/* Fit coef minimizing sum ((pred - y) / y)^2 where row i's regressors are
 * x[i*3 .. i*3+2]. n >= 3 and every y > 0. Returns 0, or -1 when GSL
 * fails (singular design). */
int model_fit_wls(const double *x, const double *y, size_t n, model_fit_t *out);

/* Fit the prefill form to cnt points (n_tok[i], prefix_tok[i], y[i]
 * seconds) minimizing sum ((pred - y) / y)^2 over c0, c1, c2 >= 0 and
 * ramp_tok >= 0 with c2 * ramp_tok <= c1 (so T never grows with the
 * prefix at a fixed n). For each ramp_tok the coefficients are a weighted
 * linear fit (model_fit_wls); ramp_tok is searched on a fixed grid (0, then
 * 1 to 2^20 tokens in steps of 2^(1/16)) and refined by golden-section
 * search between the best point's neighbours: deterministic, O(cnt x 400).
 * Without a point over a cached prefix (p > 0) ramp_tok is 0: at p = 0
 * the ramp's term c2 h k cannot be told from the dense c1 k.
 * Returns 0 with the coefficients in out and the ramp in *ramp_tok, or -1
 * when no ramp gives a fit with every coefficient >= 0 (cnt < 3, a point
 * with y <= 0, or data the form cannot follow). */
int model_fit_prefill(const double *n_tok, const double *prefix_tok, const double *y, size_t cnt,
                      model_fit_t *out, double *ramp_tok);

/* The error statistics of out (not coef) for predictions pred of y. */
void model_fit_stats(const double *pred, const double *y, size_t n, model_fit_t *out);

/* One point of a roofline fit: y = d0 + max(u m[0], c[0]) + max(u m[1], c[1])
 * seconds, where m[] are memory times at 100% of the bandwidth (so u is
 * 1 / the achieved fraction) and c[] compute times, both >= 0. */
typedef struct model_fit_roof_pt {
    double m[2], c[2], y;
} model_fit_roof_pt_t;

/* Minimize sum ((pred - y) / y)^2 over u > 0 and d0 >= 0 (d0 = 0 unless
 * with_d0). Exact and deterministic: between the breakpoints u = c/m each
 * point is linear in (d0, u), so each piece is a weighted linear least
 * squares (GSL) under box constraints, and the best piece wins.
 * O(n x distinct breakpoints). Returns 0, or -1 when the points cannot
 * tell d0 from u (with_d0 and every point has the same memory time) or
 * determine u (every point compute-bound), or n is too small. */
int model_fit_roof(const model_fit_roof_pt_t *pts, size_t n, int with_d0, double *d0, double *u);

/* The prediction of one roofline-fit point at (d0, u). */
double model_fit_roof_eval(const model_fit_roof_pt_t *pt, double d0, double u);

#endif

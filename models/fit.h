/* models/fit.h: weighted linear least squares (GSL) for cost-model fits,
 * and the polynomial forms the fitted cost model evaluates. Relative-error
 * weighting (w = 1/y^2) so short and long prompts count alike. */
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

/* Prefill form: T(n, p) = c0 + c1*(n - p) + c2*(n^2 - p^2), seconds. */
double model_fit_prefill_eval(const double coef[MODEL_FIT_NCOEF], double n_tok, double prefix_tok);
/* Decode iteration form: T(B, ctx) = d0 + d1*B + d2*ctx, seconds. */
double model_fit_decode_eval(const double coef[MODEL_FIT_NCOEF], double batch, double ctx_tok);

/* Fit coef minimizing sum ((pred - y) / y)^2 where row i's regressors are
 * x[i*3 .. i*3+2]. n >= 3 and every y > 0. Returns 0, or -1 when GSL
 * fails (singular design). */
int model_fit_wls(const double *x, const double *y, size_t n, model_fit_t *out);

#endif

/* models/fit.c: see fit.h. gsl_multifit_wlinear on the design matrix. */
#include "models/fit.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>

double model_fit_prefill_eval(const double c[MODEL_FIT_NCOEF], double n, double p)
{
    return c[0] + c[1] * (n - p) + c[2] * (n * n - p * p);
}

double model_fit_decode_eval(const double c[MODEL_FIT_NCOEF], double b, double ctx)
{
    return c[0] + c[1] * b + c[2] * ctx;
}

int model_fit_wls(const double *x, const double *y, size_t n, model_fit_t *out)
{
    if (n < MODEL_FIT_NCOEF)
        return -1;
    /* Columns differ by ~10 orders of magnitude (1, n, n^2): scale each to
     * unit max so the SVD inside GSL stays well conditioned. */
    double scale[MODEL_FIT_NCOEF] = {0};
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
            if (fabs(x[i * MODEL_FIT_NCOEF + j]) > scale[j])
                scale[j] = fabs(x[i * MODEL_FIT_NCOEF + j]);
    for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
        if (scale[j] == 0)
            return -1;
    gsl_matrix *X = gsl_matrix_alloc(n, MODEL_FIT_NCOEF);
    gsl_vector *Y = gsl_vector_alloc(n), *W = gsl_vector_alloc(n);
    gsl_vector *c = gsl_vector_alloc(MODEL_FIT_NCOEF);
    gsl_matrix *cov = gsl_matrix_alloc(MODEL_FIT_NCOEF, MODEL_FIT_NCOEF);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, MODEL_FIT_NCOEF);
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        if (!(y[i] > 0))
            goto done;
        for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
            gsl_matrix_set(X, i, j, x[i * MODEL_FIT_NCOEF + j] / scale[j]);
        gsl_vector_set(Y, i, y[i]);
        gsl_vector_set(W, i, 1.0 / (y[i] * y[i]));
    }
    double chisq;
    gsl_error_handler_t *old = gsl_set_error_handler_off();
    int st = gsl_multifit_wlinear(X, W, Y, c, cov, &chisq, ws);
    gsl_set_error_handler(old);
    if (st != GSL_SUCCESS)
        goto done;
    for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
        out->coef[j] = gsl_vector_get(c, j) / scale[j];
    double mean = 0, ss_tot = 0, ss_res = 0, max_rel = 0, sum_rel = 0;
    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; i < n; i++) {
        double pred = 0;
        for (size_t j = 0; j < MODEL_FIT_NCOEF; j++)
            pred += out->coef[j] * x[i * MODEL_FIT_NCOEF + j];
        double rel = fabs(pred - y[i]) / y[i];
        max_rel = rel > max_rel ? rel : max_rel;
        sum_rel += rel;
        ss_res += (pred - y[i]) * (pred - y[i]);
        ss_tot += (y[i] - mean) * (y[i] - mean);
    }
    out->max_rel_err = max_rel;
    out->mean_rel_err = sum_rel / (double)n;
    out->r2 = ss_tot > 0 ? 1.0 - ss_res / ss_tot : 1.0;
    out->n_points = n;
    rc = 0;
done:
    gsl_multifit_linear_free(ws);
    gsl_matrix_free(cov);
    gsl_vector_free(c);
    gsl_vector_free(W);
    gsl_vector_free(Y);
    gsl_matrix_free(X);
    return rc;
}

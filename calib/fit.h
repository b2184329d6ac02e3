/* calib/fit.h: the fitting tool: measurement points in, a calibration file
 * out (coefficients, R^2, max and mean relative error, source, date). */
#ifndef CALIB_FIT_H
#define CALIB_FIT_H

#include <stdio.h>

#include "sim/util.h"

/* Fit the prefill and decode models to the points in in_path and write the
 * calibration to out_path atomically; print a short report to report
 * (may be NULL). 0 or -1 (err names the file and JSON path). */
int calib_fit_file(const char *in_path, const char *out_path, FILE *report, sim_err_t *err);

#endif

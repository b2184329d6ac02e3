/* calib/fit.h: the fitting tool: measurements in, a calibration file out
 * (coefficients, R^2, max and mean relative error, source, date), its
 * residuals beside it. */
#ifndef CALIB_FIT_H
#define CALIB_FIT_H

#include <stdio.h>

#include "sim/core/util.h"

/* Fit the models the measurements in in_path support (prefill and decode
 * from end-to-end points or from calib/gpu per-layer times, host-device
 * copies, a network's time by size) and write the calibration to out_path
 * atomically, its residuals to OUT.residuals.csv, and with plot a residual
 * plot OUT.residuals.png (gnuplot); print a short report to report (may
 * be NULL). 0 or -1 (err names the file and JSON path). */
int calib_fit_file(const char *in_path, const char *out_path, FILE *report, int plot,
                   sim_err_t *err);

#endif

/* calib/report.h: `calib report` (what a calibration file says and
 * predicts) and `calib roofline` (a calibration derived from GPU specs for
 * hardware with no measurements, marked as not measured). */
#ifndef CALIB_REPORT_H
#define CALIB_REPORT_H

#include <stdio.h>

#include "sim/core/util.h"

/* Print path's models, their errors and predictions for standard shapes
 * beside the paper's measured points (data_dir holds calib/data). */
int calib_report(const char *path, const char *data_dir, FILE *out, sim_err_t *err);

/* Sample the roofline cost model of (hardware, model) at standard shapes,
 * keep the samples as OUT.points.json and fit them into out_path. */
int calib_roofline(const char *hardware, const char *model, const char *out_path, FILE *report,
                   sim_err_t *err);

#endif

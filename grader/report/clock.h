/*
 * clock: the GPU's SM clock over timed runs, summed up for the reports: the
 * range read, the highest maximum it was held to, the samples dropped as taken
 * while throttled and the runs that throttled throughout (results.h's struct
 * gpu_clock, one per run).
 */
#ifndef LG_REPORT_CLOCK_H
#define LG_REPORT_CLOCK_H

#include "base/template.h"
#include "grade/results.h"

#include <stdbool.h>

struct clock_tally {
    int lo, hi, limit, dropped, throttled;
};

/* Adds a case's two runs (the function's and the reference's); whether either lost samples to
 * throttling. */
bool clock_tally_add(struct clock_tally *t, const struct case_result *cr);

/* gpu_clock_min, gpu_clock_max, gpu_clock_limit, has_gpu_clock_limit and
 * throttle_threshold_pct, as both templates name them; nothing where no clock was read. */
void set_clock_range(struct tpl_value *m, const struct clock_tally *t);

/* The report's timing line: the clocks over every timed run of the submission and of the
 * references it was compared with (gpu_clock, the range, gpu_clock_dropped, ...). */
void set_gpu_clock(struct tpl_value *m, const struct results *r);

#endif

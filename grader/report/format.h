/*
 * format: numbers and measurements as report text (times, speedups, points,
 * sizes, percentages), and the limits on how much of a message a report shows.
 *
 * Every fmt_* function returns a new string the caller frees; a value that is
 * not there (not measured, not finite, not positive) prints as NO_VALUE. The
 * strings are safe Markdown as they are (digits, '.', 'x', '%').
 */
#ifndef LG_REPORT_FORMAT_H
#define LG_REPORT_FORMAT_H

#include "base/stats.h"
#include "base/template.h"
#include "grade/results.h"

#include <stdbool.h>
#include <stddef.h>

/* How much of a message or finding a report shows: tables stay tables. */
#define MESSAGE_CHARS 240
#define FINDING_CHARS 600
#define NAME_CHARS 120
/* Code blocks: hard-wrapped so LaTeX does not overflow the page, and capped. */
#define CODE_WIDTH 100
#define CODE_LINES 60
/* Shown where there is no value (an en dash). */
#define NO_VALUE "\xE2\x80\x93"

/* Milliseconds with four significant digits: 580.0, 106.5, 50.37, 4.415, 0.01234. */
char *fmt_ms(double ms);
/* A timing's median; NO_VALUE when it is not valid. */
char *fmt_timing(const struct timing *t);
/* A timing's interquartile range ("0" when every sample agreed). */
char *fmt_spread(const struct timing *t);
/* A speedup: "2.50x". */
char *fmt_x(double x);
/* Points: 10, 7.5, 3.25. */
char *fmt_points(double p);
/* A size from interpolation: three significant digits, no exponent. */
char *fmt_size(double x);
/* num / den as a whole percentage: "45%". */
char *fmt_pct(double num, double den);

/* Sets key to s, an owned string that is already safe Markdown, and frees s. */
void set_own(struct tpl_value *m, const char *key, char *s);
/* The same for a number of points, and key_one: whether it reads "1" (the template then says
 * "1 point", never "1 points"). */
void set_own_points(struct tpl_value *m, const char *key, char *s);

/* A case's throughput in one cell, "rate": GFLOP/s, GB/s, both, or NO_VALUE. */
void set_rate(struct tpl_value *m, const struct case_result *cr);
/* A case's mismatching outputs, "mismatches" (each with its first indices), and
 * "has_mismatches": the same in every report, whatever its format escapes. */
void set_mismatches(struct tpl_value *m, const struct case_result *cr);

/* The median of n values (NAN when n is 0); x is not changed. */
double median_of(const double *x, size_t n);

/* Whether s has anything but white space. */
bool has_text(const char *s);

#endif

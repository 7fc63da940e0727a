/*
 * cases: a report's view of the cases of an exercise across its variants. The
 * same case id in several variants is one case (one row of a comparison, one
 * point of a plot); the student view leaves hidden cases out of every one.
 * Everything returned points into the results, which must outlive it.
 */
#ifndef LG_REPORT_CASES_H
#define LG_REPORT_CASES_H

#include "grade/results.h"
#include "report/render.h"

#include <stdbool.h>
#include <stddef.h>

struct case_key {
    const char *id;
    const struct case_result *first; /* the first visible case with that id: its params */
};

/* Whether the report shows a case in full: not a hidden case in the student view. */
bool case_visible(const struct report_ctx *rc, const struct case_result *cr);

/* Visible case ids of an exercise in order of first appearance. Caller frees the array. */
size_t exercise_cases(const struct report_ctx *rc, const struct exercise_result *ex,
                      struct case_key **out);

/* The variant's visible case with this id, or NULL. */
const struct case_result *find_case(const struct report_ctx *rc, const struct variant_result *vr,
                                    const char *id);

/* The CPU baseline time of a case: the same for every variant that measured it; 0: none. */
double case_baseline(const struct report_ctx *rc, const struct exercise_result *ex, const char *id);

/* Titles, falling back on the ids. */
const char *variant_title(const struct variant_result *vr);
const char *exercise_title(const struct exercise_result *ex);

bool variant_is_gpu(const struct variant_result *vr);
/* Whether some case of a variant was timed with its transfers too (a device variant). */
bool has_transfer_times(const struct variant_result *vr);

/* The value of the case's size parameter `name`; false when it has none. */
bool case_param(const struct case_result *cr, const char *name, double *val);
/* The first size parameter that every key has and whose value varies; NULL when none. */
const char *varying_param(const struct case_key *keys, size_t n);
/* m.sizes: the case's parameters as a table cell, "n=1024,m=3". */
void set_case_sizes(struct tpl_value *m, const struct case_result *cr);
/* m.points and m.max_points: the case's points as every report prints them (points.h, where
 * rc->shown is set; the exact ones otherwise), the same on the page as in the Markdown. */
void set_case_points(const struct report_ctx *rc, struct tpl_value *m,
                     const struct case_result *cr);
/* Whether a case's message is worth showing: a passing case says "passed", which its verdict
 * already says, and why a case was not run is said once, on the first page, for all the cases
 * it stopped. */
bool case_shows_message(const struct case_result *cr);
/* A case's times, speed-ups (with their interval, the pairs it came from and why the series
 * stopped: docs/timing.md, "When a series stops") and rate, for report.md's table and the
 * page's alike, in m's language: numbers and words, safe in either format. */
void set_case_times(struct tpl_value *m, const struct messages *msgs, const struct case_result *cr);

/* Why a correct case has no time, said with what the grader saw (results.h's not_timed), in m's
 * language: the console's last column, report.md's and report.html's notes. "" for a case that
 * was timed. Caller frees. */
char *case_not_timed_reason(const struct messages *m, const struct case_result *cr);

/* How many of r's cases ended in XX (the count r keeps where none of its cases says so: a
 * stand-in for results that could not be read). Counted apart from the cases not timed, which
 * leave a grade incomplete too (grade/score.h) but are no XX. */
size_t grader_error_cases(const struct results *r);

#endif

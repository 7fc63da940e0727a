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
    const char *sizes;
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

/* The value of `key` in a sizes string such as "n=100000,m=100". */
bool size_param(const char *sizes, const char *key, double *val);
/* The first size parameter that every key has and whose value varies. Caller frees. */
char *varying_param(const struct case_key *keys, size_t n);

#endif

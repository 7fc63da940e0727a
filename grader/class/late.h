/*
 * late: the late policy, and lateness measured against it.
 *
 * The policy comes from the lab's `late:` (labs/README.md) with the command
 * line's overrides, and per-student extensions from a CSV (student_id,extension:
 * a length of time such as "2d" added to the deadline, or a new deadline).
 * A submission is late when it came after its deadline plus the grace period;
 * every started day late takes per_day percent of the maximum off, at most cap
 * percent; later than max_days days (when set) counts 0. When the LMS only
 * marked a submission late (Canvas), with no time, one day is charged and the
 * record says the days are not known.
 *
 * Lateness is recorded in results->lms.late (results_lms.h); the score stays
 * what was earned and the exports take results_final_score(). Applying the
 * policy again (a new deadline, an extension) recomputes it from the recorded
 * submission time, without grading again.
 *
 * struct late_policy owns its extensions; late_policy_release frees them.
 */
#ifndef LG_LATE_H
#define LG_LATE_H

#include "base/error.h"
#include "grade/results.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stddef.h>

/* The command line's overrides of the lab's policy; NULL: the lab's. */
struct late_options {
    const char *deadline, *grace, *per_day, *cap, *max_days;
    const char *extensions; /* CSV: student_id,extension */
};

struct late_extension {
    char *student;
    long long deadline; /* 0: extra seconds instead */
    double extra_s;
};

struct late_policy {
    bool set;
    long long deadline;
    double grace_s, per_day, cap, max_days;
    struct late_extension *ext;
    size_t n_ext;
};

void late_policy_release(struct late_policy *p);
/* The lab's policy with o's overrides (o may be NULL). A deadline given on the command
 * line makes a policy of a lab that has none. -1 with err naming the bad value. */
int late_policy_make(const struct lab *lab, const struct late_options *o, struct late_policy *p,
                     struct error *err);

/* Measure r's lateness (r->lms.late.submitted_at, or the LMS's mark) against p for
 * student_id and record it in r->lms.late. Nothing when p is not set. */
void late_apply(const struct late_policy *p, const char *student_id, struct results *r);

#endif

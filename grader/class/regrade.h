/*
 * regrade: the audit trail of grades that changed. When a student who already
 * has results is graded again, one row is appended to <lab out>/regrades.csv
 * (RFC 4180, created with its header):
 *   date,student_id,previous_score,new_score,previous_submission,new_submission,
 *   previous_grader,new_grader,reason
 * The reason is the one given (--reason), else what changed: "forced re-grade
 * (--force)", "submission changed", or "grader, lab or options changed".
 * Scores are the final ones (late penalty taken off). Rows are appended with
 * one write to a file opened O_APPEND, so parallel workers never interleave.
 */
#ifndef LG_REGRADE_H
#define LG_REGRADE_H

#include "base/error.h"
#include "grade/results.h"

#include <stdbool.h>

/* Compare r with the results at json_path (if any) and append the row. */
int regrade_audit(const char *lab_out, const char *json_path, const struct results *r,
                  const char *reason, bool forced, struct error *err);

#endif

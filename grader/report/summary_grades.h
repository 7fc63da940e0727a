/*
 * summary_grades: the class summary's grades (summary.md's first sections; summary.c puts the
 * summary together): the students with no grade yet and why (grade/score.h), the scores of
 * the complete grades with their histogram, and the students' table. Each adds its names to
 * the template value m (templates/README.md, "Names in summary.md"); rs is sorted by id.
 */
#ifndef LG_REPORT_SUMMARY_GRADES_H
#define LG_REPORT_SUMMARY_GRADES_H

#include "base/template.h"
#include "grade/results.h"
#include "report/render.h"

#include <stddef.h>

/* A row's student: id and name as the summary's tables show them, sanitized and clipped. */
void summary_student_cells(struct tpl_value *row, const struct results *r);

/* incomplete, has_incomplete, n_incomplete: the students whose grade is incomplete. */
void summary_incomplete(const struct results *const *rs, size_t n, struct tpl_value *m);
/* The scores of the complete grades: mean, median, min, max, the histogram and its plot. */
void summary_scores(struct report_ctx *rc, const struct results *const *rs, size_t n,
                    struct tpl_value *m);
/* students: one row each, with its status when the grade is incomplete. */
void summary_students(const struct results *const *rs, size_t n, struct tpl_value *m);

#endif

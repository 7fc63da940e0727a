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
/* The scores of a class's complete grades (an incomplete one is no grade: grade/score.h), the
 * data behind summary.md's and index.html's figures. scores is owned (free it). */
struct class_scores {
    double *scores;
    size_t n;                  /* the complete grades */
    double max_score, sum, lo; /* max_score: the highest maximum of every student */
    double hi;
};
void class_scores_collect(const struct results *const *rs, size_t n, struct class_scores *out);
/* n_graded, all_graded (of n_students), max_score, mean, median, min and max ("–" with no
 * complete grade) into m. */
void class_scores_set(const struct class_scores *cs, size_t n_students, struct tpl_value *m);

/* The scores of the complete grades: mean, median, min, max, the histogram and its plot. */
void summary_scores(struct report_ctx *rc, const struct results *const *rs, size_t n,
                    struct tpl_value *m);
/* columns (the exercises) and students: one row each, with its grade or why there is none
 * yet, its points per exercise, lateness, failures by verdict and the statuses that apply
 * (docs/html.md names the keys). similar (may be NULL: no similarity check was run): per
 * student, how many similarity pairs and groups name them; the row then links to
 * similarity.html's evidence. */
void summary_students(const struct results *const *rs, size_t n, const int *similar,
                      struct tpl_value *m);

#endif

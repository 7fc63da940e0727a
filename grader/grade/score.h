/*
 * score: what a score is of, for everyone who shows or exports one (report/, class/), from
 * results alone (nothing re-run, nothing read back from words):
 *
 * - whether a student's grade is complete, and if not why: the grader's side failed
 *   somewhere (a case ended in XX, a case's timing could not be taken, results.json could
 *   not be read). One predicate, grade_gap_of(), decides it for every export: an incomplete
 *   grade is exported with empty points and its status, never as a number an LMS imports;
 * - the state of an exercise's speed points: measured, or not measured here and why (their
 *   variant did not run here, or nothing was timed);
 * - the part of the maximum that was graded here (the cases that ran, and the speed points
 *   when measured), so that a score is stated for what ran and the rest apart.
 *
 * A lab has one maximum, the same on every machine: results.max_score counts every case and
 * the speed points whatever ran (score_performance sets perf_max_points before measuring).
 *
 * Speed points themselves are decided in score.c (grading.h's score_performance): full at or
 * under full_at times the reference's time, falling log-linearly to none at zero_at
 * (labs/README.md, "Performance points").
 */
#ifndef LG_SCORE_H
#define LG_SCORE_H

#include "grade/results.h"

#include <stdbool.h>
#include <stddef.h>

/* Why a grade is not complete, on the grader's side (never the submission's fault). */
enum grade_gap {
    GAP_NONE,         /* complete: every case that could run here was graded */
    GAP_UNREADABLE,   /* results.json could not be read (results.unreadable) */
    GAP_GRADER_ERROR, /* some case ended in XX: the grader or the machine failed */
    GAP_NOT_TIMED,    /* some case was graded but could not be timed (the machine was busy) */
};

struct grade_gap_info {
    enum grade_gap gap;
    size_t cases;       /* the cases it affects (0 for GAP_UNREADABLE) */
    const char *reason; /* the first affected case's message, or why results were unreadable;
                           "" when none; points into the results */
};

/* The one place that decides whether a student's grade is incomplete, and why. info may be
 * NULL. The first gap found in this order wins: unreadable, grader error, not timed. */
enum grade_gap grade_gap_of(const struct results *r, struct grade_gap_info *info);
/* Whether a case is one the grader's side failed (XX, or not timed): it counts neither for
 * nor against the student, and leaves the grade incomplete. */
bool case_is_grader_gap(const struct case_result *c);
/* The gap as every export's status column writes it: "grader-error", "not-timed" (NULL for
 * GAP_NONE). Unreadable results are "grader-error" too: grading them again is the cure. */
const char *grade_gap_status(enum grade_gap g);

/* The state of an exercise's speed points. */
enum perf_state {
    PERF_NONE,      /* the exercise has no speed points */
    PERF_MEASURED,  /* measured on the cases of their variant that ran */
    PERF_NOT_RUN,   /* their variant's cases were not run here (or failed on the grader's side) */
    PERF_NOT_TIMED, /* their variant ran but nothing was timed (--no-timing) */
};

/* *variant (may be NULL): the variant they are measured on, when there is one to name. */
enum perf_state exercise_perf_state(const struct exercise_result *ex,
                                    const struct variant_result **variant);

/* What a score is of. graded_max: the points of the cases graded here (not skipped, not XX)
 * plus measured speed points; not_graded: the rest of max_score. */
struct score_scope {
    double graded_max, not_graded;
};
void score_scope_of(const struct results *r, struct score_scope *s);

#endif

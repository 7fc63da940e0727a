/*
 * class_stats: the class's cases, speedups and failures, gathered once over every student's
 * results, for summary.md and index.html alike (summary.c puts them in the class's context,
 * which both render; html_class.c adds the page's links and figures to it).
 *
 * - per case (exercise, variant, case id): how many students passed, failed, were not run or
 *   hit a grader error; each failure's verdict and message, and who failed it;
 * - per exercise and variant: each student's speedup over the reference and over the CPU
 *   baseline (the geometric mean of their passing, timed cases), with whose it is;
 * - per verdict: how many cases and students, and where it happened most.
 *
 * Students are named by their index in the results array the stats were collected from.
 * struct class_stats owns its arrays; the ids and messages point into the results, which must
 * outlive it. class_stats_release() frees it.
 */
#ifndef LG_REPORT_CLASS_STATS_H
#define LG_REPORT_CLASS_STATS_H

#include "grade/results.h"

#include <stdbool.h>
#include <stddef.h>

struct failure_count {
    enum verdict v;
    const char *message; /* the results' own; NULL: none */
    int count;
};

struct case_stat {
    const char *ex, *ex_title, *variant, *variant_title, *case_id;
    const struct case_result *first; /* the first student's: params, hidden, slow */
    int pass, fail, skipped, grader;
    struct failure_count *fails;
    size_t n_fails, alloc_fails;
    size_t *failed_by; /* the students who failed it, in the results' order */
    size_t n_failed_by, alloc_failed_by;
};

struct speed_stat {
    const char *ex, *variant, *variant_title;
    double *vs_ref, *vs_base; /* one geometric mean per student */
    size_t *ref_of;           /* whose each vs_ref is */
    size_t n_ref, n_base, alloc_ref, alloc_ref_of, alloc_base;
};

struct place_count {
    char *where;
    int count;
};

struct verdict_stat {
    enum verdict v;
    int cases, students;
    struct place_count *places;
    size_t n_places, alloc_places;
};

struct class_stats {
    struct case_stat *cs;
    size_t n_cs, alloc_cs;
    struct speed_stat *ss;
    size_t n_ss, alloc_ss;
    struct verdict_stat vstats[V_GRADER + 1];
};

void class_stats_init(struct class_stats *st);
/* Every student of rs (results without ids for every exercise, variant and case are left
 * out: they cannot be matched with the others'). */
void class_stats_collect(struct class_stats *st, const struct results *const *rs, size_t n);
void class_stats_release(struct class_stats *st);

/* The verdict most of the case's failing students had (false when none failed), how many
 * had it, and its most frequent message (NULL: none; *shared: more than one student had it). */
bool case_stat_common_failure(const struct case_stat *c, enum verdict *v, int *count,
                              const char **message, bool *shared);

#endif

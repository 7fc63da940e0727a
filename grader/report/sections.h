/*
 * sections: the parts of the per-submission report's context (templates/README.md
 * names every key), one file each:
 *
 *   variant.c   a variant and its cases: the case table, notes, compute-sanitizer
 *   lost.c      what cost points (and the grader's errors, apart)
 *   compare.c   the comparison of methods per case; pinned against pageable memory
 *   handin.c    the lab's hand-in table: when the GPU pays off against the CPU
 *   sizeplot.c  time against size, with the break-even sizes
 *
 * Each adds to a template value that the caller owns; student.c puts them together.
 */
#ifndef LG_REPORT_SECTIONS_H
#define LG_REPORT_SECTIONS_H

#include "base/template.h"
#include "grade/results.h"
#include "report/render.h"

/* A variant as report.md's `variants` list shows it. Caller frees. */
struct tpl_value *variant_value(const struct report_ctx *rc, const struct variant_result *vr);

/* The variant's failures (into lost) and grader errors (into grader), consecutive cases
 * that failed alike as one item; hidden cases as one count in the student view. */
void add_lost(const struct report_ctx *rc, const struct exercise_result *ex,
              const struct variant_result *vr, struct tpl_value *lost, struct tpl_value *grader);

/* The exercise's `comparisons` (one table per case: every method's time and speedups). */
void add_comparisons(const struct report_ctx *rc, const struct exercise_result *ex,
                     struct tpl_value *exv);
/* The exercise's `pinned_pairs`: per case, the pageable time over the pinned time. */
void add_pinned_factors(const struct report_ctx *rc, const struct exercise_result *ex,
                        struct tpl_value *exv);

/* The speedup the hand-in table looks for, and the size it reports the speedup at. */
#define SPEEDUP_GOAL 2.0
#define SPEEDUP_AT_SIZE 1e6

/* The exercise's rows of the report's `speedup_table`. */
void add_speedup_rows(const struct report_ctx *rc, const struct exercise_result *ex,
                      struct tpl_value *list);

/* The exercise's `plot` (time against size, written to plots/) and its break-evens. */
void add_plot(struct report_ctx *rc, const struct exercise_result *ex, struct tpl_value *exv);

#endif

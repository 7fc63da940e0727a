/*
 * sections: the parts of the per-submission report's context (templates/README.md
 * names every key), one file each:
 *
 *   variant.c   a variant and its cases: the case table, notes, the compiler's first error,
 *               compute-sanitizer
 *   lost.c      the first page: what cost points, grouped by cause, what to try next
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
#include "report/plot.h"

/* A variant as report.md's and report.html's `variants` list shows it, and whether with a
 * table of cases (not when every case is hidden, or was not run here). Caller frees. */
struct tpl_value *variant_value(const struct report_ctx *rc, const struct variant_result *vr,
                                bool *shows_table);

/* The compiler's first error in a build log: the first line that reports an error (gcc's
 * "file:line:col: error:", nvcc's "file(line): error", the linker's "undefined reference"),
 * with the indented lines that show it (source, caret), at most 8 lines; NULL when the log
 * reports none. Caller frees. */
char *first_compiler_error(const char *log);

/* lost, grader_errors, not_run, the hidden cases' counts and next (overview.h). */
void add_overview(const struct report_ctx *rc, const struct results *r, struct tpl_value *m);

/* The exercise's `comparisons` (one table per case: every method's time and speedups);
 * whether one of them states a transfer overhead. */
bool add_comparisons(const struct report_ctx *rc, const struct exercise_result *ex,
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

/* Where a GPU variant's curve meets the CPU's: plot_break_even's answer and what it compared. */
struct break_even_at {
    enum break_even kind;
    double size; /* the crossing, when kind is BREAK_EVEN_FOUND */
    bool with_transfer, both, vs_baseline;
};
/* One item of report.md's and report.html's `break_evens`, appended to list; the figure's
 * marker label when a crossing was found (caller frees), else NULL. */
char *add_break_even_value(const struct report_ctx *rc, const struct variant_result *vr,
                           const char *param, const struct break_even_at *at,
                           struct tpl_value *list);

/* The exercise's `plot` (time against size, written to plots/) and its break-evens. */
void add_plot(struct report_ctx *rc, const struct exercise_result *ex, struct tpl_value *exv);

#endif

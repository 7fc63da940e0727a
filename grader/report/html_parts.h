/*
 * html_parts: the parts the two HTML pages are made of, one file each (docs/html.md names
 * every key a template can use):
 *
 *   html_variant.c   a variant on the student's page: its cases, their notes, the compiler's
 *                    first error, compute-sanitizer, the profile
 *   html_fig.c       the figures, as SVG markup: time against size with the break-evens, the
 *                    speedups per case with their intervals, the roofline (student); the
 *                    scores and the speedups of the class
 *   html_analyses.c  the class's similarity groups and pairs (similarity.json) and its
 *                    mutation score (mutate/mutants.json), when they were run
 *
 * Each adds to a template value the caller owns; the figures return markup the caller frees.
 */
#ifndef LG_REPORT_HTML_PARTS_H
#define LG_REPORT_HTML_PARTS_H

#include "base/template.h"
#include "grade/results.h"
#include "report/render.h"

#include <stdbool.h>
#include <stddef.h>

/* A variant as report.html's `variants` list shows it. Caller frees. */
struct tpl_value *html_variant_value(const struct report_ctx *rc, const struct variant_result *vr);

/* The compiler's first error in a build log: the first line that reports an error (gcc's
 * "file:line:col: error:", nvcc's "file(line): error", the linker's "undefined reference"),
 * with the indented lines that show it (source, caret), at most 8 lines; NULL when the log
 * reports none. Caller frees. */
char *html_first_error(const char *log);

/* The exercise's figures (each "" when it has nothing to draw; caller frees each):
 * time against size with the break-even markers, and its break-evens as `break_evens`
 * items of list (report.md's rule, sizeplot.c: a GPU curve against the CPU baseline, else the first
 * CPU variant); the paired speedups per case with their 95% intervals; the roofline. */
char *html_fig_sizes(const struct report_ctx *rc, const struct exercise_result *ex,
                     struct tpl_value *list);
char *html_fig_speedups(const struct report_ctx *rc, const struct exercise_result *ex);
char *html_fig_roofline(const struct report_ctx *rc, const struct exercise_result *ex);

/* The class: the score histogram (ten bins over 0..max_score), and each student's speedup
 * over the reference (geometric mean over their passing timed cases) per exercise and
 * variant, with the median. */
char *html_fig_scores(const struct report_ctx *rc, const double *scores, size_t n,
                      double max_score);
struct speed_column {
    char *label; /* "exercise/variant" */
    double *x;   /* one per student */
    size_t n, alloc;
};
char *html_fig_class_speedups(const struct report_ctx *rc, const struct speed_column *cols,
                              size_t n);

/* similarity.json and mutate/mutants.json of the class's folder into m (has_similarity,
 * has_mutation and their lists; nothing when absent). A file that is there but cannot be
 * read is a note (`analysis_notes`), never a failed page. sim_pairs: for each of the n
 * students (ids), how many pairs and groups name them (caller frees). */
void html_add_analyses(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                       struct tpl_value *m, int **sim_counts);

#endif

/*
 * html_parts: the parts the two HTML pages are made of, one file each (docs/html.md names
 * every key a template can use):
 *
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
#include "report/class_stats.h"
#include "report/render.h"

#include <stdbool.h>
#include <stddef.h>

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
 * variant, with the median; each point's tooltip names the student and the value. */
char *html_fig_scores(const struct report_ctx *rc, const double *scores, size_t n,
                      double max_score);
char *html_fig_class_speedups(const struct report_ctx *rc, const struct class_stats *st,
                              const struct results *const *rs);

/* similarity.json and mutate/mutants.json of the class's folder into m (has_similarity,
 * has_mutation and their lists; nothing when absent). A file that is there but cannot be
 * read is a note (`analysis_notes`), never a failed page. *similar: for each of the n
 * students (ids), how many pairs and groups name them (caller frees); NULL when the class has
 * no similarity.json. */
void html_add_analyses(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                       struct tpl_value *m, int **similar);

#endif

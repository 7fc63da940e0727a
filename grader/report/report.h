/*
 * report: the Markdown (and, through pandoc and xelatex, PDF) reports made from
 * results: one per submission (report.md) and one per class (summary.md).
 *
 * Wording and layout live in templates (templates/<lang>/report.md, summary.md,
 * strings.txt; templates/pandoc/ for the PDF), rendered with template.h; this
 * module only builds the context they are rendered with. templates/README.md
 * lists every name a template can use.
 *
 * Everything that comes from a submission is escaped (escape.h) before it is
 * Markdown, and pandoc reads the Markdown with raw TeX, raw HTML, raw attributes,
 * TeX math and YAML metadata turned off, so nothing in a report becomes LaTeX.
 *
 * The code is split by concern: student.c (report.md) and summary.c (summary.md)
 * build the contexts, from sections.h's parts (summary_grades.h: the class's grades,
 * class_stats.h: its cases, failures and speedups); each context is built once and rendered
 * twice, as the Markdown and as its HTML page (html.h: report.html, index.html,
 * docs/html.md), so that the two state the same facts. render.h holds what one rendering
 * shares, format.h how numbers read, points.h how printed points add up, pdf.h the PDF.
 *
 * Files are written atomically. A missing or failing pandoc, xelatex or gnuplot
 * never costs the Markdown: plots are replaced by a sentence saying why, and a
 * PDF that could not be made is a note in the outcome (an error only when
 * pdf_required). Reports depend on the results and templates only (the date is
 * the results' own), so the same results give the same Markdown.
 */
#ifndef LG_REPORT_H
#define LG_REPORT_H

#include "base/error.h"
#include "grade/results.h"
#include "report/pdf.h" /* report_make_pdf(), for both reports */

#include <stdbool.h>
#include <stddef.h>

struct report_opts {
    const char *lang;          /* "es"/"en"; NULL: the results' lang */
    const char *templates_dir; /* folder holding es/ and en/ */
    bool pdf;                  /* try to make a PDF */
    bool pdf_required;         /* a PDF failure is an error (-1) instead of a note */
    bool student_view; /* hidden cases as pass/fail counts only, unless results.show_hidden */
    bool html;         /* also write the HTML page (report.html, index.html) */
};

struct report_outcome {
    bool md_written, pdf_written, html_written;
    char md_path[1024], pdf_path[1024], html_path[1024];
    char pdf_note[1024];  /* why no PDF was made, when it was not */
    int pdf_latex_runs;   /* xelatex's runs for the PDF: 1 unless its log asked for more */
    char html_note[1024]; /* why no HTML page was made, when one was asked for and was not */
};

/* lang NULL, templates_dir NULL, no PDF, student view, HTML. */
void report_opts_init(struct report_opts *o);

/* Writes outdir/report.md (+ outdir/plots/<exercise>.png, outdir/report.pdf, and with
 * o->html outdir/report.html). The Markdown is written first: an HTML page that could not
 * be made is an error (-1, html_written false) that keeps it. */
int report_student(const struct results *r, const char *outdir, const struct report_opts *o,
                   struct report_outcome *out, struct error *err);

/* Class summary: outdir/summary.md and summary.pdf from many results, and with o->html the
 * class's page outdir/index.html (which also reads outdir/similarity.json and
 * outdir/mutate/mutants.json when they are there). */
int report_summary(const struct results *const *all, size_t n, const char *outdir,
                   const struct report_opts *o, struct report_outcome *out, struct error *err);

#endif

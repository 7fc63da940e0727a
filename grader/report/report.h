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

#include <stdbool.h>
#include <stddef.h>

struct report_opts {
    const char *lang;          /* "es"/"en"; NULL: the results' lang */
    const char *templates_dir; /* folder holding es/ and en/ */
    bool pdf;                  /* try to make a PDF */
    bool pdf_required;         /* a PDF failure is an error (-1) instead of a note */
    bool student_view; /* hidden cases as pass/fail counts only, unless results.show_hidden */
};

struct report_outcome {
    bool md_written, pdf_written;
    char md_path[1024], pdf_path[1024];
    char pdf_note[1024]; /* why no PDF was made, when it was not */
};

/*
 * How pandoc reads reports: no raw TeX, raw HTML or raw attributes, no TeX math
 * and no YAML metadata, so no text can become LaTeX; no smart punctuation, so
 * quotes and backticks print as typed (with ligatures off in defaults.yaml).
 */
#define REPORT_PANDOC_FROM                                                                         \
    "--from=markdown-raw_tex-raw_html-raw_attribute-tex_math_dollars-yaml_metadata_block-smart"

/* Seconds pandoc (and xelatex under it) may take for one PDF. */
#define REPORT_PDF_TIMEOUT_S 120.0

/* lang NULL, templates_dir NULL, no PDF, student view. */
void report_opts_init(struct report_opts *o);

/* Writes outdir/report.md (+ outdir/plots/<exercise>.png, outdir/report.pdf). */
int report_student(const struct results *r, const char *outdir, const struct report_opts *o,
                   struct report_outcome *out, struct error *err);

/* Class summary: outdir/summary.md and summary.pdf from many results. */
int report_summary(const struct results *const *all, size_t n, const char *outdir,
                   const struct report_opts *o, struct report_outcome *out, struct error *err);

/*
 * Markdown to PDF with pandoc and xelatex (templates_dir/pandoc/ for fonts and
 * layout). Returns 0 when pdf_path was written; -1 otherwise with the reason in
 * note (never fatal by itself). Used by both reports; exposed for tests.
 */
int report_make_pdf(const char *md_path, const char *pdf_path, const char *templates_dir,
                    const char *lang, char *note, size_t note_size);

#endif

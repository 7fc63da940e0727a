/*
 * pdf: a report's Markdown made into a PDF by pandoc (to LaTeX) and xelatex, each run
 * under the sandbox's supervisor within one time limit, in a temporary folder of its
 * own. xelatex runs once, and again only where its log asks for it (at most three
 * times): pandoc's own PDF writer ran it twice for every report.
 *
 * Nothing in a report can become LaTeX: pandoc reads the Markdown with the
 * extensions below turned off, after any defaults file, so that no defaults
 * file can turn them back on.
 */
#ifndef LG_REPORT_PDF_H
#define LG_REPORT_PDF_H

#include <stddef.h>

/*
 * How pandoc reads reports: no raw TeX, raw HTML or raw attributes, no TeX math
 * and no YAML metadata, so no text can become LaTeX; no smart punctuation, so
 * quotes and backticks print as typed (with ligatures off in defaults.yaml).
 */
#define REPORT_PANDOC_FROM                                                                         \
    "--from=markdown-raw_tex-raw_html-raw_attribute-tex_math_dollars-yaml_metadata_block-smart"

/* Seconds pandoc and xelatex together may take for one PDF. */
#define REPORT_PDF_TIMEOUT_S 120.0

/*
 * Markdown to PDF with pandoc and xelatex (templates_dir/pandoc/ for fonts and
 * layout). Returns 0 when pdf_path was written; -1 otherwise with the reason in
 * note (never fatal by itself). *latex_runs (when not NULL): xelatex's runs.
 * Used by both reports and the mutation report; exposed for tests.
 */
int report_make_pdf(const char *md_path, const char *pdf_path, const char *templates_dir,
                    const char *lang, char *note, size_t note_size, int *latex_runs);

#endif

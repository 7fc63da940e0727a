/*
 * html: the HTML pages beside the Markdown reports (docs/html.md): the student's
 * report.html (html_student.c) and the class's index.html (html_class.c). Each renders the
 * context its Markdown renders (student.c's for report.md, summary.c's for summary.md: one data
 * layer, so a page and its Markdown never state two different things) from
 * templates/<lang>/report.html and index.html, with the stylesheet and script of
 * templates/html/ inlined and every figure inline SVG (svg.h).
 *
 * Two escapers for one context: the Markdown escapes text for Markdown and fences blocks, the
 * page escapes both for HTML (base/escape.h's esc_html): anything from a submission (names,
 * ids, compiler output, messages, source lines) reads as text. Values made with tpl_markdown()
 * (numbers, figures) go in as they are, and none holds untrusted text unescaped.
 *
 * What this file offers the two pages:
 *   - html_write_page(): the template rendered, the assets inlined, and a Content Security
 *     Policy that lets the page load nothing at all and run only its own script (by hash),
 *     so even an injection that got past the escaping could not run or fetch anything;
 *   - a URL path segment for links to a student's page.
 *
 * Ownership: everything returned is the caller's; contexts are the caller's.
 */
#ifndef LG_REPORT_HTML_H
#define LG_REPORT_HTML_H

#include "base/error.h"
#include "base/strbuf.h"
#include "base/template.h"
#include "grade/results.h"
#include "report/class_stats.h"
#include "report/render.h"

#include <stdbool.h>
#include <stddef.h>

/* A path segment for an href: every byte but [A-Za-z0-9_.~-] percent-encoded (so an id can
 * name no scheme, query or other folder). */
void html_url_segment(struct strbuf *out, const char *s);

/* 'sha256-<base64>' of text, as a Content Security Policy source (the similarity page uses it
 * for its own stylesheet too). */
void html_csp_hash(const char *text, size_t len, struct strbuf *out);

/*
 * Renders rc->lang_dir/<template_name> with ctx (strict: a misspelt name is an error with
 * its line), adding to ctx `style`, `script` (templates/html/style.css and, when script is
 * set, table.js, inlined) and `csp` (the policy), and writes rc->outdir/<file> atomically.
 * path (size bytes) gets the file's path. -1 with err set on any failure; nothing is written
 * then.
 */
int html_write_page(const struct report_ctx *rc, const char *template_name, struct tpl_value *ctx,
                    bool script, const char *file, char *path, size_t size, struct error *err);

/* The exercise's figures on the student's page into exv (`figures`, each an `svg`;
 * `has_figures`): time against size with its break-evens marked, the speedups per case, the
 * roofline. */
void html_add_figures(const struct report_ctx *rc, const struct exercise_result *ex,
                      struct tpl_value *exv);
/* report.html from the student's context (student.c's, report.md's). */
int html_student(const struct report_ctx *rc, struct tpl_value *ctx, struct report_outcome *out,
                 struct error *err);
/* What only the class's page has, into the class's context m: the links to the files beside
 * it (has_summary_pdf, has_gradebook, has_similarity_html, has_mutate_report), the analyses
 * (html_parts.h's html_add_analyses: *similar, per student, how many similarity pairs and
 * groups name them; NULL when the class has no similarity.json), and the figures (scores_svg,
 * speedups_svg). */
void html_class_add(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                    const struct class_stats *st, struct tpl_value *m, int **similar);
/* index.html from the class's context (summary.c's, summary.md's). */
int html_class(const struct report_ctx *rc, struct tpl_value *ctx, struct report_outcome *out,
               struct error *err);

#endif

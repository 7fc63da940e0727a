/*
 * html: the HTML pages beside the Markdown reports (docs/html.md): the student's
 * report.html (html_student.c) and the class's index.html (html_class.c), each one
 * self-contained file rendered from templates/<lang>/report.html and index.html, with the
 * stylesheet and script of templates/html/ inlined and every figure inline SVG (svg.h).
 *
 * What this file offers the two pages:
 *   - escaping: base/escape.h's esc_html() is the template escape for every text value, so that
 * anything from a submission (names, ids, compiler output, messages, source lines) reads as text;
 *     values made with tpl_markdown() (HTML the grader writes: figures, formatted numbers)
 *     go in as they are, and none of them holds untrusted text unescaped;
 *   - html_write_page(): the template rendered, the assets inlined, and a Content Security
 *     Policy that lets the page load nothing at all and run only its own script (by hash),
 *     so even an injection that got past the escaping could not run or fetch anything;
 *   - small shared pieces: a verdict as text, untrusted text as a <pre> block, a URL path
 *     segment.
 *
 * Ownership: everything returned is the caller's; contexts are the caller's.
 */
#ifndef LG_REPORT_HTML_H
#define LG_REPORT_HTML_H

#include "base/error.h"
#include "base/strbuf.h"
#include "base/template.h"
#include "grade/results.h"
#include "report/render.h"

#include <stdbool.h>
#include <stddef.h>

/* A path segment for an href: every byte but [A-Za-z0-9_.~-] percent-encoded (so an id can
 * name no scheme, query or other folder). */
void html_url_segment(struct strbuf *out, const char *s);

/* verdict (its name as text, from strings.txt), verdict_code, and passed, failed, skipped,
 * grader_error. */
void html_set_verdict(const struct report_ctx *rc, struct tpl_value *m, enum verdict v);
/* m.key: untrusted text as the inside of a <pre> (escaped, tabs expanded, lines wrapped at
 * CODE_WIDTH), at most max_lines lines, the rest counted in a last line; *omitted (may be
 * NULL) gets how many were left out. */
void html_set_pre(struct tpl_value *m, const char *key, const char *text, size_t max_lines,
                  size_t *omitted);

/*
 * Renders rc->lang_dir/<template_name> with ctx (strict: a misspelt name is an error with
 * its line), adding to ctx `style`, `script` (templates/html/style.css and, when script is
 * set, table.js, inlined) and `csp` (the policy), and writes rc->outdir/<file> atomically.
 * path (size bytes) gets the file's path. -1 with err set on any failure; nothing is written
 * then.
 */
int html_write_page(const struct report_ctx *rc, const char *template_name, struct tpl_value *ctx,
                    bool script, const char *file, char *path, size_t size, struct error *err);

/* The two pages. Each fills out->html_written and out->html_path. */
int html_student(const struct report_ctx *rc, const struct results *r, struct report_outcome *out,
                 struct error *err);
int html_class(struct report_ctx *rc, const struct results *const *rs, size_t n,
               struct report_outcome *out, struct error *err);

#endif

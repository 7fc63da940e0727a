/*
 * escape: make untrusted text (student names and ids, compiler output, program
 * output, messages, findings) safe to put into the Markdown that reports are
 * made of, and from there into LaTeX through pandoc.
 *
 * Three layers:
 *   - esc_sanitize: invalid UTF-8 becomes U+FFFD (one per maximal invalid
 *     subsequence, as Python's "replace" does); control characters other than
 *     \n and \t are removed (C0, DEL and C1).
 *   - esc_md_text: sanitized text for inline Markdown, escaped where pandoc's Markdown
 *     (as the PDF reads it: raw TeX, raw HTML, math and smart punctuation off) or
 *     CommonMark would read markup, and nowhere else, so that a raw report.md reads as
 *     the text (a date, a path, a flag, matmul_cpu): always \ ` * [ ] < | ~ ^; _ unless
 *     inside a word; @ starting a word (a citation); & before a name (an entity); and
 *     where the value could start a line, a heading, list, quote, rule or definition
 *     marker (# > - + = : first, "1." or "a)"). Leading blanks are dropped, newlines and
 *     tabs become spaces, so a value cannot leave its table cell or list item; a
 *     zero-width space (U+200B) is put after every 30 characters of a run without
 *     spaces so that LaTeX can break it. tests/unit/test_escape.c replays hostile values
 *     through pandoc and checks it reads each back as plain text, word for word.
 *   - esc_code_wrap + esc_md_fence: sanitized text for a fenced code block,
 *     tabs expanded, lines hard-wrapped and the block capped, inside a fence
 *     longer than any backtick run in it.
 *
 * Everything appends to a strbuf owned by the caller.
 */
#ifndef LG_ESCAPE_H
#define LG_ESCAPE_H

#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* Characters of a run without spaces after which esc_md_text allows a line break. */
#define ESC_BREAK_RUN 30

void esc_sanitize(struct strbuf *out, const char *s);
/* s sanitized (esc_sanitize) and appended as HTML text, fit for an element or a quoted
 * attribute: & < > " ' as entities. NULL appends nothing. */
void esc_html(struct strbuf *out, const char *s);

/* A fragment identifier made of prefix and an untrusted id, the same on every page that links
 * to it or carries it (index.html's rows point at similarity.html's evidence this way): bytes
 * of id in [A-Za-z0-9.-] as they are, every other byte (the '_' escape included) as "_XX",
 * two upper-case hex digits. Distinct ids give distinct anchors; the result needs no further
 * escaping in an attribute or a URL's fragment. */
void esc_anchor(struct strbuf *out, const char *prefix, const char *id);

/* Sanitized, escaped inline Markdown. max_chars > 0: at most that many characters
 * of s are kept, and "…" marks the cut. NULL is the empty string. */
void esc_md_text(struct strbuf *out, const char *s, size_t max_chars);

/* Sanitized copy of s cut to max_chars characters with "…" (UTF-8 aware). Caller frees. */
char *esc_clip(const char *s, size_t max_chars);

/* The first line of s, sanitized, cut to max_chars characters. Caller frees. */
char *esc_first_line(const char *s, size_t max_chars);

/*
 * Body of a code block: sanitized, tabs expanded to 8-column stops, lines longer
 * than width characters hard-wrapped, trailing blank lines dropped, and at most
 * max_lines lines kept. Returns how many lines were left out (0 when none).
 */
size_t esc_code_wrap(struct strbuf *out, const char *s, size_t width, size_t max_lines);

/* A fenced code block around body: the fence is one backtick longer than the
 * longest backtick run in body (at least three). info may be NULL. */
void esc_md_fence(struct strbuf *out, const char *body, const char *info);

/* Longest run of consecutive backticks in s. */
size_t esc_backtick_run(const char *s);

#endif

/*
 * simview: shared code shown side by side, for the similarity pages (simreport.h). Every
 * finding (a group, a pair, a match with the instructor's code) has fragments that lie in two
 * sets of files: side a and side b.
 *
 *   Markdown: one code block per fragment, both sides as two columns of one block (each side
 *             wrapped at SIMVIEW_WIDTH characters), so that any viewer shows them side by side;
 *   HTML:     each pair of files that holds a fragment, whole, side by side, the fragments
 *             marked in the same colour on both sides.
 *
 * Sources are the submissions' text: sanitized and escaped here (escape.h, render.h).
 */
#ifndef LG_SIMVIEW_H
#define LG_SIMVIEW_H

#include "analyze/similarity.h"
#include "base/strbuf.h"
#include "base/template.h"

#define SIMVIEW_WIDTH 56
#define SIMVIEW_LINES 60

/* One side: a submission's files, or the instructor's (their names and texts). */
struct simview_side {
    const char *who;              /* "s01", "solution" */
    const struct sim_file *files; /* by the spans' file index (a NULL source: no such file) */
};

/* "file:first-last" (caller frees). */
char *simview_where(const struct simview_side *s, const struct sim_span *sp);

/* The fragment's lines from both sides as one Markdown code block, headed by where they are. */
void simview_md_pair(struct strbuf *out, const struct simview_side *a, const struct sim_span *sa,
                     const struct simview_side *b, const struct sim_span *sb);

/* m's "views": a list with `file_a`, `file_b` (text) and `left`, `right` (HTML), one per pair
 * of files that holds one of the n fragments. */
void simview_html(struct tpl_value *m, const struct simview_side *a, const struct simview_side *b,
                  const struct sim_frag *f, size_t n);

#endif

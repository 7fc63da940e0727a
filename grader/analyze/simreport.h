/*
 * simreport: a similarity check's results as files for the instructor, never for students:
 *
 *   similarity.csv   one row per pair of submissions, most similar first:
 *                    a,b,similarity,a_in_b,b_in_a,longest_tokens,longest_a,longest_b,
 *                    fragments,a_name,b_name (similarity and shares in 0-1; where the
 *                    longest fragment is, as file:first-last line). RFC 4180, CRLF, cells a
 *                    spreadsheet would run as formulas quoted with a leading '.
 *   similarity.md    the pairs at or above the threshold, the groups, and each pair's
 *                    fragments with its longest one's code from both sides
 *   similarity.html  the same as one self-contained page, with every pair's files side by
 *                    side and the shared fragments highlighted
 *
 * Wording and layout: templates/<lang>/similarity.md and similarity.html.
 */
#ifndef LG_SIMREPORT_H
#define LG_SIMREPORT_H

#include "analyze/similarity.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "spec/spec.h"

/* Pairs shown in full (fragments and code) in the Markdown and HTML pages; the tables list
 * every reported pair. */
#define SIM_REPORT_DETAILED 100

/* The CSV text (exposed for tests). */
void sim_report_csv(const struct sim_result *r, struct strbuf *out);

/* Write outdir/similarity.{csv,md,html}. lang NULL: the lab's. */
int sim_report_write(const struct sim_result *r, const struct lab *lab, const char *outdir,
                     const char *templates_dir, const char *lang, struct error *err);

#endif

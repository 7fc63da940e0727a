/*
 * simreport: a similarity check's results as files for the instructor, never for students:
 *
 *   similarity.csv   one row per pair of submissions, the reported ones first, then the
 *                    others, each part most similar first: a,b,similarity,a_in_b,b_in_a,
 *                    a_own_tokens,b_own_tokens,a_shared_tokens,b_shared_tokens,
 *                    longest_fragment,longest_fragment_a,longest_fragment_b,fragments,a_name,
 *                    b_name (similarity and shares in 0-1; each one's own code and how much
 *                    of it the other holds, in tokens; the longest fragment's matched tokens
 *                    and where it is, as file:first-last line). RFC 4180, CRLF, cells a
 *                    spreadsheet would run as formulas quoted with a leading '.
 *   similarity.json  the findings as data (simjson.c): groups, reported pairs, matches with
 *                    the instructor's code (the HTML dashboard reads it)
 *   similarity.md    the groups first, then the matches with the instructor's code, then
 *                    the pairs at or above the threshold, each with its fragments' code side
 *                    by side
 *   similarity.html  the same as one self-contained page, with each finding's files side by
 *                    side and the shared fragments highlighted, and every submission's
 *                    findings under its own anchor (esc_anchor's "sub-<id>", which the class
 *                    page links to); its stylesheet (templates/html/similarity.css) inlined
 *                    and allowed by its hash in a policy that lets nothing load or run
 *
 * Wording and layout: templates/<lang>/similarity.md and similarity.html. Every file is
 * written atomically (written aside, renamed).
 */
#ifndef LG_SIMREPORT_H
#define LG_SIMREPORT_H

#include "analyze/similarity.h"
#include "base/error.h"
#include "base/strbuf.h"
#include "spec/spec.h"

/* Pairs and solution matches shown in full (fragments and code) in the Markdown and HTML
 * pages; the tables list every one. */
#define SIM_REPORT_DETAILED 100
/* Fragments of one finding whose code the Markdown page shows (the table lists all). */
#define SIM_REPORT_FRAGS 8

/* The CSV text (exposed for tests). */
void sim_report_csv(const struct sim_result *r, struct strbuf *out);

/* similarity.json's text (simjson.c):
 *   {"lab", "threshold", "submissions", "kgram", "window", "min_match", "max_common",
 *    "group_tokens", "solution_tokens", "solution_checked",
 *    "groups": [{"kind": "shared" | "pairs", "size", "members": [ids],
 *                "shared_tokens" (shared) | "similarity_min", "similarity_max" (pairs),
 *                "longest_fragment", "matches_solution", "fragment": "the shared code, as
 *                members[0] has it", "fragments": [{"tokens", "a": {"id", "where"},
 *                "b": {"id", "where"}}]}],
 *    "pairs": [{"a", "b", "similarity", "a_in_b", "b_in_a", "a_own_tokens", "b_own_tokens",
 *               "a_shared_tokens", "b_shared_tokens", "longest_fragment", "fragments"}],
 *    "solution_matches": [{"id", "name", "matched_tokens", "longest_fragment", "fragments"}]}
 * groups largest first (shared code before pairs' chains), pairs the reported ones, most
 * similar first, solution matches most tokens first. */
void sim_report_json(const struct sim_result *r, const struct lab *lab, struct strbuf *out);

/* Write outdir/similarity.{csv,json,md,html}. lang NULL: the lab's. */
int sim_report_write(const struct sim_result *r, const struct lab *lab, const char *outdir,
                     const char *templates_dir, const char *lang, struct error *err);

#endif

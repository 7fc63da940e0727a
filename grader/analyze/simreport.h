/*
 * simreport: a similarity check's results as files for the instructor, never for students:
 *
 *   similarity.csv   one row per pair of submissions, most similar first:
 *                    a,b,similarity,a_in_b,b_in_a,longest_tokens,longest_a,longest_b,
 *                    fragments,a_name,b_name (similarity and shares in 0-1; where the
 *                    longest fragment is, as file:first-last line). RFC 4180, CRLF, cells a
 *                    spreadsheet would run as formulas quoted with a leading '.
 *   similarity.json  the findings as data (simjson.c): groups, reported pairs, matches with
 *                    the instructor's code (the HTML dashboard reads it)
 *   similarity.md    the groups first, then the matches with the instructor's code, then
 *                    the pairs at or above the threshold, each with its fragments' code side
 *                    by side
 *   similarity.html  the same as one self-contained page, with each finding's files side by
 *                    side and the shared fragments highlighted
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
 *   {"lab": "lab6", "threshold": 0.5, "submissions": 60, "max_common": 10,
 *    "group_tokens": 160, "solution_tokens": 100, "solution_checked": true,
 *    "groups": [{"size", "tokens", "members": [ids], "fragment": "the shared code, as
 *                members[0] has it", "matches_solution", "kind": "shared" | "pairs",
 *                "fragments": [{"tokens", "a": {"id", "where"}, "b": {"id", "where"}}]}],
 *    "pairs": [{"a", "b", "score", "tokens", "a_in_b", "b_in_a", "longest", "fragments"}],
 *    "solution_matches": [{"id", "name", "tokens", "fragments"}]}
 * groups largest first (shared code before pairs' chains), pairs most similar first (those at
 * or above the threshold), solution matches most tokens first. */
void sim_report_json(const struct sim_result *r, const struct lab *lab, struct strbuf *out);

/* Write outdir/similarity.{csv,json,md,html}. lang NULL: the lab's. */
int sim_report_write(const struct sim_result *r, const struct lab *lab, const char *outdir,
                     const char *templates_dir, const char *lang, struct error *err);

#endif

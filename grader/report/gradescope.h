/*
 * gradescope: one student's results as Gradescope's autograder results.json
 * (its spec: gradescope/autograder_samples docs/specs.md; docs/exports.md has
 * the rules and where they come from).
 *
 * Top level: score (the final score, late penalty off; scaled to scale_to
 * when given), execution_time, output (the summary, what was not graded and
 * why, lateness, grader errors), output_format "md", visibility, stdout_visibility
 * "hidden", tests[] and, where the lab has speed points, leaderboard[].
 * Every test has name, number, score, max_score, status (always: Gradescope
 * marks a test without one as failed when score < max_score), output (Markdown,
 * escaped; a case's detail and a compile error's first compiler errors in code
 * blocks), output_format "md", tags and visibility:
 *   - one test per case, "<exercise> / <variant> / <case>", number "e.v.c";
 *   - a case not run (SK) counts nothing: score 0, max_score 0, status passed,
 *     and the output says why and that it is not counted;
 *   - a grader error (XX) is failed, with the reason, and not counted against the
 *     student (the summary says the instructor must grade it again);
 *   - "<exercise> / performance" after its variants, with the speed points;
 *   - student view (unless the lab sets show_hidden): an exercise's hidden cases are
 *     one test "<exercise> / hidden cases" with their summed points and a count, with
 *     the lab's gradescope.hidden_visibility (default after_due_date).
 * Leaderboard: per exercise with speed points, "<exercise> speedup", the geometric
 * mean of the speedups over the reference of the passed visible cases of the
 * lab's performance variant (desc). Sentences in the language of messages.
 */
#ifndef LG_GRADESCOPE_EXPORT_H
#define LG_GRADESCOPE_EXPORT_H

#include "base/error.h"
#include "base/messages.h"
#include "base/strbuf.h"
#include "grade/results.h"
#include "spec/spec.h"

#include <stdbool.h>

struct gradescope_opts {
    bool student_view;
    const struct messages *messages; /* NULL: English */
    const struct lab *lab;           /* hidden visibility, leaderboard, performance variants;
                                        NULL: the defaults */
    double scale_to; /* > 0: the score scaled to these points (cases not counted here) */
    /* An autograde's answer due before its runner's limit: cases the machine could not time by
     * then are scored for their correctness, and the answer says that pending_points of speed
     * points come with the instructor's grading (class/autograde.c). */
    bool speed_pending;
    double pending_points;
};

void export_gradescope_text(const struct results *r, const struct gradescope_opts *o,
                            struct strbuf *out);
int export_gradescope(const struct results *r, const struct gradescope_opts *o, const char *path,
                      struct error *err);

/* s as Markdown text: what Markdown or HTML would act on escaped (\ ` * _ [ ] # | ~ with a
 * backslash, < > & as entities). */
void gradescope_md_escape(struct strbuf *out, const char *s);

#endif

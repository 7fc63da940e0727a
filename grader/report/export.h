/*
 * export: grades in the formats other systems import, written from results
 * (never by re-running anything). Every writer goes through write_file_atomic,
 * so an LMS upload never picks up half a file.
 *
 * - export_gradebook_csv: the class gradebook, RFC 4180 (CRLF, quoted where
 *   needed, UTF-8 without BOM), one row per student sorted by student id:
 *       student_id,name,<exercise ids in lab order>,total,max,status
 *   An exercise's column is its points, speed points included (results_tally).
 *   Points are "%.2f" without trailing zeros ("6", "5.5"). status is "ok",
 *   "grader-error" (some case is XX: the total is kept but must not be trusted; results
 *   that could not be read, r->unreadable: no points at all, total and max left empty)
 *   or "incomplete" (an exercise is missing or a case was skipped). Text cells
 *   that a spreadsheet would run as a formula (= + - @ TAB CR first) get a
 *   leading single quote (OWASP CSV injection).
 * - export_gradebook_canvas_csv: the same class in Canvas's gradebook import
 *   layout: Student,ID,SIS User ID,SIS Login ID,Section,<assignment column>
 *   with the total as the only score column (empty for unreadable results). assignment_column is
 * used as the header as given ("Lab 6 (123456)" updates Canvas assignment 123456; a name without
 * "(id)" makes Canvas create a new assignment); NULL or "" uses the lab title. ID holds our student
 * id (Canvas's user id when the submissions came from a Canvas export).
 * - export_gradescope: one student's /autograder/results/results.json in the
 *   Gradescope autograder format; one test per case ("<exercise> / <variant> /
 *   <case>", number "e.v.c"), plus "<exercise> / performance" where the
 *   exercise has speed points.
 * - export_junit: one student's JUnit XML (one testsuite per exercise, one
 *   testcase per case) for CI dashboards.
 *
 * student_view (what a student may read): unless the lab sets show_hidden, an
 * exercise's hidden cases are one test, "<exercise> / hidden cases" (JUnit: one
 * testcase "hidden cases"), with their summed points and how many passed: no
 * case names, sizes, messages or mismatch details. The instructor view (false)
 * lists every case in full. `grader grade` writes both (gradescope.json and
 * junit.xml: student; gradescope-instructor.json, junit-instructor.xml).
 *
 * docs/exports.md says how to import each file.
 */
#ifndef LG_EXPORT_H
#define LG_EXPORT_H

#include "base/error.h"
#include "grade/results.h"

#include <stdbool.h>
#include <stddef.h>

int export_gradebook_csv(const struct results *const *all, size_t n, const char *path,
                         struct error *err);
int export_gradebook_canvas_csv(const struct results *const *all, size_t n,
                                const char *assignment_column, const char *path, struct error *err);
int export_gradescope(const struct results *r, bool student_view, const char *path,
                      struct error *err);
int export_junit(const struct results *r, bool student_view, const char *path, struct error *err);

/* The same documents into a strbuf (appended), for tests and for callers that
 * send them elsewhere than a file. */
void export_gradebook_csv_text(const struct results *const *all, size_t n, struct strbuf *out);
void export_gradebook_canvas_csv_text(const struct results *const *all, size_t n,
                                      const char *assignment_column, struct strbuf *out);
void export_gradescope_text(const struct results *r, bool student_view, struct strbuf *out);
void export_junit_text(const struct results *r, bool student_view, struct strbuf *out);

#endif

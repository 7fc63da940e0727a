/*
 * gradebook: a class's grades in the files LMSs import, from results (never by
 * re-running anything); each writer goes through write_file_atomic. Every file
 * is RFC 4180 CSV (CRLF, quoted where needed, UTF-8 without BOM), rows sorted by
 * id; a group submission's results give one row per member (results_lms.h).
 * The score is the final one (late penalty off). docs/exports.md cites the LMS
 * code behind each rule.
 *
 * - gradebook.csv (spreadsheets):
 *     student_id,name,<exercises in lab order>,total,max,status,late_days,late_penalty,note
 *   status: ok, grader-error (some case XX), incomplete (a case skipped or an
 *   exercise missing), not-graded (collection refused the submission; note says why).
 *   Results that could not be read (r->unreadable) leave total and max empty, and the
 *   Canvas score too: an empty cell leaves the LMS's grade alone where a 0 would replace it.
 * - gradebook-canvas.csv (Canvas's gradebook importer):
 *     Student,ID,SIS User ID,SIS Login ID,Section,<assignment column>
 *     Points Possible,,,,,<points>
 *   ID holds only Canvas's own user ids (Canvas reads ID as its user id); other ids
 *   go to SIS User ID (institution ids) and SIS Login ID (logins, emails); Moodle
 *   participant numbers and GitHub logins go nowhere (no LMS can map them).
 * - gradebook-moodle.csv (Moodle's grade import, CSV):
 *     ID number,Email address,Username,Full name,<grade item column>,Feedback
 *   rows Moodle can map only (one of the three ids): Moodle stops the whole import
 *   at a row it cannot map, so the others are left out and counted.
 * - moodle-worksheet.csv (Moodle's assignment offline grading worksheet), for
 *   submissions from a Moodle download, keyed on its participant numbers:
 *     Identifier,Full name,Email address,Status,Grade,Maximum Grade,
 *     Grade can be changed,Last modified (submission),Last modified (grade),
 *     Feedback comments
 */
#ifndef LG_GRADEBOOK_H
#define LG_GRADEBOOK_H

#include "base/error.h"
#include "base/messages.h"
#include "base/strbuf.h"
#include "grade/results.h"

#include <stdbool.h>
#include <stddef.h>

struct gradebook_opts {
    const char *column;              /* the score column's header; NULL: the lab title */
    double points;                   /* > 0: points possible, scores scaled to them */
    const struct messages *messages; /* feedback's language; NULL: English */
    long long now;                   /* "Last modified (grade)"; 0: the current time */
};

void export_gradebook_csv_text(const struct results *const *all, size_t n, struct strbuf *out);
int export_gradebook_csv(const struct results *const *all, size_t n, const char *path,
                         struct error *err);

void export_gradebook_canvas_csv_text(const struct results *const *all, size_t n,
                                      const struct gradebook_opts *o, struct strbuf *out);
int export_gradebook_canvas_csv(const struct results *const *all, size_t n,
                                const struct gradebook_opts *o, const char *path,
                                struct error *err);

/* *left_out (may be NULL): rows without an id Moodle can map. */
void export_gradebook_moodle_csv_text(const struct results *const *all, size_t n,
                                      const struct gradebook_opts *o, struct strbuf *out,
                                      size_t *left_out);
int export_gradebook_moodle_csv(const struct results *const *all, size_t n,
                                const struct gradebook_opts *o, const char *path, size_t *left_out,
                                struct error *err);

/* Whether some result came from a Moodle download (has a participant number). */
bool gradebook_has_moodle_participants(const struct results *const *all, size_t n);
void export_moodle_worksheet_text(const struct results *const *all, size_t n,
                                  const struct gradebook_opts *o, struct strbuf *out);
int export_moodle_worksheet(const struct results *const *all, size_t n,
                            const struct gradebook_opts *o, const char *path, struct error *err);

#endif

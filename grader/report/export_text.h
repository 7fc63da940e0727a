/*
 * export_text: what every export (gradebook.h, gradescope.h, junit.h) writes
 * alike: text made valid UTF-8, numbers without trailing zeros, RFC 4180 CSV
 * fields, the count-only summary of an exercise's hidden cases, and the first
 * errors of a compiler's output. Sentences come in the report's language from
 * messages_get (NULL messages: English).
 */
#ifndef LG_EXPORT_TEXT_H
#define LG_EXPORT_TEXT_H

#include "base/messages.h"
#include "base/strbuf.h"
#include "grade/results.h"
#include "grade/score.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPLACEMENT_CHAR "\xEF\xBF\xBD" /* U+FFFD */

/* Length of the well-formed UTF-8 sequence at s (RFC 3629), 0 when none; *cp its code
 * point. */
size_t utf8_seq(const unsigned char *s, size_t left, uint32_t *cp);
/* s as valid UTF-8 (every byte that starts no sequence becomes U+FFFD), appended. */
void add_utf8_clean(struct strbuf *out, const char *s);
/* "%.*f" without trailing zeros ("6", "5.5"); never "-0"; "" when not finite. */
void format_number(char *buf, size_t size, double v, int decimals);
const char *or_empty(const char *s);

/* One RFC 4180 field; a text a spreadsheet would run as a formula (= + - @ TAB CR first)
 * gets a leading ' (OWASP). */
void csv_field(struct strbuf *out, const char *value);
void csv_points(struct strbuf *out, double v); /* at most two decimals, '.' */
void csv_end_row(struct strbuf *out);          /* CRLF */

/* The case's one-line message, or its verdict's name. */
const char *case_message(const struct case_result *c);

/* A student view that hides hidden cases: the lab did not set show_hidden. */
bool veils_hidden(const struct results *r, bool student_view);

/* What a student may know of an exercise's hidden cases: how many passed. */
struct hidden_tally {
    int cases; /* each hidden case once; total counts its runs, one per variant */
    int total, passed, failed, errors, skipped;
    double points, max_points, seconds;
    double skipped_max; /* the max_points of those not run (not counted) */
};
void hidden_tally_of(const struct exercise_result *e, struct hidden_tally *h);
/* "2 of 3 hidden cases passed. 1 failed." in the language of m; no names, no details. A hidden
 * case that runs on several variants is one case of several runs: "1 hidden case, run on every
 * variant: 1 of 2 runs passed." */
void hidden_summary(const struct hidden_tally *h, const struct messages *m, struct strbuf *text);

/* The compiler's output trimmed for a student to read: the lines that say "error" first
 * (and the next two of each), at most max_lines lines; the log as is when none does. */
void compiler_excerpt(const char *log, size_t max_lines, struct strbuf *out);

/* The points an LMS gets: the final score (late penalty off), scaled to `to` points when
 * to > 0 and the maximum is known. false, and *points 0, when the grade is incomplete
 * (grade/score.h's grade_gap_of): every export then leaves its points empty. */
bool export_points(const struct results *r, double to, double *points);
/* The final score scaled as export_points scales it, whatever the grade's gaps. */
double export_score(const struct results *r, double to);
/* The status every export carries for the student (gradebook.csv's status column): "ok",
 * "not-graded", "grader-error", "not-timed" or "incomplete". exercise_ids: the exercises
 * some student of the class has (a missing one makes the row "incomplete"); may be NULL. */
const char *export_status(const struct results *r, const char *const *exercise_ids, size_t n_ids);
/* Why a grade is incomplete, as one sentence for the student, in the language of m:
 * "Not graded yet: the grader failed on 3 cases (not your code): .... Your instructor will
 * grade it again." Nothing for a complete grade. */
void grade_gap_sentence(const struct results *r, const struct messages *m, struct strbuf *out);

#endif

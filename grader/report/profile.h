/*
 * profile (report): a variant's Nsight Compute profile (grade/profile.h) in the report's
 * language: the side-by-side table of the student's main kernel and the reference's, two or
 * three sentences naming the likely cause (templates/<lang>/strings.txt, keys profile.*), the
 * cross-check of ncu's kernel time against the grader's, or the one line saying why there is
 * no profile and how to get one. Words only: every number comes from results.json.
 */
#ifndef LG_REPORT_PROFILE_H
#define LG_REPORT_PROFILE_H

#include "base/template.h"
#include "grade/profile.h"
#include "grade/results.h"
#include "report/phrases.h"
#include "report/render.h"

#include <stdbool.h>
#include <stddef.h>

/* The sentences that explain p (its diagnosis, its main stall, the cross-check), plain text or
 * Markdown; *n of them. NULL-terminated; free with profile_sentences_free(). */
char **profile_sentences(const struct strings *s, bool markdown, const struct variant_profile *p,
                         size_t *n);
void profile_sentences_free(char **sentences);
/* The one line saying why p has no measurements of the student's kernel; NULL when it has.
 * Caller frees. */
char *profile_missing_line(const struct strings *s, bool markdown, const struct variant_profile *p);

/* report.md's has_profile and profile {case_id, ran, missing, rows [{label, student,
 * reference}], sentences [{text}]} of variant vr (nothing when it was not profiled). */
void add_profile(const struct report_ctx *rc, const struct variant_result *vr, struct tpl_value *m);

#endif

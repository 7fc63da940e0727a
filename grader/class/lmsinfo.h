/*
 * lmsinfo: what collecting a class adds to each student's results: who the
 * student is in the LMS (ids, group and members), when the work was handed in,
 * the LMS's late mark, and, for a submission collection refused (collect.h),
 * the reason as the verdict of every case. Batch grading and the Gradescope
 * runner call it before results.json is written.
 */
#ifndef LG_LMSINFO_H
#define LG_LMSINFO_H

#include "base/messages.h"
#include "class/collect.h"
#include "grade/results.h"
#include "spec/spec.h"

/* The source file names the lab asks students for, each once, NULL-terminated (for
 * collect_opts.sources); lab_source_names_free frees them. */
char **lab_source_names(const struct lab *lab);
void lab_source_names_free(char **names);

/* sub's identity, group, time and late mark into r->lms (replacing what was there). */
void lmsinfo_record(const struct submission *sub, struct results *r);

/* A refused submission: every case gets the reason (OL for a limit, MF otherwise: the
 * student's doing), in the language of m (NULL: English), and no points. */
void lmsinfo_mark_refused(const struct submission *sub, const struct messages *m,
                          struct results *r);

#endif

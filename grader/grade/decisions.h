/*
 * decisions: identical code, identical speed points (docs/coordinator.md, "Identical code,
 * identical grade").
 *
 * Speed points come in bands (tenths of an exercise's points), decided at the end of the timed
 * pairs' 95% interval least favourable to the student (score.c). Two gradings of the same code
 * measure slightly different intervals, and where a case sits near a band's edge, noise alone
 * would put copies of one submission in different bands. So the band a case got is kept, per
 * machine (host, GPU, the lane's cores), reference build, case and code (the variant's sources
 * with their comments and layout taken out: base/codetext.h), in the grader's cache; a later
 * grading of that code on that machine (another student's copy, a re-grade) keeps that band
 * whenever its own interval allows it. An interval that excludes the kept band replaces it:
 * the code, or the machine, is not what it was.
 *
 * Entries are files under <cache>/decisions/, written atomically; the first of two gradings
 * at once to write one is the one both keep.
 */
#ifndef LG_DECISIONS_H
#define LG_DECISIONS_H

#include "grade/grading.h"

/* The band (a share of the speed points, in tenths) case cr of variant v settles on: f, the
 * share its interval's worst end earns, or the one kept for the same code where its interval
 * reaches it (f_best: the share its best end would earn). */
double decisions_settle(struct grading *g, const struct exercise_spec *ex,
                        const struct variant_spec *v, const struct case_result *cr, double f,
                        double f_best);

#endif

/*
 * mutate: does a lab's grading catch wrong code? (issue 22, part 1). Mutants of the lab's
 * solution (labs/labN/solution/), each one small, plausible mistake (mutant.h), are graded
 * with the lab's visible, hidden and slow cases by the grader itself, run as a program
 * (`grader check LAB --submission DIR --hidden --full --no-timing`, its results.json read
 * back: the command line and results.json are the stable interface), several at a time.
 *
 * A mutant is killed when some case of a variant it reaches ends in any verdict but OK (or
 * SK); one that does not compile (CE) is "killed, trivially" and counted apart, since it says
 * nothing about the cases. Without a GPU only the CPU variants are mutated and run. For each
 * survivor, extra sizes derived from the lab's cases (one off, odd, twice the largest) are
 * tried, and the report says which would have killed it. Mutants an instructor has shown to be
 * equivalent (labs/labN/solution/mutate-equivalent.txt, see docs/mutation.md) are listed apart and
 * left out of the ratio.
 */
#ifndef LG_MUTATE_H
#define LG_MUTATE_H

#include "analyze/mutresult.h"

/* Plan, grade and classify every mutant. -1 with err set when the grader failed, the
 * solution itself fails a case, or libclang is missing. */
int mutate_run(const struct lab *lab, const struct mutate_opts *o, struct mutate_result *r,
               struct error *err);

#endif

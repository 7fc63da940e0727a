/*
 * mutequiv: the mutants an instructor has shown to be equivalent (no test can kill them: the
 * change cannot alter any output the spec allows), listed beside the code they mutate, in the
 * lab's solution/mutate-equivalent.txt (so student kits, which leave solution/ out, never
 * carry it), one per line:
 *
 *     convert_cpu.c:67:20 rel_bound  rintf gives whole numbers: r >= 127 clamps 127 to itself
 *
 * FILE:LINE:COLUMN of the mutant (as the report gives it), its operator, then why. '#' starts
 * a comment line. A listed mutant that survives is reported as equivalent and left out of the
 * ratio; one that is killed, or that no longer exists in a file that was mutated (the solution
 * changed), is a warning. Lines about files not mutated in this run (GPU sources without a
 * GPU) are skipped.
 */
#ifndef LG_MUTEQUIV_H
#define LG_MUTEQUIV_H

#include "analyze/mutresult.h"

#define MUTEQUIV_FILE "mutate-equivalent.txt"

/* Apply lab_dir/solution/mutate-equivalent.txt (if any) to r's records. -1 with err set on a line
 * that cannot be read (file:line: what is wrong). */
int mutequiv_apply(struct mutate_result *r, const char *lab_dir, struct error *err);

#endif

/*
 * mutplan: the mutants of a lab's solution and the variants each one reaches.
 *
 * The files mutated are the sources of the variants graded (every variant, or the CPU ones
 * without a GPU). A mutant in a function or macro counts for a variant when the variant's
 * function reaches it through the calls and macro uses of the variant's own source files (a
 * helper shared by three variants counts for the three); one that no variant reaches is not
 * made. Each record gets its diff.
 */
#ifndef LG_MUTPLAN_H
#define LG_MUTPLAN_H

#include "analyze/mutresult.h"

/* Fill r's files, texts, targets and records (status MUT_NOT_RUN). gpu: GPU variants too.
 * only: one exercise or NULL. -1 with err set when a file cannot be read or lexed. */
int mutplan_build(struct mutate_result *r, const struct lab *lab, const char *solution_dir,
                  bool gpu, const char *only, struct error *err);

/* The diff of m against text: "-" lines of the original, "+" lines of the mutant, each with
 * its line number. Caller frees. */
char *mutplan_diff(const char *text, size_t len, const struct mutant *m);

#endif

/*
 * mutop: the token-level mutation operators (mutant.h lists them) over one C or CUDA file.
 *
 * Sites are the bodies of functions and of #define macros (not error-check macros), never
 * comments, strings or other directives. Comparisons of a parameter with 0 (`if (n <= 0)
 * return;`) are left alone: the spec gives sizes of 1 and up, so those mutants could never be
 * caught.
 */
#ifndef LG_MUTOP_H
#define LG_MUTOP_H

#include "analyze/mutant.h"
#include "analyze/syntax.h"

/* Every token-level mutant of l (all operators but zero_result and echo_input). */
void mutop_generate(const struct token_list *l, const struct syntax *s, enum src_lang lang,
                    struct mutant_list *out);

#endif

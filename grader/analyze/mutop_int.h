/*
 * mutop_int: what the operator families (mutop_c.c, mutop_cuda.c) and mutop.c share: the
 * walk's context and small token helpers (mutop_int.c). Private to the mutop files.
 */
#ifndef LG_MUTOP_INT_H
#define LG_MUTOP_INT_H

#include "analyze/mutant.h"
#include "analyze/syntax.h"

#include <stdbool.h>
#include <stddef.h>

#define NONE ((size_t)-1)

struct mutgen {
    const struct token_list *l;
    const struct syntax *s;
    enum src_lang lang;
    struct mutant_list *out;
    /* Token ranges [a, b] that run only for sizes the spec never gives: the bodies of
     * `if (n <= 0) ...` (mg_size_guard). No mutant is made there: none could be killed. */
    size_t (*dead)[2];
    size_t n_dead;
};

/* Fill g->dead (freed by the caller). */
void mg_find_dead(struct mutgen *g);

/* Token i is a place operators may change: code of a function body, or a macro body that is
 * not an error-check macro. */
bool mg_site(const struct mutgen *g, size_t i);
const char *mg_text(const struct mutgen *g, size_t i);
bool mg_is(const struct mutgen *g, size_t i, const char *s);
bool mg_is_ident(const struct mutgen *g, size_t i);
/* The source bytes of tokens a..b, as a new string. */
char *mg_span(const struct mutgen *g, size_t a, size_t b);
/* A mutant replacing tokens a..b with text. */
struct mutant *mg_replace(const struct mutgen *g, enum mut_op op, size_t site, size_t a, size_t b,
                          const char *text);
/* The last token of the operand that starts at i: up to a ; ) ] } , && || ? : = or a
 * comparison at its own bracket depth; NONE when there is none. */
size_t mg_operand_end(const struct mutgen *g, size_t i);
/* A comparison operator: < <= > >=. */
bool mg_is_relop(const struct mutgen *g, size_t i);
/* `PARAM op 0` or `0 op PARAM` (op a comparison or ==), PARAM a parameter of the enclosing
 * function: a guard on sizes the spec never gives. */
bool mg_size_guard(const struct mutgen *g, size_t relop);
/* Whether name is a parameter of f. */
bool mg_is_param(const struct syn_func *f, const char *name);
/* A for's header: the '(' and ')' and the two ';' splitting it; false when i is no `for`. */
bool mg_for_header(const struct mutgen *g, size_t for_tok, size_t *open, size_t *semi1,
                   size_t *semi2, size_t *close);

/* The operator families. */
void mutop_bounds(const struct mutgen *g);
void mutop_loops(const struct mutgen *g);
void mutop_swaps(const struct mutgen *g);
void mutop_cuda(const struct mutgen *g);

#endif

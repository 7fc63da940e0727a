/*
 * canon: the order in which the similarity check compares a file's tokens (issue 48), so that
 * what an automated obfuscator changes without changing what the program does leaves the
 * compared sequence as it was:
 *
 *   - dead statements go: a local variable nothing reads and every statement that only
 *     writes it (int unused = 3; unused += n;), expression statements that do nothing
 *     ((void)x; x;), empty statements, if (0) and while (0) with what they guard, and
 *     declarations that only give another name to a variable (const float *p = q;);
 *   - a for loop is compared as its while loop: for (A; B; C) S is A; while (B) S C;
 *   - braces go: a block is its statements, so nesting a statement in { } or taking the
 *     braces off a loop's body changes nothing;
 *   - independent statements are put in one order: within a statement list, two statements
 *     that do not both touch one variable (one writing it), nor both touch memory through
 *     pointers or calls (one writing), may be swapped by the compiler, and the sequence
 *     compared is the topological order of the others' dependencies that takes the smallest
 *     content first (JPlag's token sequence normalization, Sağlam et al., 2024): any order a
 *     copier gives them compares the same;
 *   - a file's top-level items (functions, declarations, macros) are put in the same content
 *     order: the order of functions does not count.
 *
 * The analysis is syntactic and by name: it trusts brackets to balance (syntax.h), knows no
 * types, and treats a call of any function of the submission's own, or a write through an
 * array or a pointer, as touching all memory. It decides alike for a copy whose names are all
 * different, since it compares names only with each other. An unbalanced or hostile file is
 * compared in an order of its own making, never crashes it; nesting deeper than CANON_DEPTH
 * and statement lists longer than CANON_LIST are kept as written.
 *
 * struct canon_out owns its array.
 */
#ifndef LG_CANON_H
#define LG_CANON_H

#include "analyze/syntax.h"
#include "analyze/tokens.h"

#include <stddef.h>
#include <stdint.h>

#define CANON_DEPTH 48
#define CANON_LIST 400

/* One compared token: its index in the token list, its symbol, and its top-level item (a
 * function, a declaration, a macro), numbered along the output from canon_out.units on. */
struct canon_tok {
    uint32_t tok, sym, unit;
};

struct canon_out {
    struct canon_tok *v;
    size_t n, alloc;
    uint32_t units; /* items numbered so far: the next file's first unit */
};

void canon_out_init(struct canon_out *o);
void canon_out_release(struct canon_out *o);

/*
 * Append the tokens of l to compare, in canonical order. sym[i] is token i's symbol, 0 for a
 * token not compared (a comment, a directive, boilerplate); syn is l's syntax; while_sym the
 * symbol a `for` is compared as.
 */
void canon_file(const struct token_list *l, const struct syntax *syn, const uint32_t *sym,
                uint32_t while_sym, struct canon_out *out);

#endif

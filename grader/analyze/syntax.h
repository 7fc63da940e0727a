/*
 * syntax: the little structure of a C/CUDA file that the similarity check and the mutation
 * operators need, read off its token stream (tokens.h): matching brackets, preprocessor
 * directives, #define macros, function definitions and their parameters, statements.
 *
 * It is not a parser: it trusts brackets to balance and knows only what a function
 * definition and a statement look like, which is all that lab code and its mutants need. An
 * unbalanced file gives fewer functions, never a crash.
 *
 * struct syntax owns its arrays and names; syntax_release() frees them. It refers to the
 * token list it was made from by index, so the list must outlive it.
 */
#ifndef LG_SYNTAX_H
#define LG_SYNTAX_H

#include "analyze/tokens.h"

#include <stdbool.h>
#include <stddef.h>

struct syn_param {
    char *name;       /* the parameter's name; NULL when it has none */
    char *type;       /* its type's tokens joined by spaces ("const float *") */
    size_t name_tok;  /* token index of the name (or of the last type token) */
    size_t first_tok; /* first token of the declaration */
};

struct syn_func {
    char *name;
    size_t name_tok;
    size_t params_open, params_close; /* the '(' and ')' of the parameter list */
    size_t body_open, body_close;     /* the body's '{' and '}' */
    bool kernel;                      /* declared __global__ */
    struct syn_param *params;
    size_t n_params;
};

struct syn_macro {
    char *name;
    size_t hash_tok;             /* the '#' */
    size_t body_first, body_end; /* the replacement list: [body_first, body_end) */
};

struct syntax {
    const struct token_list *toks;
    /* Per token: index of the '#' of the directive it belongs to, or SIZE_MAX. */
    size_t *directive;
    struct syn_func *funcs;
    size_t n_funcs, alloc_funcs;
    struct syn_macro *macros;
    size_t n_macros, alloc_macros;
};

void syntax_init(struct syntax *s);
void syntax_release(struct syntax *s);
/* Find the directives, macros and functions of l. */
void syntax_scan(struct syntax *s, const struct token_list *l);

/* The bracket matching the one at i ('(' '[' '{' forwards, ')' ']' '}' backwards), skipping
 * comments and directives; SIZE_MAX when it has none. */
size_t syn_match(const struct syntax *s, size_t i);
/* The next (previous) token after (before) i in the same place, comments skipped: code when
 * i is code, the same directive when i is in one (a macro's body); SIZE_MAX when none. */
size_t syn_next(const struct syntax *s, size_t i);
size_t syn_prev(const struct syntax *s, size_t i);
/* Whether token i is code: not a comment, not in a directive. */
bool syn_is_code(const struct syntax *s, size_t i);
/* The directive's name ("define", "include", ...) of token i, or NULL outside directives. */
const char *syn_directive_name(const struct syntax *s, size_t i);
/* The last token of the statement that begins at i (a block, if/for/while/do/switch with
 * their bodies, or tokens up to ';' at the same bracket depth); SIZE_MAX when it runs off. */
size_t syn_stmt_end(const struct syntax *s, size_t i);
/* The function whose body holds token i, or NULL. */
const struct syn_func *syn_func_at(const struct syntax *s, size_t i);
/* The macro whose replacement list holds token i, or NULL. */
const struct syn_macro *syn_macro_at(const struct syntax *s, size_t i);

#endif

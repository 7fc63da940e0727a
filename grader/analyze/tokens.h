/*
 * tokens: the token stream of one C, C++ or CUDA source file, from clang's own lexer
 * (libclang's clang_tokenize), for the similarity check and the mutation testing of a lab.
 *
 * The lexer sees the file as written: comments are tokens, preprocessor directives are
 * their tokens ('#', 'define', ...), macros are never expanded and no header is read, so a
 * file that does not compile, or a hostile one (a macro that doubles forty times, an
 * include of /dev/zero), still lexes in time linear in its size. In CUDA files `<<<` and
 * `>>>` are single tokens.
 *
 * libclang is loaded when first needed (dlopen), so the grader builds without it and runs,
 * every other command included, on a machine without it; tokens_available() says what is
 * missing and how to install it. docs/similarity.md says why libclang.
 *
 * struct token_list owns its tokens' spellings and the source text; token_list_release()
 * frees them.
 */
#ifndef LG_TOKENS_H
#define LG_TOKENS_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

enum tok_kind { TOK_PUNCT, TOK_KEYWORD, TOK_IDENT, TOK_LITERAL, TOK_COMMENT };

/* How a file is lexed: C keywords, C++ keywords, or C++ with CUDA's `<<<` and `>>>`. */
enum src_lang { SRC_C, SRC_CXX, SRC_CUDA };

struct token {
    enum tok_kind kind;
    char *text;      /* spelling, exactly as in the source */
    unsigned line;   /* 1-based */
    unsigned col;    /* 1-based, in bytes */
    unsigned offset; /* byte offset of the first character in the source */
    unsigned len;    /* bytes */
};

struct token_list {
    struct token *items;
    size_t n, alloc;
    char *source; /* the bytes lexed, NUL-terminated */
    size_t source_len;
};

void token_list_init(struct token_list *l);
void token_list_release(struct token_list *l);

/* .cu and .cuh: CUDA; .cc .cpp .cxx .hpp .hh: C++; anything else: C. */
enum src_lang src_lang_of(const char *path);

/* Whether libclang can be used here; when not, why and how to install it (into why). */
bool tokens_available(char *why, size_t why_size);

/* Lex text (len bytes; name is for messages only). -1 with err set when libclang is
 * missing or failed on it. */
int tokens_lex(const char *name, const char *text, size_t len, enum src_lang lang,
               struct token_list *out, struct error *err);

/* Read path and lex it in the language of its extension. */
int tokens_lex_file(const char *path, struct token_list *out, struct error *err);

/* The first token at or after index i that is not a comment; l->n when none. */
size_t tokens_skip_comments(const struct token_list *l, size_t i);

/* Whether token i is spelled s. */
bool tok_is(const struct token_list *l, size_t i, const char *s);

#endif

/*
 * canon_int: what canon.c (statements parsed, ordered and emitted), canonfx.c (what each
 * statement reads and writes, which must keep their order) and canondead.c (dead statements)
 * share. Internal to those files.
 *
 * One function body at a time is a tree of statements (struct cstmt) in one array; a
 * statement's children are index ranges of one shared array (kids), and are parsed, so
 * numbered, before it. A block is one statement (its braces are not compared): what a copier
 * wraps in braces, an inlined function's body, is ordered as one. A loop holds its init, the
 * for's first clause or the last statement before a while that writes what its condition
 * reads, so that the two forms compare alike. Names are interned per body: an id per
 * distinct spelling. The body owns everything (cbody_release).
 */
#ifndef LG_CANON_INT_H
#define LG_CANON_INT_H

#include "analyze/canon.h"
#include "analyze/syntax.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CANON_NONE UINT32_MAX

/* Tokens first..last of the list, both included; empty when first > last. */
struct crange {
    uint32_t first, last;
};

enum cs_kind { CS_SIMPLE, CS_BLOCK, CS_IF, CS_LOOP, CS_DO, CS_SWITCH, CS_LABEL, CS_JUMP };

/* Interned names, sorted, each once. */
struct cnames {
    uint32_t *v;
    size_t n, alloc;
};

/* What a statement does. */
struct cfx {
    struct cnames reads, writes;
    bool mem_read, mem_write; /* through an array, a pointer, a call or a launch */
    bool barrier;             /* return, break, continue, goto, a label: never moved past */
};

struct cstmt {
    uint8_t kind;
    bool dead;
    bool decl;        /* a declaration: its names are in decls */
    bool alias;       /* a declaration of one name from one other name (T *p = q;) */
    bool const_false; /* if (0) or while (0) */
    uint8_t n_head, n_tail;
    struct crange head[4], tail[1]; /* compared before and after the children */
    uint32_t relabel;               /* a `for` compared as `while`; CANON_NONE */
    uint32_t else_tok;              /* CANON_NONE */
    uint32_t init; /* a loop's: the statement that sets up its condition, compared first */
    uint32_t body, n_body, alt, n_alt; /* children: kids[body .. body + n_body) */
    struct cnames decls;
    struct cfx own; /* of head and tail */
    struct cfx all; /* own and the live children's (cfx_totals) */
};

struct cbody {
    const struct token_list *l;
    const struct syntax *syn;
    const uint32_t *sym;
    uint32_t while_sym;
    struct cstmt *st;
    size_t n_st, alloc_st;
    uint32_t *kids;
    size_t n_kids, alloc_kids;
    const char **name; /* id -> spelling (the token list's) */
    size_t n_names, alloc_names;
    uint32_t *table; /* open addressing: id + 1, 0 free */
    size_t table_size;
    int depth;
};

void cbody_init(struct cbody *b, const struct token_list *l, const struct syntax *syn,
                const uint32_t *sym, uint32_t while_sym);
void cbody_release(struct cbody *b);

/* Whether token i is compared (not a comment, directive or boilerplate). */
static inline bool c_live(const struct cbody *b, uint32_t i)
{
    return b->sym[i] != 0;
}

const char *c_text(const struct cbody *b, uint32_t i);

/* The children of s, its init included: n_kids(s) of them, kid(b, s, k) the k-th. */
static inline uint32_t n_kids(const struct cstmt *s)
{
    return s->n_body + s->n_alt + (s->init != CANON_NONE);
}

static inline uint32_t kid(const struct cbody *b, const struct cstmt *s, uint32_t k)
{
    if (k < s->n_body)
        return b->kids[s->body + k];
    if (k < s->n_body + s->n_alt)
        return b->kids[s->alt + k - s->n_body];
    return s->init;
}

/* canonfx.c */
void cnames_release(struct cnames *s);
bool cnames_has(const struct cnames *s, uint32_t id);
/* The statement's own effects and, for a declaration, its names (after parsing). */
void cfx_of(struct cbody *b, struct cstmt *s);
/* canondead.c: mark the dead statements of the body (every statement parsed: st[0 .. n_st)). */
void cdead_mark(struct cbody *b);
/* st[i].all for every statement, children first. */
void cfx_totals(struct cbody *b);
/* Whether statement y, after x, must stay after it. */
bool cfx_conflict(const struct cstmt *x, const struct cstmt *y);
/* Whether statement i, or one inside it, reads or writes a name of names (own effects). */
bool cfx_touches(const struct cbody *b, uint32_t i, const struct cnames *names);
bool cfx_writes_any(const struct cstmt *s, const struct cnames *names);
/* The names loop i's condition reads and its body writes: its induction variables (caller
 * releases). */
void cfx_induction(const struct cbody *b, uint32_t i, struct cnames *out);

#endif

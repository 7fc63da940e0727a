/* canonfx: what each statement of a function body reads and writes, which statements are
 * dead, and which must keep their order (canon_int.h). */
#include "analyze/canon_int.h"

#include "analyze/normalize.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

void cnames_release(struct cnames *s)
{
    free(s->v);
    memset(s, 0, sizeof(*s));
}

static void cnames_push(struct cnames *s, uint32_t id)
{
    ALLOC_GROW(s->v, s->n + 1, s->alloc);
    s->v[s->n++] = id;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* Sorted, each once. */
static void cnames_finish(struct cnames *s)
{
    size_t m = 0;
    if (s->n > 1)
        qsort(s->v, s->n, sizeof(*s->v), cmp_u32);
    for (size_t i = 0; i < s->n; i++)
        if (m == 0 || s->v[m - 1] != s->v[i])
            s->v[m++] = s->v[i];
    s->n = m;
}

bool cnames_has(const struct cnames *s, uint32_t id)
{
    return s->n && bsearch(&id, s->v, s->n, sizeof(*s->v), cmp_u32) != NULL;
}

static bool cnames_meet(const struct cnames *a, const struct cnames *b)
{
    for (size_t i = 0, j = 0; i < a->n && j < b->n;) {
        if (a->v[i] == b->v[j])
            return true;
        a->v[i] < b->v[j] ? i++ : j++;
    }
    return false;
}

static void cnames_union(struct cnames *into, const struct cnames *from)
{
    for (size_t i = 0; i < from->n; i++)
        cnames_push(into, from->v[i]);
    cnames_finish(into);
}

/* FNV-1a of a spelling, for the intern table. */
static uint32_t text_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void table_grow(struct cbody *b)
{
    size_t size = b->table_size ? 2 * b->table_size : 64;
    free(b->table);
    b->table = xcalloc(size, sizeof(*b->table));
    b->table_size = size;
    for (uint32_t id = 0; id < b->n_names; id++) {
        size_t at = text_hash(b->name[id]) & (size - 1);
        while (b->table[at])
            at = (at + 1) & (size - 1);
        b->table[at] = id + 1;
    }
}

/* The id of token i's spelling in this body. */
static uint32_t intern(struct cbody *b, uint32_t i)
{
    const char *s = c_text(b, i);
    if (2 * (b->n_names + 1) > b->table_size)
        table_grow(b);
    size_t at = text_hash(s) & (b->table_size - 1);
    for (; b->table[at]; at = (at + 1) & (b->table_size - 1))
        if (!strcmp(b->name[b->table[at] - 1], s))
            return b->table[at] - 1;
    ALLOC_GROW(b->name, b->n_names + 1, b->alloc_names);
    b->name[b->n_names] = s;
    b->table[at] = (uint32_t)b->n_names + 1;
    return (uint32_t)b->n_names++;
}

static bool is_one_of(const char *s, const char *const *list)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp(s, list[i]))
            return true;
    return false;
}

static bool is_assign(const char *s)
{
    static const char *const ops[] = {
        "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", NULL};
    return is_one_of(s, ops);
}

static bool is_incdec(const char *s)
{
    return !strcmp(s, "++") || !strcmp(s, "--");
}

/* Library functions that change nothing: calling them is no effect. */
static bool pure_call(const char *s)
{
    static const char *const pure[] = {
        "sqrtf",  "sqrt",  "expf",   "exp",   "logf",  "log",  "fabsf", "fabs",  "fminf",
        "fmaxf",  "fmin",  "fmax",   "min",   "max",   "powf", "pow",   "rintf", "rint",
        "roundf", "round", "floorf", "floor", "ceilf", "ceil", "sinf",  "cosf",  "tanhf",
        "fmaf",   "fma",   "isnan",  "isinf", "dim3",  NULL};
    return is_one_of(s, pure);
}

/* Words that make a statement a declaration, with the type they begin. */
static bool type_word(const struct token *t)
{
    static const char *const words[] = {
        "const",        "volatile",    "static",       "extern",     "register",
        "auto",         "unsigned",    "signed",       "short",      "long",
        "int",          "char",        "float",        "double",     "void",
        "_Bool",        "bool",        "struct",       "union",      "enum",
        "inline",       "restrict",    "__restrict__", "__shared__", "__device__",
        "__constant__", "__managed__", "typedef",      NULL};
    return (t->kind == TOK_KEYWORD || t->kind == TOK_IDENT) && is_one_of(t->text, words);
}

/* A statement's live tokens, in order, and the launch configurations' (which are not compared
 * but are read: a block count the launch uses keeps its place before it). Caller frees. */
static uint32_t *own_tokens(const struct cbody *b, const struct cstmt *s, size_t *n)
{
    size_t cap = 0;
    for (int r = 0; r < s->n_head + s->n_tail; r++) {
        const struct crange *g = r < s->n_head ? &s->head[r] : &s->tail[r - s->n_head];
        cap += g->first <= g->last ? g->last - g->first + 1 : 0;
    }
    uint32_t *t = xcalloc(cap + 1, sizeof(*t));
    bool launch = false;
    *n = 0;
    for (int r = 0; r < s->n_head + s->n_tail; r++) {
        const struct crange *g = r < s->n_head ? &s->head[r] : &s->tail[r - s->n_head];
        for (uint32_t i = g->first; g->first <= g->last && i <= g->last; i++) {
            bool config = launch && b->l->items[i].kind != TOK_COMMENT;
            if (c_live(b, i) || config)
                t[(*n)++] = i;
            if (c_live(b, i) && !strcmp(c_text(b, i), "<<<"))
                launch = true;
            if (!strcmp(c_text(b, i), ">>>"))
                launch = false;
        }
    }
    return t;
}

static const char *at(const struct cbody *b, const uint32_t *t, size_t n, size_t p)
{
    return p < n ? c_text(b, t[p]) : "";
}

/* Past the brackets that open at p (to its match in t), or p + 1 when unmatched. */
static size_t skip_brackets(const struct cbody *b, const uint32_t *t, size_t n, size_t p)
{
    long depth = 0;
    for (size_t q = p; q < n; q++) {
        const char *s = c_text(b, t[q]);
        depth += !strcmp(s, "(") || !strcmp(s, "[");
        depth -= !strcmp(s, ")") || !strcmp(s, "]");
        if (depth == 0)
            return q + 1;
    }
    return p + 1;
}

/* Whether the token before p makes an operator at p unary (* as a dereference, & as an
 * address): nothing before it, or an operator or opening bracket. */
static bool unary_at(const struct cbody *b, const uint32_t *t, size_t p)
{
    if (p == 0)
        return true;
    const struct token *prev = &b->l->items[t[p - 1]];
    if (prev->kind == TOK_IDENT || prev->kind == TOK_LITERAL)
        return false;
    return strcmp(prev->text, ")") && strcmp(prev->text, "]") && !is_incdec(prev->text);
}

/* The declared names of a declaration (marked in decl), the type's words (in type); false
 * when the statement is no declaration. */
static bool find_decl(const struct cbody *b, const uint32_t *t, size_t n, bool *decl, bool *type)
{
    size_t q = 0;
    while (q < n && type_word(&b->l->items[t[q]]))
        type[q++] = true;
    bool ident = q < n && b->l->items[t[q]].kind == TOK_IDENT;
    const struct token *next = q + 1 < n ? &b->l->items[t[q + 1]] : NULL;
    bool named_type = ident && next && (next->kind == TOK_IDENT || !strcmp(next->text, "*"));
    if (named_type)
        type[q++] = true;
    if (!named_type && q == 0)
        return false;
    for (size_t d = q; d < n;) {
        size_t name = SIZE_MAX, p = d;
        for (; p < n && strcmp(at(b, t, n, p), ",") && strcmp(at(b, t, n, p), ";"); p++) {
            const char *s = at(b, t, n, p);
            if (!strcmp(s, "=") || !strcmp(s, "[") || !strcmp(s, "("))
                break;
            if (b->l->items[t[p]].kind == TOK_IDENT && !type_word(&b->l->items[t[p]]))
                name = p;
        }
        if (name != SIZE_MAX)
            decl[name] = true;
        while (p < n && strcmp(at(b, t, n, p), ",") && strcmp(at(b, t, n, p), ";")) {
            const char *s = at(b, t, n, p);
            p = !strcmp(s, "(") || !strcmp(s, "[") ? skip_brackets(b, t, n, p) : p + 1;
        }
        d = p + 1;
    }
    return true;
}

struct scan {
    struct cbody *b;
    const uint32_t *t;
    size_t n;
    const bool *decl, *type;
    struct cfx *fx;
};

/* The name at p is used as a variable: read, written, or both. */
static void use_name(struct scan *c, size_t p)
{
    size_t after = p + 1;
    bool through = false;
    while (after < c->n) {
        const char *s = at(c->b, c->t, c->n, after);
        if (!strcmp(s, "[")) {
            through = true;
            after = skip_brackets(c->b, c->t, c->n, after);
        } else if (!strcmp(s, ".") || !strcmp(s, "->")) {
            through |= s[0] == '-';
            after += 2;
        } else {
            break;
        }
    }
    const char *op = at(c->b, c->t, c->n, after), *prev = p ? at(c->b, c->t, c->n, p - 1) : "";
    bool deref = p > 0 && !strcmp(prev, "*") && unary_at(c->b, c->t, p - 1);
    bool addr = p > 0 && !strcmp(prev, "&") && unary_at(c->b, c->t, p - 1);
    bool stored = is_assign(op) || is_incdec(op) || is_incdec(prev);
    uint32_t id = intern(c->b, c->t[p]);
    if (stored && (through || deref)) {
        c->fx->mem_write = true;
        cnames_push(&c->fx->reads, id);
        return;
    }
    if (stored || addr)
        cnames_push(&c->fx->writes, id);
    if (!stored || strcmp(op, "=") || addr)
        cnames_push(&c->fx->reads, id);
    c->fx->mem_read |= through || deref;
}

static void scan_token(struct scan *c, size_t p)
{
    const struct token *tk = &c->b->l->items[c->t[p]];
    static const char *const jumps[] = {"return", "break", "continue", "goto", NULL};
    if (tk->kind == TOK_KEYWORD && is_one_of(tk->text, jumps))
        c->fx->barrier = true;
    if (!strcmp(tk->text, "<<<"))
        c->fx->mem_read = c->fx->mem_write = true;
    if (tk->kind != TOK_IDENT || c->type[p])
        return;
    const char *prev = p ? at(c->b, c->t, c->n, p - 1) : "";
    if (!strcmp(prev, ".") || !strcmp(prev, "->"))
        return; /* a member: its base was the use */
    if (c->decl[p]) {
        cnames_push(&c->fx->writes, intern(c->b, c->t[p]));
        return;
    }
    if (!strcmp(at(c->b, c->t, c->n, p + 1), "(")) {
        if (!norm_kept_name(tk->text) || !pure_call(tk->text))
            c->fx->mem_read = c->fx->mem_write = true;
        return;
    }
    use_name(c, p);
}

/* The one declared name when the declaration only aliases another name (T *p = q;). */
static bool is_alias(const struct cbody *b, const uint32_t *t, size_t n, const bool *decl)
{
    size_t names = 0, eq = SIZE_MAX;
    for (size_t p = 0; p < n; p++) {
        names += decl[p];
        if (eq == SIZE_MAX && !strcmp(at(b, t, n, p), "="))
            eq = p;
    }
    if (names != 1 || eq == SIZE_MAX || eq + 1 >= n)
        return false;
    size_t end = n;
    while (end > eq + 1 && !strcmp(at(b, t, n, end - 1), ";"))
        end--;
    return end == eq + 2 && b->l->items[t[eq + 1]].kind == TOK_IDENT &&
           !norm_kept_name(c_text(b, t[eq + 1]));
}

/* Whether the condition in the head (kw ( cond )) is the constant 0 or false. */
static bool false_condition(const struct cbody *b, const uint32_t *t, size_t n)
{
    if (n != 4 || strcmp(at(b, t, n, 1), "(") || strcmp(at(b, t, n, 3), ")"))
        return false;
    const char *c = at(b, t, n, 2);
    return !strcmp(c, "0") || !strcmp(c, "false");
}

void cfx_of(struct cbody *b, struct cstmt *s)
{
    size_t n;
    uint32_t *t = own_tokens(b, s, &n);
    bool *decl = xcalloc(n + 1, sizeof(*decl)), *type = xcalloc(n + 1, sizeof(*type));
    struct scan c = {b, t, n, decl, type, &s->own};
    memset(&s->own, 0, sizeof(s->own));
    memset(&s->decls, 0, sizeof(s->decls));
    if (s->kind == CS_SIMPLE && find_decl(b, t, n, decl, type)) {
        s->decl = true;
        for (size_t p = 0; p < n; p++)
            if (decl[p])
                cnames_push(&s->decls, intern(b, t[p]));
        cnames_finish(&s->decls);
        s->alias = is_alias(b, t, n, decl);
    }
    for (size_t p = 0; p < n; p++)
        scan_token(&c, p);
    s->own.barrier |= s->kind == CS_LABEL || s->kind == CS_JUMP;
    s->const_false = (s->kind == CS_IF || s->kind == CS_LOOP) && s->relabel == CANON_NONE &&
                     s->else_tok == CANON_NONE && false_condition(b, t, n);
    cnames_finish(&s->own.reads);
    cnames_finish(&s->own.writes);
    free(decl);
    free(type);
    free(t);
}

static void fx_add(struct cfx *into, const struct cfx *from)
{
    cnames_union(&into->reads, &from->reads);
    cnames_union(&into->writes, &from->writes);
    into->mem_read |= from->mem_read;
    into->mem_write |= from->mem_write;
    into->barrier |= from->barrier;
}

void cfx_totals(struct cbody *b)
{
    /* Children are parsed, and so numbered, before their statement. */
    for (size_t i = 0; i < b->n_st; i++) {
        struct cstmt *s = &b->st[i];
        memset(&s->all, 0, sizeof(s->all));
        fx_add(&s->all, &s->own);
        for (uint32_t k = 0; k < n_kids(s); k++) {
            uint32_t c = kid(b, s, k);
            if (!b->st[c].dead)
                fx_add(&s->all, &b->st[c].all);
        }
    }
}

bool cfx_conflict(const struct cstmt *x, const struct cstmt *y)
{
    const struct cfx *a = &x->all, *b = &y->all;
    if (a->barrier || b->barrier)
        return true;
    if (cnames_meet(&a->writes, &b->reads) || cnames_meet(&a->writes, &b->writes) ||
        cnames_meet(&a->reads, &b->writes))
        return true;
    return (a->mem_write && (b->mem_read || b->mem_write)) || (a->mem_read && b->mem_write);
}

bool cfx_writes_any(const struct cstmt *s, const struct cnames *names)
{
    return cnames_meet(&s->own.writes, names);
}

bool cfx_touches(const struct cbody *b, uint32_t i, const struct cnames *names)
{
    const struct cstmt *s = &b->st[i];
    if (cnames_meet(&s->own.reads, names) || cnames_meet(&s->own.writes, names))
        return true;
    for (uint32_t k = 0; k < n_kids(s); k++)
        if (cfx_touches(b, kid(b, s, k), names))
            return true;
    return false;
}

static void writes_inside(const struct cbody *b, uint32_t i, struct cnames *out)
{
    const struct cstmt *s = &b->st[i];
    for (size_t k = 0; k < s->own.writes.n; k++)
        cnames_push(out, s->own.writes.v[k]);
    for (uint32_t k = 0; k < s->n_body + s->n_alt; k++)
        writes_inside(b, kid(b, s, k), out);
}

void cfx_induction(const struct cbody *b, uint32_t i, struct cnames *out)
{
    const struct cstmt *loop = &b->st[i];
    struct cnames body = {NULL, 0, 0};
    for (uint32_t k = 0; k < loop->n_body; k++)
        writes_inside(b, kid(b, loop, k), &body);
    cnames_finish(&body);
    memset(out, 0, sizeof(*out));
    for (size_t k = 0; k < loop->own.reads.n; k++)
        if (cnames_has(&body, loop->own.reads.v[k]))
            cnames_push(out, loop->own.reads.v[k]);
    cnames_release(&body);
}

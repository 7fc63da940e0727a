/* canon: a file's tokens in the order the similarity check compares them. See canon.h. */
#include "analyze/canon_int.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

void canon_out_init(struct canon_out *o)
{
    memset(o, 0, sizeof(*o));
}

void canon_out_release(struct canon_out *o)
{
    free(o->v);
    canon_out_init(o);
}

static void out_push(struct canon_out *o, uint32_t tok, uint32_t sym)
{
    ALLOC_GROW(o->v, o->n + 1, o->alloc);
    o->v[o->n++] = (struct canon_tok){tok, sym, 0};
}

static void out_append(struct canon_out *o, const struct canon_out *from)
{
    if (from->n == 0)
        return;
    ALLOC_GROW(o->v, o->n + from->n, o->alloc);
    memcpy(o->v + o->n, from->v, from->n * sizeof(*from->v));
    o->n += from->n;
}

const char *c_text(const struct cbody *b, uint32_t i)
{
    return b->l->items[i].text;
}

void cbody_init(struct cbody *b, const struct token_list *l, const struct syntax *syn,
                const uint32_t *sym, uint32_t while_sym)
{
    memset(b, 0, sizeof(*b));
    b->l = l;
    b->syn = syn;
    b->sym = sym;
    b->while_sym = while_sym;
}

void cbody_release(struct cbody *b)
{
    for (size_t i = 0; i < b->n_st; i++) {
        cnames_release(&b->st[i].decls);
        cnames_release(&b->st[i].own.reads);
        cnames_release(&b->st[i].own.writes);
        cnames_release(&b->st[i].all.reads);
        cnames_release(&b->st[i].all.writes);
    }
    free(b->st);
    free(b->kids);
    free(b->name);
    free(b->table);
    memset(b, 0, sizeof(*b));
}

/* ---- parsing a function body into statements ---- */

struct u32vec {
    uint32_t *v;
    size_t n, alloc;
};

static void vec_push(struct u32vec *v, uint32_t x)
{
    ALLOC_GROW(v->v, v->n + 1, v->alloc);
    v->v[v->n++] = x;
}

static uint32_t next_tok(const struct cbody *b, uint32_t i)
{
    size_t j = syn_next(b->syn, i);
    return j == SIZE_MAX ? CANON_NONE : (uint32_t)j;
}

static bool is(const struct cbody *b, uint32_t i, const char *s)
{
    return i != CANON_NONE && !strcmp(c_text(b, i), s);
}

/* The last token of the statement at i, no further than last. */
static uint32_t stmt_end(const struct cbody *b, uint32_t i, uint32_t last)
{
    size_t e = syn_stmt_end(b->syn, i);
    return e == SIZE_MAX || e > last ? last : (uint32_t)e;
}

/* The bracket matching the one at i when it lies no further than last. */
static uint32_t match_in(const struct cbody *b, uint32_t i, uint32_t last)
{
    size_t m = i == CANON_NONE ? SIZE_MAX : syn_match(b->syn, i);
    return m == SIZE_MAX || m > last ? CANON_NONE : (uint32_t)m;
}

static uint32_t add_stmt(struct cbody *b, const struct cstmt *tmpl)
{
    ALLOC_GROW(b->st, b->n_st + 1, b->alloc_st);
    b->st[b->n_st] = *tmpl;
    cfx_of(b, &b->st[b->n_st]);
    return (uint32_t)b->n_st++;
}

static struct cstmt stmt_of(enum cs_kind kind, uint32_t first, uint32_t last)
{
    struct cstmt s;
    memset(&s, 0, sizeof(s));
    s.kind = (uint8_t)kind;
    s.relabel = s.else_tok = s.init = CANON_NONE;
    s.n_head = 1;
    s.head[0] = (struct crange){first, last};
    return s;
}

static void set_kids(struct cbody *b, const struct u32vec *v, uint32_t *first, uint32_t *n)
{
    ALLOC_GROW(b->kids, b->n_kids + v->n + 1, b->alloc_kids);
    *first = (uint32_t)b->n_kids;
    *n = (uint32_t)v->n;
    if (v->n)
        memcpy(b->kids + b->n_kids, v->v, v->n * sizeof(*v->v));
    b->n_kids += v->n;
}

static uint32_t parse_stmt(struct cbody *b, uint32_t i, uint32_t last, struct u32vec *out);

/* A loop without an init takes as its init the last statement before it in its list that
 * writes one of its induction variables (what its condition reads and its body writes), when
 * nothing in between touches them (looking back CANON_LIST statements at most): what a for
 * loop holds in its first clause, wherever a copier put it. */
static void bind_inits(struct cbody *b, struct u32vec *v)
{
    for (size_t p = 0; p < v->n; p++) {
        struct cnames ind;
        if (b->st[v->v[p]].kind != CS_LOOP || b->st[v->v[p]].init != CANON_NONE)
            continue;
        cfx_induction(b, v->v[p], &ind);
        for (size_t q = p; ind.n && q-- > 0 && p - q <= CANON_LIST;) {
            const struct cstmt *s = &b->st[v->v[q]];
            if (s->kind == CS_SIMPLE && !s->own.barrier && cfx_writes_any(s, &ind)) {
                b->st[v->v[p]].init = v->v[q];
                memmove(v->v + q, v->v + q + 1, (v->n - q - 1) * sizeof(*v->v));
                v->n--;
                p--;
                break;
            }
            if (s->own.barrier || cfx_touches(b, v->v[q], &ind))
                break;
        }
        cnames_release(&ind);
    }
}

static void parse_list(struct cbody *b, uint32_t i, uint32_t last, struct u32vec *out)
{
    while (i != CANON_NONE && i <= last) {
        uint32_t end = parse_stmt(b, i, last, out);
        i = end >= last ? CANON_NONE : next_tok(b, end);
    }
    bind_inits(b, out);
}

/* The statement at i as the body of s (children kids[body ..)). */
static uint32_t parse_body(struct cbody *b, uint32_t i, uint32_t last, struct cstmt *s)
{
    struct u32vec v = {NULL, 0, 0};
    uint32_t end = i == CANON_NONE || i > last ? last : parse_stmt(b, i, last, &v);
    set_kids(b, &v, &s->body, &s->n_body);
    free(v.v);
    return end;
}

/* if (c) S [else T]; and `kw (c) S` for while and switch. false when it is not one. */
static bool parse_header(struct cbody *b, uint32_t i, uint32_t end, struct u32vec *out)
{
    uint32_t open = next_tok(b, i), close = match_in(b, open, end);
    if (!is(b, open, "(") || close == CANON_NONE)
        return false;
    enum cs_kind kind = is(b, i, "if") ? CS_IF : is(b, i, "while") ? CS_LOOP : CS_SWITCH;
    struct cstmt s = stmt_of(kind, i, close);
    uint32_t body_end = parse_body(b, next_tok(b, close), end, &s);
    uint32_t e = body_end < end ? next_tok(b, body_end) : CANON_NONE;
    if (kind == CS_IF && is(b, e, "else") && e < end) {
        struct u32vec v = {NULL, 0, 0};
        parse_stmt(b, next_tok(b, e), end, &v);
        set_kids(b, &v, &s.alt, &s.n_alt);
        s.else_tok = e;
        free(v.v);
    }
    vec_push(out, add_stmt(b, &s));
    return true;
}

/* The first ';' at the parentheses' own depth after from and before close. */
static uint32_t semicolon(const struct cbody *b, uint32_t from, uint32_t close)
{
    for (uint32_t j = next_tok(b, from); j != CANON_NONE && j < close; j = next_tok(b, j)) {
        if (is(b, j, ";"))
            return j;
        bool opens = is(b, j, "(") || is(b, j, "[") || is(b, j, "{");
        uint32_t m = opens ? match_in(b, j, close) : CANON_NONE;
        if (m != CANON_NONE)
            j = m;
    }
    return CANON_NONE;
}

/* for (A; B; C) S, compared as A; while (B) S C; with A the loop's init and C a statement
 * of its own, last in its body. */
static bool parse_for(struct cbody *b, uint32_t i, uint32_t end, struct u32vec *out)
{
    uint32_t open = next_tok(b, i), close = match_in(b, open, end);
    uint32_t s1 = close == CANON_NONE ? CANON_NONE : semicolon(b, open, close);
    uint32_t s2 = s1 == CANON_NONE ? CANON_NONE : semicolon(b, s1, close);
    if (!is(b, open, "(") || s2 == CANON_NONE)
        return false;
    struct cstmt loop = stmt_of(CS_LOOP, i, i);
    if (next_tok(b, open) != s1) {
        struct cstmt init = stmt_of(CS_SIMPLE, open + 1, s1);
        loop.init = add_stmt(b, &init);
    }
    loop.relabel = i;
    loop.n_head = 4;
    loop.head[1] = (struct crange){open, open};
    loop.head[2] = (struct crange){s1 + 1, s2 - 1};
    loop.head[3] = (struct crange){close, close};
    struct u32vec v = {NULL, 0, 0};
    uint32_t body = next_tok(b, close);
    if (body != CANON_NONE && body <= end)
        parse_stmt(b, body, end, &v);
    if (next_tok(b, s2) != close) {
        struct cstmt step = stmt_of(CS_SIMPLE, s2 + 1, close - 1);
        step.n_head = 2;
        step.head[1] = (struct crange){s2, s2};
        vec_push(&v, add_stmt(b, &step));
    }
    set_kids(b, &v, &loop.body, &loop.n_body);
    free(v.v);
    vec_push(out, add_stmt(b, &loop));
    return true;
}

/* do S while (c); */
static bool parse_do(struct cbody *b, uint32_t i, uint32_t end, struct u32vec *out)
{
    struct cstmt s = stmt_of(CS_DO, i, i);
    uint32_t body_end = parse_body(b, next_tok(b, i), end, &s);
    uint32_t w = body_end < end ? next_tok(b, body_end) : CANON_NONE;
    if (!is(b, w, "while") || w > end)
        return false;
    s.n_tail = 1;
    s.tail[0] = (struct crange){w, end};
    vec_push(out, add_stmt(b, &s));
    return true;
}

/* A block or a compound statement; false when the statement at i is neither. */
static bool parse_compound(struct cbody *b, uint32_t i, uint32_t end, struct u32vec *out)
{
    if (is(b, i, "{")) {
        uint32_t close = match_in(b, i, end), first = next_tok(b, i);
        struct u32vec v = {NULL, 0, 0};
        if (close == CANON_NONE)
            return false;
        struct cstmt s = stmt_of(CS_BLOCK, i, i);
        s.n_head = 0;
        if (first != CANON_NONE && first < close)
            parse_list(b, first, close - 1, &v);
        set_kids(b, &v, &s.body, &s.n_body);
        free(v.v);
        vec_push(out, add_stmt(b, &s));
        return true;
    }
    if (is(b, i, "if") || is(b, i, "while") || is(b, i, "switch"))
        return parse_header(b, i, end, out);
    if (is(b, i, "for"))
        return parse_for(b, i, end, out);
    return is(b, i, "do") && parse_do(b, i, end, out);
}

/* `case x:`, `default:` or `name:` at i: the ':' that ends it, or CANON_NONE. */
static uint32_t label_end(const struct cbody *b, uint32_t i, uint32_t end)
{
    uint32_t next = next_tok(b, i);
    if (b->l->items[i].kind == TOK_IDENT || is(b, i, "default"))
        return is(b, next, ":") && next <= end ? next : CANON_NONE;
    if (!is(b, i, "case"))
        return CANON_NONE;
    for (uint32_t j = next; j != CANON_NONE && j <= end; j = next_tok(b, j))
        if (is(b, j, ":"))
            return j;
    return CANON_NONE;
}

static bool is_jump(const struct cbody *b, uint32_t i)
{
    return is(b, i, "return") || is(b, i, "break") || is(b, i, "continue") || is(b, i, "goto");
}

/* The statement at i into out (a block: its statements; a for: two); its last token. */
static uint32_t parse_stmt(struct cbody *b, uint32_t i, uint32_t last, struct u32vec *out)
{
    uint32_t label = label_end(b, i, last);
    if (label != CANON_NONE) {
        struct cstmt s = stmt_of(CS_LABEL, i, label);
        vec_push(out, add_stmt(b, &s));
        return label;
    }
    uint32_t end = stmt_end(b, i, last);
    bool parsed = false;
    if (b->depth < CANON_DEPTH) {
        b->depth++;
        parsed = parse_compound(b, i, end, out);
        b->depth--;
    }
    if (!parsed) {
        struct cstmt s = stmt_of(is_jump(b, i) ? CS_JUMP : CS_SIMPLE, i, end);
        vec_push(out, add_stmt(b, &s));
    }
    return end;
}

/* ---- emission in canonical order ---- */

static void emit_range(const struct cbody *b, struct crange g, uint32_t relabel,
                       struct canon_out *o)
{
    for (uint32_t i = g.first; g.first <= g.last && i <= g.last; i++)
        if (c_live(b, i) && !is(b, i, "{") && !is(b, i, "}"))
            out_push(o, i, i == relabel ? b->while_sym : b->sym[i]);
}

static uint64_t seq_key(const struct canon_out *o)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < o->n; i++)
        h = (h ^ o->v[i].sym) * 0x100000001b3ull;
    return h;
}

/* One statement of a list, emitted on its own before the list is ordered. */
struct item {
    struct canon_out seq;
    uint64_t key;
    uint32_t stmt; /* in a list: its statement */
    bool function; /* at the top level: a function's definition */
    size_t pos;
};

static bool item_before(const struct item *x, const struct item *y)
{
    return x->key != y->key ? x->key < y->key : x->pos < y->pos;
}

/* Kahn's algorithm over the statements' conflicts, the smallest content first among those
 * ready: the same order for any order of the independent ones. */
static void order_segment(const struct cbody *b, struct item *it, size_t n)
{
    unsigned char *edge = xcalloc(n * n, 1);
    unsigned *indeg = xcalloc(n, sizeof(*indeg));
    bool *done = xcalloc(n, sizeof(*done));
    struct item *sorted = xcalloc(n, sizeof(*sorted));
    for (size_t x = 0; x < n; x++)
        for (size_t y = x + 1; y < n; y++)
            if (cfx_conflict(&b->st[it[x].stmt], &b->st[it[y].stmt])) {
                edge[x * n + y] = 1;
                indeg[y]++;
            }
    for (size_t step = 0; step < n; step++) {
        size_t pick = SIZE_MAX;
        for (size_t x = 0; x < n; x++)
            if (!done[x] && indeg[x] == 0 && (pick == SIZE_MAX || item_before(&it[x], &it[pick])))
                pick = x;
        done[pick] = true;
        sorted[step] = it[pick];
        for (size_t y = 0; y < n; y++)
            indeg[y] -= edge[pick * n + y];
    }
    memcpy(it, sorted, n * sizeof(*it));
    free(edge);
    free(indeg);
    free(done);
    free(sorted);
}

/* Statements never move past a barrier (a jump, a label): each stretch between two is
 * ordered on its own. */
static void order_items(const struct cbody *b, struct item *it, size_t n)
{
    for (size_t start = 0; start < n;) {
        size_t end = start;
        while (end < n && !b->st[it[end].stmt].all.barrier)
            end++;
        if (end - start > 1)
            order_segment(b, it + start, end - start);
        start = end + 1;
    }
}

static void emit_list(const struct cbody *b, uint32_t first, uint32_t n, struct canon_out *o);

static void emit_stmt(const struct cbody *b, uint32_t i, struct canon_out *o)
{
    const struct cstmt *s = &b->st[i];
    if (s->init != CANON_NONE && !b->st[s->init].dead)
        emit_stmt(b, s->init, o);
    for (int r = 0; r < s->n_head; r++)
        emit_range(b, s->head[r], s->relabel, o);
    emit_list(b, s->body, s->n_body, o);
    if (s->else_tok != CANON_NONE)
        emit_range(b, (struct crange){s->else_tok, s->else_tok}, CANON_NONE, o);
    emit_list(b, s->alt, s->n_alt, o);
    for (int r = 0; r < s->n_tail; r++)
        emit_range(b, s->tail[r], CANON_NONE, o);
}

static void emit_list(const struct cbody *b, uint32_t first, uint32_t n, struct canon_out *o)
{
    struct item *it = xcalloc(n + 1, sizeof(*it));
    size_t m = 0;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t c = b->kids[first + k];
        if (b->st[c].dead)
            continue;
        canon_out_init(&it[m].seq);
        emit_stmt(b, c, &it[m].seq);
        it[m].key = seq_key(&it[m].seq);
        it[m].stmt = c;
        it[m].pos = m;
        m++;
    }
    if (m > 1 && m <= CANON_LIST)
        order_items(b, it, m);
    for (size_t k = 0; k < m; k++) {
        out_append(o, &it[k].seq);
        canon_out_release(&it[k].seq);
    }
    free(it);
}

/* A function's body, without its braces, in canonical order. */
static void emit_body(const struct token_list *l, const struct syntax *syn, const uint32_t *sym,
                      uint32_t while_sym, const struct syn_func *f, struct canon_out *o)
{
    struct cbody b;
    struct u32vec roots = {NULL, 0, 0};
    uint32_t first_kid, n_kids;
    cbody_init(&b, l, syn, sym, while_sym);
    uint32_t first = next_tok(&b, (uint32_t)f->body_open);
    if (first != CANON_NONE && first < f->body_close)
        parse_list(&b, first, (uint32_t)f->body_close - 1, &roots);
    cdead_mark(&b);
    cfx_totals(&b);
    set_kids(&b, &roots, &first_kid, &n_kids);
    emit_list(&b, first_kid, n_kids, o);
    free(roots.v);
    cbody_release(&b);
}

/* ---- the file's top-level items ---- */

struct items {
    struct item *v;
    size_t n, alloc;
};

static void flush(struct items *its, struct canon_out *cur, bool function)
{
    if (cur->n == 0)
        return;
    ALLOC_GROW(its->v, its->n + 1, its->alloc);
    its->v[its->n] = (struct item){*cur, seq_key(cur), 0, function, its->n};
    its->n++;
    canon_out_init(cur);
}

static int by_content(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Whether token i, at the top level, ends an item: a ';' or a '}' outside brackets. */
static bool item_ends(const char *t, long *depth)
{
    if (!strcmp(t, "(") || !strcmp(t, "[") || !strcmp(t, "{"))
        (*depth)++;
    if (!strcmp(t, ")") || !strcmp(t, "]") || !strcmp(t, "}"))
        (*depth)--;
    bool end = *depth <= 0 && (!strcmp(t, ";") || !strcmp(t, "}"));
    if (end)
        *depth = 0;
    return end;
}

/* The top-level items of l: a function with its head, a declaration up to its ';', a
 * directive (a #define's replacement list). */
static void split_items(const struct token_list *l, const struct syntax *syn, const uint32_t *sym,
                        uint32_t while_sym, struct items *its)
{
    struct canon_out cur;
    size_t f = 0, dir = SIZE_MAX;
    long depth = 0;
    canon_out_init(&cur);
    for (size_t i = 0; i < l->n; i++) {
        while (f < syn->n_funcs && syn->funcs[f].body_open < i)
            f++;
        if (f < syn->n_funcs && syn->funcs[f].body_open == i) {
            emit_body(l, syn, sym, while_sym, &syn->funcs[f], &cur);
            flush(its, &cur, true);
            i = syn->funcs[f].body_close;
            depth = 0;
            continue;
        }
        if (!sym[i])
            continue;
        if (syn->directive[i] != dir)
            flush(its, &cur, false);
        dir = syn->directive[i];
        const char *t = l->items[i].text;
        if (strcmp(t, "{") && strcmp(t, "}"))
            out_push(&cur, (uint32_t)i, sym[i]);
        if (dir == SIZE_MAX && item_ends(t, &depth))
            flush(its, &cur, false);
    }
    flush(its, &cur, false);
}

/* Whether the item declares a function that the file defines: a prototype, as a copier adds
 * when moving functions around, says nothing the definition does not. */
static bool is_prototype(const struct token_list *l, const struct syntax *syn,
                         const struct canon_out *it)
{
    if (it->n < 3 || strcmp(l->items[it->v[it->n - 1].tok].text, ";"))
        return false;
    for (size_t k = 1; k < it->n; k++) {
        const char *t = l->items[it->v[k].tok].text;
        if (!strcmp(t, "=") || !strcmp(t, ";"))
            return false;
        if (strcmp(t, "("))
            continue;
        const struct token *name = &l->items[it->v[k - 1].tok];
        for (size_t f = 0; name->kind == TOK_IDENT && f < syn->n_funcs; f++)
            if (!strcmp(syn->funcs[f].name, name->text))
                return true;
        return false;
    }
    return false;
}

void canon_file(const struct token_list *l, const struct syntax *syn, const uint32_t *sym,
                uint32_t while_sym, struct canon_out *out)
{
    struct items its = {NULL, 0, 0};
    split_items(l, syn, sym, while_sym, &its);
    size_t kept = 0;
    for (size_t k = 0; k < its.n; k++) {
        if (!its.v[k].function && is_prototype(l, syn, &its.v[k].seq))
            canon_out_release(&its.v[k].seq);
        else
            its.v[kept++] = its.v[k];
    }
    its.n = kept;
    if (its.n > 1)
        qsort(its.v, its.n, sizeof(*its.v), by_content);
    for (size_t k = 0; k < its.n; k++) {
        for (size_t j = 0; j < its.v[k].seq.n; j++)
            its.v[k].seq.v[j].unit = out->units;
        out->units++;
        out_append(out, &its.v[k].seq);
        canon_out_release(&its.v[k].seq);
    }
    free(its.v);
}

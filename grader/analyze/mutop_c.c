/* mutop_c: the operators of plain C code: comparisons, guards, loops, accumulation, swaps. */
#include "analyze/mutop_int.h"

#include "base/alloc.h"

#include <string.h>

static void rel_bound(const struct mutgen *g, size_t i)
{
    static const char *const from[] = {"<", "<=", ">", ">="}, *const to[] = {"<=", "<", ">=", ">"};
    for (size_t k = 0; k < 4; k++)
        if (mg_is(g, i, from[k]))
            mg_replace(g, MUT_REL_BOUND, i, i, i, to[k]);
}

/* The right operand E of the comparison at i becomes (E) - 1, when E names something. */
static void bound_minus_one(const struct mutgen *g, size_t i)
{
    size_t a = syn_next(g->s, i), b = a == NONE ? NONE : mg_operand_end(g, a);
    if (b == NONE)
        return;
    bool named = false;
    for (size_t j = a; j != NONE && j <= b; j = syn_next(g->s, j))
        named |= mg_is_ident(g, j);
    if (!named)
        return;
    char *e = mg_span(g, a, b), *t = xstrfmt("(%s) - 1", e);
    mg_replace(g, MUT_BOUND_MINUS_ONE, a, a, b, t);
    free(e);
    free(t);
}

/* if (COND) BODY, with a comparison in COND and no else: COND becomes 1, or 0 when BODY
 * returns (an early exit for the threads out of range). */
static void drop_guard(const struct mutgen *g, size_t i)
{
    size_t open = syn_next(g->s, i), close = open == NONE ? NONE : syn_match(g->s, open);
    if (!mg_is(g, open, "(") || close == NONE)
        return;
    bool compares = false;
    for (size_t j = syn_next(g->s, open); j != NONE && j < close; j = syn_next(g->s, j)) {
        if (mg_is(g, j, "(") || mg_is(g, j, "["))
            j = syn_match(g->s, j);
        else if (mg_is_relop(g, j) && !mg_size_guard(g, j))
            compares = true;
        if (j == NONE)
            return;
    }
    size_t body = syn_next(g->s, close), end = body == NONE ? NONE : syn_stmt_end(g->s, body);
    size_t after = end == NONE ? NONE : syn_next(g->s, end);
    if (!compares || end == NONE || mg_is(g, after, "else"))
        return;
    size_t first = mg_is(g, body, "{") ? syn_next(g->s, body) : body;
    mg_replace(g, MUT_DROP_GUARD, i, syn_next(g->s, open), syn_prev(g->s, close),
               mg_is(g, first, "return") ? "0" : "1");
}

/* Inside the parentheses of a for header. */
static bool in_for_header(const struct mutgen *g, size_t i)
{
    long depth = 0;
    for (size_t j = syn_prev(g->s, i); j != NONE; j = syn_prev(g->s, j)) {
        if (mg_is(g, j, ")") || mg_is(g, j, "]"))
            depth++;
        else if (mg_is(g, j, "(") || mg_is(g, j, "[")) {
            if (depth-- == 0)
                return mg_is(g, syn_prev(g->s, j), "for");
        } else if (mg_is(g, j, ";") && depth == 0) {
            continue;
        } else if (mg_is(g, j, "{") || mg_is(g, j, "}")) {
            return false;
        }
    }
    return false;
}

/* for (INIT; COND; INC): INIT's value + 1 (counting loops), INC's step doubled. */
static void loop_ops(const struct mutgen *g, size_t i)
{
    size_t open, s1, s2, close;
    if (!mg_for_header(g, i, &open, &s1, &s2, &close))
        return;
    size_t inc = syn_next(g->s, s2);
    bool up = false;
    for (size_t j = inc; j != NONE && j < close; j = syn_next(g->s, j))
        up |= mg_is(g, j, "++") || mg_is(g, j, "+=");
    /* INIT: [TYPE] ID = EXPR */
    size_t eq = NONE;
    for (size_t j = syn_next(g->s, open); j != NONE && j < s1; j = syn_next(g->s, j))
        if (mg_is(g, j, "=") && eq == NONE)
            eq = j;
    if (up && eq != NONE && syn_next(g->s, eq) < s1) {
        char *e = mg_span(g, syn_next(g->s, eq), syn_prev(g->s, s1)), *t = xstrfmt("(%s) + 1", e);
        mg_replace(g, MUT_LOOP_START, syn_next(g->s, eq), syn_next(g->s, eq), syn_prev(g->s, s1),
                   t);
        free(e);
        free(t);
    }
    /* INC: ID += EXPR */
    size_t pe = syn_next(g->s, inc);
    if (mg_is_ident(g, inc) && mg_is(g, pe, "+=") && syn_next(g->s, pe) < close) {
        char *e = mg_span(g, syn_next(g->s, pe), syn_prev(g->s, close));
        char *t = xstrfmt("2 * (%s)", e);
        mg_replace(g, MUT_WRONG_STRIDE, pe, syn_next(g->s, pe), syn_prev(g->s, close), t);
        free(e);
        free(t);
    }
}

/* Inside [ ]: exactly P * Q + R becomes R * Q + P. */
static void swap_index(const struct mutgen *g, size_t open)
{
    size_t close = syn_match(g->s, open), t[6], n = 0;
    for (size_t j = syn_next(g->s, open); j != NONE && j < close && n < 6; j = syn_next(g->s, j))
        t[n++] = j;
    if (n != 5 || !mg_is_ident(g, t[0]) || !mg_is(g, t[1], "*") || !mg_is(g, t[3], "+") ||
        !mg_is_ident(g, t[4]) || !strcmp(mg_text(g, t[0]), mg_text(g, t[4])))
        return;
    struct mutant *m = mutant_new(g->out, MUT_SWAP_INDEX, g->l, open);
    const struct token *a = &g->l->items[t[0]], *b = &g->l->items[t[4]];
    mutant_edit(m, a->offset, a->len, b->text);
    mutant_edit(m, b->offset, b->len, a->text);
}

/* A parameter's type without the qualifiers that do not change what it holds. */
static char *plain_type(const char *type)
{
    static const char *const drop[] = {"__restrict__", "__restrict", "restrict", NULL};
    char *t = xstrdup(type);
    for (size_t k = 0; drop[k]; k++) {
        char *p;
        while ((p = strstr(t, drop[k])) != NULL)
            memset(p, ' ', strlen(drop[k]));
    }
    char *o = t;
    for (char *p = t; *p; p++)
        if (*p != ' ')
            *o++ = *p;
    *o = '\0';
    return t;
}

/* The parameter of f named by token a, or NULL. */
static const struct syn_param *param_of(const struct mutgen *g, const struct syn_func *f, size_t a)
{
    for (size_t p = 0; f && mg_is_ident(g, a) && p < f->n_params; p++)
        if (f->params[p].name && !strcmp(f->params[p].name, mg_text(g, a)))
            return &f->params[p];
    return NULL;
}

/* In the call whose argument list opens at `open`, every two arguments that are parameters of
 * the caller, of one type, exchanged. */
static void swap_args(const struct mutgen *g, size_t open)
{
    const struct syn_func *f = syn_func_at(g->s, open);
    size_t close = syn_match(g->s, open), args[64], n = 0, first = NONE, count = 0;
    if (!f || close == NONE)
        return;
    /* args[k]: the k-th argument's token when it is a single token, else NONE. */
    for (size_t j = syn_next(g->s, open); j != NONE && j <= close && n < 64;
         j = syn_next(g->s, j)) {
        if (j == close || mg_is(g, j, ",")) {
            args[n++] = count == 1 ? first : NONE;
            first = NONE;
            count = 0;
            if (j == close)
                break;
            continue;
        }
        first = first == NONE ? j : first;
        count++;
        if ((mg_is(g, j, "(") || mg_is(g, j, "[") || mg_is(g, j, "{")) &&
            (j = syn_match(g->s, j)) == NONE)
            return;
    }
    for (size_t x = 0; x < n; x++)
        for (size_t y = x + 1; y < n; y++) {
            const struct syn_param *p = param_of(g, f, args[x]), *q = param_of(g, f, args[y]);
            if (!p || !q || p == q)
                continue;
            char *tp = plain_type(p->type), *tq = plain_type(q->type);
            if (!strcmp(tp, tq)) {
                struct mutant *m = mutant_new(g->out, MUT_SWAP_ARGS, g->l, args[x]);
                const struct token *a = &g->l->items[args[x]], *b = &g->l->items[args[y]];
                mutant_edit(m, a->offset, a->len, b->text);
                mutant_edit(m, b->offset, b->len, a->text);
            }
            free(tp);
            free(tq);
        }
}

void mutop_bounds(const struct mutgen *g)
{
    for (size_t i = 0; i < g->l->n; i++) {
        if (!mg_site(g, i))
            continue;
        if (mg_is_relop(g, i) && !mg_size_guard(g, i)) {
            const char *before = mg_text(g, syn_prev(g->s, i));
            if (strstr(before, "_cast") || !strcmp(before, "template"))
                continue;
            rel_bound(g, i);
            bound_minus_one(g, i);
        } else if (mg_is(g, i, "if") && syn_is_code(g->s, i)) {
            drop_guard(g, i);
        }
    }
}

void mutop_loops(const struct mutgen *g)
{
    for (size_t i = 0; i < g->l->n; i++) {
        if (!mg_site(g, i))
            continue;
        if (mg_is(g, i, "for"))
            loop_ops(g, i);
        else if (mg_is(g, i, "+=") && !in_for_header(g, i))
            mg_replace(g, MUT_ACCUM_ASSIGN, i, i, i, "=");
    }
}

/* The BLAS routines of the course (cuBLAS, CBLAS), whose operand order is the classic
 * mistake (row-major data in a column-major library). Other calls are left alone: swapping
 * the operands of an addition is no mistake at all. */
static bool blas_call(const struct mutgen *g, size_t callee)
{
    const char *t = mg_text(g, callee);
    return mg_is_ident(g, callee) && (!strncmp(t, "cublas", 6) || !strncmp(t, "cblas_", 6));
}

void mutop_swaps(const struct mutgen *g)
{
    for (size_t i = 0; i < g->l->n; i++) {
        if (!mg_site(g, i))
            continue;
        if (mg_is(g, i, "["))
            swap_index(g, i);
        else if (mg_is(g, i, "(") && syn_is_code(g->s, i) && blas_call(g, syn_prev(g->s, i)))
            swap_args(g, i);
    }
}

/* mutop_int: helpers of the mutation operators. See mutop_int.h. */
#include "analyze/mutop_int.h"

#include "base/alloc.h"

#include <string.h>

const char *mg_text(const struct mutgen *g, size_t i)
{
    return i < g->l->n ? g->l->items[i].text : "";
}

bool mg_is(const struct mutgen *g, size_t i, const char *s)
{
    return i < g->l->n && !strcmp(g->l->items[i].text, s);
}

bool mg_is_ident(const struct mutgen *g, size_t i)
{
    return i < g->l->n && g->l->items[i].kind == TOK_IDENT;
}

/* A macro whose body calls cudaGetErrorString: the error check, not the lab's logic. */
static bool checker_macro(const struct mutgen *g, const struct syn_macro *m)
{
    for (size_t j = m->body_first; j < m->body_end; j++)
        if (mg_is(g, j, "cudaGetErrorString"))
            return true;
    return false;
}

bool mg_site(const struct mutgen *g, size_t i)
{
    if (i >= g->l->n || g->l->items[i].kind == TOK_COMMENT)
        return false;
    for (size_t d = 0; d < g->n_dead; d++)
        if (i >= g->dead[d][0] && i <= g->dead[d][1])
            return false;
    if (syn_is_code(g->s, i))
        return syn_func_at(g->s, i) != NULL;
    const struct syn_macro *m = syn_macro_at(g->s, i);
    return m && !checker_macro(g, m);
}

char *mg_span(const struct mutgen *g, size_t a, size_t b)
{
    const struct token *x = &g->l->items[a], *y = &g->l->items[b];
    return xstrndup(g->l->source + x->offset, y->offset + y->len - x->offset);
}

struct mutant *mg_replace(const struct mutgen *g, enum mut_op op, size_t site, size_t a, size_t b,
                          const char *text)
{
    struct mutant *m = mutant_new(g->out, op, g->l, site);
    const struct token *x = &g->l->items[a], *y = &g->l->items[b];
    mutant_edit(m, x->offset, y->offset + y->len - x->offset, text);
    return m;
}

bool mg_is_relop(const struct mutgen *g, size_t i)
{
    static const char *const ops[] = {"<", "<=", ">", ">=", NULL};
    if (i >= g->l->n || g->l->items[i].kind != TOK_PUNCT)
        return false;
    for (size_t k = 0; ops[k]; k++)
        if (mg_is(g, i, ops[k]))
            return true;
    return false;
}

static bool operand_stop(const struct mutgen *g, size_t i)
{
    static const char *const stops[] = {";", ")",  "]",  "}",  ",",  "&&", "||", "?", ":",
                                        "=", "==", "!=", "+=", "-=", "*=", "/=", NULL};
    for (size_t k = 0; stops[k]; k++)
        if (mg_is(g, i, stops[k]))
            return true;
    return mg_is_relop(g, i);
}

size_t mg_operand_end(const struct mutgen *g, size_t i)
{
    size_t last = NONE;
    for (size_t j = i; j != NONE; j = syn_next(g->s, j)) {
        if (operand_stop(g, j))
            return last;
        if (mg_is(g, j, "(") || mg_is(g, j, "[")) {
            j = syn_match(g->s, j);
            if (j == NONE)
                return NONE;
        }
        last = j;
    }
    return last;
}

bool mg_is_param(const struct syn_func *f, const char *name)
{
    for (size_t p = 0; f && p < f->n_params; p++)
        if (f->params[p].name && !strcmp(f->params[p].name, name))
            return true;
    return false;
}

bool mg_size_guard(const struct mutgen *g, size_t relop)
{
    if (!mg_is_relop(g, relop) && !mg_is(g, relop, "=="))
        return false;
    const struct syn_func *f = syn_func_at(g->s, relop);
    size_t a = syn_prev(g->s, relop), b = syn_next(g->s, relop);
    if (!f || a == NONE || b == NONE)
        return false;
    size_t before = syn_prev(g->s, a), after = syn_next(g->s, b);
    /* Just `PARAM op 0` (or `0 op PARAM`), nothing else on either side of the operands. */
    if (!operand_stop(g, after) || (before != NONE && !mg_is(g, before, "(") &&
                                    !mg_is(g, before, "&&") && !mg_is(g, before, "||")))
        return false;
    if (mg_is(g, b, "0") && mg_is_ident(g, a))
        return mg_is_param(f, mg_text(g, a));
    if (mg_is(g, a, "0") && mg_is_ident(g, b))
        return mg_is_param(f, mg_text(g, b));
    return false;
}

bool mg_for_header(const struct mutgen *g, size_t for_tok, size_t *open, size_t *semi1,
                   size_t *semi2, size_t *close)
{
    if (!mg_is(g, for_tok, "for"))
        return false;
    *open = syn_next(g->s, for_tok);
    if (*open == NONE || !mg_is(g, *open, "("))
        return false;
    *close = syn_match(g->s, *open);
    if (*close == NONE)
        return false;
    *semi1 = *semi2 = NONE;
    for (size_t j = syn_next(g->s, *open); j != NONE && j < *close; j = syn_next(g->s, j)) {
        if (mg_is(g, j, "(") || mg_is(g, j, "[") || mg_is(g, j, "{")) {
            j = syn_match(g->s, j);
            if (j == NONE)
                return false;
        } else if (mg_is(g, j, ";")) {
            if (*semi1 == NONE)
                *semi1 = j;
            else if (*semi2 == NONE)
                *semi2 = j;
        }
    }
    return *semi1 != NONE && *semi2 != NONE;
}

void mg_find_dead(struct mutgen *g)
{
    g->dead = NULL;
    g->n_dead = 0;
    for (size_t i = 0; i < g->l->n; i++) {
        if (!mg_is(g, i, "if") || !syn_is_code(g->s, i) || !syn_func_at(g->s, i))
            continue;
        size_t open = syn_next(g->s, i), close = open == NONE ? NONE : syn_match(g->s, open);
        size_t a = open == NONE ? NONE : syn_next(g->s, open);
        size_t op = a == NONE ? NONE : syn_next(g->s, a);
        /* The whole condition is one comparison of a parameter with 0. */
        if (close == NONE || op == NONE || syn_next(g->s, syn_next(g->s, op)) != close ||
            !mg_size_guard(g, op))
            continue;
        size_t body = syn_next(g->s, close), end = body == NONE ? NONE : syn_stmt_end(g->s, body);
        if (end == NONE)
            continue;
        g->dead = xrealloc(g->dead, (g->n_dead + 1) * sizeof(*g->dead));
        g->dead[g->n_dead][0] = body;
        g->dead[g->n_dead++][1] = end;
    }
}

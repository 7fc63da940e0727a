/* mutop_cuda: the operators of GPU code (and the accumulator precision of any code). */
#include "analyze/mutop_int.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* Tokens a..b (same place) mention gridDim, directly or through a variable set from it in
 * the enclosing function (`size_t stride = gridDim.x * blockDim.x;`). */
static bool mentions_grid(const struct mutgen *g, size_t a, size_t b, size_t loop_var)
{
    const struct syn_func *f = syn_func_at(g->s, a);
    for (size_t j = a; j != NONE && j <= b; j = syn_next(g->s, j)) {
        if (mg_is(g, j, "gridDim"))
            return true;
        if (!f || !mg_is_ident(g, j) || !strcmp(mg_text(g, j), mg_text(g, loop_var)))
            continue;
        for (size_t k = f->body_open; k < f->body_close; k++) {
            if (!mg_is(g, k, mg_text(g, j)) || !mg_is(g, syn_next(g->s, k), "="))
                continue;
            size_t end = syn_stmt_end(g->s, k);
            for (size_t m = k; m != NONE && end != NONE && m <= end; m = syn_next(g->s, m))
                if (mg_is(g, m, "gridDim"))
                    return true;
        }
    }
    return false;
}

/* for (INIT; i < E; i += STRIDE) with STRIDE from gridDim: INC becomes i = (E). */
static void single_pass(const struct mutgen *g, size_t i)
{
    size_t open, s1, s2, close;
    if (!mg_for_header(g, i, &open, &s1, &s2, &close))
        return;
    size_t var = syn_next(g->s, s1), op = var == NONE ? NONE : syn_next(g->s, var);
    size_t inc = syn_next(g->s, s2);
    if (!mg_is_ident(g, var) || !(mg_is(g, op, "<") || mg_is(g, op, "<=")) || inc == NONE ||
        inc >= close || !mentions_grid(g, inc, syn_prev(g->s, close), var))
        return;
    char *e = mg_span(g, syn_next(g->s, op), syn_prev(g->s, s2));
    char *t = xstrfmt("%s = (%s)%s", mg_text(g, var), e, mg_is(g, op, "<=") ? " + 1" : "");
    mg_replace(g, MUT_SINGLE_PASS, inc, inc, syn_prev(g->s, close), t);
    free(e);
    free(t);
}

/* Whether token i ends an operand (so a following + or - is binary). */
static bool ends_operand(const struct mutgen *g, size_t i)
{
    const struct token *t = &g->l->items[i];
    return t->kind == TOK_IDENT || t->kind == TOK_LITERAL || mg_is(g, i, ")") || mg_is(g, i, "]");
}

/* (A + T - 1) / T, or (A + 255) / 256: the rounding up dropped, leaving A / T. */
static void blocks_down(const struct mutgen *g, size_t slash)
{
    size_t close = syn_prev(g->s, slash), open = syn_match(g->s, close);
    if (!mg_is(g, close, ")") || open == NONE)
        return;
    size_t plus[8], n = 0, prev = NONE;
    for (size_t j = syn_next(g->s, open); j != NONE && j < close; j = syn_next(g->s, j)) {
        if ((mg_is(g, j, "+") || mg_is(g, j, "-")) && prev != NONE && ends_operand(g, prev)) {
            if (n == 8)
                return;
            plus[n++] = j;
        }
        if ((mg_is(g, j, "(") || mg_is(g, j, "[")) && (j = syn_match(g->s, j)) == NONE)
            return;
        prev = j;
    }
    size_t last = syn_prev(g->s, close), div = syn_next(g->s, slash);
    bool minus_one = n >= 2 && mg_is(g, plus[n - 1], "-") && mg_is(g, last, "1") &&
                     syn_next(g->s, plus[n - 1]) == last && mg_is(g, plus[0], "+");
    bool literal = false;
    if (n == 1 && mg_is(g, plus[0], "+") && syn_next(g->s, plus[0]) == last) {
        long a = strtol(mg_text(g, last), NULL, 0), d = strtol(mg_text(g, div), NULL, 0);
        literal = a > 0 && d == a + 1;
    }
    if (!minus_one && !literal)
        return;
    /* From the end of the first term, so no space is left before the ')'. */
    struct mutant *m = mutant_new(g->out, MUT_BLOCKS_DOWN, g->l, slash);
    const struct token *term = &g->l->items[syn_prev(g->s, plus[0])], *to = &g->l->items[last];
    size_t from = term->offset + term->len;
    mutant_edit(m, from, to->offset + to->len - from, "");
}

/* __syncthreads() becomes (void)0, cudaDeviceSynchronize() becomes cudaSuccess. */
static void drop_call(const struct mutgen *g, size_t i)
{
    static const char *const barriers[] = {"__syncthreads", "__syncwarp", NULL};
    static const char *const syncs[] = {"cudaDeviceSynchronize", "cudaStreamSynchronize",
                                        "cudaEventSynchronize", "cudaThreadSynchronize", NULL};
    size_t open = syn_next(g->s, i), close = open == NONE ? NONE : syn_match(g->s, open);
    if (!mg_is(g, open, "(") || close == NONE)
        return;
    for (size_t k = 0; barriers[k]; k++)
        if (mg_is(g, i, barriers[k]))
            mg_replace(g, MUT_DROP_SYNCTHREADS, i, i, close, "(void)0");
    for (size_t k = 0; syncs[k]; k++)
        if (mg_is(g, i, syncs[k]))
            mg_replace(g, MUT_DROP_SYNC, i, i, close, "cudaSuccess");
}

static bool builtin_xy(const struct mutgen *g, size_t i)
{
    static const char *const b[] = {"threadIdx", "blockIdx", "blockDim", "gridDim", NULL};
    for (size_t k = 0; b[k]; k++)
        if (mg_is(g, i, b[k]) && mg_is(g, syn_next(g->s, i), "."))
            return true;
    return false;
}

/* In a kernel that uses both .x and .y: one statement with .x and .y exchanged. */
static void swap_xy(const struct mutgen *g, const struct syn_func *f)
{
    bool has_y = false;
    for (size_t j = f->body_open; j < f->body_close; j++)
        has_y |= builtin_xy(g, j) && mg_is(g, syn_next(g->s, syn_next(g->s, j)), "y");
    if (!has_y)
        return;
    size_t start = syn_next(g->s, f->body_open);
    for (size_t j = start; j != NONE && j < f->body_close; j = syn_next(g->s, j)) {
        if (!mg_is(g, j, ";") && !mg_is(g, j, "{") && !mg_is(g, j, "}"))
            continue;
        struct mutant *m = NULL;
        for (size_t k = start; k != NONE && k < j; k = syn_next(g->s, k)) {
            size_t member = builtin_xy(g, k) ? syn_next(g->s, syn_next(g->s, k)) : NONE;
            if (!mg_is(g, member, "x") && !mg_is(g, member, "y"))
                continue;
            if (!m)
                m = mutant_new(g->out, MUT_SWAP_INDEX, g->l, k);
            const struct token *t = &g->l->items[member];
            mutant_edit(m, t->offset, t->len, mg_is(g, member, "x") ? "y" : "x");
        }
        start = syn_next(g->s, j);
    }
}

/* `float acc = ...;` (or `double`) whose variable is later added to with +=. */
static void half_accum(const struct mutgen *g, const struct syn_func *f)
{
    for (size_t j = f->body_open + 1; j < f->body_close; j++) {
        bool fl = mg_is(g, j, "float"), db = mg_is(g, j, "double");
        size_t var = syn_next(g->s, j), after = var == NONE ? NONE : syn_next(g->s, var);
        if (!(fl || db) || !syn_is_code(g->s, j) || !mg_is_ident(g, var) ||
            !(mg_is(g, after, "=") || mg_is(g, after, ";")))
            continue;
        bool accumulates = false;
        for (size_t k = after; k != NONE && k < f->body_close; k = syn_next(g->s, k))
            accumulates |= mg_is(g, k, mg_text(g, var)) && mg_is(g, syn_next(g->s, k), "+=");
        if (!accumulates)
            continue;
        const char *to = db ? "float" : g->lang == SRC_C ? "_Float16" : "__half";
        struct mutant *m = mg_replace(g, MUT_HALF_ACCUM, j, j, j, to);
        if (!db && g->lang != SRC_C)
            mutant_edit(m, 0, 0, "#include <cuda_fp16.h>\n");
    }
}

void mutop_cuda(const struct mutgen *g)
{
    for (size_t i = 0; i < g->l->n; i++) {
        if (!mg_site(g, i))
            continue;
        if (mg_is(g, i, "for"))
            single_pass(g, i);
        else if (mg_is(g, i, "/"))
            blocks_down(g, i);
        else if (mg_is_ident(g, i))
            drop_call(g, i);
    }
    for (size_t f = 0; f < g->s->n_funcs; f++) {
        if (g->s->funcs[f].kernel)
            swap_xy(g, &g->s->funcs[f]);
        half_accum(g, &g->s->funcs[f]);
    }
}

/* normalize: tokens as the similarity check compares them. See normalize.h. */
#include "analyze/normalize.h"

#include "analyze/canon.h"
#include "analyze/syntax.h"
#include "base/alloc.h"

#include <stdbool.h>
#include <string.h>

void norm_stream_init(struct norm_stream *s)
{
    memset(s, 0, sizeof(*s));
}

void norm_stream_release(struct norm_stream *s)
{
    free(s->t);
    memset(s, 0, sizeof(*s));
}

/* FNV-1a, kept clear of the NORM_* values. */
static uint32_t spelling_sym(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h | 0x80000000u;
}

bool norm_kept_name(const char *s)
{
    static const char *const prefixes[] = {"__",     "cuda",  "cublas", "CUBLAS_",
                                           "cblas_", "Cblas", "atomic", NULL};
    static const char *const names[] = {
        "threadIdx", "blockIdx", "blockDim", "gridDim",  "warpSize", "dim3",     "min",
        "max",       "fminf",    "fmaxf",    "fmin",     "fmax",     "expf",     "exp",
        "logf",      "log",      "sqrtf",    "sqrt",     "fabsf",    "fabs",     "powf",
        "pow",       "rintf",    "rint",     "roundf",   "round",    "floorf",   "ceilf",
        "sinf",      "cosf",     "tanhf",    "memcpy",   "memset",   "malloc",   "calloc",
        "free",      "printf",   "fprintf",  "size_t",   "int8_t",   "int16_t",  "int32_t",
        "int64_t",   "uint8_t",  "uint16_t", "uint32_t", "uint64_t", "_Float16", NULL};
    for (size_t i = 0; prefixes[i]; i++)
        if (!strncmp(s, prefixes[i], strlen(prefixes[i])))
            return true;
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(s, names[i]))
            return true;
    return false;
}

/* CUDA runtime calls every GPU program makes alike: allocation, copies, synchronization. */
static bool boilerplate_call(const char *s)
{
    static const char *const calls[] = {"cudaMalloc",
                                        "cudaMallocHost",
                                        "cudaMallocManaged",
                                        "cudaHostAlloc",
                                        "cudaFree",
                                        "cudaFreeHost",
                                        "cudaMemcpy",
                                        "cudaMemcpyAsync",
                                        "cudaMemset",
                                        "cudaMemsetAsync",
                                        "cudaDeviceSynchronize",
                                        "cudaStreamSynchronize",
                                        "cudaGetLastError",
                                        "cudaPeekAtLastError",
                                        "cudaGetErrorString",
                                        "cudaGetErrorName",
                                        NULL};
    for (size_t i = 0; calls[i]; i++)
        if (!strcmp(s, calls[i]))
            return true;
    return false;
}

struct norm_ctx {
    const struct token_list *l;
    struct syntax syn;
    bool *drop;      /* per token: left out */
    char **checkers; /* names of error-check macros */
    size_t n_checkers;
};

static bool is_checker(const struct norm_ctx *c, const char *s)
{
    for (size_t i = 0; i < c->n_checkers; i++)
        if (!strcmp(c->checkers[i], s))
            return true;
    return false;
}

/* Directives go; a #define stays as code unless it is an error-check macro. */
static void drop_directives(struct norm_ctx *c)
{
    const struct token_list *l = c->l;
    for (size_t i = 0; i < l->n; i++) {
        const char *d = syn_directive_name(&c->syn, i);
        if (d && (strcmp(d, "define") || c->syn.directive[i] == i))
            c->drop[i] = true;
    }
    for (size_t m = 0; m < c->syn.n_macros; m++) {
        const struct syn_macro *mac = &c->syn.macros[m];
        bool checker = false;
        for (size_t j = mac->body_first; j < mac->body_end; j++)
            checker |= !strcmp(l->items[j].text, "cudaGetErrorString");
        if (!checker)
            continue;
        c->checkers = xrealloc(c->checkers, (c->n_checkers + 1) * sizeof(*c->checkers));
        c->checkers[c->n_checkers++] = mac->name;
        for (size_t j = mac->hash_tok; j < mac->body_end; j++)
            c->drop[j] = true;
    }
}

/* The statement around the call at i: from after the previous ';', '{' or '}' to its end. */
static void drop_statement(struct norm_ctx *c, size_t i)
{
    size_t start = i;
    for (size_t p = syn_prev(&c->syn, i); p != SIZE_MAX; p = syn_prev(&c->syn, p)) {
        const char *t = c->l->items[p].text;
        if (!strcmp(t, ";") || !strcmp(t, "{") || !strcmp(t, "}"))
            break;
        start = p;
    }
    size_t end = syn_stmt_end(&c->syn, start);
    if (end == SIZE_MAX || end < i)
        end = i;
    for (size_t j = start; j <= end; j++)
        c->drop[j] = true;
}

static void drop_boilerplate(struct norm_ctx *c)
{
    for (size_t i = 0; i < c->l->n; i++) {
        const struct token *t = &c->l->items[i];
        if (c->drop[i] || !syn_is_code(&c->syn, i) || t->kind != TOK_IDENT)
            continue;
        size_t next = syn_next(&c->syn, i);
        if (next == SIZE_MAX || !tok_is(c->l, next, "("))
            continue;
        if (boilerplate_call(t->text) || is_checker(c, t->text))
            drop_statement(c, i);
    }
}

static uint32_t literal_sym(const char *s)
{
    const char *q = strpbrk(s, "\"'");
    if (!q || (q != s && !strchr("LuU8R", s[0])))
        return NORM_NUM;
    return *q == '"' ? NORM_STR : NORM_CHR;
}

/* The symbol of kept token i (not dropped, not a comment). */
/* Whether the file itself defines s: a macro, a function or a parameter is the student's to
 * name, even when the name looks like a library's (CUBLAS_CHECK, cudaKernel). */
static bool defined_here(const struct norm_ctx *c, const char *s)
{
    const struct syntax *syn = &c->syn;
    for (size_t m = 0; m < syn->n_macros; m++)
        if (!strcmp(syn->macros[m].name, s))
            return true;
    for (size_t f = 0; f < syn->n_funcs; f++) {
        if (!strcmp(syn->funcs[f].name, s))
            return true;
        for (size_t p = 0; p < syn->funcs[f].n_params; p++)
            if (syn->funcs[f].params[p].name && !strcmp(syn->funcs[f].params[p].name, s))
                return true;
    }
    return false;
}

static uint32_t symbol_of(const struct norm_ctx *c, size_t i)
{
    const struct token *t = &c->l->items[i];
    if (t->kind == TOK_LITERAL)
        return literal_sym(t->text);
    if (t->kind != TOK_IDENT)
        return spelling_sym(t->text);
    if (norm_kept_name(t->text) && !defined_here(c, t->text))
        return spelling_sym(t->text);
    /* A member of a kept built-in: threadIdx.x stays threadIdx.x. */
    if (i >= 2 && tok_is(c->l, i - 1, ".") && norm_kept_name(c->l->items[i - 2].text))
        return spelling_sym(t->text);
    return NORM_ID;
}

static void push(struct norm_stream *s, const struct token *t, const struct canon_tok *c,
                 uint16_t file)
{
    ALLOC_GROW(s->t, s->n + 1, s->alloc);
    struct norm_token *n = &s->t[s->n++];
    n->sym = c->sym;
    n->file = file;
    n->flags = 0;
    n->unit = c->unit;
    n->gap = 0;
    n->line = t->line;
    n->offset = t->offset;
    n->len = t->len;
}

/* Every token's symbol, 0 for those not compared: comments, dropped tokens, and a launch
 * configuration after its `<<<` (which stands for all of it). */
static uint32_t *symbols(const struct norm_ctx *c)
{
    const struct token_list *l = c->l;
    uint32_t *sym = xcalloc(l->n + 1, sizeof(*sym));
    for (size_t i = 0; i < l->n; i++) {
        const struct token *t = &l->items[i];
        if (c->drop[i] || t->kind == TOK_COMMENT)
            continue;
        if (!strcmp(t->text, "<<<")) {
            sym[i] = NORM_LAUNCH;
            while (i + 1 < l->n && strcmp(l->items[i].text, ">>>"))
                i++;
            continue;
        }
        sym[i] = symbol_of(c, i);
    }
    return sym;
}

void norm_append(struct norm_stream *s, const struct token_list *l, uint16_t file)
{
    struct norm_ctx c;
    struct canon_out order;
    memset(&c, 0, sizeof(c));
    c.l = l;
    syntax_init(&c.syn);
    syntax_scan(&c.syn, l);
    c.drop = xcalloc(l->n ? l->n : 1, sizeof(*c.drop));
    drop_directives(&c);
    drop_boilerplate(&c);
    uint32_t *sym = symbols(&c);
    canon_out_init(&order);
    order.units = s->units;
    canon_file(l, &c.syn, sym, spelling_sym("while"), &order);
    s->units = order.units;
    for (size_t i = 0; i < order.n; i++)
        push(s, &l->items[order.v[i].tok], &order.v[i], file);
    canon_out_release(&order);
    free(sym);
    free(c.drop);
    free(c.checkers);
    syntax_release(&c.syn);
}

/* syntax: brackets, directives, macros, functions and statements of a token stream. */
#include "analyze/syntax.h"

#include "base/alloc.h"
#include "base/strbuf.h"

#include <stdint.h>
#include <string.h>

#define NONE SIZE_MAX

void syntax_init(struct syntax *s)
{
    memset(s, 0, sizeof(*s));
}

static void func_release(struct syn_func *f)
{
    for (size_t i = 0; i < f->n_params; i++) {
        free(f->params[i].name);
        free(f->params[i].type);
    }
    free(f->params);
    free(f->name);
}

void syntax_release(struct syntax *s)
{
    for (size_t i = 0; i < s->n_funcs; i++)
        func_release(&s->funcs[i]);
    for (size_t i = 0; i < s->n_macros; i++)
        free(s->macros[i].name);
    free(s->funcs);
    free(s->macros);
    free(s->directive);
    memset(s, 0, sizeof(*s));
}

static const char *text(const struct syntax *s, size_t i)
{
    return s->toks->items[i].text;
}

/* Whether the source between tokens a and b (a < b) holds a line break that a backslash
 * does not continue. */
static bool line_break_between(const struct token_list *l, size_t a, size_t b)
{
    size_t from = l->items[a].offset + l->items[a].len, to = l->items[b].offset;
    for (size_t k = from; k < to; k++) {
        if (l->source[k] != '\n')
            continue;
        size_t p = k;
        if (p > 0 && l->source[p - 1] == '\r')
            p--;
        if (p == 0 || l->source[p - 1] != '\\')
            return true;
    }
    return false;
}

/* Mark every token of every directive with the index of its '#'. */
static void find_directives(struct syntax *s)
{
    const struct token_list *l = s->toks;
    for (size_t i = 0; i < l->n; i++)
        s->directive[i] = NONE;
    for (size_t i = 0; i < l->n; i++) {
        bool hash = !strcmp(l->items[i].text, "#") || !strcmp(l->items[i].text, "%:");
        if (!hash || (i > 0 && !line_break_between(l, i - 1, i)))
            continue;
        size_t j = i;
        s->directive[j] = i;
        while (j + 1 < l->n && !line_break_between(l, j, j + 1))
            s->directive[++j] = i;
        i = j;
    }
}

/* Token j is in the same context as i: code for code, the same directive for a directive. */
static bool same_place(const struct syntax *s, size_t i, size_t j)
{
    return s->toks->items[j].kind != TOK_COMMENT && s->directive[j] == s->directive[i];
}

bool syn_is_code(const struct syntax *s, size_t i)
{
    return i < s->toks->n && s->toks->items[i].kind != TOK_COMMENT && s->directive[i] == NONE;
}

size_t syn_next(const struct syntax *s, size_t i)
{
    for (size_t j = i + 1; j < s->toks->n; j++)
        if (same_place(s, i, j))
            return j;
    return NONE;
}

size_t syn_prev(const struct syntax *s, size_t i)
{
    for (size_t j = i; j-- > 0;)
        if (same_place(s, i, j))
            return j;
    return NONE;
}

const char *syn_directive_name(const struct syntax *s, size_t i)
{
    if (i >= s->toks->n || s->directive[i] == NONE)
        return NULL;
    size_t h = s->directive[i];
    if (h + 1 < s->toks->n && s->directive[h + 1] == h)
        return text(s, h + 1);
    return "";
}

size_t syn_match(const struct syntax *s, size_t i)
{
    static const char open[] = "([{", close[] = ")]}";
    const struct token_list *l = s->toks;
    if (i >= l->n || l->items[i].kind != TOK_PUNCT || strlen(text(s, i)) != 1)
        return NONE;
    char c = text(s, i)[0];
    const char *o = strchr(open, c), *k = strchr(close, c);
    if (!c || (!o && !k))
        return NONE;
    char want_open = o ? c : open[k - close], want_close = o ? close[o - open] : c;
    long depth = 0;
    for (size_t j = i; j < l->n; o ? j++ : j--) {
        if (!same_place(s, i, j) || strlen(text(s, j)) != 1)
            ;
        else if (text(s, j)[0] == want_open)
            depth += o ? 1 : -1;
        else if (text(s, j)[0] == want_close)
            depth += o ? -1 : 1;
        if (depth == 0)
            return j;
        if (!o && j == 0)
            break;
    }
    return NONE;
}

static void scan_macro(struct syntax *s, size_t hash)
{
    const struct token_list *l = s->toks;
    size_t name = hash + 2, end = hash + 1;
    while (end < l->n && s->directive[end] == hash)
        end++;
    if (name >= end || l->items[name].kind == TOK_COMMENT)
        return;
    size_t body = name + 1;
    /* Function-like: the '(' right after the name, with no space between. */
    if (body < end && tok_is(l, body, "(") &&
        l->items[body].offset == l->items[name].offset + l->items[name].len) {
        size_t close = syn_match(s, body);
        body = close == NONE ? end : close + 1;
    }
    ALLOC_GROW(s->macros, s->n_macros + 1, s->alloc_macros);
    struct syn_macro *m = &s->macros[s->n_macros++];
    m->name = xstrdup(text(s, name));
    m->hash_tok = hash;
    m->body_first = body;
    m->body_end = end;
}

/* One parameter declaration, tokens [a, b]. */
static void add_param(const struct syntax *s, struct syn_func *f, size_t a, size_t b)
{
    size_t name = NONE;
    struct strbuf type = STRBUF_INIT;
    for (size_t j = a; j <= b; j++)
        if (syn_is_code(s, j) && s->toks->items[j].kind == TOK_IDENT)
            name = j;
    for (size_t j = a; j <= b; j++) {
        if (!syn_is_code(s, j) || j == name)
            continue;
        if (type.len)
            strbuf_addch(&type, ' ');
        strbuf_addstr(&type, text(s, j));
    }
    if (name == NONE && !strcmp(strbuf_str(&type), "void")) {
        strbuf_release(&type);
        return;
    }
    f->params = xrealloc(f->params, (f->n_params + 1) * sizeof(*f->params));
    struct syn_param *p = &f->params[f->n_params++];
    p->name = name == NONE ? NULL : xstrdup(text(s, name));
    p->type = strbuf_detach(&type);
    p->name_tok = name == NONE ? b : name;
    p->first_tok = a;
}

static void scan_params(const struct syntax *s, struct syn_func *f)
{
    size_t a = NONE;
    for (size_t j = f->params_open + 1; j < f->params_close; j++) {
        if (!syn_is_code(s, j))
            continue;
        if (a == NONE)
            a = j;
        size_t m = syn_match(s, j);
        if (m != NONE && m > j && m < f->params_close) {
            j = m;
            continue;
        }
        if (tok_is(s->toks, j, ",")) {
            if (a < j)
                add_param(s, f, a, syn_prev(s, j));
            a = NONE;
        }
    }
    if (a != NONE)
        add_param(s, f, a, syn_prev(s, f->params_close));
}

/* Whether __global__ is among the tokens that declare the function named at name_tok. */
static bool declared_global(const struct syntax *s, size_t name_tok)
{
    for (size_t j = name_tok; j-- > 0;) {
        if (!syn_is_code(s, j))
            continue;
        const char *t = text(s, j);
        if (!strcmp(t, ";") || !strcmp(t, "}") || !strcmp(t, "{"))
            break;
        if (!strcmp(t, "__global__"))
            return true;
    }
    return false;
}

/* The '{' at i opens a function body when a parameter list closes right before it. */
static bool try_function(struct syntax *s, size_t brace)
{
    size_t close = syn_prev(s, brace);
    if (close == NONE || !tok_is(s->toks, close, ")"))
        return false;
    size_t open = syn_match(s, close), end = syn_match(s, brace);
    size_t name = open == NONE ? NONE : syn_prev(s, open);
    if (end == NONE || name == NONE || s->toks->items[name].kind != TOK_IDENT)
        return false;
    ALLOC_GROW(s->funcs, s->n_funcs + 1, s->alloc_funcs);
    struct syn_func *f = &s->funcs[s->n_funcs++];
    memset(f, 0, sizeof(*f));
    f->name = xstrdup(text(s, name));
    f->name_tok = name;
    f->params_open = open;
    f->params_close = close;
    f->body_open = brace;
    f->body_close = end;
    f->kernel = declared_global(s, name);
    scan_params(s, f);
    return true;
}

/* Top level: functions, skipping other braces (structs, initializers), looking inside
 * `extern "C" {` and namespaces. */
static void find_functions(struct syntax *s)
{
    for (size_t i = 0; i < s->toks->n; i++) {
        if (!syn_is_code(s, i) || !tok_is(s->toks, i, "{"))
            continue;
        if (try_function(s, i)) {
            i = s->funcs[s->n_funcs - 1].body_close;
            continue;
        }
        size_t p = syn_prev(s, i), pp = p == NONE ? NONE : syn_prev(s, p);
        bool extern_c = p != NONE && s->toks->items[p].kind == TOK_LITERAL && pp != NONE &&
                        tok_is(s->toks, pp, "extern");
        bool ns = (p != NONE && tok_is(s->toks, p, "namespace")) ||
                  (pp != NONE && tok_is(s->toks, pp, "namespace"));
        size_t end = syn_match(s, i);
        if (!extern_c && !ns && end != NONE)
            i = end;
    }
}

void syntax_scan(struct syntax *s, const struct token_list *l)
{
    syntax_release(s);
    s->toks = l;
    s->directive = xcalloc(l->n ? l->n : 1, sizeof(*s->directive));
    find_directives(s);
    for (size_t i = 0; i < l->n; i++)
        if (s->directive[i] == i && tok_is(l, i + 1, "define"))
            scan_macro(s, i);
    find_functions(s);
}

/* After the ')' closing a control header at i: the end of the statement that follows. */
static size_t body_end(const struct syntax *s, size_t header_kw)
{
    size_t open = syn_next(s, header_kw);
    if (open == NONE || !tok_is(s->toks, open, "("))
        return NONE;
    size_t close = syn_match(s, open);
    size_t body = close == NONE ? NONE : syn_next(s, close);
    return body == NONE ? NONE : syn_stmt_end(s, body);
}

static size_t simple_stmt_end(const struct syntax *s, size_t i)
{
    for (size_t j = i; j != NONE; j = syn_next(s, j)) {
        const char *t = text(s, j);
        if (!strcmp(t, ";"))
            return j;
        if (!strcmp(t, "}"))
            return syn_prev(s, j);
        if (!strcmp(t, "(") || !strcmp(t, "[") || !strcmp(t, "{")) {
            j = syn_match(s, j);
            if (j == NONE)
                return NONE;
        }
    }
    return NONE;
}

size_t syn_stmt_end(const struct syntax *s, size_t i)
{
    if (i == NONE || i >= s->toks->n)
        return NONE;
    const char *t = text(s, i);
    if (!strcmp(t, "{"))
        return syn_match(s, i);
    if (!strcmp(t, "for") || !strcmp(t, "while") || !strcmp(t, "switch"))
        return body_end(s, i);
    if (!strcmp(t, "if")) {
        size_t end = body_end(s, i);
        size_t e = end == NONE ? NONE : syn_next(s, end);
        if (e != NONE && tok_is(s->toks, e, "else"))
            return syn_stmt_end(s, syn_next(s, e));
        return end;
    }
    if (!strcmp(t, "do")) {
        size_t end = syn_stmt_end(s, syn_next(s, i));
        size_t w = end == NONE ? NONE : syn_next(s, end);
        return w == NONE ? NONE : simple_stmt_end(s, w);
    }
    return simple_stmt_end(s, i);
}

const struct syn_func *syn_func_at(const struct syntax *s, size_t i)
{
    for (size_t f = 0; f < s->n_funcs; f++)
        if (i > s->funcs[f].body_open && i < s->funcs[f].body_close)
            return &s->funcs[f];
    return NULL;
}

const struct syn_macro *syn_macro_at(const struct syntax *s, size_t i)
{
    for (size_t m = 0; m < s->n_macros; m++)
        if (i >= s->macros[m].body_first && i < s->macros[m].body_end)
            return &s->macros[m];
    return NULL;
}

/*
 * simclass: lab 6 classes generated at test time for the similarity tests (issue 41), rather
 * than hundreds of committed files.
 *
 * Honest students: each takes one of the genuinely different implementations of each file in
 * tests/fixtures/similarity/impl/ (loops, BLAS, grid-stride or one thread per element,
 * naive, tiled, cuBLAS), resolves its choice points (@{a@|b@}: the details in which honest
 * students who took the same approach differ), renames every name of its own, reorders its
 * functions half the time, braces its loops or not, rewrites or keeps its comments, and adds
 * a helper function of its own or two (a check, a debug print).
 *
 * Copiers: each takes one source (a folder with the lab's files, such as labs/lab6/solution,
 * or the first honest student) and disguises it: every name of its own renamed, its functions
 * reordered, its comments replaced; some add a helper.
 *
 * Deterministic: the same settings give the same class. Everything here is the tests'.
 */
#ifndef LG_TEST_SIMCLASS_H
#define LG_TEST_SIMCLASS_H

#include "analyze/normalize.h"
#include "analyze/syntax.h"
#include "analyze/tokens.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <check.h>
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SIMCLASS_IMPL "tests/fixtures/similarity/impl"

static const char *const simclass_files[] = {"grade2_cpu.c", "grade2_gpu.cu", "matmul_cpu.c",
                                             "matmul_gpu.cu", NULL};

struct simclass {
    const char *dir;       /* the class: dir/<id>/<file> */
    int n_honest;          /* h00, h01, ... */
    int n_copies;          /* k00, k01, ... */
    const char *copy_from; /* a folder of the lab's files; NULL: the first honest student */
    int copy_helpers;      /* every copy_helpers-th copier adds a helper (0: none) */
    bool copy_comments;    /* copiers keep no comment but add their own (else: none at all) */
    uint64_t seed;
};

struct sc_rng {
    uint64_t s;
};

static inline uint64_t sc_next(struct sc_rng *r)
{
    uint64_t x = (r->s += 0x9e3779b97f4a7c15ull);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static inline unsigned sc_below(struct sc_rng *r, unsigned n)
{
    return (unsigned)(sc_next(r) % n);
}

static inline const char *sc_pick(struct sc_rng *r, const char *const *list)
{
    unsigned n = 0;
    while (list[n])
        n++;
    return list[sc_below(r, n)];
}

/* Every @{a@|b@|...@} replaced by one of its alternatives. */
static inline char *sc_expand(const char *t, struct sc_rng *r)
{
    struct strbuf out = STRBUF_INIT;
    while (*t) {
        const char *open = strstr(t, "@{");
        if (!open) {
            strbuf_addstr(&out, t);
            break;
        }
        strbuf_add(&out, t, (size_t)(open - t));
        const char *end = strstr(open, "@}"), *alts[16];
        size_t n = 0;
        ck_assert_msg(end != NULL, "an unclosed choice point");
        alts[n++] = open + 2;
        for (const char *p = open + 2; p < end && n < 16; p++)
            if (p[0] == '@' && p[1] == '|')
                alts[n++] = p + 2;
        unsigned k = sc_below(r, (unsigned)n);
        const char *stop = k + 1 < n ? alts[k + 1] - 2 : end;
        strbuf_add(&out, alts[k], (size_t)(stop - alts[k]));
        t = end + 2;
    }
    return strbuf_detach(&out);
}

static inline struct token_list sc_lex(const char *text, const char *file)
{
    struct token_list l;
    struct error err;
    token_list_init(&l);
    ck_assert_msg(tokens_lex(file, text, strlen(text), src_lang_of(file), &l, &err) == 0, "%s: %s",
                  file, err.msg);
    return l;
}

/* The byte where the line holding byte `at` starts. */
static inline size_t sc_line_start(const char *s, size_t at)
{
    while (at > 0 && s[at - 1] != '\n')
        at--;
    return at;
}

/* A source lexed once, with where each function's text begins and ends: the comments right
 * above it, its declaration, its body and the rest of the line its body ends on. */
struct sc_src {
    struct token_list l;
    struct syntax syn;
    size_t n, from[32], to[32];
};

static inline void sc_src_init(struct sc_src *s, const char *text, const char *file)
{
    s->l = sc_lex(text, file);
    syntax_init(&s->syn);
    syntax_scan(&s->syn, &s->l);
    s->n = s->syn.n_funcs;
    ck_assert_uint_le(s->n, 32);
    for (size_t f = 0; f < s->n; f++) {
        size_t i = s->syn.funcs[f].name_tok;
        while (i > 0 && syn_is_code(&s->syn, i - 1) && !tok_is(&s->l, i - 1, ";") &&
               !tok_is(&s->l, i - 1, "}") && !tok_is(&s->l, i - 1, "{"))
            i--;
        while (i > 0 && s->l.items[i - 1].kind == TOK_COMMENT)
            i--;
        s->from[f] = sc_line_start(s->l.source, s->l.items[i].offset);
        const char *nl = strchr(s->l.source + s->l.items[s->syn.funcs[f].body_close].offset, '\n');
        s->to[f] = nl ? (size_t)(nl - s->l.source) + 1 : s->l.source_len;
    }
}

static inline void sc_src_release(struct sc_src *s)
{
    syntax_release(&s->syn);
    token_list_release(&s->l);
}

/* Names a student keeps: the lab's functions, the libraries' and the language's. */
static inline bool sc_kept(const char *s)
{
    static const char *const names[] = {"matmul_cpu", "matmul_gpu", "matmul_gpu_dev",
                                        "grade2_cpu", "grade2_gpu", "grade2_gpu_dev",
                                        "NULL",       "nullptr",    "true",
                                        "false",      "bool",       "stderr",
                                        "stdout",     "exit",       "abort",
                                        "puts",       "fma",        "define",
                                        "x",          "y",          "z",
                                        "A",          "B",          "C",
                                        NULL};
    for (size_t i = 0; names[i]; i++)
        if (!strcmp(s, names[i]))
            return true;
    return norm_kept_name(s);
}

static const char *const sc_names[] = {
    "i",      "j",       "k",    "idx",  "fila",  "col",  "suma", "acc", "tmp",   "aux",
    "res",    "val",     "p",    "q",    "t",     "len",  "tam",  "buf", "dA",    "dB",
    "dC",     "d_x",     "hilo", "paso", "total", "ptr",  "m",    "nb",  "bloq",  "grid",
    "elem",   "pos",     "off",  "step", "cnt",   "kern", "calc", "mul", "vec",   "mat",
    "salida", "entrada", "base", "fin",  "ini",   "w",    "u",    "v",   "alpha", "beta"};

static const char *const sc_comments[] = {"// calculo principal",
                                          "/* bucle sobre los elementos */",
                                          "// TODO: optimizar",
                                          "// comprobar limites",
                                          "/* version GPU */",
                                          "// lanzamiento del kernel",
                                          "// copia de vuelta al host",
                                          "/* cada hilo un elemento */",
                                          "// reservar memoria",
                                          "// resultado en C",
                                          "/* probado con n = 1024 */",
                                          "// ojo con n no multiplo del bloque",
                                          "// main loop",
                                          "/* helper */",
                                          "// per element",
                                          "// check bounds",
                                          NULL};

/* How a file is rewritten: its names always (one new name per old one). */
struct sc_edit {
    int comments; /* 0: dropped, 1: kept, 2: each replaced by another */
    bool reorder; /* its functions' texts permuted among their places */
    bool force;   /* never the order they had */
    bool vary;    /* the small choices an honest student makes (sc_vary_token) */
    bool braces;  /* a student who braces every loop's body */
};

struct sc_names {
    const char **from;
    char **to;
    size_t n;
};

static inline const char *sc_rename(struct sc_names *m, const char *old, struct sc_rng *r)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp(m->from[i], old))
            return m->to[i];
    size_t k = sc_below(r, sizeof(sc_names) / sizeof(sc_names[0]));
    m->from = xrealloc(m->from, (m->n + 1) * sizeof(*m->from));
    m->to = xrealloc(m->to, (m->n + 1) * sizeof(*m->to));
    m->from[m->n] = old;
    m->to[m->n] = xstrfmt("%s%zu", sc_names[k], m->n + 1);
    return m->to[m->n++];
}

/*
 * The small choices an honest student makes without thinking, inside function bodies: i++,
 * ++i or i += 1; s += e or s = s + e; int, long or unsigned for a local. Two students who
 * took the same approach still differ every few statements, as real ones do. True when token
 * i was written (renamed) into out.
 */
static inline bool sc_vary_token(const struct sc_src *s, size_t i, const char *prev,
                                 struct sc_rng *r, struct strbuf *out)
{
    static const char *const ints[] = {"int", "long", "unsigned", "int", NULL};
    const struct token_list *l = &s->l;
    const struct token *t = &l->items[i];
    if (!syn_func_at(&s->syn, i) || !syn_is_code(&s->syn, i) || !prev)
        return false;
    if (tok_is(l, i, "++") && tok_is(l, i + 1, ")") && sc_below(r, 2)) {
        strbuf_addf(out, sc_below(r, 2) ? " += 1" : " = %s + 1", prev);
        return true;
    }
    if (tok_is(l, i, "+=") && sc_below(r, 2)) {
        strbuf_addf(out, "= %s +", prev);
        return true;
    }
    if (t->kind == TOK_KEYWORD && !strcmp(t->text, "int") && i + 2 < l->n &&
        l->items[i + 1].kind == TOK_IDENT && tok_is(l, i + 2, "=")) {
        strbuf_addstr(out, sc_pick(r, ints));
        return true;
    }
    return false;
}

/* Where braces go around the loop bodies that have none: opens after the loop's ')', closes
 * after the body's last token (counts per token). */
static inline void sc_braces(const struct sc_src *s, unsigned char *opens, unsigned char *closes)
{
    const struct token_list *l = &s->l;
    for (size_t i = 0; i < l->n; i++) {
        if (!syn_is_code(&s->syn, i) || !syn_func_at(&s->syn, i) ||
            (!tok_is(l, i, "for") && !tok_is(l, i, "while")))
            continue;
        size_t open = syn_next(&s->syn, i), close, body, end;
        if (open == SIZE_MAX || !tok_is(l, open, "(") ||
            (close = syn_match(&s->syn, open)) == SIZE_MAX ||
            (body = syn_next(&s->syn, close)) == SIZE_MAX || tok_is(l, body, "{") ||
            tok_is(l, body, ";") || (end = syn_stmt_end(&s->syn, body)) == SIZE_MAX)
            continue;
        opens[close]++;
        closes[end]++;
    }
}

/* Bytes [start, end) of the source, its tokens rewritten. */
static inline void sc_emit_range(const struct sc_src *s, size_t start, size_t end,
                                 const struct sc_edit *e, struct sc_names *m, struct sc_rng *r,
                                 const unsigned char *opens, const unsigned char *closes,
                                 struct strbuf *out)
{
    const struct token_list *l = &s->l;
    size_t at = start;
    const char *prev = NULL; /* the last name written, when the last token was one */
    for (size_t i = 0; i < l->n; i++) {
        const struct token *t = &l->items[i];
        if (t->offset < start || t->offset >= end)
            continue;
        const char *dir = syn_directive_name(&s->syn, i);
        strbuf_add(out, l->source + at, t->offset - at);
        at = t->offset + t->len;
        if (t->kind == TOK_COMMENT) {
            if (e->comments == 1)
                strbuf_addstr(out, t->text);
            else if (e->comments == 2)
                strbuf_addstr(out, sc_pick(r, sc_comments));
            continue;
        }
        if (e->vary && sc_vary_token(s, i, prev, r, out)) {
            prev = NULL;
            continue;
        }
        bool member = i > 0 && (tok_is(l, i - 1, ".") || tok_is(l, i - 1, "->"));
        if (t->kind != TOK_IDENT || sc_kept(t->text) || member || (dir && strcmp(dir, "define"))) {
            strbuf_addstr(out, t->text);
            prev = t->kind == TOK_IDENT ? t->text : NULL;
        } else {
            prev = sc_rename(m, t->text, r);
            strbuf_addstr(out, prev);
        }
        for (unsigned k = 0; k < opens[i]; k++)
            strbuf_addstr(out, " {");
        for (unsigned k = 0; k < closes[i]; k++)
            strbuf_addstr(out, " }");
    }
    if (at < end)
        strbuf_add(out, l->source + at, end - at);
}

/* The file rewritten as e says, from one lexing of it. */
static inline char *sc_emit(const struct sc_src *s, const struct sc_edit *e, struct sc_rng *r)
{
    size_t perm[32];
    struct sc_names m = {NULL, NULL, 0};
    struct strbuf out = STRBUF_INIT;
    unsigned char *opens = xcalloc(s->l.n + 1, 1), *closes = xcalloc(s->l.n + 1, 1);
    if (e->braces)
        sc_braces(s, opens, closes);
    for (size_t i = 0; i < s->n; i++)
        perm[i] = i;
    for (int tries = 0; e->reorder && tries < 8; tries++) {
        for (size_t i = s->n; i > 1; i--) {
            size_t j = sc_below(r, (unsigned)i), t = perm[i - 1];
            perm[i - 1] = perm[j];
            perm[j] = t;
        }
        bool same = true;
        for (size_t i = 0; i < s->n; i++)
            same &= perm[i] == i;
        if (!e->force || !same || s->n < 2)
            break;
    }
    size_t at = 0;
    for (size_t i = 0; i < s->n; i++) {
        sc_emit_range(s, at, s->from[i], e, &m, r, opens, closes, &out);
        sc_emit_range(s, s->from[perm[i]], s->to[perm[i]], e, &m, r, opens, closes, &out);
        at = s->to[i];
    }
    sc_emit_range(s, at, s->l.source_len, e, &m, r, opens, closes, &out);
    free(opens);
    free(closes);
    for (size_t i = 0; i < m.n; i++)
        free(m.to[i]);
    free(m.from);
    free(m.to);
    return strbuf_detach(&out);
}

/* One statement of a helper: a shape and operands of its own. */
static inline void sc_statement(struct strbuf *b, struct sc_rng *r, const char *const *vars,
                                int depth)
{
    static const char *const ops[] = {"+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", NULL};
    static const char *const cmps[] = {"<", ">", "<=", ">=", "==", "!=", NULL};
    const char *v = sc_pick(r, vars), *w = sc_pick(r, vars), *u = sc_pick(r, vars);
    unsigned num = sc_below(r, 100);
    switch (sc_below(r, depth > 1 ? 5 : 9)) {
    case 0:
        strbuf_addf(b, "%s = %s %s %u;\n", v, w, sc_pick(r, ops), num + 1);
        break;
    case 1:
        strbuf_addf(b, "%s %s= (%s %s %s);\n", v, sc_pick(r, ops), w, sc_pick(r, ops), u);
        break;
    case 2:
        strbuf_addf(b, "printf(\"%s=%%ld\\n\", (long)%s);\n", v, v);
        break;
    case 3:
        strbuf_addf(b, "if (%s %s %u)\n    return %s;\n", v, sc_pick(r, cmps), num, w);
        break;
    case 4:
        strbuf_addf(b, "%s = %s ? %s : %s;\n", u, v, w, u);
        break;
    case 5:
        strbuf_addf(b, "for (int e = 0; e < %u; e++) {\n", num % 7 + 2);
        sc_statement(b, r, vars, depth + 1);
        sc_statement(b, r, vars, depth + 1);
        strbuf_addstr(b, "}\n");
        break;
    case 6:
        strbuf_addf(b, "if (%s %s %s) {\n", v, sc_pick(r, cmps), w);
        sc_statement(b, r, vars, depth + 1);
        strbuf_addstr(b, "} else {\n");
        sc_statement(b, r, vars, depth + 1);
        strbuf_addstr(b, "}\n");
        break;
    case 7:
        strbuf_addf(b, "while (%s > %u) {\n%s /= 2;\n", v, num % 5 + 1, v);
        sc_statement(b, r, vars, depth + 1);
        strbuf_addstr(b, "}\n");
        break;
    default:
        strbuf_addf(b, "%s = check_value(%s, %s) + %u;\n", v, w, u, num);
        break;
    }
}

/* A function of the student's own: a check, a debug print, an experiment. */
static inline char *sc_helper(struct sc_rng *r)
{
    static const char *const types[] = {"long", "int", "double", "unsigned", NULL};
    static const char *const vars[] = {"h", "g", "s", "n", NULL};
    struct strbuf b = STRBUF_INIT;
    strbuf_addf(&b, "\nstatic %s helper_%u(long n, long s)\n{\n    long h = n, g = %u;\n",
                sc_pick(r, types), sc_below(r, 1000), sc_below(r, 9) + 1);
    for (unsigned i = 0, n = 4 + sc_below(r, 5); i < n; i++)
        sc_statement(&b, r, vars, 0);
    strbuf_addf(&b, "return h %s g;\n}\n", sc_below(r, 2) ? "+" : "-");
    return strbuf_detach(&b);
}

static inline void sc_write(const char *dir, const char *file, const char *text)
{
    struct error err;
    char *path = path_join(dir, file);
    ck_assert_msg(mkdir_p(dir, &err) == 0, "%s: %s", dir, err.msg);
    ck_assert_msg(write_file_atomic(path, text, strlen(text), &err) == 0, "%s: %s", path, err.msg);
    free(path);
}

static inline char *sc_read(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s: %s", path, err.msg);
    return strbuf_detach(&sb);
}

static int sc_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The implementations of one file, sorted (caller frees each and the array). */
static inline size_t sc_impls(const char *file, char ***out)
{
    char *dir = path_join(SIMCLASS_IMPL, file);
    DIR *d = opendir(dir);
    size_t n = 0;
    *out = NULL;
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strstr(e->d_name, ".in")) {
            *out = xrealloc(*out, (n + 1) * sizeof(**out));
            (*out)[n++] = path_join(dir, e->d_name);
        }
    closedir(d);
    qsort(*out, n, sizeof(**out), sc_cmp_str);
    free(dir);
    return n;
}

/* One honest student's file: an implementation, its choices, its small habits, its names,
 * maybe its own order of functions and its own comments. */
static inline char *sc_honest_file(const char *file, bool braces, struct sc_rng *r)
{
    char **impls;
    struct sc_src src;
    size_t n = sc_impls(file, &impls);
    char *raw = sc_read(impls[sc_below(r, (unsigned)n)]), *text = sc_expand(raw, r);
    struct sc_edit e = {(int)sc_below(r, 2) + 1, sc_below(r, 2) == 1, false, true, braces};
    sc_src_init(&src, text, file);
    char *out = sc_emit(&src, &e, r);
    sc_src_release(&src);
    for (size_t i = 0; i < n; i++)
        free(impls[i]);
    free(impls);
    free(raw);
    free(text);
    return out;
}

/* A copier's file: renamed, reordered, comments replaced or dropped, maybe a helper. */
static inline char *sc_copy_file(const struct sc_src *src, struct sc_rng *r, bool comments,
                                 bool helper)
{
    struct sc_edit e = {comments ? 2 : 0, true, true, false, false};
    char *out = sc_emit(src, &e, r);
    if (helper) {
        char *h = sc_helper(r), *both = xstrfmt("%s%s", out, h);
        free(h);
        free(out);
        out = both;
    }
    return out;
}

/* Build the class; ids in class order: h00.., then k00... */
static inline void simclass_make(const struct simclass *c)
{
    struct sc_rng r = {c->seed};
    char *header = sc_read("labs/lab6/skeleton/lab6.h");
    for (int s = 0; s < c->n_honest; s++) {
        char *dir = xstrfmt("%s/h%02d", c->dir, s);
        /* A helper of its own in one file, and half the time one more in another. */
        unsigned helper_in = sc_below(&r, 4), second = sc_below(&r, 8);
        bool braces = sc_below(&r, 2);
        sc_write(dir, "lab6.h", header);
        for (size_t f = 0; simclass_files[f]; f++) {
            char *text = sc_honest_file(simclass_files[f], braces, &r);
            if (helper_in == f || second == f) {
                char *h = sc_helper(&r), *both = xstrfmt("%s%s", text, h);
                free(h);
                free(text);
                text = both;
            }
            sc_write(dir, simclass_files[f], text);
            free(text);
        }
        free(dir);
    }
    char *from = c->copy_from ? xstrdup(c->copy_from) : xstrfmt("%s/h00", c->dir);
    struct sc_src src[4];
    for (size_t f = 0; simclass_files[f]; f++) {
        char *path = path_join(from, simclass_files[f]), *text = sc_read(path);
        sc_src_init(&src[f], text, simclass_files[f]);
        free(text);
        free(path);
    }
    for (int s = 0; s < c->n_copies; s++) {
        char *dir = xstrfmt("%s/k%02d", c->dir, s);
        unsigned helper_in = c->copy_helpers && s % c->copy_helpers == 0 ? sc_below(&r, 4) : 4;
        sc_write(dir, "lab6.h", header);
        for (size_t f = 0; simclass_files[f]; f++) {
            char *text = sc_copy_file(&src[f], &r, c->copy_comments, helper_in == f);
            sc_write(dir, simclass_files[f], text);
            free(text);
        }
        free(dir);
    }
    for (size_t f = 0; simclass_files[f]; f++)
        sc_src_release(&src[f]);
    free(from);
    free(header);
}

#endif

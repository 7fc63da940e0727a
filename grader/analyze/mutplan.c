/* mutplan: mutants of the solution, attributed to variants. See mutplan.h. */
#include "analyze/mutplan.h"

#include "analyze/mutconst.h"
#include "analyze/mutop.h"
#include "analyze/syntax.h"
#include "analyze/tokens.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <string.h>

/* A function or macro of one file: what reachability is computed over. */
struct unit {
    size_t file;
    const char *name;
    size_t first, last; /* token range searched for names it uses */
};

struct plan {
    const struct lab *lab;
    struct mutate_result *r;
    struct token_list *toks; /* per file */
    struct syntax *syn;
    struct unit *units;
    size_t n_units, alloc_units;
    bool *reach; /* [target][unit] */
};

static const struct variant_spec *target_variant(const struct plan *p, size_t t)
{
    return &p->lab->exercises[p->r->targets[t].ex].variants[p->r->targets[t].var];
}

static bool target_has_file(const struct plan *p, size_t t, size_t file)
{
    const struct impl_spec *st = &target_variant(p, t)->student;
    for (size_t s = 0; s < st->n_sources; s++)
        if (!strcmp(st->sources[s], p->r->files[file]))
            return true;
    return false;
}

static void add_targets(struct mutate_result *r, const struct lab *lab, bool gpu, const char *only)
{
    for (size_t e = 0; e < lab->n_exercises; e++) {
        if (only && strcmp(only, lab->exercises[e].id))
            continue;
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            if (lab->exercises[e].variants[v].target == TARGET_GPU && !gpu)
                continue;
            r->targets = xrealloc(r->targets, (r->n_targets + 1) * sizeof(*r->targets));
            memset(&r->targets[r->n_targets], 0, sizeof(*r->targets));
            r->targets[r->n_targets].ex = e;
            r->targets[r->n_targets++].var = v;
            const struct impl_spec *st = &lab->exercises[e].variants[v].student;
            for (size_t s = 0; s < st->n_sources; s++) {
                bool seen = false;
                for (size_t f = 0; f < r->n_files && !seen; f++)
                    seen = !strcmp(r->files[f], st->sources[s]);
                if (!seen) {
                    r->files = xrealloc(r->files, (r->n_files + 1) * sizeof(*r->files));
                    r->files[r->n_files++] = xstrdup(st->sources[s]);
                }
            }
        }
    }
}

static int load_files(struct plan *p, const char *dir, struct error *err)
{
    struct mutate_result *r = p->r;
    r->texts = xcalloc(r->n_files ? r->n_files : 1, sizeof(*r->texts));
    p->toks = xcalloc(r->n_files ? r->n_files : 1, sizeof(*p->toks));
    p->syn = xcalloc(r->n_files ? r->n_files : 1, sizeof(*p->syn));
    for (size_t f = 0; f < r->n_files; f++) {
        char *path = path_join(dir, r->files[f]);
        token_list_init(&p->toks[f]);
        syntax_init(&p->syn[f]);
        int rc = tokens_lex_file(path, &p->toks[f], err);
        free(path);
        if (rc != 0)
            return -1;
        r->texts[f] = xstrndup(p->toks[f].source, p->toks[f].source_len);
        syntax_scan(&p->syn[f], &p->toks[f]);
        for (size_t i = 0; i < p->syn[f].n_funcs; i++) {
            const struct syn_func *fn = &p->syn[f].funcs[i];
            ALLOC_GROW(p->units, p->n_units + 1, p->alloc_units);
            p->units[p->n_units++] = (struct unit){f, fn->name, fn->params_open, fn->body_close};
        }
        for (size_t i = 0; i < p->syn[f].n_macros; i++) {
            const struct syn_macro *m = &p->syn[f].macros[i];
            ALLOC_GROW(p->units, p->n_units + 1, p->alloc_units);
            p->units[p->n_units++] = (struct unit){f, m->name, m->body_first, m->body_end};
        }
    }
    return 0;
}

/* Mark, for target t, every unit reachable from unit u through the names it uses. */
static void reach_from(struct plan *p, size_t t, size_t u)
{
    bool *seen = p->reach + t * p->n_units;
    if (seen[u])
        return;
    seen[u] = true;
    const struct token_list *l = &p->toks[p->units[u].file];
    for (size_t i = p->units[u].first; i < p->units[u].last && i < l->n; i++) {
        if (l->items[i].kind != TOK_IDENT)
            continue;
        for (size_t v = 0; v < p->n_units; v++)
            if (!seen[v] && target_has_file(p, t, p->units[v].file) &&
                !strcmp(p->units[v].name, l->items[i].text))
                reach_from(p, t, v);
    }
}

static void compute_reach(struct plan *p)
{
    p->reach = xcalloc(p->r->n_targets * p->n_units + 1, sizeof(*p->reach));
    for (size_t t = 0; t < p->r->n_targets; t++) {
        const char *fn = target_variant(p, t)->student.function;
        for (size_t u = 0; u < p->n_units; u++)
            if (target_has_file(p, t, p->units[u].file) && !strcmp(p->units[u].name, fn))
                reach_from(p, t, u);
    }
}

/* The unit of file f holding token tok: the innermost range (a macro inside no function). */
static size_t unit_of(const struct plan *p, size_t f, size_t tok)
{
    for (size_t u = 0; u < p->n_units; u++)
        if (p->units[u].file == f && tok >= p->units[u].first && tok < p->units[u].last)
            return u;
    return SIZE_MAX;
}

static void add_record(struct plan *p, struct mutant *m, size_t file, const bool *targets)
{
    struct mutate_result *r = p->r;
    r->recs = xrealloc(r->recs, (r->n_recs + 1) * sizeof(*r->recs));
    struct mut_record *rec = &r->recs[r->n_recs++];
    memset(rec, 0, sizeof(*rec));
    rec->m = *m;
    rec->file = file;
    rec->status = MUT_NOT_RUN;
    rec->targets = xcalloc(r->n_targets ? r->n_targets : 1, sizeof(*rec->targets));
    for (size_t t = 0; t < r->n_targets; t++)
        if (targets[t])
            rec->targets[rec->n_targets++] = t;
    rec->diff = mutplan_diff(r->texts[file], strlen(r->texts[file]), m);
}

static void token_mutants(struct plan *p, size_t f, bool *targets)
{
    struct mutant_list ml;
    mutant_list_init(&ml);
    mutop_generate(&p->toks[f], &p->syn[f], src_lang_of(p->r->files[f]), &ml);
    for (size_t i = 0; i < ml.n; i++) {
        size_t u = unit_of(p, f, ml.items[i].tok);
        bool any = false;
        for (size_t t = 0; t < p->r->n_targets; t++) {
            targets[t] = u != SIZE_MAX && target_has_file(p, t, f) && p->reach[t * p->n_units + u];
            any |= targets[t];
        }
        if (any)
            add_record(p, &ml.items[i], f, targets);
        else
            mutant_release(&ml.items[i]);
    }
    free(ml.items);
}

/* zero_result and echo_input of target t, in the file that defines its function. */
static void const_mutants(struct plan *p, size_t t, bool *targets)
{
    const struct variant_spec *v = target_variant(p, t);
    const struct exercise_spec *ex = &p->lab->exercises[p->r->targets[t].ex];
    for (size_t f = 0; f < p->r->n_files; f++) {
        for (size_t i = 0; target_has_file(p, t, f) && i < p->syn[f].n_funcs; i++) {
            const struct syn_func *fn = &p->syn[f].funcs[i];
            if (strcmp(fn->name, v->student.function))
                continue;
            struct mutant_list ml;
            mutant_list_init(&ml);
            mutconst_generate(&p->toks[f], &p->syn[f], fn, ex, v, src_lang_of(p->r->files[f]), &ml);
            memset(targets, 0, p->r->n_targets * sizeof(*targets));
            targets[t] = true;
            for (size_t k = 0; k < ml.n; k++)
                add_record(p, &ml.items[k], f, targets);
            free(ml.items);
            return;
        }
    }
}

static void plan_release(struct plan *p)
{
    for (size_t f = 0; p->toks && f < p->r->n_files; f++) {
        syntax_release(&p->syn[f]);
        token_list_release(&p->toks[f]);
    }
    free(p->toks);
    free(p->syn);
    free(p->units);
    free(p->reach);
}

int mutplan_build(struct mutate_result *r, const struct lab *lab, const char *solution_dir,
                  bool gpu, const char *only, struct error *err)
{
    struct plan p;
    memset(&p, 0, sizeof(p));
    p.lab = lab;
    p.r = r;
    add_targets(r, lab, gpu, only);
    int rc = load_files(&p, solution_dir, err);
    if (rc == 0) {
        compute_reach(&p);
        bool *targets = xcalloc(r->n_targets + 1, sizeof(*targets));
        for (size_t f = 0; f < r->n_files; f++)
            token_mutants(&p, f, targets);
        for (size_t t = 0; t < r->n_targets; t++)
            const_mutants(&p, t, targets);
        free(targets);
    }
    plan_release(&p);
    return rc;
}

/* Offset of the start of the line holding offset `at`, and its line number. */
static size_t line_start(const char *text, size_t at, unsigned *line)
{
    size_t s = 0;
    *line = 1;
    for (size_t i = 0; i < at; i++)
        if (text[i] == '\n') {
            s = i + 1;
            (*line)++;
        }
    return s;
}

static size_t line_end(const char *text, size_t len, size_t at)
{
    while (at < len && text[at] != '\n')
        at++;
    return at;
}

static void add_prefixed(struct strbuf *out, char sign, unsigned line, const char *s, size_t n)
{
    size_t a = 0;
    while (a <= n) {
        size_t b = a;
        while (b < n && s[b] != '\n')
            b++;
        strbuf_addf(out, "%c%5u | %.*s\n", sign, line++, (int)(b - a), s + a);
        a = b + 1;
    }
}

char *mutplan_diff(const char *text, size_t len, const struct mutant *m)
{
    struct strbuf out = STRBUF_INIT;
    for (size_t i = 0; i < m->n_edits;) {
        unsigned line;
        size_t from = line_start(text, m->edits[i].offset, &line), j = i, to;
        /* Edits on the same lines make one hunk. */
        do {
            to = line_end(text, len, m->edits[j].offset + m->edits[j].len);
            j++;
        } while (j < m->n_edits && m->edits[j].offset <= to);
        struct mutant part = {m->op, 0, 0, 0, m->edits + i, j - i};
        struct strbuf orig = STRBUF_INIT;
        strbuf_add(&orig, text, to);
        size_t new_len;
        char *mutated = mutant_apply(strbuf_str(&orig), to, &part, &new_len);
        add_prefixed(&out, '-', line, text + from, to - from);
        add_prefixed(&out, '+', line, mutated + from, new_len - from);
        free(mutated);
        strbuf_release(&orig);
        i = j;
    }
    return strbuf_detach(&out);
}

/* similarity: every pair of a class's submissions compared. See similarity.h. */
#include "analyze/similarity.h"

#include "analyze/handout.h"
#include "analyze/simgroup.h"
#include "analyze/tokens.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "class/collect.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void sim_opts_init(struct sim_opts *o)
{
    memset(o, 0, sizeof(*o));
    /* Copies, however disguised, score 83% and more on the corpus; honest solutions from the
     * same templates reach 75% in a class of 500 (docs/similarity.md). */
    o->threshold = 0.8;
    o->k = 12;
    o->window = 8;
    o->min_match = 24;
}

void sim_result_init(struct sim_result *r)
{
    memset(r, 0, sizeof(*r));
}

static void sub_release(struct sim_sub *s, size_t n_files)
{
    for (size_t f = 0; f < n_files; f++) {
        free(s->files[f].name);
        free(s->files[f].source);
    }
    free(s->files);
    free(s->id);
    free(s->name);
    norm_stream_release(&s->toks);
    fp_set_release(&s->fp);
    norm_stream_release(&s->own);
    fp_set_release(&s->own_fp);
}

void sim_result_release(struct sim_result *r)
{
    for (size_t i = 0; i < r->n_subs; i++)
        sub_release(&r->subs[i], r->n_files);
    if (r->sol.files || r->sol.id)
        sub_release(&r->sol, r->n_sol_files);
    for (size_t i = 0; i < r->n_pairs; i++)
        free(r->pairs[i].frags);
    for (size_t i = 0; i < r->n_groups; i++) {
        free(r->groups[i].members);
        free(r->groups[i].frags);
    }
    for (size_t i = 0; i < r->n_solmatches; i++)
        free(r->solmatches[i].frags);
    free(r->groups);
    free(r->solmatches);
    for (size_t i = 0; i < r->n_files; i++)
        free(r->files[i]);
    for (size_t i = 0; i < r->n_warnings; i++)
        free(r->warnings[i]);
    free(r->files);
    free(r->subs);
    free(r->pairs);
    free(r->warnings);
    memset(r, 0, sizeof(*r));
}

static void warn(struct sim_result *r, char *msg)
{
    r->warnings = xrealloc(r->warnings, (r->n_warnings + 1) * sizeof(*r->warnings));
    r->warnings[r->n_warnings++] = msg;
}

char **sim_lab_files(const struct lab *lab, size_t *n)
{
    char **files = NULL;
    *n = 0;
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct impl_spec *st = &ex->variants[v].student;
            for (size_t s = 0; s < st->n_sources; s++) {
                bool seen = false;
                for (size_t i = 0; i < *n && !seen; i++)
                    seen = !strcmp(files[i], st->sources[s]);
                if (seen)
                    continue;
                files = xrealloc(files, (*n + 1) * sizeof(*files));
                files[(*n)++] = xstrdup(st->sources[s]);
            }
        }
    }
    return files;
}

/* Read and normalize dir/<file> for every lab file that dir has, into s; file texts kept in
 * texts when not NULL. Files that cannot be read or lexed are warnings. */
static int load_files(struct sim_result *r, const char *dir, const char *who, struct norm_stream *s,
                      struct sim_file *texts, struct error *err)
{
    for (size_t f = 0; f < r->n_files; f++) {
        char *path = path_join(dir, r->files[f]);
        struct error e;
        error_init(&e);
        if (texts)
            texts[f].name = xstrdup(r->files[f]);
        if (file_exists(path) &&
            handout_lex_file(s, path, (uint16_t)f, texts ? &texts[f].source : NULL, &e) != 0) {
            if (!tokens_available(NULL, 0)) {
                *err = e;
                free(path);
                return -1;
            }
            warn(r, xstrfmt("%s: %s: left out: %s", who, r->files[f], e.msg));
        }
        free(path);
    }
    return 0;
}

/* The tokens of s that keep[] says, in order (into out, emptied first). Each remembers what
 * was left out right before it (its gap: a hash of those tokens, and of their own gaps), so
 * that a run goes on over left-out code only where both sides left out the same. */
static void compact(const struct norm_stream *s, const bool *keep, struct norm_stream *out)
{
    uint64_t gap = 0;
    norm_stream_release(out);
    out->units = s->units;
    for (size_t i = 0; i < s->n; i++) {
        if (s->t[i].gap)
            gap = (gap ^ s->t[i].gap) * 0x100000001b3ull + 1;
        if (!keep[i]) {
            gap = (gap ^ s->t[i].sym) * 0x100000001b3ull + 1;
            continue;
        }
        ALLOC_GROW(out->t, out->n + 1, out->alloc);
        out->t[out->n] = s->t[i];
        out->t[out->n++].gap = gap ? (uint32_t)(gap ^ gap >> 32) | 1u : 0;
        gap = 0;
    }
}

/* s less what was handed out (the skeleton's k-grams: skel, sorted), fingerprinted: the code
 * that is compared (sim_sub.toks). Until the class's common code is known, its own code is
 * the same. */
static void code_of(struct sim_sub *s, const struct sim_result *r, const uint64_t *skel,
                    size_t n_skel)
{
    bool *keep = xcalloc(s->toks.n + 1, sizeof(*keep));
    fp_mark_skeleton(&s->toks, r->opts.k, skel, n_skel);
    for (size_t i = 0; i < s->toks.n; i++)
        keep[i] = !(s->toks.t[i].flags & NORM_SKELETON);
    struct norm_stream all = s->toks;
    norm_stream_init(&s->toks);
    compact(&all, keep, &s->toks);
    norm_stream_release(&all);
    free(keep);
    fp_build(&s->fp, &s->toks, r->opts.k, r->opts.window);
    s->countable = s->toks.n;
}

/*
 * The lab's own code (handout.h): the k-grams of what was handed out, sorted, into *set
 * (caller frees); the instructor's code as r->sol, handed-out code left out of it too.
 */
static int load_lab_code(struct sim_result *r, const struct lab *lab, uint64_t **set, size_t *n,
                         struct error *err)
{
    struct lab_code c;
    lab_code_init(&c);
    if (lab_code_load(&c, lab, r->files, r->n_files, err) != 0) {
        lab_code_release(&c);
        return -1;
    }
    for (size_t i = 0; i < c.n_notes; i++)
        warn(r, xstrdup(c.notes[i]));
    r->skeleton_tokens = c.handout.n;
    r->n_handout = c.n_handout;
    *set = fp_hash_set(&c.handout, r->opts.k, n);
    r->sol.id = xstrdup("solution");
    r->sol.name = xstrdup("solution");
    r->n_sol_files = c.n_files;
    r->sol.files = xcalloc(c.n_files ? c.n_files : 1, sizeof(*r->sol.files));
    for (size_t i = 0; i < c.n_files; i++) {
        r->sol.files[i] = (struct sim_file){c.names[i], c.sources[i]};
        c.names[i] = c.sources[i] = NULL;
    }
    r->sol.toks = c.code;
    norm_stream_init(&c.code);
    code_of(&r->sol, r, *set, *n);
    r->solution_checked = !c.published && r->sol.countable > 0;
    lab_code_release(&c);
    return 0;
}

static int load_subs(struct sim_result *r, const struct submission_set *set, const uint64_t *skel,
                     size_t n_skel, struct error *err)
{
    r->subs = xcalloc(set->n ? set->n : 1, sizeof(*r->subs));
    for (size_t i = 0; i < set->n; i++) {
        struct sim_sub *s = &r->subs[r->n_subs++];
        s->id = xstrdup(set->items[i].id);
        s->name = xstrdup(set->items[i].name ? set->items[i].name : set->items[i].id);
        s->files = xcalloc(r->n_files ? r->n_files : 1, sizeof(*s->files));
        norm_stream_init(&s->toks);
        fp_set_init(&s->fp);
        if (load_files(r, set->items[i].dir, s->id, &s->toks, s->files, err) != 0)
            return -1;
        code_of(s, r, skel, n_skel);
    }
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Hashes of the k-grams more than max_common submissions have (sorted; caller frees). */
static uint64_t *common_hashes(const struct sim_result *r, size_t *n)
{
    size_t total = 0, m = 0;
    for (size_t i = 0; i < r->n_subs; i++)
        total += r->subs[i].fp.n_all;
    uint64_t *all = xcalloc(total ? total : 1, sizeof(*all)), *out = NULL;
    for (size_t i = 0; i < r->n_subs; i++) {
        const struct fp_set *f = &r->subs[i].fp;
        for (size_t j = 0; j < f->n_all; j++)
            if (j == 0 || f->all[j].hash != f->all[j - 1].hash)
                all[m++] = f->all[j].hash;
    }
    if (m > 1) /* qsort is never given NULL, even for no elements (C11 7.22.5) */
        qsort(all, m, sizeof(*all), cmp_u64);
    *n = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && all[j] == all[i])
            j++;
        if (j - i > (size_t)r->max_common) {
            out = xrealloc(out, (*n + 1) * sizeof(*out));
            out[(*n)++] = all[i];
        }
        i = j;
    }
    free(all);
    return out;
}

/* Index of pair (a, b), a < b, in an upper triangle of n. */
static size_t tri(size_t n, size_t a, size_t b)
{
    return a * n - a * (a + 1) / 2 + (b - a - 1);
}

struct posting {
    uint64_t hash;
    uint32_t sub;
};

static int cmp_posting(const void *x, const void *y)
{
    const struct posting *a = x, *b = y;
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

/* Per pair, whether the two share a winnowed fingerprint (a common one included: groups are
 * made of common code). */
static unsigned char *candidate_pairs(const struct sim_result *r)
{
    size_t n = r->n_subs, total = 0, m = 0;
    unsigned char *cand = xcalloc(n > 1 ? n * (n - 1) / 2 : 1, 1);
    for (size_t i = 0; i < n; i++)
        total += r->subs[i].fp.n_win;
    struct posting *p = xcalloc(total ? total : 1, sizeof(*p));
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < r->subs[i].fp.n_win; j++)
            p[m++] = (struct posting){r->subs[i].fp.win[j], (uint32_t)i};
    if (m > 1)
        qsort(p, m, sizeof(*p), cmp_posting);
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && p[j].hash == p[i].hash)
            j++;
        for (size_t x = i; x < j; x++)
            for (size_t y = x + 1; y < j; y++)
                cand[tri(n, p[x].sub, p[y].sub)] = 1;
        i = j;
    }
    free(p);
    return cand;
}

struct sim_span sim_span_of(const struct norm_stream *s, uint32_t first, uint32_t len)
{
    struct sim_span sp = {s->t[first].file, s->t[first].line, s->t[first].line};
    for (uint32_t i = first; i < first + len; i++) {
        /* Statements are compared in their canonical order: lines need not rise. */
        sp.first_line = s->t[i].line < sp.first_line ? s->t[i].line : sp.first_line;
        sp.last_line = s->t[i].line > sp.last_line ? s->t[i].line : sp.last_line;
    }
    return sp;
}

static void span_add(struct sim_span *sp, const struct norm_token *t)
{
    sp->first_line = t->line < sp->first_line ? t->line : sp->first_line;
    sp->last_line = t->line > sp->last_line ? t->line : sp->last_line;
}

static void frag_push(struct sim_frag **out, size_t *n_out, size_t *alloc, struct sim_frag f)
{
    ALLOC_GROW(*out, *n_out + 1, *alloc);
    (*out)[(*n_out)++] = f;
}

void sim_frags_of(const struct norm_stream *x, const struct norm_stream *y,
                  const struct match_frag *tiles, size_t n, struct sim_frag **out, size_t *n_out,
                  size_t *alloc)
{
    struct sim_frag cur = {{0, 0, 0}, {0, 0, 0}, 0};
    uint32_t ua = 0, ub = 0;
    bool open = false;
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < tiles[i].len; k++) {
            const struct norm_token *p = &x->t[tiles[i].a + k], *q = &y->t[tiles[i].b + k];
            if (open && (p->unit != ua || q->unit != ub)) {
                frag_push(out, n_out, alloc, cur);
                open = false;
            }
            if (!open) {
                cur =
                    (struct sim_frag){{p->file, p->line, p->line}, {q->file, q->line, q->line}, 0};
                ua = p->unit;
                ub = q->unit;
                open = true;
            }
            span_add(&cur.a, p);
            span_add(&cur.b, q);
            cur.tokens++;
        }
    if (open)
        frag_push(out, n_out, alloc, cur);
}

int sim_frag_cmp(const void *x, const void *y)
{
    const struct sim_frag *a = x, *b = y;
    if (a->tokens != b->tokens)
        return a->tokens > b->tokens ? -1 : 1;
    if (a->a.file != b->a.file)
        return a->a.file < b->a.file ? -1 : 1;
    return a->a.first_line < b->a.first_line ? -1 : a->a.first_line > b->a.first_line;
}

const char *sim_file_name(const struct sim_result *r, unsigned f, bool sol)
{
    return sol ? r->sol.files[f].name : r->files[f];
}

/* The pair's evidence (m: the chains of their own code; held: each one's tokens the other
 * holds) as *out; false when there is none. */
static bool pair_of(const struct sim_result *r, size_t a, size_t b, const struct match_result *m,
                    const struct match_held *held, struct sim_pair *out)
{
    const struct sim_sub *x = &r->subs[a], *y = &r->subs[b];
    size_t alloc = 0;
    if (m->n_chains == 0 || x->own.n == 0 || y->own.n == 0)
        return false;
    memset(out, 0, sizeof(*out));
    out->a = a;
    out->b = b;
    out->own_a = (unsigned)x->own.n;
    out->own_b = (unsigned)y->own.n;
    out->held_a = (unsigned)held->a;
    out->held_b = (unsigned)held->b;
    out->a_in_b = (double)held->a / (double)x->own.n;
    out->b_in_a = (double)held->b / (double)y->own.n;
    out->similarity = (double)(held->a + held->b) / (double)(x->own.n + y->own.n);
    for (size_t i = 0; i < m->n_chains; i++)
        sim_frags_of(&x->own, &y->own, m->frags + m->chains[i].first, m->chains[i].n, &out->frags,
                     &out->n_frags, &alloc);
    if (out->n_frags > 1)
        qsort(out->frags, out->n_frags, sizeof(*out->frags), sim_frag_cmp);
    return true;
}

int sim_pair_cmp(const void *x, const void *y)
{
    const struct sim_pair *a = x, *b = y;
    if (a->similarity != b->similarity)
        return a->similarity > b->similarity ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* Every pair that shares a fingerprint, matched: its evidence from their own code (pairs),
 * and whether they share enough code of any kind to be linked in a group (links). */
static void compare_all(struct sim_result *r, const struct match_params *mp,
                        struct sim_links *links)
{
    size_t n = r->n_subs, alloc = 0;
    unsigned link_at = sim_link_tokens(r->group_tokens);
    unsigned char *cand = candidate_pairs(r);
    struct match_result own, all;
    struct match_held held;
    match_result_init(&own);
    match_result_init(&all);
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) {
            if (!cand[tri(n, a, b)])
                continue;
            const struct sim_sub *x = &r->subs[a], *y = &r->subs[b];
            match_pair(&x->own, &x->own_fp, &y->own, &y->own_fp, mp, &own, &held);
            ALLOC_GROW(r->pairs, r->n_pairs + 1, alloc);
            if (pair_of(r, a, b, &own, &held, &r->pairs[r->n_pairs]))
                r->n_pairs++;
            if (x->toks.n < link_at || y->toks.n < link_at)
                continue;
            match_pair(&x->toks, &x->fp, &y->toks, &y->fp, mp, &all, NULL);
            if (all.covered_a >= link_at)
                sim_links_add(links, a, b, &all);
        }
    match_result_release(&own);
    match_result_release(&all);
    free(cand);
    if (r->n_pairs > 1)
        qsort(r->pairs, r->n_pairs, sizeof(*r->pairs), sim_pair_cmp);
    while (r->n_reported < r->n_pairs &&
           r->pairs[r->n_reported].similarity >= r->opts.threshold - 1e-12)
        r->n_reported++;
}

/* Each submission's own code: its code less every token inside a k-gram that more than
 * max_common submissions hold. */
static void own_code(struct sim_result *r)
{
    size_t n_common = 0;
    uint64_t *common = common_hashes(r, &n_common);
    for (size_t i = 0; i < r->n_subs; i++) {
        struct sim_sub *s = &r->subs[i];
        bool *is_common = xcalloc(s->toks.n + 1, sizeof(*is_common));
        bool *keep = xcalloc(s->toks.n + 1, sizeof(*keep));
        fp_common_tokens(&s->fp, r->opts.k, common, n_common, is_common);
        for (size_t t = 0; t < s->toks.n; t++)
            keep[t] = !is_common[t];
        compact(&s->toks, keep, &s->own);
        fp_build(&s->own_fp, &s->own, r->opts.k, r->opts.window);
        free(is_common);
        free(keep);
    }
    free(common);
}

static int collect(const struct sim_opts *o, struct submission_set *set, struct sim_result *r,
                   struct error *err)
{
    char *unpack = path_join(o->work_dir, "similarity-unpack");
    int rc = mkdir_p(o->work_dir, err);
    if (rc == 0)
        rc = collect_submissions(o->submissions, unpack, o->roster, NULL, set, err);
    free(unpack);
    for (size_t i = 0; rc == 0 && i < set->n_warnings; i++)
        warn(r, xstrdup(set->warnings[i]));
    return rc;
}

/* The comparisons, once every submission is loaded: pairs, groups, solution matches. */
static void compare(struct sim_result *r, const struct sim_opts *o)
{
    struct sim_links links;
    r->max_common =
        o->max_common > 0 ? o->max_common : (int)(r->n_subs / 10 > 10 ? r->n_subs / 10 : 10);
    r->group_tokens = o->group_tokens > 0 ? o->group_tokens : SIM_GROUP_TOKENS;
    r->solution_tokens = o->solution_tokens > 0 ? o->solution_tokens : SIM_SOLUTION_TOKENS;
    struct match_params mp = {o->k, o->min_match, o->k};
    own_code(r);
    sim_links_init(&links);
    compare_all(r, &mp, &links);
    sim_solution_matches(r, &mp);
    sim_find_groups(r, &links, &mp);
    sim_links_release(&links);
}

int sim_run(const struct lab *lab, const struct sim_opts *o, struct sim_result *r,
            struct error *err)
{
    struct submission_set set;
    char why[512];
    size_t n_skel = 0;
    uint64_t *skel = NULL;
    int rc = -1;
    sim_result_release(r);
    r->opts = *o;
    if (!tokens_available(why, sizeof(why)))
        return error_set(err, "%s", why);
    r->files = sim_lab_files(lab, &r->n_files);
    submission_set_init(&set);
    if (collect(o, &set, r, err) != 0)
        goto out;
    if (o->progress)
        fprintf(o->progress, "similarity: %zu submissions, comparing %zu files each\n", set.n,
                r->n_files);
    if (load_lab_code(r, lab, &skel, &n_skel, err) != 0 ||
        load_subs(r, &set, skel, n_skel, err) != 0)
        goto out;
    compare(r, o);
    rc = 0;
out:
    free(skel);
    submission_set_release(&set);
    return rc;
}

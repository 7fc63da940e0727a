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
    o->threshold = 0.5;
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

/*
 * The lab's own code (handout.h): the k-grams of what was handed out, sorted, into *set
 * (caller frees); the instructor's code as r->sol, handed-out code marked in it too.
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
    fp_mark_skeleton(&r->sol.toks, r->opts.k, *set, *n);
    fp_build(&r->sol.fp, &r->sol.toks, r->opts.k, r->opts.window);
    r->sol.countable = match_countable(&r->sol.toks);
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
        fp_mark_skeleton(&s->toks, r->opts.k, skel, n_skel);
        fp_build(&s->fp, &s->toks, r->opts.k, r->opts.window);
        s->countable = match_countable(&s->toks);
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
    const struct norm_token *a = &s->t[first], *b = &s->t[first + len - 1];
    return (struct sim_span){a->file, a->line, b->line};
}

const char *sim_file_name(const struct sim_result *r, unsigned f, bool sol)
{
    return sol ? r->sol.files[f].name : r->files[f];
}

/* The pair's evidence (m: fragments from rare k-grams) as *out; false when there is none. */
static bool pair_of(const struct sim_result *r, size_t a, size_t b, const struct match_result *m,
                    struct sim_pair *out)
{
    const struct sim_sub *x = &r->subs[a], *y = &r->subs[b];
    if (m->n == 0 || x->countable == 0 || y->countable == 0)
        return false;
    memset(out, 0, sizeof(*out));
    out->a = a;
    out->b = b;
    out->shared = (unsigned)m->covered_a;
    out->a_in_b = (double)m->covered_a / (double)x->countable;
    out->b_in_a = (double)m->covered_b / (double)y->countable;
    out->similarity = (double)(m->covered_a + m->covered_b) / (double)(x->countable + y->countable);
    out->frags = xcalloc(m->n, sizeof(*out->frags));
    out->n_frags = m->n;
    for (size_t i = 0; i < m->n; i++) {
        out->frags[i].a = sim_span_of(&x->toks, m->frags[i].a, m->frags[i].len);
        out->frags[i].b = sim_span_of(&y->toks, m->frags[i].b, m->frags[i].len);
        out->frags[i].tokens = m->frags[i].len;
    }
    return true;
}

static int by_similarity(const void *x, const void *y)
{
    const struct sim_pair *a = x, *b = y;
    if (a->similarity != b->similarity)
        return a->similarity > b->similarity ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* Every pair that shares a fingerprint, matched once: its evidence (pairs) and whether it
 * shares enough code of any kind to be linked in a group (links). */
static void compare_all(struct sim_result *r, const struct match_params *mp,
                        struct sim_links *links)
{
    size_t n = r->n_subs, alloc = 0;
    unsigned link_at = sim_link_tokens(r->group_tokens);
    unsigned char *cand = candidate_pairs(r);
    struct match_result rare, all;
    match_result_init(&rare);
    match_result_init(&all);
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++) {
            if (!cand[tri(n, a, b)])
                continue;
            const struct sim_sub *x = &r->subs[a], *y = &r->subs[b];
            match_pair_all(&x->toks, &x->fp, &y->toks, &y->fp, mp, &rare, &all);
            ALLOC_GROW(r->pairs, r->n_pairs + 1, alloc);
            if (pair_of(r, a, b, &rare, &r->pairs[r->n_pairs]))
                r->n_pairs++;
            if (all.covered_a >= link_at)
                sim_links_add(links, a, b, &all);
        }
    match_result_release(&rare);
    match_result_release(&all);
    free(cand);
    if (r->n_pairs > 1)
        qsort(r->pairs, r->n_pairs, sizeof(*r->pairs), by_similarity);
    while (r->n_reported < r->n_pairs &&
           r->pairs[r->n_reported].similarity >= r->opts.threshold - 1e-12)
        r->n_reported++;
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
    size_t n_common = 0;
    struct sim_links links;
    r->max_common =
        o->max_common > 0 ? o->max_common : (int)(r->n_subs / 10 > 10 ? r->n_subs / 10 : 10);
    r->group_tokens = o->group_tokens > 0 ? o->group_tokens : SIM_GROUP_TOKENS;
    r->solution_tokens = o->solution_tokens > 0 ? o->solution_tokens : SIM_SOLUTION_TOKENS;
    uint64_t *common = common_hashes(r, &n_common);
    struct match_params mp = {o->k, o->min_match};
    for (size_t i = 0; i < r->n_subs; i++)
        fp_mark_common(&r->subs[i].fp, common, n_common);
    sim_links_init(&links);
    compare_all(r, &mp, &links);
    sim_solution_matches(r, &mp);
    sim_find_groups(r, &links, &mp);
    sim_links_release(&links);
    free(common);
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

/* match: shared fragments of two token streams. See match.h. */
#include "analyze/match.h"

#include "base/alloc.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* At most this many positions of one hash on each side make seeds: a k-gram repeated more
 * often (a long run of identical statements) adds nothing but time. */
#define MATCH_MAX_SAME 16

void match_result_init(struct match_result *m)
{
    memset(m, 0, sizeof(*m));
}

void match_result_release(struct match_result *m)
{
    free(m->frags);
    memset(m, 0, sizeof(*m));
}

size_t match_countable(const struct norm_stream *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += !(s->t[i].flags & NORM_SKELETON);
    return n;
}

/* A maximal run of agreeing tokens; rare: one of its k-grams is not common. */
struct run {
    uint32_t a, b, len;
    bool rare;
};

struct runs {
    struct run *v;
    size_t n, alloc;
};

/* Whether token i of x and token j of y can be part of one fragment. */
static bool same(const struct norm_stream *x, size_t i, const struct norm_stream *y, size_t j)
{
    const struct norm_token *p = &x->t[i], *q = &y->t[j];
    return p->sym == q->sym && !(p->flags & NORM_SKELETON) && !(q->flags & NORM_SKELETON);
}

struct pair_ctx {
    const struct norm_stream *a, *b;
    const struct fp_set *fa, *fb;
    int k;
};

/* The run through the equal k-grams at x and y, grown both ways as far as tokens agree (in
 * one file on each side). */
static struct run grow(const struct pair_ctx *c, uint32_t x, uint32_t y)
{
    const struct norm_stream *a = c->a, *b = c->b;
    uint32_t len = 0;
    while (x > 0 && y > 0 && same(a, x - 1, b, y - 1) && a->t[x - 1].file == a->t[x].file &&
           b->t[y - 1].file == b->t[y].file)
        x--, y--;
    while (x + len < a->n && y + len < b->n && same(a, x + len, b, y + len) &&
           a->t[x + len].file == a->t[x].file && b->t[y + len].file == b->t[y].file)
        len++;
    struct run r = {x, y, len, !c->fa->common};
    for (uint32_t p = x; !r.rare && p + (uint32_t)c->k <= x + len; p++)
        r.rare = c->fa->at[p] && !c->fa->common[p];
    return r;
}

/*
 * One run per stretch of agreeing tokens: the seeds are the position pairs of equal k-grams
 * (a merge of the two sorted k-gram lists), and only a seed whose diagonal predecessor is
 * not one too starts a run (every other lies inside the run it starts).
 */
static void find_runs(const struct pair_ctx *c, struct runs *out)
{
    const struct fp_set *fa = c->fa, *fb = c->fb;
    size_t i = 0, j = 0;
    while (i < fa->n_all && j < fb->n_all) {
        uint64_t h = fa->all[i].hash;
        if (h != fb->all[j].hash) {
            h < fb->all[j].hash ? i++ : j++;
            continue;
        }
        size_t i1 = i, j1 = j;
        while (i1 < fa->n_all && fa->all[i1].hash == h)
            i1++;
        while (j1 < fb->n_all && fb->all[j1].hash == h)
            j1++;
        for (size_t x = i; x < i1 && x < i + MATCH_MAX_SAME; x++)
            for (size_t y = j; y < j1 && y < j + MATCH_MAX_SAME; y++) {
                uint32_t pa = fa->all[x].pos, pb = fb->all[y].pos;
                if (pa > 0 && pb > 0 && fa->at[pa - 1] && fa->at[pa - 1] == fb->at[pb - 1])
                    continue;
                if (!same(c->a, pa, c->b, pb))
                    continue;
                ALLOC_GROW(out->v, out->n + 1, out->alloc);
                out->v[out->n++] = grow(c, pa, pb);
            }
        i = i1;
        j = j1;
    }
}

static int by_length(const void *x, const void *y)
{
    const struct run *a = x, *b = y;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static int frag_by_length(const void *x, const void *y)
{
    const struct match_frag *a = x, *b = y;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    return a->a < b->a ? -1 : a->a > b->a;
}

/* Greedy tiling of the runs (the rare ones only, or all): longest first, each cut to its
 * longest stretch of tokens not taken. */
static void tile(const struct runs *s, size_t na, size_t nb, int min_match, bool rare_only,
                 struct match_result *out)
{
    bool *ta = xcalloc(na ? na : 1, 1), *tb = xcalloc(nb ? nb : 1, 1);
    match_result_release(out);
    for (size_t i = 0; i < s->n; i++) {
        struct run f = s->v[i];
        struct match_frag best = {0, 0, 0};
        uint32_t run = 0;
        if (rare_only && !f.rare)
            continue;
        for (uint32_t t = 0; t <= f.len; t++) {
            if (t < f.len && !ta[f.a + t] && !tb[f.b + t]) {
                run++;
                continue;
            }
            if (run > best.len)
                best = (struct match_frag){f.a + t - run, f.b + t - run, run};
            run = 0;
        }
        if (best.len < (uint32_t)min_match)
            continue;
        memset(ta + best.a, 1, best.len);
        memset(tb + best.b, 1, best.len);
        ALLOC_GROW(out->frags, out->n + 1, out->alloc);
        out->frags[out->n++] = best;
        out->covered_a += best.len;
        out->covered_b += best.len;
    }
    free(ta);
    free(tb);
    /* qsort must not be given NULL, even for no elements (C11 7.22.5). */
    if (out->n)
        qsort(out->frags, out->n, sizeof(*out->frags), frag_by_length);
}

void match_pair_all(const struct norm_stream *a, const struct fp_set *fa,
                    const struct norm_stream *b, const struct fp_set *fb,
                    const struct match_params *p, struct match_result *rare,
                    struct match_result *all)
{
    struct runs s = {NULL, 0, 0};
    struct pair_ctx c = {a, b, fa, fb, p->k};
    find_runs(&c, &s);
    if (s.n > 1)
        qsort(s.v, s.n, sizeof(*s.v), by_length);
    if (rare)
        tile(&s, a->n, b->n, p->min_match, true, rare);
    if (all)
        tile(&s, a->n, b->n, p->min_match, false, all);
    free(s.v);
}

void match_pair(const struct norm_stream *a, const struct fp_set *fa, const struct norm_stream *b,
                const struct fp_set *fb, const struct match_params *p, struct match_result *out)
{
    match_pair_all(a, fa, b, fb, p, out, NULL);
}

/* match: runs, tiles and chains two token streams share. See match.h. */
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
    free(m->chains);
    memset(m, 0, sizeof(*m));
}

size_t match_countable(const struct norm_stream *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += !(s->t[i].flags & NORM_SKELETON);
    return n;
}

struct tiles {
    struct match_frag *v;
    size_t n, alloc;
};

/* Whether token i of x and token j of y can be part of one run. */
static bool same(const struct norm_stream *x, size_t i, const struct norm_stream *y, size_t j)
{
    const struct norm_token *p = &x->t[i], *q = &y->t[j];
    return p->sym == q->sym && !(p->flags & NORM_SKELETON) && !(q->flags & NORM_SKELETON);
}

/* Whether a run may go on from token i - 1 to token i of a and j - 1 to j of b: the code left
 * out between them (handed out, or common in the class) is the same on both sides. */
static bool joined(const struct norm_stream *a, size_t i, const struct norm_stream *b, size_t j)
{
    return a->t[i].gap == b->t[j].gap;
}

/* The run through the equal k-grams at x and y, grown both ways as far as tokens agree. */
static struct match_frag grow(const struct norm_stream *a, const struct norm_stream *b, uint32_t x,
                              uint32_t y)
{
    uint32_t len = 1;
    while (x > 0 && y > 0 && same(a, x - 1, b, y - 1) && joined(a, x, b, y))
        x--, y--;
    while (x + len < a->n && y + len < b->n && same(a, x + len, b, y + len) &&
           joined(a, x + len, b, y + len))
        len++;
    return (struct match_frag){x, y, len};
}

/*
 * One run per stretch of agreeing tokens: the seeds are the position pairs of equal k-grams
 * (a merge of the two sorted k-gram lists), and only a seed whose diagonal predecessor is
 * not one too starts a run (every other lies inside the run it starts).
 */
static void find_runs(const struct norm_stream *a, const struct fp_set *fa,
                      const struct norm_stream *b, const struct fp_set *fb, struct tiles *out)
{
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
                if (!same(a, pa, b, pb))
                    continue;
                ALLOC_GROW(out->v, out->n + 1, out->alloc);
                out->v[out->n++] = grow(a, b, pa, pb);
            }
        i = i1;
        j = j1;
    }
}

static int by_length(const void *x, const void *y)
{
    const struct match_frag *a = x, *b = y;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static int by_place(const void *x, const void *y)
{
    const struct match_frag *a = x, *b = y;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

/* Greedy tiling of the runs (sorted longest first): each cut to its longest stretch whose
 * tokens are free on the exclusive sides, kept from min_len tokens on; in a's order. */
static void tile(const struct tiles *runs, size_t na, size_t nb, uint32_t min_len, bool excl_b,
                 struct tiles *out)
{
    bool *ta = xcalloc(na + 1, 1), *tb = xcalloc(nb + 1, 1);
    out->n = 0;
    for (size_t i = 0; i < runs->n; i++) {
        struct match_frag f = runs->v[i], best = {0, 0, 0};
        uint32_t run = 0;
        for (uint32_t t = 0; t <= f.len; t++) {
            if (t < f.len && !ta[f.a + t] && !(excl_b && tb[f.b + t])) {
                run++;
                continue;
            }
            if (run > best.len)
                best = (struct match_frag){f.a + t - run, f.b + t - run, run};
            run = 0;
        }
        if (best.len < min_len)
            continue;
        memset(ta + best.a, 1, best.len);
        memset(tb + best.b, 1, best.len);
        ALLOC_GROW(out->v, out->n + 1, out->alloc);
        out->v[out->n++] = best;
    }
    free(ta);
    free(tb);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), by_place);
}

/* Whether tile t continues the chain that ends with tile p. */
static bool continues(const struct match_frag *p, const struct match_frag *t, uint32_t gap)
{
    uint32_t ga = t->a - (p->a + p->len), gb = t->b - (p->b + p->len);
    return t->a >= p->a + p->len && t->b >= p->b + p->len && ga <= gap && gb <= gap &&
           (ga == 0 || gb == 0);
}

/* The tiles (in a's order) as chains; those of min_match tokens or more into out (when not
 * NULL); the tokens of a in them. */
static size_t chain(const struct tiles *t, const struct match_params *p, struct match_result *out)
{
    size_t covered = 0;
    for (size_t i = 0; i < t->n;) {
        size_t j = i + 1, tokens = t->v[i].len;
        while (j < t->n && continues(&t->v[j - 1], &t->v[j], (uint32_t)p->gap))
            tokens += t->v[j++].len;
        if (tokens >= (size_t)p->min_match) {
            covered += tokens;
            if (out) {
                ALLOC_GROW(out->frags, out->n + (j - i), out->alloc);
                ALLOC_GROW(out->chains, out->n_chains + 1, out->alloc_chains);
                out->chains[out->n_chains++] =
                    (struct match_chain){(uint32_t)out->n, (uint32_t)(j - i), (uint32_t)tokens};
                memcpy(out->frags + out->n, t->v + i, (j - i) * sizeof(*t->v));
                out->n += j - i;
            }
        }
        i = j;
    }
    return covered;
}

static int chain_by_tokens(const void *x, const void *y)
{
    const struct match_chain *a = x, *b = y;
    if (a->tokens != b->tokens)
        return a->tokens > b->tokens ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* The runs with a and b swapped, for b's one-sided tiling. */
static void swap_sides(struct tiles *t)
{
    for (size_t i = 0; i < t->n; i++)
        t->v[i] = (struct match_frag){t->v[i].b, t->v[i].a, t->v[i].len};
}

void match_pair(const struct norm_stream *a, const struct fp_set *fa, const struct norm_stream *b,
                const struct fp_set *fb, const struct match_params *p, struct match_result *out,
                struct match_held *held)
{
    struct tiles runs = {NULL, 0, 0}, t = {NULL, 0, 0};
    match_result_release(out);
    find_runs(a, fa, b, fb, &runs);
    if (runs.n > 1)
        qsort(runs.v, runs.n, sizeof(*runs.v), by_length);
    tile(&runs, a->n, b->n, (uint32_t)p->k, true, &t);
    out->covered_a = out->covered_b = chain(&t, p, out);
    if (out->n_chains > 1)
        qsort(out->chains, out->n_chains, sizeof(*out->chains), chain_by_tokens);
    if (held) {
        tile(&runs, a->n, b->n, (uint32_t)p->k, false, &t);
        held->a = chain(&t, p, NULL);
        swap_sides(&runs);
        if (runs.n > 1)
            qsort(runs.v, runs.n, sizeof(*runs.v), by_length);
        tile(&runs, b->n, a->n, (uint32_t)p->k, false, &t);
        held->b = chain(&t, p, NULL);
    }
    free(runs.v);
    free(t.v);
}

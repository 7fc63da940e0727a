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

struct seeds {
    struct match_frag *v;
    size_t n, alloc;
};

static void add_seed(struct seeds *s, uint32_t a, uint32_t b)
{
    ALLOC_GROW(s->v, s->n + 1, s->alloc);
    s->v[s->n++] = (struct match_frag){a, b, 0};
}

/* Whether token i of x and token j of y can be part of one fragment. */
static bool same(const struct norm_stream *x, size_t i, const struct norm_stream *y, size_t j)
{
    const struct norm_token *p = &x->t[i], *q = &y->t[j];
    return p->sym == q->sym && !(p->flags & NORM_SKELETON) && !(q->flags & NORM_SKELETON);
}

/* Seeds: position pairs of equal k-grams (a merge of the two sorted k-gram lists). */
static void find_seeds(const struct fp_set *fa, const struct fp_set *fb,
                       const struct match_params *p, struct seeds *out)
{
    size_t i = 0, j = 0;
    while (i < fa->n_all && j < fb->n_all) {
        uint64_t h = fa->all[i].hash;
        if (h < fb->all[j].hash) {
            i++;
            continue;
        }
        if (h > fb->all[j].hash) {
            j++;
            continue;
        }
        size_t i1 = i, j1 = j;
        while (i1 < fa->n_all && fa->all[i1].hash == h)
            i1++;
        while (j1 < fb->n_all && fb->all[j1].hash == h)
            j1++;
        if (!p->common || !fp_contains(p->common, p->n_common, h))
            for (size_t x = i; x < i1 && x < i + MATCH_MAX_SAME; x++)
                for (size_t y = j; y < j1 && y < j + MATCH_MAX_SAME; y++)
                    add_seed(out, fa->all[x].pos, fb->all[y].pos);
        i = i1;
        j = j1;
    }
}

static int by_diagonal(const void *x, const void *y)
{
    const struct match_frag *a = x, *b = y;
    long da = (long)a->a - (long)a->b, db = (long)b->a - (long)b->b;
    if (da != db)
        return da < db ? -1 : 1;
    return a->a < b->a ? -1 : a->a > b->a;
}

static int by_length(const void *x, const void *y)
{
    const struct match_frag *a = x, *b = y;
    if (a->len != b->len)
        return a->len > b->len ? -1 : 1;
    return a->a < b->a ? -1 : a->a > b->a;
}

/* Grow each seed into the maximal run of agreeing tokens around it, one run per stretch of
 * a diagonal. */
static void grow(const struct norm_stream *a, const struct norm_stream *b, struct seeds *s)
{
    size_t m = 0;
    if (s->n > 1) /* qsort is never given NULL, even for no elements (C11 7.22.5) */
        qsort(s->v, s->n, sizeof(*s->v), by_diagonal);
    for (size_t i = 0; i < s->n; i++) {
        struct match_frag f = s->v[i];
        if (m > 0) {
            struct match_frag *prev = &s->v[m - 1];
            if ((long)prev->a - (long)prev->b == (long)f.a - (long)f.b && f.a < prev->a + prev->len)
                continue;
        }
        uint32_t x = f.a, y = f.b;
        if (!same(a, x, b, y))
            continue;
        while (x > 0 && y > 0 && same(a, x - 1, b, y - 1) && a->t[x - 1].file == a->t[x].file &&
               b->t[y - 1].file == b->t[y].file)
            x--, y--;
        uint32_t len = 0;
        while (x + len < a->n && y + len < b->n && same(a, x + len, b, y + len) &&
               a->t[x + len].file == a->t[x].file && b->t[y + len].file == b->t[y].file)
            len++;
        s->v[m++] = (struct match_frag){x, y, len};
    }
    s->n = m;
}

/* Greedy tiling: longest runs first, each cut to its longest stretch of tokens not taken. */
static void tile(const struct seeds *s, size_t na, size_t nb, int min_match,
                 struct match_result *out)
{
    bool *ta = xcalloc(na ? na : 1, 1), *tb = xcalloc(nb ? nb : 1, 1);
    for (size_t i = 0; i < s->n; i++) {
        struct match_frag f = s->v[i], best = {0, 0, 0};
        uint32_t run = 0;
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
}

void match_pair(const struct norm_stream *a, const struct fp_set *fa, const struct norm_stream *b,
                const struct fp_set *fb, const struct match_params *p, struct match_result *out)
{
    struct seeds s = {NULL, 0, 0};
    match_result_release(out);
    find_seeds(fa, fb, p, &s);
    grow(a, b, &s);
    /* qsort must not be given NULL, even for no elements (C11 7.22.5). */
    if (s.n)
        qsort(s.v, s.n, sizeof(*s.v), by_length);
    tile(&s, a->n, b->n, p->min_match, out);
    if (out->n)
        qsort(out->frags, out->n, sizeof(*out->frags), by_length);
    free(s.v);
}

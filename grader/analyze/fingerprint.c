/* fingerprint: k-gram hashes and winnowing. See fingerprint.h. */
#include "analyze/fingerprint.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

void fp_set_init(struct fp_set *f)
{
    memset(f, 0, sizeof(*f));
}

void fp_set_release(struct fp_set *f)
{
    free(f->all);
    free(f->win);
    free(f->at);
    memset(f, 0, sizeof(*f));
}

/* splitmix64's finalizer: spreads a symbol over 64 bits. */
static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t *fp_kgram_hashes(const struct norm_stream *s, int k, size_t *n)
{
    size_t kk = (size_t)k;
    *n = s->n >= kk ? s->n - kk + 1 : 0;
    uint64_t *h = xcalloc(*n ? *n : 1, sizeof(*h));
    for (size_t i = 0; i < *n; i++) {
        uint64_t x = 0;
        bool ok = true;
        for (size_t j = i; j < i + kk && ok; j++) {
            ok = !(s->t[j].flags & NORM_SKELETON) && s->t[j].file == s->t[i].file;
            x = x * 0x100000001b3ull + mix(s->t[j].sym);
            /* What was left out between two of its tokens is part of the k-gram. */
            if (j > i && s->t[j].gap)
                x = x * 0x100000001b3ull + mix((uint64_t)s->t[j].gap << 32);
        }
        h[i] = ok ? (x ? x : 1) : 0;
    }
    return h;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_kgram(const void *a, const void *b)
{
    const struct kgram *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Sort and keep each value once; returns the new count. */
static size_t sort_unique(uint64_t *v, size_t n)
{
    size_t m = 0;
    if (n > 1) /* qsort is never given NULL, even for no elements (C11 7.22.5) */
        qsort(v, n, sizeof(*v), cmp_u64);
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

uint64_t *fp_hash_set(const struct norm_stream *s, int k, size_t *n)
{
    size_t all, m = 0;
    uint64_t *h = fp_kgram_hashes(s, k, &all);
    for (size_t i = 0; i < all; i++)
        if (h[i])
            h[m++] = h[i];
    *n = sort_unique(h, m);
    return h;
}

bool fp_contains(const uint64_t *set, size_t n, uint64_t h)
{
    return n && bsearch(&h, set, n, sizeof(*set), cmp_u64) != NULL;
}

size_t fp_mark_skeleton(struct norm_stream *s, int k, const uint64_t *skel, size_t n_skel)
{
    size_t n, marked = 0;
    uint64_t *h = fp_kgram_hashes(s, k, &n);
    for (size_t i = 0; i < n; i++) {
        if (!h[i] || !fp_contains(skel, n_skel, h[i]))
            continue;
        for (size_t j = i; j < i + (size_t)k; j++) {
            marked += !(s->t[j].flags & NORM_SKELETON);
            s->t[j].flags |= NORM_SKELETON;
        }
    }
    free(h);
    return marked;
}

/* Robust winnowing: the minimum of each window, recorded when it changes. */
static void winnow(struct fp_set *f, const uint64_t *h, size_t n, int w)
{
    size_t ww = (size_t)w, last = SIZE_MAX;
    f->win = xcalloc(n ? n : 1, sizeof(*f->win));
    f->n_win = 0;
    for (size_t start = 0; start + ww <= n || (start == 0 && n > 0); start++) {
        size_t end = start + ww < n ? start + ww : n, best = SIZE_MAX;
        for (size_t i = start; i < end; i++)
            if (h[i] && (best == SIZE_MAX || h[i] <= h[best]))
                best = i;
        if (best != SIZE_MAX && best != last) {
            f->win[f->n_win++] = h[best];
            last = best;
        }
        if (end == n)
            break;
    }
    f->n_win = sort_unique(f->win, f->n_win);
}

void fp_build(struct fp_set *f, const struct norm_stream *s, int k, int w)
{
    size_t n;
    uint64_t *h = fp_kgram_hashes(s, k, &n);
    fp_set_release(f);
    f->all = xcalloc(n ? n : 1, sizeof(*f->all));
    for (size_t i = 0; i < n; i++)
        if (h[i])
            f->all[f->n_all++] = (struct kgram){h[i], (uint32_t)i};
    if (f->n_all > 1)
        qsort(f->all, f->n_all, sizeof(*f->all), cmp_kgram);
    winnow(f, h, n, w);
    f->at = h;
    f->n_at = n;
}

size_t fp_common_tokens(const struct fp_set *f, int k, const uint64_t *common, size_t n_common,
                        bool *is_common)
{
    size_t set = 0;
    for (size_t i = 0; i < f->n_at; i++) {
        if (!f->at[i] || !fp_contains(common, n_common, f->at[i]))
            continue;
        for (size_t j = i; j < i + (size_t)k; j++) {
            set += !is_common[j];
            is_common[j] = true;
        }
    }
    return set;
}

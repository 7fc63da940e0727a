#include "buffers.h"

#include "draw.h"
#include "fill.h"
#include "harness.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lg_buf_alloc(struct lg_buf *b, size_t bytes, int space, bool guarded, char *err, size_t errsize)
{
    size_t guard = guarded ? LG_GUARD_BYTES : 0, total = bytes + 2 * guard;
    memset(b, 0, sizeof(*b));
    if (total == 0)
        total = 1;
    if (space == LG_SPACE_HOST) {
        /* Page-aligned, as pinned and device memory are: the function's buffers and the
         * reference's then sit alike in the caches and pages, run after run, and a paired
         * comparison does not depend on where the allocator happened to put each. */
        void *p = NULL;
        if (posix_memalign(&p, 4096, total) != 0) {
            snprintf(err, errsize, "cannot allocate %zu bytes of host memory", total);
            return -1;
        }
        b->base = p;
    } else {
        b->base = lg_gpu_alloc(total, space, err, errsize);
        if (!b->base)
            return -1;
    }
    b->p = b->base + guard;
    b->bytes = bytes;
    b->guard = guard;
    b->space = space;
    return lg_buf_guard_reset(b) == 0 ? 0 : (snprintf(err, errsize, "cannot set guards"), -1);
}

void lg_buf_free(struct lg_buf *b)
{
    if (!b->base)
        return;
    if (b->space == LG_SPACE_HOST)
        free(b->base);
    else
        lg_gpu_free(b->base, b->space);
    memset(b, 0, sizeof(*b));
}

int lg_buf_guard_reset(struct lg_buf *b)
{
    if (!b->guard)
        return 0;
    if (b->space == LG_SPACE_DEVICE)
        return lg_gpu_memset(b->base, LG_GUARD_BYTE, b->guard) ||
                       lg_gpu_memset(b->base + b->guard + b->bytes, LG_GUARD_BYTE, b->guard)
                   ? -1
                   : 0;
    memset(b->base, LG_GUARD_BYTE, b->guard);
    memset(b->base + b->guard + b->bytes, LG_GUARD_BYTE, b->guard);
    return 0;
}

/* The guard's bytes as the host sees them (device guards copied into scratch). */
static const unsigned char *guard_bytes(const struct lg_buf *b, const unsigned char *at,
                                        unsigned char *scratch)
{
    char err[256];
    if (b->space != LG_SPACE_DEVICE)
        return at;
    if (lg_gpu_copy(scratch, at, b->guard, 0, err, sizeof(err)) != 0)
        return NULL;
    return scratch;
}

int lg_buf_guard_check(const struct lg_buf *b, struct lg_guard_damage *d)
{
    static unsigned char scratch[2][LG_GUARD_BYTES];
    memset(d, 0, sizeof(*d));
    if (!b->guard)
        return 0;
    const unsigned char *pre = guard_bytes(b, b->base, scratch[0]);
    const unsigned char *post = guard_bytes(b, b->base + b->guard + b->bytes, scratch[1]);
    if (!pre || !post)
        return -1;
    bool first_set = false;
    /* Before the data the byte nearest to it is the likeliest hit: report from there. */
    for (size_t i = b->guard; i-- > 0;)
        if (pre[i] != LG_GUARD_BYTE) {
            d->before++;
            if (!first_set) {
                d->first = -(long long)(b->guard - i);
                first_set = true;
            }
        }
    for (size_t i = 0; i < b->guard; i++)
        if (post[i] != LG_GUARD_BYTE) {
            if (!d->after && !d->before)
                d->first = (long long)(b->bytes + i);
            d->after++;
        }
    return d->before || d->after ? 1 : 0;
}

int lg_buf_draw(struct lg_buf *b, enum lg_dtype t, size_t count, int dist, double p1, double p2,
                uint64_t seed)
{
    if (b->space == LG_SPACE_DEVICE)
        return lg_gpu_draw(b->p, (int)t, count, dist, p1, p2, seed);
    lg_host_fill(t, b->p, count, dist, p1, p2, seed);
    return 0;
}

/* Eight independent lanes: one chain of multiplies per word would be latency-bound (tens of
 * milliseconds for the 40 MB inputs of a large case, on every timed pair). Only ever compared
 * within the process, before and after a call. */
#define DIGEST_LANES 8
uint64_t lg_buf_digest(const struct lg_buf *b)
{
    if (b->space == LG_SPACE_DEVICE)
        return lg_gpu_digest(b->p, b->bytes);
    uint64_t lane[DIGEST_LANES];
    const unsigned char *p = b->p;
    size_t words = b->bytes / 8, i = 0;
    for (int k = 0; k < DIGEST_LANES; k++)
        lane[k] = 0x243f6a8885a308d3ull + (uint64_t)k;
    for (; i + DIGEST_LANES <= words; i += DIGEST_LANES)
        for (int k = 0; k < DIGEST_LANES; k++) {
            uint64_t w;
            memcpy(&w, p + 8 * (i + (size_t)k), 8);
            lane[k] = lg_draw_mix(lane[k] ^ (w + i + (size_t)k));
        }
    uint64_t h = 0;
    for (int k = 0; k < DIGEST_LANES; k++)
        h = lg_draw_mix(h ^ lane[k]);
    for (; i < words; i++) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        h = lg_draw_mix(h ^ (w + i));
    }
    for (size_t j = words * 8; j < b->bytes; j++)
        h = lg_draw_mix(h ^ ((uint64_t)p[j] << 8) ^ j);
    return h;
}

static bool close_enough(double a, double e, double rtol, double atol, bool equal_nan)
{
    if (a == e)
        return true; /* infinities of one sign agree (numpy's allclose) */
    if (isnan(a) || isnan(e))
        return equal_nan && isnan(a) && isnan(e);
    return fabs(a - e) <= atol + rtol * fabs(e);
}

long long lg_buf_compare(const struct lg_buf *actual, const struct lg_buf *expected,
                         enum lg_dtype t, size_t count, double rtol, double atol, bool equal_nan,
                         long long *first)
{
    long long bad = 0;
    *first = -1;
    if (actual->space == LG_SPACE_DEVICE)
        return lg_gpu_compare(actual->p, expected->p, (int)t, count, rtol, atol, equal_nan ? 1 : 0,
                              first);
    /* Typed loops for the float types every timed pair compares (millions of elements). */
    if (t == LG_F32) {
        const float *a = actual->p, *e = expected->p;
        for (size_t i = 0; i < count; i++)
            if (a[i] != e[i] && !close_enough(a[i], e[i], rtol, atol, equal_nan) && bad++ == 0)
                *first = (long long)i;
        return bad;
    }
    if (t == LG_F64) {
        const double *a = actual->p, *e = expected->p;
        for (size_t i = 0; i < count; i++)
            if (a[i] != e[i] && !close_enough(a[i], e[i], rtol, atol, equal_nan) && bad++ == 0)
                *first = (long long)i;
        return bad;
    }
    for (size_t i = 0; i < count; i++) {
        double a = lg_dtype_load(t, actual->p, i), e = lg_dtype_load(t, expected->p, i);
        if (close_enough(a, e, rtol, atol, equal_nan))
            continue;
        if (bad++ == 0)
            *first = (long long)i;
    }
    return bad;
}

#include "buffers.h"

#include "digest.h"
#include "draw.h"
#include "fill.h"
#include "harness.h"
#include "par.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* Host buffers of at least a huge page start on one, with the same advice: whether the kernel
 * backs a buffer with 2 MiB pages otherwise depends on where malloc's mapping happened to start,
 * so the function's output and the reference's could differ in pages (and in copy speed, for a
 * GPU function with host pointers) from one run to the next, and so would the speedup. */
#define HUGE_PAGE ((size_t)2 << 20)
#define PAGE ((size_t)4096)
/* A timed pair's outputs (fence.h) from this size on also start on a huge page: a fence changes
 * a mapping's page table, 4 KiB page by 4 KiB page otherwise (45 us for 1 MiB on the
 * development machine, as long as a call of a memory-bound function on it; 3 us on a huge
 * page). */
#define FENCE_HUGE_FROM ((size_t)64 << 10)

/* Every host buffer is a mapping of its own, whole pages: page-aligned, as pinned and device
 * memory are, so that the function's buffers and the reference's sit alike in the caches and
 * pages run after run; and one that lg_buf_fence can take out of reach without touching
 * anything else of the process (a malloc'd buffer shares its pages with the heap). */
static int host_alloc(struct lg_buf *b, size_t total, bool fenceable)
{
    bool huge = total >= (fenceable ? FENCE_HUGE_FROM : HUGE_PAGE);
    size_t align = huge ? HUGE_PAGE : PAGE;
    size_t keep = (total + align - 1) / align * align, len = keep + (huge ? HUGE_PAGE : 0);
    unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    size_t lead = (align - (uintptr_t)m % align) % align;
    if (lead)
        munmap(m, lead);
    if (len - lead > keep)
        munmap(m + lead + keep, len - lead - keep);
    /* Only advice: where transparent huge pages are off, it changes nothing. */
    if (huge)
        madvise(m + lead, keep, MADV_HUGEPAGE);
    b->base = m + lead;
    b->mapped = keep;
    return 0;
}

/* The guards' canaries (fill.h): a key drawn from getrandom the first time a guard is made
 * (so, per process: per run), and a serial number per guarded buffer. File-local, never a
 * symbol a submission could link against; what code that searches the process's memory for
 * it gains is in docs/threat-model.md (nothing a read of the guard itself does not give). */
static struct {
    uint64_t key;
    bool keyed;
    uint64_t made;
} canary;

static int buf_alloc(struct lg_buf *b, size_t bytes, int space, bool guarded, bool fenceable,
                     char *err, size_t errsize)
{
    size_t guard = guarded ? LG_GUARD_BYTES : 0, total = bytes + 2 * guard;
    memset(b, 0, sizeof(*b));
    if (total == 0)
        total = 1;
    if (space == LG_SPACE_HOST) {
        if (host_alloc(b, total, fenceable) != 0) {
            snprintf(err, errsize, "cannot allocate %zu bytes of host memory", total);
            return -1;
        }
    } else {
        b->base = fenceable && space == LG_SPACE_DEVICE
                      ? lg_gpu_alloc_fenceable(total, err, errsize)
                      : lg_gpu_alloc(total, space, err, errsize);
        if (!b->base)
            return -1;
        b->mapped = total;
    }
    b->p = b->base + guard;
    b->bytes = bytes;
    b->guard = guard;
    b->space = space;
    b->serial = guard ? canary.made++ : 0;
    return lg_buf_guard_reset(b) == 0 ? 0 : (snprintf(err, errsize, "cannot set guards"), -1);
}

int lg_buf_alloc(struct lg_buf *b, size_t bytes, int space, bool guarded, char *err, size_t errsize)
{
    return buf_alloc(b, bytes, space, guarded, false, err, errsize);
}

int lg_buf_alloc_fenceable(struct lg_buf *b, size_t bytes, int space, bool guarded, char *err,
                           size_t errsize)
{
    return buf_alloc(b, bytes, space, guarded, true, err, errsize);
}

int lg_buf_fence(struct lg_buf *b, bool on)
{
    if (!b->base)
        return 1;
    if (b->space == LG_SPACE_DEVICE)
        return lg_gpu_fence(b->base, on ? 1 : 0);
    /* Pinned memory is the driver's mapping: left as it is. */
    if (b->space != LG_SPACE_HOST)
        return 1;
    return mprotect(b->base, b->mapped, on ? PROT_NONE : PROT_READ | PROT_WRITE) == 0 ? 0 : -1;
}

bool lg_buf_holds(const struct lg_buf *b, const void *addr)
{
    const unsigned char *a = addr;
    return b->base && a >= b->base && a < b->base + b->mapped;
}

void lg_buf_free(struct lg_buf *b)
{
    if (!b->base)
        return;
    if (b->space == LG_SPACE_HOST)
        munmap(b->base, b->mapped);
    else
        lg_gpu_free(b->base, b->space);
    memset(b, 0, sizeof(*b));
}

/* The canary of one guard: the key, the buffer's serial number and its side, mixed. */
static uint64_t guard_key(const struct lg_buf *b, int side)
{
    if (!canary.keyed) {
        /* Drawn here, after the submission's constructors ran, and never written anywhere. */
        if (getrandom(&canary.key, sizeof(canary.key), 0) != (ssize_t)sizeof(canary.key)) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            canary.key = lg_draw_mix((uint64_t)ts.tv_nsec ^ (uint64_t)ts.tv_sec << 30 ^
                                     (uint64_t)getpid() << 48 ^ (uintptr_t)&ts);
        }
        canary.keyed = true;
    }
    return lg_draw_mix(canary.key ^ lg_draw_mix(2 * b->serial + (uint64_t)side + 1));
}

/* Where each guard starts. */
static unsigned char *guard_at(const struct lg_buf *b, int side)
{
    return side == 0 ? b->base : b->base + b->guard + b->bytes;
}

int lg_buf_guard_reset(struct lg_buf *b)
{
    static unsigned char scratch[LG_GUARD_BYTES];
    char err[256];
    if (!b->guard)
        return 0;
    for (int side = 0; side < 2; side++) {
        if (b->space != LG_SPACE_DEVICE) {
            lg_canary_fill(guard_at(b, side), b->guard, guard_key(b, side));
            continue;
        }
        lg_canary_fill(scratch, b->guard, guard_key(b, side));
        if (lg_gpu_copy(guard_at(b, side), scratch, b->guard, 1, err, sizeof(err)) != 0)
            return -1;
    }
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
    const unsigned char *pre = guard_bytes(b, guard_at(b, 0), scratch[0]);
    const unsigned char *post = guard_bytes(b, guard_at(b, 1), scratch[1]);
    if (!pre || !post)
        return -1;
    long long first_before, first_after;
    /* Before the data the byte nearest to it is the likeliest hit: report from there. */
    d->before = lg_canary_diff(pre, b->guard, guard_key(b, 0), true, &first_before);
    d->after = lg_canary_diff(post, b->guard, guard_key(b, 1), false, &first_after);
    if (d->before)
        d->first = first_before - (long long)b->guard;
    else if (d->after)
        d->first = (long long)b->bytes + first_after;
    return d->before || d->after ? 1 : 0;
}

int lg_buf_draw(struct lg_buf *b, enum lg_dtype t, size_t count, int dist, double p1, double p2,
                uint64_t seed, uint64_t *digest)
{
    if (b->space == LG_SPACE_DEVICE) {
        if (lg_gpu_draw(b->p, (int)t, count, dist, p1, p2, seed) != 0)
            return -1;
        if (digest)
            *digest = lg_gpu_digest(b->p, b->bytes);
        return 0;
    }
    uint64_t drawn = lg_host_fill_digest(t, b->p, count, dist, p1, p2, seed, digest != NULL);
    /* The draw digests the elements it writes; bytes past them (a buffer longer than count
     * elements) are the buffer's own. */
    if (digest)
        *digest = count * lg_dtype_size(t) == b->bytes ? drawn : lg_buf_digest(b);
    return 0;
}

/* Parts of the buffer on several CPUs (digest.h: the sum does not depend on the split). */
#define DIGEST_MIN_WORDS (1u << 18)

struct digest_job {
    const unsigned char *p;
    uint64_t part[LG_PAR_MAX_PARTS];
};

static void digest_part(void *ctx, size_t lo, size_t hi, size_t part)
{
    struct digest_job *j = ctx;
    j->part[part] = lg_digest_words(j->p, lo, hi);
}

uint64_t lg_buf_digest(const struct lg_buf *b)
{
    if (b->space == LG_SPACE_DEVICE)
        return lg_gpu_digest(b->p, b->bytes);
    struct digest_job j = {.p = b->p};
    size_t words = b->bytes / 8, n_parts = lg_par_parts(words, DIGEST_MIN_WORDS);
    lg_par_for(words, n_parts, digest_part, &j);
    uint64_t h = lg_digest_tail(j.p, b->bytes);
    for (size_t k = 0; k < n_parts; k++)
        h += j.part[k];
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

#define COMPARE_MIN_PER_PART (1u << 18)

struct compare_job {
    const void *a, *e;
    enum lg_dtype t;
    double rtol, atol;
    bool equal_nan;
    long long bad[LG_PAR_MAX_PARTS], first[LG_PAR_MAX_PARTS];
};

/* One part's mismatches, and its first. Typed loops for the float types every timed pair
 * compares (millions of elements). */
static void compare_part(void *ctx, size_t lo, size_t hi, size_t part)
{
    struct compare_job *j = ctx;
    long long bad = 0, first = -1;
    if (j->t == LG_F32) {
        const float *a = j->a, *e = j->e;
        for (size_t i = lo; i < hi; i++)
            if (a[i] != e[i] && !close_enough(a[i], e[i], j->rtol, j->atol, j->equal_nan) &&
                bad++ == 0)
                first = (long long)i;
    } else if (j->t == LG_F64) {
        const double *a = j->a, *e = j->e;
        for (size_t i = lo; i < hi; i++)
            if (a[i] != e[i] && !close_enough(a[i], e[i], j->rtol, j->atol, j->equal_nan) &&
                bad++ == 0)
                first = (long long)i;
    } else {
        for (size_t i = lo; i < hi; i++) {
            double a = lg_dtype_load(j->t, j->a, i), e = lg_dtype_load(j->t, j->e, i);
            if (!close_enough(a, e, j->rtol, j->atol, j->equal_nan) && bad++ == 0)
                first = (long long)i;
        }
    }
    j->bad[part] = bad;
    j->first[part] = first;
}

long long lg_buf_compare(const struct lg_buf *actual, const struct lg_buf *expected,
                         enum lg_dtype t, size_t count, double rtol, double atol, bool equal_nan,
                         long long *first)
{
    *first = -1;
    if (actual->space == LG_SPACE_DEVICE)
        return lg_gpu_compare(actual->p, expected->p, (int)t, count, rtol, atol, equal_nan ? 1 : 0,
                              first);
    struct compare_job j = {actual->p, expected->p, t, rtol, atol, equal_nan, {0}, {0}};
    size_t n_parts = lg_par_parts(count, COMPARE_MIN_PER_PART);
    lg_par_for(count, n_parts, compare_part, &j);
    long long bad = 0;
    for (size_t k = 0; k < n_parts; k++) {
        if (*first < 0 && j.first[k] >= 0)
            *first = j.first[k];
        bad += j.bad[k];
    }
    return bad;
}

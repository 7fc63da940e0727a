/* fill: the counter-based draw on the host, in parallel (fill.h). */
#include "fill.h"

#include "digest.h"
#include "draw.h"
#include "par.h"

#include <stdbool.h>
#include <string.h>

/* Below this many elements per part, starting threads costs more than it saves. */
#define MIN_PER_PART (1u << 18)

struct chunk {
    enum lg_dtype t;
    void *p;
    size_t lo, hi;
    int dist;
    double p1, p2;
    uint64_t seed;
};

/* Uniform floats, what nearly every lab draws, in a loop of their own: with dist unknown in
 * the loop the switch in lg_draw_value is taken per element (three times slower). The values
 * are lg_draw_value's to the bit. */
static bool fill_uniform(const struct chunk *c)
{
    const uint64_t seed = c->seed;
    const double p1 = c->p1, w = c->p2 - c->p1;
    const size_t lo = c->lo, hi = c->hi;
    if (c->dist != 0 || (c->t != LG_F64 && c->t != LG_F32))
        return false;
    if (c->t == LG_F64) {
        double *p = c->p;
        for (size_t i = lo; i < hi; i++)
            p[i] = p1 + w * lg_draw_unit(seed, i);
    } else {
        float *p = c->p;
        for (size_t i = lo; i < hi; i++)
            p[i] = (float)(p1 + w * lg_draw_unit(seed, i));
    }
    return true;
}

/* The chunk's fields in locals: a store through a double * could otherwise alias p1 and p2. */
static void fill_range(const struct chunk *c)
{
    if (fill_uniform(c))
        return;
    const uint64_t seed = c->seed;
    const int dist = c->dist, integer = !lg_dtype_is_float(c->t);
    const double p1 = c->p1, p2 = c->p2;
    const size_t lo = c->lo, hi = c->hi;
    switch (c->t) {
    case LG_F64: {
        double *p = c->p;
        for (size_t i = lo; i < hi; i++)
            p[i] = lg_draw_value(seed, i, dist, p1, p2, 0);
        break;
    }
    case LG_F32: {
        float *p = c->p;
        for (size_t i = lo; i < hi; i++)
            p[i] = (float)lg_draw_value(seed, i, dist, p1, p2, 0);
        break;
    }
    default:
        for (size_t i = lo; i < hi; i++)
            lg_dtype_store(c->t, c->p, i, lg_draw_value(seed, i, dist, p1, p2, integer));
        break;
    }
}

/* A pass fills this many words, then digests them while they are in the L1 cache. */
#define DIGEST_BLOCK_WORDS 512

struct fill_job {
    struct chunk c;
    size_t per_word; /* elements in a word: 8 / the element's size */
    bool digest;
    uint64_t part[LG_PAR_MAX_PARTS];
};

/* Parts are whole words, so that each word's digest is taken by the part that wrote it. */
static void fill_part(void *ctx, size_t lo, size_t hi, size_t part)
{
    struct fill_job *j = ctx;
    struct chunk c = j->c;
    uint64_t h = 0;
    for (size_t w = lo; w < hi; w += DIGEST_BLOCK_WORDS) {
        size_t end = hi - w < DIGEST_BLOCK_WORDS ? hi : w + DIGEST_BLOCK_WORDS;
        c.lo = w * j->per_word;
        c.hi = end * j->per_word;
        fill_range(&c);
        if (j->digest)
            h += lg_digest_words(c.p, w, end);
    }
    j->part[part] = h;
}

uint64_t lg_host_fill_digest(enum lg_dtype t, void *p, size_t count, int dist, double p1, double p2,
                             uint64_t seed, bool digest)
{
    /* Every dtype's size divides a word (base/dtype.h). */
    size_t size = lg_dtype_size(t), per_word = size ? 8 / size : 1;
    struct fill_job j = {
        .c = {t, p, 0, count, dist, p1, p2, seed}, .per_word = per_word, .digest = digest};
    size_t words = count / per_word, n_parts = lg_par_parts(words, MIN_PER_PART / per_word);
    lg_par_for(words, n_parts, fill_part, &j);
    /* The elements past the last whole word. */
    struct chunk tail = {t, p, words * per_word, count, dist, p1, p2, seed};
    fill_range(&tail);
    if (!digest)
        return 0;
    uint64_t h = lg_digest_tail(p, count * size);
    for (size_t k = 0; k < n_parts; k++)
        h += j.part[k];
    return h;
}

void lg_host_fill(enum lg_dtype t, void *p, size_t count, int dist, double p1, double p2,
                  uint64_t seed)
{
    lg_host_fill_digest(t, p, count, dist, p1, p2, seed, false);
}

/* Word i of a canary: the draw's mix, with every zero byte made 0x01 (the usual test for a
 * zero byte, exact here: the low seven bits added to 0x7f carry into the eighth unless they
 * are all zero). */
static uint64_t canary_word(uint64_t key, size_t i)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    uint64_t v = lg_draw_mix(key + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull);
    uint64_t zero = ~(((v & low7) + low7) | v | low7);
    return v | zero >> 7;
}

void lg_canary_fill(unsigned char *p, size_t bytes, uint64_t key)
{
    size_t i = 0;
    for (; 8 * i + 8 <= bytes; i++) {
        uint64_t w = canary_word(key, i);
        memcpy(p + 8 * i, &w, 8);
    }
    if (8 * i < bytes) {
        uint64_t w = canary_word(key, i);
        memcpy(p + 8 * i, &w, bytes - 8 * i);
    }
}

/* Bytes of word w (of which the first len are the canary's) that differ from want. */
static size_t word_diff(uint64_t w, uint64_t want, size_t len, size_t at, bool from_end,
                        long long *first)
{
    unsigned char a[8], b[8];
    size_t n = 0;
    memcpy(a, &w, 8);
    memcpy(b, &want, 8);
    for (size_t k = 0; k < len; k++)
        if (a[k] != b[k]) {
            n++;
            if (*first < 0 || from_end)
                *first = (long long)(at + k);
        }
    return n;
}

size_t lg_canary_diff(const unsigned char *p, size_t bytes, uint64_t key, bool from_end,
                      long long *first)
{
    size_t n = 0;
    *first = -1;
    for (size_t i = 0; 8 * i < bytes; i++) {
        size_t len = bytes - 8 * i < 8 ? bytes - 8 * i : 8;
        uint64_t w = 0, want = canary_word(key, i);
        memcpy(&w, p + 8 * i, len);
        if (len < 8 || w != want)
            n += word_diff(w, want, len, 8 * i, from_end, first);
    }
    return n;
}

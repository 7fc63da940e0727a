/* fill: the counter-based draw on the host, in parallel (fill.h). */
#include "fill.h"

#include "digest.h"
#include "draw.h"
#include "par.h"

#include <stdbool.h>

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

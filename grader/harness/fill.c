/* fill: the counter-based draw on the host, in parallel (fill.h). */
#include "fill.h"

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

static void fill_part(void *ctx, size_t lo, size_t hi, size_t part)
{
    (void)part;
    struct chunk c = *(const struct chunk *)ctx;
    c.lo = lo;
    c.hi = hi;
    fill_range(&c);
}

void lg_host_fill(enum lg_dtype t, void *p, size_t count, int dist, double p1, double p2,
                  uint64_t seed)
{
    struct chunk all = {t, p, 0, count, dist, p1, p2, seed};
    lg_par_for(count, lg_par_parts(count, MIN_PER_PART), fill_part, &all);
}

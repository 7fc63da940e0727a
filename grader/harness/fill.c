/* fill: the counter-based draw on the host, in parallel (fill.h). */
#include "fill.h"

#include "draw.h"
#include "par.h"

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

static void fill_range(const struct chunk *c)
{
    int integer = !lg_dtype_is_float(c->t);
    switch (c->t) {
    case LG_F64:
        for (size_t i = c->lo; i < c->hi; i++)
            ((double *)c->p)[i] = lg_draw_value(c->seed, i, c->dist, c->p1, c->p2, 0);
        break;
    case LG_F32:
        for (size_t i = c->lo; i < c->hi; i++)
            ((float *)c->p)[i] = (float)lg_draw_value(c->seed, i, c->dist, c->p1, c->p2, 0);
        break;
    default:
        for (size_t i = c->lo; i < c->hi; i++)
            lg_dtype_store(c->t, c->p, i,
                           lg_draw_value(c->seed, i, c->dist, c->p1, c->p2, integer));
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

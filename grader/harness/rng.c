#include "rng.h"

#include <math.h>

uint64_t lg_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void lg_rng_seed(struct lg_rng *r, uint64_t seed)
{
    uint64_t st = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = lg_splitmix64(&st);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t lg_rng_next(struct lg_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double lg_rng_uniform(struct lg_rng *r)
{
    return (double)(lg_rng_next(r) >> 11) * 0x1.0p-53;
}

double lg_rng_normal(struct lg_rng *r, double *spare, int *has_spare)
{
    if (*has_spare) {
        *has_spare = 0;
        return *spare;
    }
    double u1, u2;
    do
        u1 = lg_rng_uniform(r);
    while (u1 <= 0.0);
    u2 = lg_rng_uniform(r);
    double mag = sqrt(-2.0 * log(u1));
    *spare = mag * sin(2.0 * M_PI * u2);
    *has_spare = 1;
    return mag * cos(2.0 * M_PI * u2);
}

void lg_fill(enum lg_dtype t, void *buf, size_t n, enum lg_init_dist dist, double p1, double p2,
             uint64_t seed)
{
    struct lg_rng r;
    double spare = 0;
    int has_spare = 0;
    bool is_int = !lg_dtype_is_float(t);
    lg_rng_seed(&r, seed);
    for (size_t i = 0; i < n; i++) {
        double v;
        switch (dist) {
        case LG_INIT_NORMAL:
            v = p1 + p2 * lg_rng_normal(&r, &spare, &has_spare);
            break;
        case LG_INIT_ARANGE:
            v = p1 + (double)i * p2;
            break;
        case LG_INIT_CONSTANT:
            v = p1;
            break;
        case LG_INIT_INTEGERS:
            v = floor(p1 + (p2 - p1 + 1.0) * lg_rng_uniform(&r));
            break;
        case LG_INIT_UNIFORM:
        default:
            if (is_int)
                v = floor(p1 + (p2 - p1 + 1.0) * lg_rng_uniform(&r));
            else
                v = p1 + (p2 - p1) * lg_rng_uniform(&r);
            break;
        }
        lg_dtype_store(t, buf, i, v);
    }
}

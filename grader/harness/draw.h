/*
 * draw: every input the harness makes, a value per (seed, index) with no state, so the host
 * (fill.h, across its CPUs) and the GPU draw the same distribution in parallel: the checked
 * calls from the case's seeds (as the oracle drew them for the expected outputs), and every
 * timed pair inputs never seen before at the cost of one write pass (timing.c).
 * Header-only, for C and CUDA alike.
 */
#ifndef LG_HARNESS_DRAW_H
#define LG_HARNESS_DRAW_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define LG_DRAW_FN __host__ __device__ static inline
#else
#define LG_DRAW_FN static inline
#endif

/* splitmix64's finalizer: a bijection that mixes every input bit into every output bit. */
LG_DRAW_FN uint64_t lg_draw_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, 1) with 53 random bits. */
LG_DRAW_FN double lg_draw_unit(uint64_t seed, uint64_t i)
{
    return (double)(lg_draw_mix(seed + (i + 1) * 0x9e3779b97f4a7c15ull) >> 11) * 0x1.0p-53;
}

/* dist as job.h's enum lg_dist: uniform, normal, arange, constant, integers. */
LG_DRAW_FN double lg_draw_value(uint64_t seed, uint64_t i, int dist, double p1, double p2,
                                int integer_dtype)
{
    switch (dist) {
    case 1: { /* normal: Box-Muller, one value per index */
        double u1 = lg_draw_unit(seed, 2 * i), u2 = lg_draw_unit(seed, 2 * i + 1);
        if (u1 <= 0)
            u1 = 0x1.0p-53;
        return p1 + p2 * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
    }
    case 2:
        return p1 + (double)i * p2;
    case 3:
        return p1;
    case 4:
        return floor(p1 + (p2 - p1 + 1.0) * lg_draw_unit(seed, i));
    default:
        if (integer_dtype)
            return floor(p1 + (p2 - p1 + 1.0) * lg_draw_unit(seed, i));
        return p1 + (p2 - p1) * lg_draw_unit(seed, i);
    }
}

#endif

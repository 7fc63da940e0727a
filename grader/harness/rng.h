/*
 * rng: deterministic input generation shared by every run of a case.
 *
 * xoshiro256** seeded through splitmix64: the same (seed, argument) gives the same
 * bits on every machine, so the student's and the reference's processes see
 * identical inputs without the inputs ever being written to disk.
 */
#ifndef LG_RNG_H
#define LG_RNG_H

#include "base/dtype.h"

#include <stddef.h>
#include <stdint.h>

struct lg_rng {
    uint64_t s[4];
};

void lg_rng_seed(struct lg_rng *r, uint64_t seed);
uint64_t lg_rng_next(struct lg_rng *r);
/* Uniform in [0, 1) with 53 random bits. */
double lg_rng_uniform(struct lg_rng *r);
/* Standard normal (Box-Muller, both values used in turn). */
double lg_rng_normal(struct lg_rng *r, double *spare, int *has_spare);
uint64_t lg_splitmix64(uint64_t *state);

/* The order of spec/spec.h's enum dist (and job.h's enum lg_dist). */
enum lg_init_dist {
    LG_INIT_UNIFORM,
    LG_INIT_NORMAL,
    LG_INIT_ARANGE,
    LG_INIT_CONSTANT,
    LG_INIT_INTEGERS
};

/* Fill n elements of type t. p1/p2: uniform low/high, normal mean/std, arange start/step,
 * constant value/unused, integers low/high. Integer uniform draws, and integers in any dtype,
 * are whole numbers in [low, high]. */
void lg_fill(enum lg_dtype t, void *buf, size_t n, enum lg_init_dist dist, double p1, double p2,
             uint64_t seed);

#endif

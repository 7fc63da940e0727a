/*
 * fill: host buffers of inputs from the counter-based draw (draw.h), split across the CPUs
 * this process may use. Each element is a function of (seed, index) alone, so the values do
 * not depend on the split, match what the GPU draws (lg_gpu_draw), and a 49M-element input
 * costs milliseconds rather than seconds. Used for the checked calls' inputs (the oracle draws
 * the same) and the timed pairs' fresh ones, always between timed calls, never during one.
 */
#ifndef LG_HARNESS_FILL_H
#define LG_HARNESS_FILL_H

#include "base/dtype.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* count elements of type t at p; dist as job.h's enum lg_dist with its p1, p2. */
void lg_host_fill(enum lg_dtype t, void *p, size_t count, int dist, double p1, double p2,
                  uint64_t seed);
/* The same, and with digest the digest of the count elements' bytes as written (digest.h),
 * taken in the same pass; 0 without. */
uint64_t lg_host_fill_digest(enum lg_dtype t, void *p, size_t count, int dist, double p1, double p2,
                             uint64_t seed, bool digest);

/* A guard zone's canary (buffers.h): bytes of the draw's mix of (key, index), none of them
 * zero, so that a zero written over one is always seen. Another key gives other bytes, so a
 * canary copied from another buffer's guard (or from elsewhere in this one) does not match. */
void lg_canary_fill(unsigned char *p, size_t bytes, uint64_t key);
/* How many of the bytes at p differ from lg_canary_fill(key)'s; the first that does (the
 * lowest offset, or with from_end the highest) in *first, -1 when none. */
size_t lg_canary_diff(const unsigned char *p, size_t bytes, uint64_t key, bool from_end,
                      long long *first);

#endif

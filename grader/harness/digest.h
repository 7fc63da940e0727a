/*
 * digest: a 64-bit digest of a host buffer's bytes, to tell whether a call changed its inputs.
 *
 * A sum of one independent term per 8-byte word (and per byte of a tail shorter than a word),
 * each made of the word and its index: the sum does not depend on how the buffer is split
 * into parts, so the draw can digest what it writes in the same pass (fill.h) and a later
 * digest of the buffer (buffers.h) must come to the same value unless a byte changed or two
 * words traded places. One pass over data the draw has in its caches costs arithmetic only;
 * reading the inputs again between the draw and a timed call moved the call's time
 * (docs/timing.md, "Between the calls of a pair"). Not a defence against a function that
 * forges the digest on purpose: docs/threat-model.md.
 */
#ifndef LG_HARNESS_DIGEST_H
#define LG_HARNESS_DIGEST_H

#include "draw.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define LG_DIGEST_WORD_KEY 0x9e3779b97f4a7c15ull
#define LG_DIGEST_WORD_MUL 0xbf58476d1ce4e5b9ull
#define LG_DIGEST_TAIL_KEY 0xd1b54a32d192ed03ull

/* Words [lo, hi) of p: the sum of (word ^ its index's key) times an odd constant, a bijection
 * of each word, so that any one changed word changes the sum. One multiply a word (a full mix
 * cost 2.5 times as much, 1.3 ns a word, which the draw then paid on every pair); two sums,
 * so that consecutive words do not wait on one add. */
static inline uint64_t lg_digest_words(const unsigned char *p, size_t lo, size_t hi)
{
    uint64_t h0 = 0, h1 = 0, key = LG_DIGEST_WORD_KEY * ((uint64_t)lo + 1);
    size_t i = lo;
    for (; i + 2 <= hi; i += 2) {
        uint64_t w0, w1;
        memcpy(&w0, p + 8 * i, 8);
        memcpy(&w1, p + 8 * i + 8, 8);
        h0 += (w0 ^ key) * LG_DIGEST_WORD_MUL;
        key += LG_DIGEST_WORD_KEY;
        h1 += (w1 ^ key) * LG_DIGEST_WORD_MUL;
        key += LG_DIGEST_WORD_KEY;
    }
    if (i < hi) {
        uint64_t w;
        memcpy(&w, p + 8 * i, 8);
        h0 += (w ^ key) * LG_DIGEST_WORD_MUL;
    }
    return h0 + h1;
}

/* The bytes past the last whole word of a buffer of `bytes` bytes. */
static inline uint64_t lg_digest_tail(const unsigned char *p, size_t bytes)
{
    uint64_t h = 0;
    for (size_t i = bytes / 8 * 8; i < bytes; i++)
        h += lg_draw_mix(((uint64_t)p[i] << 8 | 1) ^ (LG_DIGEST_TAIL_KEY * ((uint64_t)i + 1)));
    return h;
}

#endif

/*
 * match: the code two normalized token streams share.
 *
 *   runs    every k-gram the two have in common (a seed) grown both ways as far as the
 *           tokens agree: a maximal stretch of equal tokens on one diagonal;
 *   tiles   the runs laid down longest first, each cut to its longest stretch not taken yet,
 *           and kept from k tokens on (greedy string tiling, as in JPlag). Symmetric tiling
 *           takes a token at most once on each side; one-sided tiling only on one side, so
 *           that code repeated in one stream (a function inlined twice) all counts as held
 *           by the other;
 *   chains  tiles that follow one another on both sides, each starting within `gap` tokens
 *           after the previous ends, are one chain (JPlag 6's match merging: a statement
 *           inserted between two fragments does not cut them into pieces too short to
 *           count). A chain counts from min_match matched tokens on: that is what keeps a
 *           `for (int i = 0; i < n; i++)` two students wrote alike from counting.
 *
 * Runs may cross from one file into the next: the streams hold the lab's files in the lab's
 * order, the same for every submission. Callers split chains where they show them
 * (similarity.h).
 *
 * struct match_result owns its arrays.
 */
#ifndef LG_MATCH_H
#define LG_MATCH_H

#include "analyze/fingerprint.h"

#include <stddef.h>
#include <stdint.h>

/* A tile: len tokens from a in stream a and from b in stream b. */
struct match_frag {
    uint32_t a, b;
    uint32_t len;
};

/* A chain: tiles frags[first .. first + n), in order on both sides. */
struct match_chain {
    uint32_t first, n;
    uint32_t tokens; /* matched: the tiles' lengths */
};

struct match_result {
    struct match_frag *frags; /* the tiles of the chains that count */
    size_t n, alloc;
    struct match_chain *chains; /* most tokens first */
    size_t n_chains, alloc_chains;
    size_t covered_a, covered_b; /* tokens of each stream in those tiles */
};

struct match_params {
    int k;         /* seeds: k-grams of k tokens (fp_build's) */
    int min_match; /* a chain counts from this many matched tokens */
    int gap;       /* tokens a chain bridges between two tiles, on each side */
};

/* Tokens of one stream inside code the other also has (one-sided tiling, chains that count):
 * what "a in b" measures. */
struct match_held {
    size_t a, b;
};

void match_result_init(struct match_result *m);
void match_result_release(struct match_result *m);

/* The chains a and b share (symmetric tiling) into out; with held, how many tokens of each
 * lie in code the other has (one-sided tiling). */
void match_pair(const struct norm_stream *a, const struct fp_set *fa, const struct norm_stream *b,
                const struct fp_set *fb, const struct match_params *p, struct match_result *out,
                struct match_held *held);

/* Tokens of s that can match: those not flagged NORM_SKELETON. */
size_t match_countable(const struct norm_stream *s);

#endif

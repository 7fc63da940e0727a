/*
 * match: the fragments two normalized token streams share, found from the k-grams they have
 * in common (seeds), each grown as far as the tokens agree on both sides, then tiled
 * greedily, longest first, so that no token counts in two fragments (as greedy string
 * tiling does in JPlag). Fragments shorter than min_match tokens are dropped: that is what
 * keeps a `for (int i = 0; i < n; i++)` two students wrote alike from counting.
 *
 * Seeds whose hash is in `common` (k-grams found in too many submissions of the class) are
 * not used, and no fragment crosses a skeleton token or a change of file.
 *
 * struct match_result owns its array.
 */
#ifndef LG_MATCH_H
#define LG_MATCH_H

#include "analyze/fingerprint.h"

#include <stddef.h>
#include <stdint.h>

struct match_frag {
    uint32_t a, b; /* first token in each stream */
    uint32_t len;  /* tokens */
};

struct match_result {
    struct match_frag *frags; /* longest first */
    size_t n, alloc;
    size_t covered_a, covered_b; /* tokens of each stream inside some fragment */
};

struct match_params {
    int k;
    int min_match;
    const uint64_t *common; /* sorted; may be NULL */
    size_t n_common;
};

void match_result_init(struct match_result *m);
void match_result_release(struct match_result *m);
void match_pair(const struct norm_stream *a, const struct fp_set *fa, const struct norm_stream *b,
                const struct fp_set *fb, const struct match_params *p, struct match_result *out);

/* Tokens of s that can match: those not flagged NORM_SKELETON. */
size_t match_countable(const struct norm_stream *s);

#endif

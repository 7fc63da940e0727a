/*
 * match: the fragments two normalized token streams share, found from the k-grams they have
 * in common (seeds), each grown as far as the tokens agree on both sides, then tiled
 * greedily, longest first, so that no token counts in two fragments (as greedy string
 * tiling does in JPlag). Fragments shorter than min_match tokens are dropped: that is what
 * keeps a `for (int i = 0; i < n; i++)` two students wrote alike from counting.
 *
 * K-grams that are common in the class (fp_mark_common: found in too many submissions) are
 * no evidence for the pair: a fragment made only of them is not one of match_pair()'s.
 * match_pair_all() tiles twice from one set of runs: once as match_pair() does, and once
 * with every run, common ones included (all the code the two share, which the groups of
 * simgroup.h are made of). No fragment crosses a handed-out token or a change of file.
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
};

void match_result_init(struct match_result *m);
void match_result_release(struct match_result *m);
/* The fragments a and b share, runs of common k-grams only left out (fa's marks say which
 * are common; none when it has none). */
void match_pair(const struct norm_stream *a, const struct fp_set *fa, const struct norm_stream *b,
                const struct fp_set *fb, const struct match_params *p, struct match_result *out);
/* rare: as match_pair's out; all: every shared run. Either may be NULL. */
void match_pair_all(const struct norm_stream *a, const struct fp_set *fa,
                    const struct norm_stream *b, const struct fp_set *fb,
                    const struct match_params *p, struct match_result *rare,
                    struct match_result *all);

/* Tokens of s that can match: those not flagged NORM_SKELETON. */
size_t match_countable(const struct norm_stream *s);

#endif

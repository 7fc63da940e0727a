/*
 * fingerprint: k-grams of a normalized token stream and their winnowing (Schleimer, Wilkerson
 * and Aiken, "Winnowing: local algorithms for document fingerprinting", SIGMOD 2003, the
 * method of MOSS and Dolos).
 *
 * A k-gram is k consecutive tokens of one file, none of them part of the skeleton; its hash
 * is a 64-bit polynomial hash of the symbols and of what was left out between them (the
 * tokens' gaps, normalize.h), so that equal k-grams are the same code on both sides. Winnowing
 * keeps, of every window of w consecutive k-grams, the one with the smallest hash (the rightmost of
 * equals): any run of w + k - 1 tokens that two streams share gives them a fingerprint in common,
 * while a stream keeps only about 2/(w+1) of its k-grams.
 *
 * struct fp_set owns its arrays.
 */
#ifndef LG_FINGERPRINT_H
#define LG_FINGERPRINT_H

#include "analyze/normalize.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kgram {
    uint64_t hash;
    uint32_t pos; /* index of its first token */
};

struct fp_set {
    struct kgram *all; /* every k-gram, sorted by hash, then position */
    size_t n_all;
    uint64_t *win; /* the winnowed fingerprints' hashes, sorted, each once */
    size_t n_win;
    uint64_t *at; /* the hash of the k-gram at each position, 0 for none (fp_kgram_hashes) */
    size_t n_at;
};

void fp_set_init(struct fp_set *f);
void fp_set_release(struct fp_set *f);

/* The hash of every k-gram start of s, n - k + 1 of them (none when n < k); 0 for a start
 * whose k tokens cross files or touch the skeleton. Caller frees. */
uint64_t *fp_kgram_hashes(const struct norm_stream *s, int k, size_t *n);

/* Sorted, duplicate-free hashes of every k-gram of s (for the skeleton). Caller frees. */
uint64_t *fp_hash_set(const struct norm_stream *s, int k, size_t *n);

/* Flag NORM_SKELETON on every token of s inside a k-gram whose hash is in skel (sorted, as
 * fp_hash_set gives it). Returns how many tokens were flagged. */
size_t fp_mark_skeleton(struct norm_stream *s, int k, const uint64_t *skel, size_t n_skel);

/* The k-grams and the winnowed fingerprints of s (after fp_mark_skeleton). */
void fp_build(struct fp_set *f, const struct norm_stream *s, int k, int w);

/* Set is_common[p] for every token p of f's stream inside a k-gram whose hash is in common
 * (sorted); returns how many it set. */
size_t fp_common_tokens(const struct fp_set *f, int k, const uint64_t *common, size_t n_common,
                        bool *is_common);

/* Whether h is in the sorted array set. */
bool fp_contains(const uint64_t *set, size_t n, uint64_t h);

#endif

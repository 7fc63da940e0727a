/*
 * similarity: which submissions of a class share more code than independent work would
 * (issue 23). Each submission's sources (the files the lab's variants name) are lexed
 * (tokens.h), normalized (normalize.h), stripped of what the lab's skeleton already holds,
 * fingerprinted (fingerprint.h) and compared with every other (match.h).
 *
 * For a pair (a, b):
 *   a_in_b      share of a's tokens (skeleton left out) inside fragments it shares with b
 *   b_in_a      the same the other way
 *   similarity  both together: shared tokens of both over the tokens of both
 * A fragment counts only from min_match tokens on; k-grams that more than max_common
 * submissions have are no evidence (every student writes them) and start no fragment.
 * docs/similarity.md says what the score means and what it does not prove.
 *
 * struct sim_result owns everything in it; sim_result_release() frees it.
 */
#ifndef LG_SIMILARITY_H
#define LG_SIMILARITY_H

#include "analyze/match.h"
#include "analyze/normalize.h"
#include "base/error.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sim_opts {
    const char *submissions; /* a folder of folders, or an LMS export zip */
    const char *roster;      /* NULL or a CSV (collect.h) */
    const char *work_dir;    /* scratch: the submissions are unpacked under it */
    double threshold;        /* pairs at or above this similarity are reported */
    int k;                   /* k-gram length, tokens */
    int window;              /* winnowing window, k-grams */
    int min_match;           /* shortest fragment that counts, tokens */
    int max_common;          /* k-grams in more submissions than this are no evidence;
                                0: the larger of 10 and a tenth of the class */
    FILE *progress;          /* a line per stage, or NULL */
};

struct sim_file {
    char *name;   /* as the lab names it ("grade2_gpu.cu") */
    char *source; /* the submission's text, NULL when it has no such file */
};

struct sim_sub {
    char *id, *name;
    struct sim_file *files; /* one per lab file, same order as sim_result.files */
    struct norm_stream toks;
    struct fp_set fp;
    size_t countable; /* tokens left once the skeleton and the boilerplate are out */
};

/* Where a fragment lies in one submission: file index and lines. */
struct sim_span {
    unsigned file, first_line, last_line;
};

struct sim_frag {
    struct sim_span a, b;
    unsigned tokens;
};

struct sim_pair {
    size_t a, b; /* indexes into subs, a < b */
    double similarity, a_in_b, b_in_a;
    struct sim_frag *frags; /* longest first */
    size_t n_frags;
};

struct sim_cluster {
    size_t *members; /* indexes into subs */
    size_t n;
    double min_similarity, max_similarity; /* over the reported pairs inside it */
};

struct sim_result {
    char **files; /* the lab's source files compared */
    size_t n_files;
    struct sim_sub *subs;
    size_t n_subs;
    struct sim_pair *pairs; /* every pair with a shared fragment, most similar first */
    size_t n_pairs;
    size_t n_reported; /* the first n_reported pairs are at or above the threshold */
    struct sim_cluster *clusters;
    size_t n_clusters;
    size_t skeleton_tokens; /* tokens of the skeleton's files, normalized */
    int max_common;         /* the value used */
    struct sim_opts opts;   /* as used (strings not owned) */
    char **warnings;        /* files that could not be read or lexed, collect's notes */
    size_t n_warnings;
};

void sim_opts_init(struct sim_opts *o); /* threshold 0.5, k 12, window 8, min_match 24 */
void sim_result_init(struct sim_result *r);
void sim_result_release(struct sim_result *r);

/* The lab's source files: every variant's student sources, each once, in spec order.
 * Caller frees the array and the strings. */
char **sim_lab_files(const struct lab *lab, size_t *n);

/* Compare every submission with every other. -1 with err set on bad input (no such
 * folder, an archive refused) or when libclang is missing. */
int sim_run(const struct lab *lab, const struct sim_opts *o, struct sim_result *r,
            struct error *err);

#endif

/*
 * similarity: which submissions of a class share more code than independent work would
 * (issues 23, 41 and 48). Each submission's sources (the files the lab's variants name) are
 * lexed (tokens.h), normalized and put in their canonical order (normalize.h, canon.h),
 * stripped of what the lab handed out (handout.h): its code (sim_sub.toks). Less every token
 * inside a k-gram that more than max_common submissions hold (every student writes it), it is
 * its own code (sim_sub.own). Both are fingerprinted (fingerprint.h) and compared with every
 * other submission's (match.h), and the code with the instructor's own (the solution and the
 * references).
 *
 * For a pair (a, b), on their own code:
 *   a_in_b      share of a's own code in chains of code b also has (match.h's held)
 *   b_in_a      the same the other way
 *   similarity  both together: the own code each holds of the other over all of their own
 *               code; identical submissions score 1
 * A chain counts only from min_match matched tokens on.
 *
 * Groups: more than max_common submissions holding the same code of at least group_tokens
 * tokens (simgroup.h) are one finding, however many they are: a solution that spread
 * through the class. Three or more submissions chained by reported pairs are a group too.
 * Solution matches: submissions holding at least solution_tokens tokens of the instructor's
 * code. docs/similarity.md says what they mean, how group_tokens was chosen, and what none of
 * it proves.
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
#include <stdint.h>
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
    int group_tokens;        /* code more than max_common share that makes a group, tokens;
                                0: SIM_GROUP_TOKENS */
    int solution_tokens;     /* the instructor's code a submission holds that is reported,
                                tokens; 0: SIM_SOLUTION_TOKENS */
    FILE *progress;          /* a line per stage, or NULL */
};

/* The defaults of group_tokens and solution_tokens, from the spreads measured on honest
 * classes (docs/similarity.md): no honest set of more than a tenth of a class shared more
 * than 112 tokens, no honest submission more than 35 of the solution's; copies of lab 6's
 * solution share 242 to 269. */
#define SIM_GROUP_TOKENS 160
#define SIM_SOLUTION_TOKENS 100

struct sim_file {
    char *name;   /* as the lab names it ("grade2_gpu.cu") */
    char *source; /* the submission's text, NULL when it has no such file */
};

struct sim_sub {
    char *id, *name;
    struct sim_file *files;  /* one per lab file, same order as sim_result.files (the
                                instructor's code: its own files, sim_result.sol_files) */
    struct norm_stream toks; /* its code, handed-out code and boilerplate left out */
    struct fp_set fp;
    size_t countable;       /* toks.n */
    struct norm_stream own; /* its own code: toks less what more than max_common hold */
    struct fp_set own_fp;
};

/* Where a fragment lies in one submission: file index and lines. */
struct sim_span {
    unsigned file, first_line, last_line;
};

/* A fragment as the pages show it: in one function (or declaration) on each side. */
struct sim_frag {
    struct sim_span a, b;
    unsigned tokens; /* matched tokens in it */
};

struct sim_pair {
    size_t a, b; /* indexes into subs, a < b */
    double similarity, a_in_b, b_in_a;
    unsigned own_a, own_b;   /* each one's own code, tokens */
    unsigned held_a, held_b; /* of it, the tokens the other holds too */
    struct sim_frag *frags;  /* the shared code shown, longest first */
    size_t n_frags;
};

enum sim_group_kind {
    SIM_GROUP_SHARED, /* more than max_common holding the same code */
    SIM_GROUP_PAIRS,  /* three or more chained by reported pairs */
};

struct sim_group {
    enum sim_group_kind kind;
    size_t *members; /* indexes into subs; the fragments are shown in members[0] and [1] */
    size_t n;
    unsigned shared_tokens; /* shared: the code they all hold (the core), tokens; pairs: 0 */
    unsigned longest;       /* the longest fragment shown, tokens */
    struct sim_frag *frags; /* that code in members[0] (a) and members[1] (b), longest first */
    size_t n_frags;
    double min_similarity, max_similarity; /* pairs: over the reported pairs inside it */
    bool matches_solution;                 /* most of that code is the instructor's */
};

/* A submission holding the instructor's code: frags' a in its files, b in sol_files. */
struct sim_solmatch {
    size_t sub;
    unsigned held;          /* tokens of its code in fragments of the instructor's */
    struct sim_frag *frags; /* longest first */
    size_t n_frags;
};

struct sim_result {
    char **files; /* the lab's source files compared */
    size_t n_files;
    struct sim_sub *subs;
    size_t n_subs;
    struct sim_pair *pairs; /* every pair with a shared fragment: the reported ones, then the
                               others, each part most similar first */
    size_t n_pairs;
    size_t n_reported; /* the first n_reported: at or above the threshold, and not both in one
                          group of shared code (which shows them already) */
    struct sim_group *groups; /* shared-code groups (largest first), then pairs' groups */
    size_t n_groups;
    struct sim_sub sol; /* the instructor's code (handout.h), as one more submission */
    size_t n_sol_files;
    bool solution_checked; /* some instructor's code was compared (none when it is public) */
    struct sim_solmatch *solmatches; /* most tokens first */
    size_t n_solmatches;
    size_t skeleton_tokens; /* tokens of the handed-out code, normalized */
    size_t n_handout;       /* handed-out sources it came from */
    int max_common;         /* the values used */
    int group_tokens, solution_tokens;
    struct sim_opts opts; /* as used (strings not owned) */
    char **warnings;      /* files that could not be read or lexed, collect's notes */
    size_t n_warnings;
};

void sim_opts_init(struct sim_opts *o); /* threshold 0.8, k 12, window 8, min_match 24 */
void sim_result_init(struct sim_result *r);
void sim_result_release(struct sim_result *r);

/* The lab's source files: every variant's student sources, each once, in spec order.
 * Caller frees the array and the strings. */
char **sim_lab_files(const struct lab *lab, size_t *n);

/* Compare every submission with every other and with the instructor's code. -1 with err set
 * on bad input (no such folder, an archive refused) or when libclang is missing. */
int sim_run(const struct lab *lab, const struct sim_opts *o, struct sim_result *r,
            struct error *err);

/* Where tokens [first, first + len) of s lie: their file and their first and last lines. */
struct sim_span sim_span_of(const struct norm_stream *s, uint32_t first, uint32_t len);
/* Chains as fragments to show (x: stream a, y: stream b): consecutive tiles of one chain
 * that lie in one top-level item on each side make one fragment, a tile that crosses into
 * another is cut there. Appended to *out (n, alloc). */
void sim_frags_of(const struct norm_stream *x, const struct norm_stream *y,
                  const struct match_frag *tiles, size_t n, struct sim_frag **out, size_t *n_out,
                  size_t *alloc);
int sim_frag_cmp(const void *x, const void *y); /* longest first, then by place */
int sim_pair_cmp(const void *x, const void *y); /* most similar first, then by index */
/* The name of file f of a span on side a (a submission: sim_result.files) or of the
 * instructor's code (sol true: sim_result.sol.files). */
const char *sim_file_name(const struct sim_result *r, unsigned f, bool sol);

#endif

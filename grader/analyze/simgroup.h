/*
 * simgroup: the findings of the similarity check beyond pairs (issues 41 and 48).
 *
 * Groups of shared code. K-grams that more than max_common submissions hold are no evidence
 * for a pair (similarity.h): every honest student writes a BLAS call or a grid-stride loop
 * alike. But a solution that leaked and spread through a large part of the class is common
 * code too, and the bigger the leak the less the pairs show. What tells the two apart is how
 * much code the same submissions share: honest idioms are short, and the more submissions
 * write one alike the shorter it is; a copied solution is all of it. So:
 *
 *   - two submissions are linked when they share at least nine tenths of group_tokens tokens
 *     of code of any kind (fragments of min_match tokens or more);
 *   - a submission r linked to at least max_common others can represent a group: its core is
 *     the code of r that more than max_common submissions (r included) hold, in runs of
 *     min_match tokens or more; its members are r and every submission linked to it that holds
 *     nine tenths of the core or more;
 *   - more than max_common members and a core of group_tokens tokens or more make a group.
 *     The group whose core is held the most (tokens times members) is taken first; its
 *     members are taken out, and the next is looked for;
 *   - two groups where one's representative holds two thirds of the other's core are one leak
 *     (copies that inlined a function gather apart from the rest), and are merged; a
 *     submission linked to a representative that holds two thirds of its core joins it.
 * The threshold group_tokens comes from the spreads measured on honest classes
 * (docs/similarity.md): no honest set of more than max_common submissions shares that much.
 *
 * A reported pair inside one group of shared code is the group's, and is reported no more.
 * Three or more submissions chained by reported pairs (a copy passed between a few students)
 * are a group too, unless one group of shared code already holds them all.
 *
 * Solution matches: a submission that holds solution_tokens tokens or more of the instructor's
 * code (handout.h), in chains of min_match tokens or more, handed-out code left out.
 *
 * struct sim_links owns its array.
 */
#ifndef LG_SIMGROUP_H
#define LG_SIMGROUP_H

#include "analyze/match.h"
#include "analyze/similarity.h"

#include <stddef.h>
#include <stdint.h>

struct sim_links {
    uint32_t (*v)[2]; /* pairs of submissions, a < b */
    size_t *first;    /* link i's fragments: frags[first[i] .. first[i + 1]) */
    size_t n, alloc;
    struct match_frag *frags; /* all they share (match_pair_all's all), a in v[i][0] */
    size_t n_frags, alloc_frags;
};

void sim_links_init(struct sim_links *l);
void sim_links_release(struct sim_links *l);
/* Link a and b (a < b), sharing m (match_pair_all's all, a's side first). */
void sim_links_add(struct sim_links *l, size_t a, size_t b, const struct match_result *m);

/* Shared tokens that link two submissions: nine tenths of group_tokens, rounded up. */
unsigned sim_link_tokens(int group_tokens);

/* r->solmatches, from r->sol (nothing when r->solution_checked is false). */
void sim_solution_matches(struct sim_result *r, const struct match_params *mp);

/* r->groups: shared-code groups from the links, then the reported pairs' chains. After
 * sim_solution_matches (a group says whether its code is the instructor's). */
void sim_find_groups(struct sim_result *r, const struct sim_links *links,
                     const struct match_params *mp);

#endif

/* simgroup: groups of shared code, pairs' chains, solution matches. See simgroup.h. */
#include "analyze/simgroup.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

#define MEMBER_NUM 9
#define MEMBER_DEN 10

void sim_links_init(struct sim_links *l)
{
    memset(l, 0, sizeof(*l));
}

void sim_links_release(struct sim_links *l)
{
    free(l->v);
    free(l->first);
    free(l->frags);
    sim_links_init(l);
}

void sim_links_add(struct sim_links *l, size_t a, size_t b, const struct match_result *m)
{
    size_t alloc = l->alloc;
    ALLOC_GROW(l->v, l->n + 1, l->alloc);
    ALLOC_GROW(l->first, l->n + 2, alloc);
    ALLOC_GROW(l->frags, l->n_frags + m->n, l->alloc_frags);
    l->v[l->n][0] = (uint32_t)a;
    l->v[l->n][1] = (uint32_t)b;
    l->first[l->n] = l->n_frags;
    memcpy(l->frags + l->n_frags, m->frags, m->n * sizeof(*m->frags));
    l->n_frags += m->n;
    l->first[++l->n] = l->n_frags;
}

unsigned sim_link_tokens(int group_tokens)
{
    return (unsigned)((9 * (long)group_tokens + 9) / 10);
}

/* m's chains as fragments to show: a in x, b in y (caller frees; *n their number). */
static struct sim_frag *chain_frags(const struct norm_stream *x, const struct norm_stream *y,
                                    const struct match_result *m, size_t *n)
{
    struct sim_frag *out = NULL;
    size_t alloc = 0;
    *n = 0;
    for (size_t i = 0; i < m->n_chains; i++)
        sim_frags_of(x, y, m->frags + m->chains[i].first, m->chains[i].n, &out, n, &alloc);
    if (*n > 1)
        qsort(out, *n, sizeof(*out), sim_frag_cmp);
    return out;
}

static int by_tokens(const void *x, const void *y)
{
    const struct sim_solmatch *a = x, *b = y;
    if (a->held != b->held)
        return a->held > b->held ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

/* Every shared run counts, common or not: the instructor's code is no student's. */
static void match_solution(const struct sim_result *r, const struct sim_sub *s,
                           const struct match_params *mp, struct match_result *out)
{
    match_pair(&s->toks, &s->fp, &r->sol.toks, &r->sol.fp, mp, out, NULL);
}

void sim_solution_matches(struct sim_result *r, const struct match_params *mp)
{
    struct match_result m;
    size_t alloc = 0;
    if (!r->solution_checked)
        return;
    match_result_init(&m);
    for (size_t i = 0; i < r->n_subs; i++) {
        const struct sim_sub *s = &r->subs[i];
        match_solution(r, s, mp, &m);
        if (m.covered_a < (size_t)r->solution_tokens)
            continue;
        ALLOC_GROW(r->solmatches, r->n_solmatches + 1, alloc);
        struct sim_solmatch *sm = &r->solmatches[r->n_solmatches++];
        sm->sub = i;
        sm->held = (unsigned)m.covered_a;
        sm->frags = chain_frags(&s->toks, &r->sol.toks, &m, &sm->n_frags);
    }
    match_result_release(&m);
    if (r->n_solmatches > 1)
        qsort(r->solmatches, r->n_solmatches, sizeof(*r->solmatches), by_tokens);
}

/* The links as lists of neighbours (compressed rows). */
struct adjacency {
    size_t *start; /* neighbours of i: to[start[i] .. start[i + 1]) */
    uint32_t *to;
    size_t *link; /* the link to each */
};

static void adjacency_build(struct adjacency *g, const struct sim_links *l, size_t n)
{
    size_t *fill = xcalloc(n + 1, sizeof(*fill));
    g->start = xcalloc(n + 1, sizeof(*g->start));
    g->to = xcalloc(2 * l->n + 1, sizeof(*g->to));
    g->link = xcalloc(2 * l->n + 1, sizeof(*g->link));
    for (size_t i = 0; i < l->n; i++) {
        g->start[l->v[i][0] + 1]++;
        g->start[l->v[i][1] + 1]++;
    }
    for (size_t i = 0; i < n; i++)
        g->start[i + 1] += g->start[i];
    for (size_t i = 0; i < l->n; i++) {
        uint32_t a = l->v[i][0], b = l->v[i][1];
        g->link[g->start[a] + fill[a]] = i;
        g->to[g->start[a] + fill[a]++] = b;
        g->link[g->start[b] + fill[b]] = i;
        g->to[g->start[b] + fill[b]++] = a;
    }
    free(fill);
}

static size_t degree(const struct adjacency *g, size_t i)
{
    return g->start[i + 1] - g->start[i];
}

/* One neighbour's share of the representative's code. */
struct cover {
    size_t sub;
    struct match_frag *frags;
    size_t n;
    size_t in_core; /* core tokens among those it covers */
};

/* The representative's tokens that more than max_common submissions hold, in runs of
 * min_match or more (one file each); returns how many. */
static size_t core_of(const struct sim_result *r, const struct norm_stream *s,
                      const unsigned *count, bool *core)
{
    size_t n = 0;
    for (size_t p = 0; p < s->n;) {
        size_t q = p;
        while (q < s->n && count[q] >= (unsigned)r->max_common && s->t[q].file == s->t[p].file)
            q++;
        bool keep = q - p >= (size_t)r->opts.min_match;
        for (size_t i = p; i < q; i++)
            core[i] = keep;
        n += keep ? q - p : 0;
        p = q > p ? q : p + 1;
    }
    return n;
}

static size_t covered_in(const bool *core, const struct match_frag *f, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t p = f[i].a; p < f[i].a + f[i].len; p++)
            c += core[p];
    return c;
}

/* The core as fragments of the representative (a) and of the member shown beside it (b): the
 * core's runs cut by the member's own tiles. */
static void group_frags(struct sim_group *g, const struct sim_result *r, const bool *core,
                        const struct cover *beside)
{
    const struct norm_stream *x = &r->subs[g->members[0]].toks;
    const struct norm_stream *y = &r->subs[beside->sub].toks;
    size_t alloc = 0;
    for (size_t i = 0; i < beside->n; i++) {
        const struct match_frag *f = &beside->frags[i];
        for (uint32_t p = f->a; p < f->a + f->len;) {
            uint32_t q = p;
            while (q < f->a + f->len && core[q])
                q++;
            if (q > p) {
                struct match_frag piece = {p, p - f->a + f->b, q - p};
                sim_frags_of(x, y, &piece, 1, &g->frags, &g->n_frags, &alloc);
            }
            p = q > p ? q : p + 1;
        }
    }
    if (g->n_frags > 1)
        qsort(g->frags, g->n_frags, sizeof(*g->frags), sim_frag_cmp);
}

/* Whether most of the representative's core is in its match with the instructor's code. */
static bool core_is_solution(const struct sim_result *r, size_t rep, const bool *core,
                             size_t core_n, const struct match_params *mp)
{
    struct match_result m;
    if (!r->solution_checked)
        return false;
    match_result_init(&m);
    match_solution(r, &r->subs[rep], mp, &m);
    size_t in = covered_in(core, m.frags, m.n);
    match_result_release(&m);
    return 2 * in >= core_n;
}

static int by_in_core(const void *x, const void *y)
{
    const struct cover *a = x, *b = y;
    if (a->in_core != b->in_core)
        return a->in_core > b->in_core ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

static int cmp_size(const void *x, const void *y)
{
    size_t a = *(const size_t *)x, b = *(const size_t *)y;
    return a < b ? -1 : a > b;
}

/* The share of a group's core a member holds (MEMBER_NUM / MEMBER_DEN of it). */
static size_t member_tokens(size_t core_n)
{
    return (MEMBER_NUM * core_n + MEMBER_DEN - 1) / MEMBER_DEN;
}

/* The members of rep's group: rep, the one that holds most of its core, then the rest in
 * the class's order; marked in grouped. */
static void add_shared_group(struct sim_result *r, size_t rep, struct cover *cv, size_t n_cv,
                             size_t core_n, const bool *core, bool *grouped)
{
    size_t need = member_tokens(core_n), n = 0;
    qsort(cv, n_cv, sizeof(*cv), by_in_core);
    r->groups = xrealloc(r->groups, (r->n_groups + 1) * sizeof(*r->groups));
    struct sim_group *g = &r->groups[r->n_groups++];
    memset(g, 0, sizeof(*g));
    g->kind = SIM_GROUP_SHARED;
    g->members = xcalloc(n_cv + 1, sizeof(*g->members));
    g->members[n++] = rep;
    for (size_t i = 0; i < n_cv && cv[i].in_core >= need; i++)
        g->members[n++] = cv[i].sub;
    if (n > 3)
        qsort(g->members + 2, n - 2, sizeof(*g->members), cmp_size);
    g->n = n;
    g->shared_tokens = (unsigned)core_n;
    group_frags(g, r, core, &cv[0]);
    g->longest = g->n_frags ? g->frags[0].tokens : 0;
    for (size_t i = 0; i < n; i++)
        grouped[g->members[i]] = true;
}

/* The fragments rep shares with the neighbour at adjacency slot i, rep's side as a. */
static struct cover cover_of(const struct sim_links *l, const struct adjacency *g, size_t rep,
                             size_t i)
{
    size_t k = g->link[i], n = l->first[k + 1] - l->first[k];
    struct cover c = {g->to[i], xcalloc(n + 1, sizeof(*c.frags)), n, 0};
    for (size_t f = 0; f < n; f++) {
        struct match_frag m = l->frags[l->first[k] + f];
        c.frags[f] = l->v[k][0] == rep ? m : (struct match_frag){m.b, m.a, m.len};
    }
    return c;
}

/* A submission looked at as a group's representative: the shares of its code its linked
 * submissions hold (not grouped yet), its core, and how many hold nine tenths of it (itself
 * included). */
struct look {
    struct cover *cv;
    size_t n_cv, core_n, members;
    bool *core;
};

static void look_release(struct look *k)
{
    for (size_t i = 0; i < k->n_cv; i++)
        free(k->cv[i].frags);
    free(k->cv);
    free(k->core);
}

static void look_at(const struct sim_result *r, size_t rep, const struct sim_links *l,
                    const struct adjacency *g, const bool *grouped, struct look *k)
{
    const struct sim_sub *s = &r->subs[rep];
    unsigned *count = xcalloc(s->toks.n + 1, sizeof(*count));
    k->cv = xcalloc(degree(g, rep) + 1, sizeof(*k->cv));
    k->core = xcalloc(s->toks.n + 1, sizeof(*k->core));
    k->n_cv = 0;
    k->members = 1;
    for (size_t i = g->start[rep]; i < g->start[rep + 1]; i++) {
        if (grouped[g->to[i]])
            continue;
        struct cover *c = &k->cv[k->n_cv++];
        *c = cover_of(l, g, rep, i);
        for (size_t f = 0; f < c->n; f++)
            for (uint32_t p = c->frags[f].a; p < c->frags[f].a + c->frags[f].len; p++)
                count[p]++;
    }
    k->core_n = core_of(r, &s->toks, count, k->core);
    size_t need = member_tokens(k->core_n);
    for (size_t i = 0; i < k->n_cv; i++) {
        k->cv[i].in_core = covered_in(k->core, k->cv[i].frags, k->cv[i].n);
        k->members += k->cv[i].in_core >= need;
    }
    free(count);
}

static bool is_group(const struct sim_result *r, const struct look *k)
{
    return k->core_n >= (size_t)r->group_tokens && k->members > (size_t)r->max_common;
}

/* How much of a's core (rep of a group) b holds, from their link; 0 when they are not
 * linked. */
static size_t held_core(const struct sim_links *l, const struct adjacency *g, size_t a, size_t b,
                        const bool *core)
{
    for (size_t i = g->start[a]; i < g->start[a + 1]; i++)
        if (g->to[i] == b) {
            struct cover c = cover_of(l, g, a, i);
            size_t n = covered_in(core, c.frags, c.n);
            free(c.frags);
            return n;
        }
    return 0;
}

/* Whether b holds two thirds or more of the core of a group whose representative is a. */
static bool holds_most(const struct sim_links *l, const struct adjacency *g, size_t a, size_t b,
                       const bool *core, unsigned core_n)
{
    return 3 * held_core(l, g, a, b, core) >= 2 * (size_t)core_n;
}

/*
 * Two groups are one leak when one's representative holds two thirds of the other's core or
 * more: copies of one solution that inlined a function lack the calls the others have and hold
 * the callee twice, so they gather apart (nine tenths of a core), yet most of their code is
 * the others'. The first (larger) keeps its core and takes the members.
 */
static void merge_groups(struct sim_result *r, const struct sim_links *l, const struct adjacency *g,
                         bool **cores)
{
    for (size_t i = 0; i < r->n_groups; i++)
        for (size_t j = i + 1; j < r->n_groups;) {
            struct sim_group *x = &r->groups[i], *y = &r->groups[j];
            size_t rx = x->members[0], ry = y->members[0];
            if (!holds_most(l, g, rx, ry, cores[i], x->shared_tokens) &&
                !holds_most(l, g, ry, rx, cores[j], y->shared_tokens)) {
                j++;
                continue;
            }
            x->members = xrealloc(x->members, (x->n + y->n) * sizeof(*x->members));
            memcpy(x->members + x->n, y->members, y->n * sizeof(*y->members));
            x->n += y->n;
            free(y->members);
            free(y->frags);
            free(cores[j]);
            memmove(y, y + 1, (r->n_groups - j - 1) * sizeof(*y));
            memmove(cores + j, cores + j + 1, (r->n_groups - j - 1) * sizeof(*cores));
            r->n_groups--;
        }
}

/*
 * A submission linked to a group's representative that holds two thirds of its core, as merged
 * groups do of each other's, joins it: a copy that changed the leaked code more than the
 * others (a function split as only a few copies did) and so gathered with too few to be a
 * group of its own.
 */
static void adopt(struct sim_result *r, const struct sim_links *l, const struct adjacency *g,
                  bool **cores, bool *grouped)
{
    for (size_t i = 0; i < r->n_groups; i++) {
        struct sim_group *x = &r->groups[i];
        size_t rep = x->members[0];
        for (size_t k = g->start[rep]; k < g->start[rep + 1]; k++) {
            size_t s = g->to[k];
            if (grouped[s] || !holds_most(l, g, rep, s, cores[i], x->shared_tokens))
                continue;
            x->members = xrealloc(x->members, (x->n + 1) * sizeof(*x->members));
            x->members[x->n++] = s;
            grouped[s] = true;
        }
    }
}

/*
 * Groups one at a time: of the submissions linked to at least max_common others and not in a
 * group yet, the one whose core is held the most (its tokens times the members who hold it)
 * is the next group's representative: the copy of a leak that changed least is the one the
 * others hold, so it gathers them, where a copy with changes of its own would gather only
 * those that made the same changes, and an honest student close to the leak's source would
 * gather them around the little it shares with it. Then the groups that are one leak are
 * merged.
 */
static void shared_groups(struct sim_result *r, const struct sim_links *links,
                          const struct match_params *mp, bool *grouped)
{
    struct adjacency g;
    bool **cores = NULL;
    adjacency_build(&g, links, r->n_subs);
    for (;;) {
        size_t best = SIZE_MAX, best_held = 0;
        for (size_t i = 0; i < r->n_subs; i++) {
            struct look k;
            if (grouped[i] || degree(&g, i) < (size_t)r->max_common)
                continue;
            look_at(r, i, links, &g, grouped, &k);
            if (is_group(r, &k) && k.members * k.core_n > best_held) {
                best = i;
                best_held = k.members * k.core_n;
            }
            look_release(&k);
        }
        if (best == SIZE_MAX)
            break;
        struct look k;
        look_at(r, best, links, &g, grouped, &k);
        add_shared_group(r, best, k.cv, k.n_cv, k.core_n, k.core, grouped);
        r->groups[r->n_groups - 1].matches_solution =
            core_is_solution(r, best, k.core, k.core_n, mp);
        cores = xrealloc(cores, r->n_groups * sizeof(*cores));
        cores[r->n_groups - 1] = k.core;
        k.core = NULL;
        look_release(&k);
    }
    merge_groups(r, links, &g, cores);
    adopt(r, links, &g, cores, grouped);
    for (size_t i = 0; i < r->n_groups; i++)
        free(cores[i]);
    free(cores);
    free(g.start);
    free(g.to);
    free(g.link);
}

/* Union-find root with path halving. */
static size_t root(size_t *parent, size_t i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

static bool in_solmatches(const struct sim_result *r, size_t sub)
{
    for (size_t i = 0; i < r->n_solmatches; i++)
        if (r->solmatches[i].sub == sub)
            return true;
    return false;
}

/* One chain of reported pairs (root c): members, its most similar pair's fragments. */
static void add_pairs_group(struct sim_result *r, size_t *parent, size_t c, size_t size)
{
    r->groups = xrealloc(r->groups, (r->n_groups + 1) * sizeof(*r->groups));
    struct sim_group *g = &r->groups[r->n_groups++];
    size_t n_sol = 0;
    memset(g, 0, sizeof(*g));
    g->kind = SIM_GROUP_PAIRS;
    g->members = xcalloc(size, sizeof(*g->members));
    g->min_similarity = 1;
    for (size_t p = 0; p < r->n_reported; p++) {
        const struct sim_pair *pr = &r->pairs[p];
        if (root(parent, pr->a) != c)
            continue;
        if (g->n == 0) {
            g->members[g->n++] = pr->a;
            g->members[g->n++] = pr->b;
            g->frags = xcalloc(pr->n_frags, sizeof(*g->frags));
            memcpy(g->frags, pr->frags, pr->n_frags * sizeof(*g->frags));
            g->n_frags = pr->n_frags;
        }
        g->longest = pr->frags[0].tokens > g->longest ? pr->frags[0].tokens : g->longest;
        g->min_similarity = pr->similarity < g->min_similarity ? pr->similarity : g->min_similarity;
        g->max_similarity = pr->similarity > g->max_similarity ? pr->similarity : g->max_similarity;
    }
    for (size_t j = 0; j < r->n_subs; j++)
        if (root(parent, j) == c && j != g->members[0] && j != g->members[1])
            g->members[g->n++] = j;
    for (size_t j = 0; j < g->n; j++)
        n_sol += in_solmatches(r, g->members[j]);
    g->matches_solution = 2 * n_sol > g->n;
}

/* Three or more submissions chained by reported pairs, unless one shared group holds them. */
static void pairs_groups(struct sim_result *r, const size_t *group_of)
{
    size_t n = r->n_subs;
    size_t *parent = xcalloc(n + 1, sizeof(*parent)), *size = xcalloc(n + 1, sizeof(*size));
    for (size_t i = 0; i < n; i++)
        parent[i] = i;
    for (size_t p = 0; p < r->n_reported; p++)
        parent[root(parent, r->pairs[p].a)] = root(parent, r->pairs[p].b);
    for (size_t i = 0; i < n; i++)
        size[root(parent, i)]++;
    for (size_t c = 0; c < n; c++) {
        if (root(parent, c) != c || size[c] < 3)
            continue;
        bool held = true;
        size_t first = SIZE_MAX;
        for (size_t j = 0; j < n && held; j++) {
            if (root(parent, j) != c)
                continue;
            first = first == SIZE_MAX ? group_of[j] : first;
            held = group_of[j] != SIZE_MAX && group_of[j] == first;
        }
        if (!held)
            add_pairs_group(r, parent, c, size[c]);
    }
    free(parent);
    free(size);
}

static int by_size(const void *x, const void *y)
{
    const struct sim_group *a = x, *b = y;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return a->members[0] < b->members[0] ? -1 : a->members[0] > b->members[0];
}

/*
 * A pair whose two submissions are in one group of shared code is no finding of its own: the
 * group shows their code, and what is left of their own code once the group's is common can
 * be a few tokens (the same edit two copies made), a high share of nothing much. Such pairs
 * move below the reported ones.
 */
static void unreport_grouped(struct sim_result *r, const size_t *group_of)
{
    size_t kept = 0, moved = 0;
    struct sim_pair *out = xcalloc(r->n_reported + 1, sizeof(*out));
    for (size_t p = 0; p < r->n_reported; p++) {
        const struct sim_pair *pr = &r->pairs[p];
        if (group_of[pr->a] != SIZE_MAX && group_of[pr->a] == group_of[pr->b])
            out[moved++] = *pr;
        else
            r->pairs[kept++] = *pr;
    }
    if (moved)
        memcpy(r->pairs + kept, out, moved * sizeof(*out));
    r->n_reported = kept;
    if (r->n_pairs - kept > 1)
        qsort(r->pairs + kept, r->n_pairs - kept, sizeof(*r->pairs), sim_pair_cmp);
    free(out);
}

void sim_find_groups(struct sim_result *r, const struct sim_links *links,
                     const struct match_params *mp)
{
    size_t n = r->n_subs;
    bool *grouped = xcalloc(n + 1, sizeof(*grouped));
    size_t *group_of = xcalloc(n + 1, sizeof(*group_of));
    shared_groups(r, links, mp, grouped);
    if (r->n_groups > 1)
        qsort(r->groups, r->n_groups, sizeof(*r->groups), by_size);
    for (size_t i = 0; i < n; i++)
        group_of[i] = SIZE_MAX;
    for (size_t g = 0; g < r->n_groups; g++)
        for (size_t j = 0; j < r->groups[g].n; j++)
            group_of[r->groups[g].members[j]] = g;
    unreport_grouped(r, group_of);
    pairs_groups(r, group_of);
    free(grouped);
    free(group_of);
}

/* simgroup: groups of shared code, pairs' chains, solution matches. See simgroup.h. */
#include "analyze/simgroup.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

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

/* m's fragments as spans: a in x, b in y (caller frees). */
static struct sim_frag *spans(const struct norm_stream *x, const struct norm_stream *y,
                              const struct match_frag *f, size_t n)
{
    struct sim_frag *out = xcalloc(n ? n : 1, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        out[i].a = sim_span_of(x, f[i].a, f[i].len);
        out[i].b = sim_span_of(y, f[i].b, f[i].len);
        out[i].tokens = f[i].len;
    }
    return out;
}

static int by_tokens(const void *x, const void *y)
{
    const struct sim_solmatch *a = x, *b = y;
    if (a->tokens != b->tokens)
        return a->tokens > b->tokens ? -1 : 1;
    return a->sub < b->sub ? -1 : a->sub > b->sub;
}

/* Every shared run counts, common or not: the instructor's code is no student's. */
static void match_solution(const struct sim_result *r, const struct sim_sub *s,
                           const struct match_params *mp, struct match_result *out)
{
    match_pair_all(&s->toks, &s->fp, &r->sol.toks, &r->sol.fp, mp, NULL, out);
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
        sm->tokens = (unsigned)m.covered_a;
        sm->frags = spans(&s->toks, &r->sol.toks, m.frags, m.n);
        sm->n_frags = m.n;
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

static int by_span_tokens(const void *x, const void *y)
{
    const struct sim_frag *a = x, *b = y;
    if (a->tokens != b->tokens)
        return a->tokens > b->tokens ? -1 : 1;
    if (a->a.file != b->a.file)
        return a->a.file < b->a.file ? -1 : 1;
    return a->a.first_line < b->a.first_line ? -1 : a->a.first_line > b->a.first_line;
}

/* The core as fragments of the representative (a) and of the member shown beside it (b): the
 * core's runs cut by the member's own fragments. */
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
                ALLOC_GROW(g->frags, g->n_frags + 1, alloc);
                g->frags[g->n_frags++] = (struct sim_frag){
                    sim_span_of(x, p, q - p), sim_span_of(y, p - f->a + f->b, q - p), q - p};
            }
            p = q > p ? q : p + 1;
        }
    }
    if (g->n_frags > 1)
        qsort(g->frags, g->n_frags, sizeof(*g->frags), by_span_tokens);
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

/* The members of rep's group: rep, the one that holds most of its core, then the rest in
 * the class's order; marked in grouped. */
static void add_shared_group(struct sim_result *r, size_t rep, struct cover *cv, size_t n_cv,
                             size_t core_n, const bool *core, bool *grouped)
{
    size_t need = (9 * core_n + 9) / 10, n = 0;
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
    g->tokens = (unsigned)core_n;
    group_frags(g, r, core, &cv[0]);
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

/* Look at rep: a group when more than max_common hold group_tokens of its code. */
static bool try_group(struct sim_result *r, size_t rep, const struct sim_links *l,
                      const struct adjacency *g, bool *grouped, const struct match_params *mp)
{
    const struct sim_sub *s = &r->subs[rep];
    struct cover *cv = xcalloc(degree(g, rep) + 1, sizeof(*cv));
    unsigned *count = xcalloc(s->toks.n + 1, sizeof(*count));
    bool *core = xcalloc(s->toks.n + 1, sizeof(*core)), found = false;
    size_t n_cv = 0, need, members = 1;
    for (size_t i = g->start[rep]; i < g->start[rep + 1]; i++) {
        if (grouped[g->to[i]])
            continue;
        cv[n_cv] = cover_of(l, g, rep, i);
        for (size_t f = 0; f < cv[n_cv].n; f++)
            for (uint32_t p = cv[n_cv].frags[f].a; p < cv[n_cv].frags[f].a + cv[n_cv].frags[f].len;
                 p++)
                count[p]++;
        n_cv++;
    }
    size_t core_n = core_of(r, &s->toks, count, core);
    need = (9 * core_n + 9) / 10;
    for (size_t i = 0; i < n_cv; i++) {
        cv[i].in_core = covered_in(core, cv[i].frags, cv[i].n);
        members += cv[i].in_core >= need;
    }
    if (core_n >= (size_t)r->group_tokens && members > (size_t)r->max_common) {
        add_shared_group(r, rep, cv, n_cv, core_n, core, grouped);
        r->groups[r->n_groups - 1].matches_solution = core_is_solution(r, rep, core, core_n, mp);
        found = true;
    }
    for (size_t i = 0; i < n_cv; i++)
        free(cv[i].frags);
    free(cv);
    free(count);
    free(core);
    return found;
}

struct by_degree_ctx {
    size_t i, deg;
};

static int by_degree(const void *x, const void *y)
{
    const struct by_degree_ctx *a = x, *b = y;
    if (a->deg != b->deg)
        return a->deg > b->deg ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

static void shared_groups(struct sim_result *r, const struct sim_links *links,
                          const struct match_params *mp, bool *grouped)
{
    struct adjacency g;
    size_t n = r->n_subs, m = 0;
    adjacency_build(&g, links, n);
    struct by_degree_ctx *order = xcalloc(n + 1, sizeof(*order));
    for (size_t i = 0; i < n; i++)
        if (degree(&g, i) >= (size_t)r->max_common)
            order[m++] = (struct by_degree_ctx){i, degree(&g, i)};
    if (m > 1)
        qsort(order, m, sizeof(*order), by_degree);
    for (size_t i = 0; i < m; i++)
        if (!grouped[order[i].i])
            try_group(r, order[i].i, links, &g, grouped, mp);
    free(order);
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
        g->tokens = pr->frags[0].tokens > g->tokens ? pr->frags[0].tokens : g->tokens;
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
    pairs_groups(r, group_of);
    free(grouped);
    free(group_of);
}

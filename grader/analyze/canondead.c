/* canondead: the dead statements of a function body (canon.h), found with a worklist, so that
 * a long chain of statements that die one after another (x1 = 1; x2 = x1; x3 = x2; ...) costs
 * time in proportion to the body, not to its square. See canon_int.h. */
#include "analyze/canon_int.h"

#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* What the search keeps: per name, how many live statements read and write it, and which
 * statements write it; per statement, its parent; the statements to look at again. */
struct dce {
    struct cbody *b;
    bool *local;
    unsigned *readers, *writers;
    uint32_t *wstart, *wlist; /* writers of name n: wlist[wstart[n] .. wstart[n + 1]) */
    uint32_t *parent;
    uint32_t *work;
    size_t n_work;
    bool *queued;
};

static void push(struct dce *d, uint32_t i)
{
    if (i == CANON_NONE || d->queued[i] || d->b->st[i].dead)
        return;
    d->queued[i] = true;
    d->work[d->n_work++] = i;
}

/* Whether statement s holds a live statement. */
static bool has_live_child(const struct cbody *b, const struct cstmt *s)
{
    for (uint32_t k = 0; k < n_kids(s); k++)
        if (!b->st[kid(b, s, k)].dead)
            return true;
    return false;
}

/* Whether live statement s does nothing that a live statement reads: it writes no memory,
 * and only locals that no other statement reads. A compound statement is dead when its
 * condition is false, or when nothing is left inside and its header writes nothing. */
static bool is_dead(const struct dce *d, const struct cstmt *s)
{
    if (s->own.barrier || s->own.mem_write)
        return false;
    if (s->const_false)
        return true;
    if (s->kind != CS_SIMPLE)
        return s->kind != CS_LABEL && s->own.writes.n == 0 && !has_live_child(d->b, s);
    if (s->alias && d->writers[s->decls.v[0]] == 1)
        return true;
    for (size_t k = 0; k < s->own.writes.n; k++) {
        uint32_t w = s->own.writes.v[k];
        if (!d->local[w] || d->readers[w] > (unsigned)cnames_has(&s->own.reads, w))
            return false;
    }
    return true;
}

static void push_writers(struct dce *d, uint32_t name)
{
    for (uint32_t k = d->wstart[name]; k < d->wstart[name + 1]; k++)
        push(d, d->wlist[k]);
}

/* Statement i and everything inside it are dead: the names they read have fewer readers
 * (their writers may die now), those they write fewer writers (an alias may), and the
 * statement that holds i may be left empty. */
static void kill(struct dce *d, uint32_t i)
{
    struct cstmt *s = &d->b->st[i];
    if (s->dead)
        return;
    s->dead = true;
    for (size_t k = 0; k < s->own.reads.n; k++)
        if (--d->readers[s->own.reads.v[k]] <= 1)
            push_writers(d, s->own.reads.v[k]);
    for (size_t k = 0; k < s->own.writes.n; k++)
        if (--d->writers[s->own.writes.v[k]] == 1)
            push_writers(d, s->own.writes.v[k]);
    push(d, d->parent[i]);
    for (uint32_t k = 0; k < n_kids(s); k++)
        kill(d, kid(d->b, s, k));
}

/* Counts, writers by name and parents, for the body as parsed. */
static void dce_init(struct dce *d, struct cbody *b)
{
    size_t names = b->n_names + 1, n = b->n_st + 1;
    d->b = b;
    d->local = xcalloc(names, sizeof(*d->local));
    d->readers = xcalloc(names, sizeof(*d->readers));
    d->writers = xcalloc(names, sizeof(*d->writers));
    d->wstart = xcalloc(names + 1, sizeof(*d->wstart));
    d->parent = xcalloc(n, sizeof(*d->parent));
    d->work = xcalloc(n, sizeof(*d->work));
    d->queued = xcalloc(n, sizeof(*d->queued));
    d->n_work = 0;
    size_t total = 0;
    for (size_t i = 0; i < b->n_st; i++) {
        const struct cstmt *s = &b->st[i];
        d->parent[i] = CANON_NONE;
        for (size_t k = 0; k < s->decls.n; k++)
            d->local[s->decls.v[k]] = true;
        for (size_t k = 0; k < s->own.reads.n; k++)
            d->readers[s->own.reads.v[k]]++;
        for (size_t k = 0; k < s->own.writes.n; k++)
            d->wstart[s->own.writes.v[k] + 1]++;
        total += s->own.writes.n;
    }
    for (size_t n_ = 0; n_ < b->n_names; n_++) {
        d->writers[n_] = d->wstart[n_ + 1];
        d->wstart[n_ + 1] += d->wstart[n_];
    }
    d->wlist = xcalloc(total + 1, sizeof(*d->wlist));
    unsigned *fill = xcalloc(names, sizeof(*fill));
    for (uint32_t i = 0; i < b->n_st; i++) {
        const struct cstmt *s = &b->st[i];
        for (size_t k = 0; k < s->own.writes.n; k++) {
            uint32_t w = s->own.writes.v[k];
            d->wlist[d->wstart[w] + fill[w]++] = i;
        }
        for (uint32_t k = 0; k < n_kids(s); k++)
            d->parent[kid(b, s, k)] = i;
    }
    free(fill);
}

static void dce_release(struct dce *d)
{
    free(d->local);
    free(d->readers);
    free(d->writers);
    free(d->wstart);
    free(d->wlist);
    free(d->parent);
    free(d->work);
    free(d->queued);
}

void cdead_mark(struct cbody *b)
{
    struct dce d;
    dce_init(&d, b);
    for (uint32_t i = (uint32_t)b->n_st; i-- > 0;)
        push(&d, i);
    while (d.n_work) {
        uint32_t i = d.work[--d.n_work];
        d.queued[i] = false;
        if (!b->st[i].dead && is_dead(&d, &b->st[i]))
            kill(&d, i);
    }
    dce_release(&d);
}

/* simjson: similarity.json, the similarity check's findings as data. See simreport.h. */
#include "analyze/simreport.h"

#include "analyze/simview.h"
#include "base/alloc.h"
#include "base/json.h"

#include <string.h>

/* Lines first..last of the span's file. */
static void span_text(struct strbuf *out, const struct sim_sub *s, const struct sim_span *sp)
{
    const char *src = s->files[sp->file].source;
    unsigned line = 1;
    for (const char *p = src ? src : ""; *p && line <= sp->last_line; p++) {
        if (line >= sp->first_line)
            strbuf_addch(out, *p);
        if (*p == '\n')
            line++;
    }
}

static int by_place(const void *x, const void *y)
{
    const struct sim_frag *a = *(const struct sim_frag *const *)x;
    const struct sim_frag *b = *(const struct sim_frag *const *)y;
    if (a->a.file != b->a.file)
        return a->a.file < b->a.file ? -1 : 1;
    return a->a.first_line < b->a.first_line ? -1 : a->a.first_line > b->a.first_line;
}

/* The group's code as its first member has it: every fragment, in file and line order, a
 * blank line between two. */
static char *group_text(const struct sim_result *r, const struct sim_group *g)
{
    struct strbuf out = STRBUF_INIT;
    const struct sim_frag **order = xcalloc(g->n_frags + 1, sizeof(*order));
    for (size_t i = 0; i < g->n_frags; i++)
        order[i] = &g->frags[i];
    if (g->n_frags > 1)
        qsort(order, g->n_frags, sizeof(*order), by_place);
    for (size_t i = 0; i < g->n_frags; i++) {
        if (i)
            strbuf_addch(&out, '\n');
        span_text(&out, &r->subs[g->members[0]], &order[i]->a);
    }
    free(order);
    return strbuf_detach(&out);
}

static void where(struct json_writer *w, const char *key, const struct sim_sub *s,
                  const struct sim_span *sp)
{
    struct simview_side side = {s->id, s->files};
    char *at = simview_where(&side, sp);
    json_writer_key(w, key);
    json_writer_begin_object(w);
    json_writer_key(w, "id");
    json_writer_string(w, s->id);
    json_writer_key(w, "where");
    json_writer_string(w, at);
    json_writer_end_object(w);
    free(at);
}

static void key_number(struct json_writer *w, const char *key, double x)
{
    json_writer_key(w, key);
    json_writer_number(w, x);
}

static void frag(struct json_writer *w, const struct sim_result *r, const struct sim_group *g,
                 const struct sim_frag *f)
{
    json_writer_begin_object(w);
    key_number(w, "tokens", f->tokens);
    where(w, "a", &r->subs[g->members[0]], &f->a);
    where(w, "b", &r->subs[g->members[1]], &f->b);
    json_writer_end_object(w);
}

static void group(struct json_writer *w, const struct sim_result *r, const struct sim_group *g)
{
    char *text = group_text(r, g);
    json_writer_begin_object(w);
    json_writer_key(w, "kind");
    json_writer_string(w, g->kind == SIM_GROUP_SHARED ? "shared" : "pairs");
    key_number(w, "size", (double)g->n);
    json_writer_key(w, "members");
    json_writer_begin_array(w);
    for (size_t j = 0; j < g->n; j++)
        json_writer_string(w, r->subs[g->members[j]].id);
    json_writer_end_array(w);
    if (g->kind == SIM_GROUP_SHARED) {
        key_number(w, "shared_tokens", g->shared_tokens);
    } else {
        key_number(w, "similarity_min", g->min_similarity);
        key_number(w, "similarity_max", g->max_similarity);
    }
    key_number(w, "longest_fragment", g->longest);
    json_writer_key(w, "matches_solution");
    json_writer_bool(w, g->matches_solution);
    json_writer_key(w, "fragment");
    json_writer_string(w, text);
    json_writer_key(w, "fragments");
    json_writer_begin_array(w);
    for (size_t i = 0; i < g->n_frags; i++)
        frag(w, r, g, &g->frags[i]);
    json_writer_end_array(w);
    json_writer_end_object(w);
    free(text);
}

static void pair(struct json_writer *w, const struct sim_result *r, const struct sim_pair *p)
{
    json_writer_begin_object(w);
    json_writer_key(w, "a");
    json_writer_string(w, r->subs[p->a].id);
    json_writer_key(w, "b");
    json_writer_string(w, r->subs[p->b].id);
    key_number(w, "similarity", p->similarity);
    key_number(w, "a_in_b", p->a_in_b);
    key_number(w, "b_in_a", p->b_in_a);
    key_number(w, "a_own_tokens", p->own_a);
    key_number(w, "b_own_tokens", p->own_b);
    key_number(w, "a_shared_tokens", p->held_a);
    key_number(w, "b_shared_tokens", p->held_b);
    key_number(w, "longest_fragment", p->n_frags ? p->frags[0].tokens : 0);
    key_number(w, "fragments", (double)p->n_frags);
    json_writer_end_object(w);
}

static void solmatch(struct json_writer *w, const struct sim_result *r,
                     const struct sim_solmatch *s)
{
    json_writer_begin_object(w);
    json_writer_key(w, "id");
    json_writer_string(w, r->subs[s->sub].id);
    json_writer_key(w, "name");
    json_writer_string(w, r->subs[s->sub].name);
    key_number(w, "matched_tokens", s->held);
    key_number(w, "longest_fragment", s->n_frags ? s->frags[0].tokens : 0);
    key_number(w, "fragments", (double)s->n_frags);
    json_writer_end_object(w);
}

static void settings(struct json_writer *w, const struct sim_result *r, const struct lab *lab)
{
    json_writer_key(w, "lab");
    json_writer_string(w, lab->id);
    key_number(w, "threshold", r->opts.threshold);
    key_number(w, "submissions", (double)r->n_subs);
    key_number(w, "kgram", r->opts.k);
    key_number(w, "window", r->opts.window);
    key_number(w, "min_match", r->opts.min_match);
    key_number(w, "max_common", r->max_common);
    key_number(w, "group_tokens", r->group_tokens);
    key_number(w, "solution_tokens", r->solution_tokens);
    json_writer_key(w, "solution_checked");
    json_writer_bool(w, r->solution_checked);
}

void sim_report_json(const struct sim_result *r, const struct lab *lab, struct strbuf *out)
{
    struct json_writer w;
    json_writer_init(&w, out);
    json_writer_begin_object(&w);
    settings(&w, r, lab);
    json_writer_key(&w, "groups");
    json_writer_begin_array(&w);
    for (size_t i = 0; i < r->n_groups; i++)
        group(&w, r, &r->groups[i]);
    json_writer_end_array(&w);
    json_writer_key(&w, "pairs");
    json_writer_begin_array(&w);
    for (size_t i = 0; i < r->n_reported; i++)
        pair(&w, r, &r->pairs[i]);
    json_writer_end_array(&w);
    json_writer_key(&w, "solution_matches");
    json_writer_begin_array(&w);
    for (size_t i = 0; i < r->n_solmatches; i++)
        solmatch(&w, r, &r->solmatches[i]);
    json_writer_end_array(&w);
    json_writer_end_object(&w);
    strbuf_addch(out, '\n');
}

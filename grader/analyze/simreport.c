/* simreport: the similarity check's CSV, JSON, Markdown and HTML. See simreport.h. */
#include "analyze/simreport.h"

#include "analyze/render.h"
#include "analyze/simview.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/escape.h"
#include "base/template.h"
#include "base/util.h"
#include "report/html.h"

#include <stdio.h>
#include <string.h>

static void csv_cell(struct strbuf *out, const char *s)
{
    bool formula = s[0] && strchr("=+-@\t\r", s[0]);
    if (!formula && !strpbrk(s, ",\"\r\n")) {
        strbuf_addstr(out, s);
        return;
    }
    strbuf_addch(out, '"');
    if (formula)
        strbuf_addch(out, '\'');
    for (; *s; s++) {
        if (*s == '"')
            strbuf_addch(out, '"');
        strbuf_addch(out, *s);
    }
    strbuf_addch(out, '"');
}

static struct simview_side side_of(const struct sim_sub *s)
{
    return (struct simview_side){s->id, s->files};
}

static void csv_row(struct strbuf *out, const struct sim_result *r, const struct sim_pair *p)
{
    const struct sim_sub *a = &r->subs[p->a], *b = &r->subs[p->b];
    struct simview_side sa = side_of(a), sb = side_of(b);
    char *la = p->n_frags ? simview_where(&sa, &p->frags[0].a) : xstrdup("");
    char *lb = p->n_frags ? simview_where(&sb, &p->frags[0].b) : xstrdup("");
    csv_cell(out, a->id);
    strbuf_addch(out, ',');
    csv_cell(out, b->id);
    strbuf_addf(out, ",%.4f,%.4f,%.4f,%u,%u,%u,%u,%u,", p->similarity, p->a_in_b, p->b_in_a,
                p->own_a, p->own_b, p->held_a, p->held_b, p->n_frags ? p->frags[0].tokens : 0);
    csv_cell(out, la);
    strbuf_addch(out, ',');
    csv_cell(out, lb);
    strbuf_addf(out, ",%zu,", p->n_frags);
    csv_cell(out, a->name);
    strbuf_addch(out, ',');
    csv_cell(out, b->name);
    strbuf_addstr(out, "\r\n");
    free(la);
    free(lb);
}

void sim_report_csv(const struct sim_result *r, struct strbuf *out)
{
    size_t n = r->n_subs;
    bool *done = xcalloc(n ? n * n : 1, 1);
    strbuf_addstr(out, "a,b,similarity,a_in_b,b_in_a,a_own_tokens,b_own_tokens,a_shared_tokens,"
                       "b_shared_tokens,longest_fragment,longest_fragment_a,longest_fragment_b,"
                       "fragments,a_name,b_name\r\n");
    for (size_t i = 0; i < r->n_pairs; i++) {
        csv_row(out, r, &r->pairs[i]);
        done[r->pairs[i].a * n + r->pairs[i].b] = true;
    }
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if (!done[a * n + b]) {
                struct sim_pair zero = {a, b, 0, 0, 0, 0, 0, 0, 0, NULL, 0};
                zero.own_a = (unsigned)r->subs[a].own.n;
                zero.own_b = (unsigned)r->subs[b].own.n;
                csv_row(out, r, &zero);
            }
    free(done);
}

static void set_pct(struct tpl_value *m, const char *key, double x)
{
    tpl_set_mdf(m, key, "%.0f%%", 100 * x);
}

/*
 * A finding's fragments: `frags` (the table: n, a_where, b_where, tokens), `code` (the first
 * SIM_REPORT_FRAGS side by side, as Markdown) and `views` (the files side by side, as HTML).
 */
static void add_frags(struct tpl_value *m, const struct simview_side *a,
                      const struct simview_side *b, const struct sim_frag *f, size_t n)
{
    struct tpl_value *list = tpl_set_list(m, "frags");
    struct strbuf code = STRBUF_INIT;
    for (size_t i = 0; i < n; i++) {
        struct tpl_value *fm = tpl_push_map(list);
        char *wa = simview_where(a, &f[i].a), *wb = simview_where(b, &f[i].b);
        tpl_set_num(fm, "n", (double)(i + 1));
        tpl_set_str(fm, "a_where", wa);
        tpl_set_str(fm, "b_where", wb);
        tpl_set_num(fm, "tokens", f[i].tokens);
        free(wa);
        free(wb);
        if (i < SIM_REPORT_FRAGS) {
            strbuf_addstr(&code, i ? "\n" : "");
            simview_md_pair(&code, a, &f[i].a, b, &f[i].b);
        }
    }
    tpl_set_num(m, "n_frags", (double)n);
    tpl_set_num(m, "frags_more", n > SIM_REPORT_FRAGS ? (double)(n - SIM_REPORT_FRAGS) : 0);
    tpl_set_md(m, "code", strbuf_str(&code));
    simview_html(m, a, b, f, n);
    strbuf_release(&code);
}

static void add_members(struct tpl_value *m, const struct sim_result *r, const size_t *members,
                        size_t n)
{
    struct tpl_value *list = tpl_set_list(m, "members");
    for (size_t j = 0; j < n; j++) {
        struct tpl_value *mm = tpl_push_map(list);
        tpl_set_str(mm, "id", r->subs[members[j]].id);
        tpl_set_str(mm, "name", r->subs[members[j]].name);
    }
}

static void add_groups(struct tpl_value *ctx, const struct sim_result *r)
{
    struct tpl_value *list = tpl_set_list(ctx, "groups");
    for (size_t i = 0; i < r->n_groups; i++) {
        const struct sim_group *g = &r->groups[i];
        const struct sim_sub *a = &r->subs[g->members[0]], *b = &r->subs[g->members[1]];
        struct simview_side sa = side_of(a), sb = side_of(b);
        struct tpl_value *gm = tpl_push_map(list);
        tpl_set_num(gm, "index", (double)(i + 1));
        tpl_set_bool(gm, "shared", g->kind == SIM_GROUP_SHARED);
        tpl_set_num(gm, "n", (double)g->n);
        tpl_set_num(gm, "shared_tokens", g->shared_tokens);
        tpl_set_num(gm, "longest", g->longest);
        tpl_set_bool(gm, "matches_solution", g->matches_solution);
        set_pct(gm, "min", g->min_similarity);
        set_pct(gm, "max", g->max_similarity);
        tpl_set_str(gm, "a", a->id);
        tpl_set_str(gm, "b", b->id);
        add_members(gm, r, g->members, g->n);
        add_frags(gm, &sa, &sb, g->frags, g->n_frags);
    }
}

/* The number (from 1) of the group of shared code that holds sub and whose code is the
 * instructor's, or 0. */
static size_t solution_group(const struct sim_result *r, size_t sub)
{
    for (size_t g = 0; g < r->n_groups; g++)
        for (size_t j = 0; r->groups[g].matches_solution && j < r->groups[g].n; j++)
            if (r->groups[g].members[j] == sub)
                return g + 1;
    return 0;
}

/* Which matches with the solution the pages show in full: those no group of the solution
 * already shows, the first SIM_REPORT_DETAILED of them (caller frees). */
static bool *solmatches_shown(const struct sim_result *r)
{
    bool *shown = xcalloc(r->n_solmatches + 1, sizeof(*shown));
    size_t n = 0;
    for (size_t i = 0; i < r->n_solmatches; i++) {
        shown[i] = !solution_group(r, r->solmatches[i].sub) && n < SIM_REPORT_DETAILED;
        n += shown[i];
    }
    return shown;
}

/* Every match in the table; the code of those no group of the solution already shows. */
static void add_solmatches(struct tpl_value *ctx, const struct sim_result *r)
{
    struct tpl_value *list = tpl_set_list(ctx, "solmatches");
    struct simview_side sol = {"solution", r->sol.files};
    bool *shown = solmatches_shown(r);
    for (size_t i = 0; i < r->n_solmatches; i++) {
        const struct sim_solmatch *s = &r->solmatches[i];
        const struct sim_sub *sub = &r->subs[s->sub];
        struct simview_side sa = side_of(sub);
        struct tpl_value *sm = tpl_push_map(list);
        size_t group = solution_group(r, s->sub);
        bool detailed = shown[i];
        tpl_set_num(sm, "index", (double)(i + 1));
        tpl_set_str(sm, "id", sub->id);
        tpl_set_str(sm, "name", sub->name);
        tpl_set_num(sm, "matched", s->held);
        tpl_set_num(sm, "group", (double)group);
        tpl_set_bool(sm, "detailed", detailed);
        if (detailed)
            add_frags(sm, &sa, &sol, s->frags, s->n_frags);
        else
            tpl_set_num(sm, "n_frags", (double)s->n_frags);
    }
    free(shown);
    struct tpl_value *files = tpl_set_list(ctx, "sol_files");
    for (size_t i = 0; i < r->n_sol_files; i++)
        tpl_set_str(tpl_push_map(files), "name", r->sol.files[i].name);
}

static void add_pairs(struct tpl_value *ctx, const struct sim_result *r)
{
    struct tpl_value *list = tpl_set_list(ctx, "pairs");
    for (size_t i = 0; i < r->n_reported; i++) {
        const struct sim_pair *p = &r->pairs[i];
        struct simview_side sa = side_of(&r->subs[p->a]), sb = side_of(&r->subs[p->b]);
        struct tpl_value *pm = tpl_push_map(list);
        char *la = simview_where(&sa, &p->frags[0].a), *lb = simview_where(&sb, &p->frags[0].b);
        tpl_set_num(pm, "index", (double)(i + 1));
        tpl_set_str(pm, "a", r->subs[p->a].id);
        tpl_set_str(pm, "a_name", r->subs[p->a].name);
        tpl_set_str(pm, "b", r->subs[p->b].id);
        tpl_set_str(pm, "b_name", r->subs[p->b].name);
        set_pct(pm, "similarity", p->similarity);
        set_pct(pm, "a_in_b", p->a_in_b);
        set_pct(pm, "b_in_a", p->b_in_a);
        tpl_set_num(pm, "own_a", p->own_a);
        tpl_set_num(pm, "own_b", p->own_b);
        tpl_set_num(pm, "longest", p->frags[0].tokens);
        tpl_set_str(pm, "longest_a", la);
        tpl_set_str(pm, "longest_b", lb);
        tpl_set_bool(pm, "detailed", i < SIM_REPORT_DETAILED);
        if (i < SIM_REPORT_DETAILED)
            add_frags(pm, &sa, &sb, p->frags, p->n_frags);
        else
            tpl_set_num(pm, "n_frags", (double)p->n_frags);
        free(la);
        free(lb);
    }
}

/* A submission's row in the page's index of submissions; *pairs its list of pairs, filled
 * later. */
static struct tpl_value *sub_item(struct tpl_value *list, const struct sim_result *r, size_t i,
                                  const size_t *where, const bool *sol_shown,
                                  struct tpl_value **pairs)
{
    size_t group = where[0], sol = where[1];
    struct tpl_value *m = tpl_push_map(list);
    struct strbuf anchor = STRBUF_INIT;
    esc_anchor(&anchor, "sub-", r->subs[i].id);
    tpl_set_str(m, "id", r->subs[i].id);
    tpl_set_str(m, "name", r->subs[i].name);
    tpl_set_str(m, "anchor", strbuf_str(&anchor));
    tpl_set_num(m, "group", (double)group);
    tpl_set_bool(m, "group_shared", group && r->groups[group - 1].kind == SIM_GROUP_SHARED);
    tpl_set_num(m, "sol", (double)sol);
    tpl_set_bool(m, "sol_detailed", sol && sol_shown[sol - 1]);
    if (sol)
        tpl_set_num(m, "matched", r->solmatches[sol - 1].held);
    *pairs = tpl_set_list(m, "pairs");
    strbuf_release(&anchor);
    return m;
}

static void sub_pair(struct tpl_value *pairs, const struct sim_result *r, size_t p, size_t other)
{
    struct tpl_value *pm = tpl_push_map(pairs);
    tpl_set_num(pm, "index", (double)(p + 1));
    tpl_set_str(pm, "other", r->subs[other].id);
    set_pct(pm, "similarity", r->pairs[p].similarity);
    tpl_set_bool(pm, "detailed", p < SIM_REPORT_DETAILED);
}

/*
 * Every submission, each with the evidence about it: its group, its match with the
 * instructor's solution, its pairs at or above the threshold, or that nothing was found. The
 * class page links each student's row to its element (esc_anchor's "sub-<id>", one per
 * submission).
 */
static void add_by_submission(struct tpl_value *ctx, const struct sim_result *r)
{
    size_t n = r->n_subs;
    size_t(*where)[3] = xcalloc(n + 1, sizeof(*where)); /* group, solution match, pairs */
    struct tpl_value **item = xcalloc(n + 1, sizeof(*item)),
                     **pairs = xcalloc(n + 1, sizeof(*pairs));
    struct tpl_value *list = tpl_set_list(ctx, "subs");
    bool *sol_shown = solmatches_shown(r);
    for (size_t g = r->n_groups; g-- > 0;)
        for (size_t j = 0; j < r->groups[g].n; j++)
            where[r->groups[g].members[j]][0] = g + 1;
    for (size_t i = r->n_solmatches; i-- > 0;)
        where[r->solmatches[i].sub][1] = i + 1;
    for (size_t i = 0; i < n; i++)
        item[i] = sub_item(list, r, i, where[i], sol_shown, &pairs[i]);
    for (size_t p = 0; p < r->n_reported; p++) {
        sub_pair(pairs[r->pairs[p].a], r, p, r->pairs[p].b);
        sub_pair(pairs[r->pairs[p].b], r, p, r->pairs[p].a);
        where[r->pairs[p].a][2]++;
        where[r->pairs[p].b][2]++;
    }
    for (size_t i = 0; i < n; i++)
        tpl_set_bool(item[i], "nothing", !where[i][0] && !where[i][1] && !where[i][2]);
    free(where);
    free(item);
    free(pairs);
    free(sol_shown);
}

static void add_settings(struct tpl_value *ctx, const struct sim_result *r)
{
    set_pct(ctx, "threshold", r->opts.threshold);
    tpl_set_num(ctx, "k", r->opts.k);
    tpl_set_num(ctx, "window", r->opts.window);
    tpl_set_num(ctx, "min_match", r->opts.min_match);
    tpl_set_num(ctx, "max_common", r->max_common);
    tpl_set_num(ctx, "group_tokens", r->group_tokens);
    tpl_set_num(ctx, "solution_tokens", r->solution_tokens);
    tpl_set_num(ctx, "n_handout", (double)r->n_handout);
    tpl_set_bool(ctx, "solution_checked", r->solution_checked);
}

static struct tpl_value *context(const struct sim_result *r, const struct lab *lab)
{
    struct tpl_value *ctx = tpl_map(), *files, *warns;
    char date[64];
    iso_datetime(date, sizeof(date));
    tpl_set_str(ctx, "lab_id", lab->id);
    tpl_set_num(ctx, "lab_number", (double)lab->number);
    tpl_set_str(ctx, "lab_title", lab->title);
    tpl_set_str(ctx, "course", lab->course ? lab->course : "");
    tpl_set_str(ctx, "date", date);
    tpl_set_num(ctx, "n_subs", (double)r->n_subs);
    tpl_set_num(ctx, "n_pairs", r->n_subs > 1 ? (double)r->n_subs * (r->n_subs - 1) / 2 : 0);
    tpl_set_num(ctx, "n_shared", (double)r->n_pairs);
    tpl_set_num(ctx, "n_reported", (double)r->n_reported);
    tpl_set_num(ctx, "n_groups", (double)r->n_groups);
    tpl_set_num(ctx, "n_solmatches", (double)r->n_solmatches);
    tpl_set_bool(ctx, "solution_published", lab->solution_published);
    add_settings(ctx, r);
    tpl_set_num(ctx, "more",
                r->n_reported > SIM_REPORT_DETAILED ? (double)(r->n_reported - SIM_REPORT_DETAILED)
                                                    : 0);
    files = tpl_set_list(ctx, "files");
    for (size_t i = 0; i < r->n_files; i++)
        tpl_set_str(tpl_push_map(files), "name", r->files[i]);
    warns = tpl_set_list(ctx, "warnings");
    for (size_t i = 0; i < r->n_warnings; i++)
        tpl_set_str(tpl_push_map(warns), "text", r->warnings[i]);
    add_groups(ctx, r);
    add_solmatches(ctx, r);
    add_pairs(ctx, r);
    add_by_submission(ctx, r);
    return ctx;
}

static int write_text(const char *outdir, const char *name, const struct strbuf *text,
                      struct error *err)
{
    char *path = path_join(outdir, name);
    int rc = write_file_atomic(path, strbuf_str(text), text->len, err);
    free(path);
    return rc;
}

/*
 * The page's stylesheet (templates/html/similarity.css), inlined, and a policy that lets the
 * page load nothing, run nothing and apply only that stylesheet, by its hash: the page shows
 * students' source, and no script in it could run even if some got past the escaping.
 */
static int add_style(struct tpl_value *ctx, const char *templates_dir, struct error *err)
{
    char *path = xstrfmt("%s/html/similarity.css", templates_dir);
    struct strbuf css = STRBUF_INIT, csp = STRBUF_INIT;
    int rc = read_file(path, &css, err);
    if (rc == 0) {
        strbuf_addstr(&csp, "default-src 'none'; style-src ");
        html_csp_hash(strbuf_str(&css), css.len, &csp);
        strbuf_addstr(&csp, "; script-src 'none'; img-src 'none'; base-uri 'none'; "
                            "form-action 'none'");
        tpl_set_md(ctx, "style", strbuf_str(&css));
        tpl_set_str(ctx, "csp", strbuf_str(&csp));
    }
    strbuf_release(&css);
    strbuf_release(&csp);
    free(path);
    return rc;
}

int sim_report_write(const struct sim_result *r, const struct lab *lab, const char *outdir,
                     const char *templates_dir, const char *lang, struct error *err)
{
    struct strbuf csv = STRBUF_INIT, json = STRBUF_INIT;
    int rc = mkdir_p(outdir, err);
    sim_report_csv(r, &csv);
    sim_report_json(r, lab, &json);
    if (rc == 0)
        rc = write_text(outdir, "similarity.csv", &csv, err);
    if (rc == 0)
        rc = write_text(outdir, "similarity.json", &json, err);
    strbuf_release(&csv);
    strbuf_release(&json);
    if (rc != 0)
        return rc;
    struct tpl_value *ctx = context(r, lab);
    const char *l = lang ? lang : lab->lang;
    char *path = path_join(outdir, "similarity.md");
    rc = analyze_write(templates_dir, l, "similarity.md", ctx, false, path, err);
    free(path);
    path = path_join(outdir, "similarity.html");
    if (rc == 0)
        rc = add_style(ctx, templates_dir, err);
    if (rc == 0)
        rc = analyze_write(templates_dir, l, "similarity.html", ctx, true, path, err);
    free(path);
    tpl_value_free(ctx);
    return rc;
}

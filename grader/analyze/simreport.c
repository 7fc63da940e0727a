/* simreport: the similarity check's CSV, Markdown and HTML. See simreport.h. */
#include "analyze/simreport.h"

#include "analyze/render.h"
#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "base/template.h"
#include "base/util.h"

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

/* "file:first-last" of a span, or "" when there is none. */
static char *where(const struct sim_result *r, const struct sim_span *s)
{
    if (s->first_line == s->last_line)
        return xstrfmt("%s:%u", r->files[s->file], s->first_line);
    return xstrfmt("%s:%u-%u", r->files[s->file], s->first_line, s->last_line);
}

static void csv_row(struct strbuf *out, const struct sim_result *r, const struct sim_pair *p)
{
    const struct sim_sub *a = &r->subs[p->a], *b = &r->subs[p->b];
    char *la = p->n_frags ? where(r, &p->frags[0].a) : xstrdup("");
    char *lb = p->n_frags ? where(r, &p->frags[0].b) : xstrdup("");
    csv_cell(out, a->id);
    strbuf_addch(out, ',');
    csv_cell(out, b->id);
    strbuf_addf(out, ",%.4f,%.4f,%.4f,%u,", p->similarity, p->a_in_b, p->b_in_a,
                p->n_frags ? p->frags[0].tokens : 0);
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
    strbuf_addstr(out, "a,b,similarity,a_in_b,b_in_a,longest_tokens,longest_a,longest_b,"
                       "fragments,a_name,b_name\r\n");
    for (size_t i = 0; i < r->n_pairs; i++) {
        csv_row(out, r, &r->pairs[i]);
        done[r->pairs[i].a * n + r->pairs[i].b] = true;
    }
    for (size_t a = 0; a < n; a++)
        for (size_t b = a + 1; b < n; b++)
            if (!done[a * n + b]) {
                struct sim_pair zero = {a, b, 0, 0, 0, NULL, 0};
                csv_row(out, r, &zero);
            }
    free(done);
}

static void set_pct(struct tpl_value *m, const char *key, double x)
{
    tpl_set_mdf(m, key, "%.0f%%", 100 * x);
}

/* Lines first..last of src. */
static void add_lines(struct strbuf *out, const char *src, unsigned first, unsigned last)
{
    unsigned line = 1;
    for (const char *p = src; *p && line <= last; p++) {
        if (line >= first)
            strbuf_addch(out, *p);
        if (*p == '\n')
            line++;
    }
}

/* One side of a fragment as a Markdown code block headed by where it is. */
static void md_code(struct tpl_value *m, const char *key, const struct sim_result *r,
                    const struct sim_sub *s, const struct sim_span *sp)
{
    struct strbuf code = STRBUF_INIT, body = STRBUF_INIT, md = STRBUF_INIT;
    const char *src = s->files[sp->file].source;
    add_lines(&code, src ? src : "", sp->first_line, sp->last_line);
    esc_code_wrap(&body, strbuf_str(&code), 100, 60);
    const char *dot = strrchr(r->files[sp->file], '.');
    esc_md_fence(&md, strbuf_str(&body), dot && !strcmp(dot, ".c") ? "c" : "cpp");
    tpl_set_md(m, key, strbuf_str(&md));
    strbuf_release(&code);
    strbuf_release(&body);
    strbuf_release(&md);
}

/* A whole file as HTML lines, those inside fragment i of `side` (0: a, 1: b) marked. */
static void html_file(struct strbuf *out, const char *src, const struct sim_pair *p, int side,
                      unsigned file)
{
    unsigned line = 1;
    const char *start = src;
    strbuf_addstr(out, "<pre class=\"src\">");
    while (*start) {
        const char *nl = strchr(start, '\n');
        size_t len = nl ? (size_t)(nl - start) : strlen(start);
        int frag = -1;
        for (size_t f = 0; f < p->n_frags && frag < 0; f++) {
            const struct sim_span *sp = side ? &p->frags[f].b : &p->frags[f].a;
            if (sp->file == file && line >= sp->first_line && line <= sp->last_line)
                frag = (int)f;
        }
        char *text = xstrndup(start, len);
        if (frag >= 0)
            strbuf_addf(out, "<span class=\"m m%d\" title=\"%d\">", frag % 6, frag + 1);
        strbuf_addf(out, "<span class=\"n\">%4u</span> ", line);
        html_escape(out, text);
        strbuf_addstr(out, frag >= 0 ? "</span>\n" : "\n");
        free(text);
        line++;
        start = nl ? nl + 1 : start + len;
    }
    strbuf_addstr(out, "</pre>");
}

/* The pair's files side by side, one view per pair of files that share a fragment. */
static void html_views(struct tpl_value *pm, const struct sim_result *r, const struct sim_pair *p)
{
    struct tpl_value *views = tpl_set_list(pm, "views");
    for (size_t f = 0; f < p->n_frags; f++) {
        unsigned fa = p->frags[f].a.file, fb = p->frags[f].b.file;
        bool seen = false;
        for (size_t g = 0; g < f && !seen; g++)
            seen = p->frags[g].a.file == fa && p->frags[g].b.file == fb;
        if (seen)
            continue;
        struct tpl_value *v = tpl_push_map(views);
        struct strbuf left = STRBUF_INIT, right = STRBUF_INIT;
        const char *sa = r->subs[p->a].files[fa].source, *sb = r->subs[p->b].files[fb].source;
        html_file(&left, sa ? sa : "", p, 0, fa);
        html_file(&right, sb ? sb : "", p, 1, fb);
        tpl_set_str(v, "file_a", r->files[fa]);
        tpl_set_str(v, "file_b", r->files[fb]);
        tpl_set_md(v, "left", strbuf_str(&left));
        tpl_set_md(v, "right", strbuf_str(&right));
        strbuf_release(&left);
        strbuf_release(&right);
    }
}

static void pair_details(struct tpl_value *pm, const struct sim_result *r, const struct sim_pair *p)
{
    struct tpl_value *frags = tpl_set_list(pm, "frags");
    for (size_t f = 0; f < p->n_frags; f++) {
        struct tpl_value *fm = tpl_push_map(frags);
        char *wa = where(r, &p->frags[f].a), *wb = where(r, &p->frags[f].b);
        tpl_set_num(fm, "n", (double)(f + 1));
        tpl_set_str(fm, "a_where", wa);
        tpl_set_str(fm, "b_where", wb);
        tpl_set_num(fm, "tokens", p->frags[f].tokens);
        free(wa);
        free(wb);
    }
    md_code(pm, "code_a", r, &r->subs[p->a], &p->frags[0].a);
    md_code(pm, "code_b", r, &r->subs[p->b], &p->frags[0].b);
    html_views(pm, r, p);
}

static void add_pairs(struct tpl_value *ctx, const struct sim_result *r)
{
    struct tpl_value *list = tpl_set_list(ctx, "pairs");
    for (size_t i = 0; i < r->n_reported; i++) {
        const struct sim_pair *p = &r->pairs[i];
        struct tpl_value *pm = tpl_push_map(list);
        char *la = where(r, &p->frags[0].a), *lb = where(r, &p->frags[0].b);
        tpl_set_num(pm, "index", (double)(i + 1));
        tpl_set_str(pm, "a", r->subs[p->a].id);
        tpl_set_str(pm, "a_name", r->subs[p->a].name);
        tpl_set_str(pm, "b", r->subs[p->b].id);
        tpl_set_str(pm, "b_name", r->subs[p->b].name);
        set_pct(pm, "similarity", p->similarity);
        set_pct(pm, "a_in_b", p->a_in_b);
        set_pct(pm, "b_in_a", p->b_in_a);
        tpl_set_num(pm, "longest", p->frags[0].tokens);
        tpl_set_str(pm, "longest_a", la);
        tpl_set_str(pm, "longest_b", lb);
        tpl_set_num(pm, "n_frags", (double)p->n_frags);
        tpl_set_bool(pm, "detailed", i < SIM_REPORT_DETAILED);
        if (i < SIM_REPORT_DETAILED)
            pair_details(pm, r, p);
        free(la);
        free(lb);
    }
}

static void add_clusters(struct tpl_value *ctx, const struct sim_result *r)
{
    struct tpl_value *list = tpl_set_list(ctx, "clusters");
    for (size_t i = 0; i < r->n_groups; i++) {
        const struct sim_group *c = &r->groups[i];
        struct tpl_value *cm = tpl_push_map(list);
        tpl_set_num(cm, "index", (double)(i + 1));
        tpl_set_num(cm, "n", (double)c->n);
        set_pct(cm, "min", c->min_similarity);
        set_pct(cm, "max", c->max_similarity);
        struct tpl_value *members = tpl_set_list(cm, "members");
        for (size_t j = 0; j < c->n; j++) {
            struct tpl_value *m = tpl_push_map(members);
            tpl_set_str(m, "id", r->subs[c->members[j]].id);
            tpl_set_str(m, "name", r->subs[c->members[j]].name);
        }
    }
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
    set_pct(ctx, "threshold", r->opts.threshold);
    tpl_set_num(ctx, "k", r->opts.k);
    tpl_set_num(ctx, "window", r->opts.window);
    tpl_set_num(ctx, "min_match", r->opts.min_match);
    tpl_set_num(ctx, "max_common", r->max_common);
    tpl_set_num(ctx, "skeleton_tokens", (double)r->skeleton_tokens);
    tpl_set_num(ctx, "more",
                r->n_reported > SIM_REPORT_DETAILED ? (double)(r->n_reported - SIM_REPORT_DETAILED)
                                                    : 0);
    files = tpl_set_list(ctx, "files");
    for (size_t i = 0; i < r->n_files; i++)
        tpl_set_str(tpl_push_map(files), "name", r->files[i]);
    warns = tpl_set_list(ctx, "warnings");
    for (size_t i = 0; i < r->n_warnings; i++)
        tpl_set_str(tpl_push_map(warns), "text", r->warnings[i]);
    add_pairs(ctx, r);
    add_clusters(ctx, r);
    return ctx;
}

int sim_report_write(const struct sim_result *r, const struct lab *lab, const char *outdir,
                     const char *templates_dir, const char *lang, struct error *err)
{
    struct strbuf csv = STRBUF_INIT;
    char *path = path_join(outdir, "similarity.csv");
    int rc = mkdir_p(outdir, err);
    sim_report_csv(r, &csv);
    if (rc == 0)
        rc = write_file_atomic(path, strbuf_str(&csv), csv.len, err);
    strbuf_release(&csv);
    free(path);
    if (rc != 0)
        return rc;
    struct tpl_value *ctx = context(r, lab);
    const char *l = lang ? lang : lab->lang;
    path = path_join(outdir, "similarity.md");
    rc = analyze_write(templates_dir, l, "similarity.md", ctx, false, path, err);
    free(path);
    path = path_join(outdir, "similarity.html");
    if (rc == 0)
        rc = analyze_write(templates_dir, l, "similarity.html", ctx, true, path, err);
    free(path);
    tpl_value_free(ctx);
    return rc;
}

#include "report/report.h"
#include "base/escape.h"
#include "harness/throttle.h"
#include "report/plot.h"
#include "run/sandbox.h"
#include "base/template.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How much of a message or finding a report shows: tables stay tables. */
#define MESSAGE_CHARS 240
#define FINDING_CHARS 600
#define NAME_CHARS 120
/* Code blocks: hard-wrapped so LaTeX does not overflow the page, and capped. */
#define CODE_WIDTH 100
#define CODE_LINES 60
/* Shown where there is no value. */
#define NO_VALUE "\xE2\x80\x93"

/* ------------------------------------------------------------------------ */
/* strings.txt: the phrases the C side needs (verdict names, plot labels, ...) */

struct strings {
    char **keys;
    struct template *tpls;
    size_t n, alloc;
};

static void strings_init(struct strings *s)
{
    memset(s, 0, sizeof(*s));
}

static void strings_release(struct strings *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->keys[i]);
        template_release(&s->tpls[i]);
    }
    free(s->keys);
    free(s->tpls);
    strings_init(s);
}

static bool valid_key(const char *k)
{
    if (!*k)
        return false;
    for (; *k; k++)
        if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
              *k == '_' || *k == '.' || *k == '-'))
            return false;
    return true;
}

/* "key = text" lines; '#' starts a comment line; the text is itself a template. */
static int strings_load(struct strings *s, const char *path, struct error *err)
{
    struct strbuf file = STRBUF_INIT;
    if (read_file(path, &file, err) != 0) {
        strbuf_release(&file);
        return -1;
    }
    int rc = -1, lineno = 0;
    for (char *line = file.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        lineno++;
        char *p = line + strspn(line, " \t");
        size_t len = strlen(p);
        while (len && strchr(" \t\r", p[len - 1]))
            p[--len] = '\0';
        if (*p && *p != '#') {
            char *eq = strchr(p, '=');
            if (!eq) {
                error_set_at(err, path, lineno, 1, "expected 'key = text'");
                goto out;
            }
            char *key = p, *val = eq + 1;
            char *kend = eq;
            while (kend > key && strchr(" \t", kend[-1]))
                kend--;
            *kend = '\0';
            val += strspn(val, " \t");
            if (!valid_key(key)) {
                error_set_at(err, path, lineno, 1, "invalid key '%s'", key);
                goto out;
            }
            ALLOC_GROW(s->tpls, s->n + 1, s->alloc);
            s->keys = xrealloc(s->keys, s->alloc * sizeof(*s->keys));
            template_init(&s->tpls[s->n]);
            if (template_parse(&s->tpls[s->n], path, val, strlen(val), err) != 0) {
                /* The value's own position, moved to where it sits in the file. */
                err->col += (int)(val - line);
                err->line = lineno;
                goto out;
            }
            s->keys[s->n++] = xstrdup(key);
        }
        line = nl ? nl + 1 : NULL;
    }
    rc = 0;
out:
    strbuf_release(&file);
    return rc;
}

static const struct template *strings_find(const struct strings *s, const char *key)
{
    for (size_t i = s->n; i-- > 0;)
        if (!strcmp(s->keys[i], key))
            return &s->tpls[i];
    return NULL;
}

static void plain_escape(struct strbuf *out, const char *s)
{
    esc_sanitize(out, s);
}

static void md_escape(struct strbuf *out, const char *s)
{
    esc_md_text(out, s, 0);
}

/*
 * The phrase `key` with the given name/value pairs (strings, NULL-terminated).
 * A missing key renders as the key itself, which shows the instructor what to add.
 */
static char *phrase(const struct strings *s, bool markdown, const char *key, ...)
    __attribute__((sentinel));
static char *phrase(const struct strings *s, bool markdown, const char *key, ...)
{
    const struct template *t = strings_find(s, key);
    if (!t)
        return xstrdup(key);
    struct tpl_value *ctx = tpl_map();
    va_list ap;
    va_start(ap, key);
    for (const char *name = va_arg(ap, const char *); name; name = va_arg(ap, const char *)) {
        const char *value = va_arg(ap, const char *);
        tpl_set_str(ctx, name, value);
    }
    va_end(ap);
    struct tpl_render_opts ro = {markdown ? md_escape : plain_escape, false};
    struct strbuf out = STRBUF_INIT;
    struct error err;
    error_init(&err);
    char *res;
    if (template_render(t, ctx, &ro, &out, &err) != 0) {
        res = xstrdup(key);
    } else {
        strbuf_rtrim(&out);
        res = xstrdup(strbuf_str(&out));
    }
    strbuf_release(&out);
    tpl_value_free(ctx);
    return res;
}

/* ------------------------------------------------------------------------ */
/* Numbers as report text                                                   */

/* Milliseconds with four significant digits: 580.0, 106.5, 50.37, 4.415, 0.01234. */
static char *fmt_ms(double ms)
{
    if (!(ms > 0) || !isfinite(ms))
        return xstrdup(NO_VALUE);
    int dec = 3 - (int)floor(log10(ms));
    if (dec < 0)
        dec = 0;
    if (dec > 6)
        dec = 6;
    return xstrfmt("%.*f", dec, ms);
}

static char *fmt_timing(const struct timing *t)
{
    return t->valid ? fmt_ms(t->median_ms) : xstrdup(NO_VALUE);
}

static char *fmt_spread(const struct timing *t)
{
    if (!t->valid || t->samples < 2)
        return xstrdup(NO_VALUE);
    double iqr = t->q3_ms - t->q1_ms;
    return iqr > 0 ? fmt_ms(iqr) : xstrdup("0");
}

static char *fmt_x(double x)
{
    if (!(x > 0) || !isfinite(x))
        return xstrdup(NO_VALUE);
    return xstrfmt("%.2fx", x);
}

/* Points: 10, 7.5, 3.25. */
static char *fmt_points(double p)
{
    if (!isfinite(p))
        return xstrdup(NO_VALUE);
    char *s = xstrfmt("%.2f", p);
    char *dot = strchr(s, '.');
    if (dot) {
        size_t len = strlen(s);
        while (len > 0 && s[len - 1] == '0')
            s[--len] = '\0';
        if (s[len - 1] == '.')
            s[--len] = '\0';
    }
    if (!strcmp(s, "-0"))
        s[0] = '0', s[1] = '\0';
    return s;
}

/* A size from interpolation: three significant digits, no exponent. */
static char *fmt_size(double x)
{
    if (!(x > 0) || !isfinite(x))
        return xstrdup(NO_VALUE);
    if (x < 100)
        return xstrfmt("%.3g", x);
    double p = pow(10, floor(log10(x)) - 2);
    return xstrfmt("%.0f", round(x / p) * p);
}

static char *fmt_pct(double num, double den)
{
    if (!(den > 0))
        return xstrdup(NO_VALUE);
    return xstrfmt("%.0f%%", 100.0 * num / den);
}

/* Set key to an owned formatted string (already safe Markdown). */
static void set_own(struct tpl_value *m, const char *key, char *s)
{
    tpl_set_md(m, key, s);
    free(s);
}

static int double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static double median_of(const double *x, size_t n)
{
    if (!n)
        return NAN;
    double *c = xmalloc(n * sizeof(double));
    memcpy(c, x, n * sizeof(double));
    qsort(c, n, sizeof(double), double_cmp);
    double m = n % 2 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2;
    free(c);
    return m;
}

/* ------------------------------------------------------------------------ */
/* Shared state of one rendering                                            */

struct report_ctx {
    const struct report_opts *o;
    const char *lang;
    char *lang_dir;
    struct strings strings;
    bool hide_hidden;
    const char *outdir;
    char *plots_dir;
    char **plot_names;
    size_t n_plot_names, alloc_plot_names;
};

static void ctx_release(struct report_ctx *rc)
{
    free(rc->lang_dir);
    strings_release(&rc->strings);
    free(rc->plots_dir);
    for (size_t i = 0; i < rc->n_plot_names; i++)
        free(rc->plot_names[i]);
    free(rc->plot_names);
}

static bool lang_is_safe(const char *lang)
{
    size_t n = strlen(lang);
    if (n < 2 || n > 16)
        return false;
    for (const char *p = lang; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '-' || *p == '_'))
            return false;
    return true;
}

static int ctx_open(struct report_ctx *rc, const struct report_opts *o, const char *results_lang,
                    const char *outdir, struct error *err)
{
    memset(rc, 0, sizeof(*rc));
    strings_init(&rc->strings);
    rc->o = o;
    rc->outdir = outdir;
    rc->lang = o->lang && *o->lang ? o->lang : results_lang && *results_lang ? results_lang : "en";
    if (!o->templates_dir)
        return error_set(err, "report: no templates folder given");
    if (!lang_is_safe(rc->lang))
        return error_set(err, "report: invalid language '%s'", rc->lang);
    rc->lang_dir = path_join(o->templates_dir, rc->lang);
    if (!dir_exists(rc->lang_dir))
        return error_set(err, "report: no templates for language '%s' (%s does not exist)",
                         rc->lang, rc->lang_dir);
    char *strings = path_join(rc->lang_dir, "strings.txt");
    int st = strings_load(&rc->strings, strings, err);
    free(strings);
    if (st != 0)
        return -1;
    rc->plots_dir = path_join(outdir, "plots");
    return 0;
}

/* A plot file name not used yet in this report. */
static char *unique_plot_name(struct report_ctx *rc, const char *base)
{
    char *safe = plot_safe_name(base);
    char *name = xstrdup(safe);
    for (int k = 2;; k++) {
        bool used = false;
        for (size_t i = 0; i < rc->n_plot_names; i++)
            used |= !strcmp(rc->plot_names[i], name);
        if (!used)
            break;
        free(name);
        name = xstrfmt("%s-%d", safe, k);
    }
    free(safe);
    ALLOC_GROW(rc->plot_names, rc->n_plot_names + 1, rc->alloc_plot_names);
    rc->plot_names[rc->n_plot_names++] = xstrdup(name);
    return name;
}

static void set_verdict(const struct report_ctx *rc, struct tpl_value *m, enum verdict v)
{
    char *key = xstrfmt("verdict.%s", verdict_code(v));
    set_own(m, "verdict", phrase(&rc->strings, true, key, NULL));
    free(key);
    tpl_set_str(m, "verdict_code", verdict_code(v));
    tpl_set_bool(m, "passed", v == V_PASS);
    tpl_set_bool(m, "failed", verdict_is_failure(v));
    tpl_set_bool(m, "skipped", v == V_SKIPPED);
    tpl_set_bool(m, "grader_error", v == V_GRADER);
}

/*
 * What a plot's map says: made (and where), or why not in the report's language
 * (strings.txt's plot.fail.*, with the technical detail as it came).
 */
static void set_plot_result(const struct report_ctx *rc, struct tpl_value *pv,
                            const struct plot_result *pr, const char *name)
{
    tpl_set_bool(pv, "made", pr->made);
    tpl_set_bool(pv, "no_gnuplot", pr->no_gnuplot);
    tpl_set_bool(pv, "failed", !pr->made && !pr->no_gnuplot);
    set_own(pv, "path", pr->made ? xstrfmt("plots/%s.png", name) : xstrdup(""));
    if (pr->made) {
        tpl_set_str(pv, "note", "");
        return;
    }
    char *key = xstrfmt("plot.fail.%s", plot_failure_key(pr->failure));
    char *note = strings_find(&rc->strings, key)
                     ? phrase(&rc->strings, false, key, "detail", pr->detail, NULL)
                     : xstrdup(pr->note);
    tpl_set_str(pv, "note", note);
    free(note);
    free(key);
}

/* A fenced code block of untrusted text (compiler output, program output, details). */
static char *code_block(const struct report_ctx *rc, const char *text)
{
    struct strbuf body = STRBUF_INIT, out = STRBUF_INIT;
    size_t omitted = esc_code_wrap(&body, text, CODE_WIDTH, CODE_LINES);
    if (omitted) {
        char n[32];
        snprintf(n, sizeof(n), "%zu", omitted);
        char *marker = phrase(&rc->strings, false, "code.more_lines", "n", n, NULL);
        strbuf_addstr(&body, marker);
        strbuf_addch(&body, '\n');
        free(marker);
    }
    esc_md_fence(&out, strbuf_str(&body), NULL);
    strbuf_release(&body);
    strbuf_rtrim(&out); /* the template's own line break ends the block */
    return strbuf_detach(&out);
}

static bool has_text(const char *s)
{
    return s && s[strspn(s, " \t\r\n")] != '\0';
}

/* ------------------------------------------------------------------------ */
/* Per-submission report: cases and variants                                */

static bool case_visible(const struct report_ctx *rc, const struct case_result *cr)
{
    return !(cr->hidden && rc->hide_hidden);
}

/* A message worth showing: passing cases say "passed", which the verdict already says. */
static bool case_shows_message(const struct case_result *cr)
{
    return cr->verdict != V_PASS && has_text(cr->message);
}

static bool case_has_notes(const struct case_result *cr)
{
    return case_shows_message(cr) || has_text(cr->detail) || cr->n_findings > 0;
}

/* ------------------------------------------------------------------------ */
/* Where a variant's arguments live                                         */

/*
 * variant_result.memory is one kind for every array argument ("host", "pinned",
 * "device") or, per argument, "name=kind" items separated by commas
 * ("dst=device, src=pinned"): the names spec.h's enum mem_space prints as.
 */
enum mem_kind { MK_HOST, MK_PINNED, MK_DEVICE };

struct mem_arg {
    char *name;
    enum mem_kind kind;
};

struct mem_desc {
    enum mem_kind dflt; /* arguments not named */
    struct mem_arg *args;
    size_t n, alloc;
};

static void mem_desc_release(struct mem_desc *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->args[i].name);
    free(d->args);
    memset(d, 0, sizeof(*d));
}

static bool mem_kind_parse(const char *s, size_t len, enum mem_kind *k)
{
    static const char *const names[] = {"host", "pinned", "device"};
    for (size_t i = 0; i < 3; i++)
        if (strlen(names[i]) == len && !memcmp(names[i], s, len)) {
            *k = (enum mem_kind)i;
            return true;
        }
    return false;
}

/* false (and nothing to release) when the text is neither form. */
static bool mem_desc_parse(const char *text, struct mem_desc *d)
{
    memset(d, 0, sizeof(*d));
    d->dflt = MK_HOST;
    if (!text)
        return false;
    const char *p = text + strspn(text, " ");
    if (!strchr(p, '=')) {
        size_t len = strcspn(p, " ");
        return p[len + strspn(p + len, " ")] == '\0' && mem_kind_parse(p, len, &d->dflt);
    }
    while (*p) {
        p += strspn(p, " ,");
        if (!*p)
            break;
        const char *end = p + strcspn(p, ",");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        const char *ke = eq, *vs = eq ? eq + 1 : NULL, *ve = end;
        while (ke && ke > p && ke[-1] == ' ')
            ke--;
        while (vs && vs < ve && *vs == ' ')
            vs++;
        while (vs && ve > vs && ve[-1] == ' ')
            ve--;
        enum mem_kind k;
        if (!eq || ke == p || !mem_kind_parse(vs, (size_t)(ve - vs), &k)) {
            mem_desc_release(d);
            return false;
        }
        ALLOC_GROW(d->args, d->n + 1, d->alloc);
        d->args[d->n].name = xstrndup(p, (size_t)(ke - p));
        d->args[d->n].kind = k;
        d->n++;
        p = end;
    }
    return d->n > 0;
}

static enum mem_kind mem_desc_kind(const struct mem_desc *d, const char *name)
{
    for (size_t i = 0; i < d->n; i++)
        if (!strcmp(d->args[i].name, name))
            return d->args[i].kind;
    return d->dflt;
}

static bool variant_all_device(const struct variant_result *vr)
{
    struct mem_desc d;
    if (!mem_desc_parse(vr->memory, &d))
        return false;
    bool all = d.n == 0 ? d.dflt == MK_DEVICE : true;
    for (size_t i = 0; i < d.n; i++)
        all &= d.args[i].kind == MK_DEVICE;
    mem_desc_release(&d);
    return all;
}

/*
 * A variant that is itself a transfer (a copy between host and device memory):
 * some arguments on the device, some on the host. Its "time with transfers" is a
 * round trip, not the same call with copies around it, so no overhead applies.
 */
static bool variant_is_transfer(const struct variant_result *vr)
{
    struct mem_desc d;
    if (!mem_desc_parse(vr->memory, &d))
        return false;
    bool dev = false, host = false;
    for (size_t i = 0; i < d.n; i++) {
        dev |= d.args[i].kind == MK_DEVICE;
        host |= d.args[i].kind != MK_DEVICE;
    }
    mem_desc_release(&d);
    return dev && host;
}

/*
 * Whether two variants differ only in pageable against pinned host memory: every
 * argument in the same place, except host in one where the other has pinned.
 * Returns 1 when a is the pageable one, -1 when b is, 0 otherwise.
 */
static int pageable_pinned_pair(const struct variant_result *a, const struct variant_result *b)
{
    struct mem_desc da, db;
    if (!mem_desc_parse(a->memory, &da))
        return 0;
    if (!mem_desc_parse(b->memory, &db)) {
        mem_desc_release(&da);
        return 0;
    }
    int a_pageable = 0, b_pageable = 0;
    bool other = false;
    /* Every named argument of either, then the kind of the unnamed ones. */
    for (size_t side = 0; side < 3; side++) {
        const struct mem_desc *src = side == 0 ? &da : &db;
        size_t count = side < 2 ? src->n : 1;
        for (size_t i = 0; i < count; i++) {
            enum mem_kind ka = side < 2 ? mem_desc_kind(&da, src->args[i].name) : da.dflt;
            enum mem_kind kb = side < 2 ? mem_desc_kind(&db, src->args[i].name) : db.dflt;
            if (ka == kb)
                continue;
            if (ka == MK_HOST && kb == MK_PINNED)
                a_pageable = 1;
            else if (ka == MK_PINNED && kb == MK_HOST)
                b_pageable = 1;
            else
                other = true;
        }
    }
    mem_desc_release(&da);
    mem_desc_release(&db);
    if (other || a_pageable == b_pageable)
        return 0;
    return a_pageable ? 1 : -1;
}

static struct tpl_value *case_value(const struct report_ctx *rc, const struct case_result *cr)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "id", cr->case_id);
    tpl_set_str(m, "sizes", cr->sizes);
    set_verdict(rc, m, cr->verdict);
    bool show_msg = case_shows_message(cr);
    char *msg = show_msg ? esc_first_line(cr->message, MESSAGE_CHARS) : xstrdup("");
    tpl_set_str(m, "message", msg);
    free(msg);
    tpl_set_bool(m, "has_message", show_msg);
    tpl_set_bool(m, "hidden", cr->hidden);
    tpl_set_bool(m, "slow", cr->slow);
    set_own(m, "points", fmt_points(cr->points));
    set_own(m, "max_points", fmt_points(cr->max_points));

    tpl_set_bool(m, "has_time", cr->time.valid);
    set_own(m, "time", fmt_timing(&cr->time));
    set_own(m, "time_min", cr->time.valid ? fmt_ms(cr->time.min_ms) : xstrdup(NO_VALUE));
    set_own(m, "spread", fmt_spread(&cr->time));
    tpl_set_num(m, "samples", cr->time.valid ? cr->time.samples : 0);
    tpl_set_bool(m, "has_transfer", cr->time_transfer.valid);
    set_own(m, "time_transfer", fmt_timing(&cr->time_transfer));
    set_own(m, "ref_time", fmt_timing(&cr->ref_time));
    set_own(m, "ref_time_transfer", fmt_timing(&cr->ref_time_transfer));
    tpl_set_bool(m, "has_baseline", cr->baseline_ms > 0);
    set_own(m, "baseline", fmt_ms(cr->baseline_ms));
    set_own(m, "speedup_baseline", fmt_x(cr->speedup_baseline));
    set_own(m, "speedup_ref", fmt_x(cr->speedup_ref));
    tpl_set_bool(m, "has_gflops", cr->gflops > 0);
    tpl_set_bool(m, "has_gbps", cr->gbps > 0);
    set_own(m, "gflops", cr->gflops > 0 ? xstrfmt("%.1f", cr->gflops) : xstrdup(NO_VALUE));
    set_own(m, "gbps", cr->gbps > 0 ? xstrfmt("%.1f", cr->gbps) : xstrdup(NO_VALUE));
    /* One cell for the throughput: GFLOP/s, GB/s, both or none. */
    if (cr->gflops > 0 && cr->gbps > 0)
        set_own(m, "rate", xstrfmt("%.1f GFLOP/s, %.1f GB/s", cr->gflops, cr->gbps));
    else if (cr->gflops > 0)
        set_own(m, "rate", xstrfmt("%.1f GFLOP/s", cr->gflops));
    else if (cr->gbps > 0)
        set_own(m, "rate", xstrfmt("%.1f GB/s", cr->gbps));
    else
        tpl_set_md(m, "rate", NO_VALUE);

    bool has_detail = has_text(cr->detail);
    tpl_set_bool(m, "has_detail", has_detail);
    set_own(m, "detail", has_detail ? code_block(rc, cr->detail) : xstrdup(""));

    struct tpl_value *fl = tpl_set_list(m, "findings");
    for (size_t i = 0; i < cr->n_findings; i++) {
        char *f = esc_clip(cr->findings[i], FINDING_CHARS);
        tpl_push(fl, tpl_string(f));
        free(f);
    }
    tpl_set_bool(m, "has_findings", cr->n_findings > 0);

    struct tpl_value *ml = tpl_set_list(m, "mismatches");
    for (size_t i = 0; i < cr->n_mismatches; i++) {
        const struct mismatch *mm = &cr->mismatches[i];
        struct tpl_value *mv = tpl_push_map(ml);
        tpl_set_str(mv, "arg", mm->arg);
        tpl_set_num(mv, "n_mismatch", (double)mm->n_mismatch);
        tpl_set_num(mv, "n_total", (double)mm->n_total);
        set_own(mv, "max_abs", xstrfmt("%.3g", mm->max_abs));
        set_own(mv, "max_rel", xstrfmt("%.3g", mm->max_rel));
        struct tpl_value *first = tpl_set_list(mv, "first");
        for (int k = 0; k < mm->n_first && k < 5; k++) {
            struct tpl_value *fv = tpl_push_map(first);
            tpl_set_str(fv, "index", mm->first[k].index);
            set_own(fv, "actual", xstrfmt("%.7g", mm->first[k].actual));
            set_own(fv, "expected", xstrfmt("%.7g", mm->first[k].expected));
        }
    }
    tpl_set_bool(m, "has_mismatches", cr->n_mismatches > 0);
    tpl_set_bool(m, "has_notes", case_has_notes(cr));
    return m;
}

/* Whether a sanitizer run's case is shown: in the student view, not when it is hidden (a
 * spec cannot name a hidden case, but results.json is read back as it is). */
static bool sanitizer_run_visible(const struct report_ctx *rc, const struct variant_result *vr,
                                  const struct sanitizer_run *run)
{
    for (size_t c = 0; run->case_id && c < vr->n_cases; c++)
        if (vr->cases[c].case_id && !strcmp(vr->cases[c].case_id, run->case_id))
            return case_visible(rc, &vr->cases[c]);
    return true;
}

/* The compute-sanitizer pass of a variant: the template's "sanitizer" list. */
static void add_sanitizer_runs(const struct report_ctx *rc, const struct variant_result *vr,
                               struct tpl_value *m)
{
    struct tpl_value *list = tpl_set_list(m, "sanitizer");
    for (size_t k = 0; k < vr->n_sanitizer; k++) {
        const struct sanitizer_run *run = &vr->sanitizer[k];
        const struct sanitizer_output *o = &run->out;
        if (!sanitizer_run_visible(rc, vr, run))
            continue;
        struct tpl_value *rv = tpl_push_map(list);
        long errors = sanitizer_error_count(o);
        tpl_set_str(rv, "tool", run->tool ? run->tool : "");
        tpl_set_str(rv, "case_id", run->case_id ? run->case_id : "");
        tpl_set_bool(rv, "has_case", run->case_id != NULL);
        tpl_set_bool(rv, "ran", run->status == SANITIZER_RAN);
        tpl_set_bool(rv, "skipped", run->status == SANITIZER_SKIPPED);
        tpl_set_bool(rv, "failed", run->status == SANITIZER_FAILED);
        char *reason = esc_first_line(run->reason ? run->reason : "", MESSAGE_CHARS);
        tpl_set_str(rv, "reason", reason);
        free(reason);
        tpl_set_num(rv, "errors", (double)errors);
        tpl_set_bool(rv, "one_error", errors == 1);
        tpl_set_bool(rv, "clean", errors == 0 && o->warnings == 0);
        tpl_set_num(rv, "warnings", (double)o->warnings);
        tpl_set_bool(rv, "has_warnings", o->warnings > 0);
        tpl_set_num(rv, "not_printed", (double)o->not_printed);
        tpl_set_bool(rv, "has_not_printed", o->not_printed > 0);
        tpl_set_num(rv, "other_reports", (double)o->other_reports);
        tpl_set_bool(rv, "has_other_reports", o->other_reports > 0);
        tpl_set_str(rv, "tool_error", o->tool_error ? o->tool_error : "");
        tpl_set_bool(rv, "has_tool_error", o->tool_error != NULL);
        struct tpl_value *reports = tpl_set_list(rv, "reports");
        for (size_t i = 0; i < o->n_reports; i++) {
            const struct sanitizer_report *r = &o->reports[i];
            struct tpl_value *pv = tpl_push_map(reports);
            tpl_set_num(pv, "count", (double)r->count);
            tpl_set_str(pv, "kind", r->kind ? r->kind : "");
            tpl_set_str(pv, "location", r->location ? r->location : "");
            tpl_set_bool(pv, "has_location", r->location != NULL);
            tpl_set_str(pv, "thread", r->thread ? r->thread : "");
            tpl_set_bool(pv, "has_thread", r->thread != NULL);
            tpl_set_str(pv, "block", r->block ? r->block : "");
            tpl_set_bool(pv, "has_block", r->block != NULL);
            tpl_set_str(pv, "access", r->access ? r->access : "");
            tpl_set_bool(pv, "has_access", r->access != NULL);
            /* racecheck's other side reads on from the location ("... and Read access at"). */
            tpl_set_bool(pv, "access_continues", r->access && !strncmp(r->access, "and ", 4));
        }
        tpl_set_bool(rv, "has_reports", o->n_reports > 0);
    }
    tpl_set_bool(m, "has_sanitizer", tpl_list_len(list) > 0);
}

static struct tpl_value *variant_value(const struct report_ctx *rc, const struct variant_result *vr)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "id", vr->variant_id);
    tpl_set_str(m, "title", vr->title && *vr->title ? vr->title : vr->variant_id);
    tpl_set_str(m, "function", vr->function);
    tpl_set_str(m, "target", vr->target);
    tpl_set_str(m, "memory", vr->memory);
    tpl_set_bool(m, "is_gpu", vr->target && !strcmp(vr->target, "gpu"));
    tpl_set_bool(m, "is_device", variant_all_device(vr));
    tpl_set_bool(m, "is_transfer", variant_is_transfer(vr));
    tpl_set_bool(m, "built", vr->built);
    tpl_set_num(m, "n_warnings", vr->n_warnings);
    bool log = has_text(vr->build_log);
    tpl_set_bool(m, "has_build_log", log);
    set_own(m, "build_log", log ? code_block(rc, vr->build_log) : xstrdup(""));

    struct tpl_value *cases = tpl_set_list(m, "cases");
    bool transfer = false, notes = false;
    int h_pass = 0, h_fail = 0, h_skip = 0, h_total = 0;
    for (size_t c = 0; c < vr->n_cases; c++) {
        const struct case_result *cr = &vr->cases[c];
        if (!case_visible(rc, cr)) {
            h_total++;
            h_pass += cr->verdict == V_PASS;
            h_fail += verdict_is_failure(cr->verdict);
            h_skip += cr->verdict != V_PASS && !verdict_is_failure(cr->verdict);
            continue;
        }
        transfer |= cr->time_transfer.valid;
        tpl_push(cases, case_value(rc, cr));
        notes |= case_has_notes(cr);
    }
    tpl_set_bool(m, "has_cases", tpl_list_len(cases) > 0);
    tpl_set_bool(m, "has_transfer", transfer);
    tpl_set_bool(m, "has_notes", notes);
    tpl_set_bool(m, "has_hidden_summary", h_total > 0);
    tpl_set_num(m, "hidden_total", h_total);
    tpl_set_num(m, "hidden_passed", h_pass);
    tpl_set_num(m, "hidden_failed", h_fail);
    tpl_set_num(m, "hidden_skipped", h_skip);
    add_sanitizer_runs(rc, vr, m);
    return m;
}

/* ------------------------------------------------------------------------ */
/* Case identities across the variants of an exercise                       */

struct case_key {
    const char *id;
    const char *sizes;
};

/* Visible case ids of an exercise in order of first appearance. Caller frees the array. */
static size_t exercise_cases(const struct report_ctx *rc, const struct exercise_result *ex,
                             struct case_key **out)
{
    struct case_key *keys = NULL;
    size_t n = 0, alloc = 0;
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        for (size_t c = 0; c < vr->n_cases; c++) {
            const struct case_result *cr = &vr->cases[c];
            if (!case_visible(rc, cr) || !cr->case_id)
                continue;
            bool seen = false;
            for (size_t k = 0; k < n && !seen; k++)
                seen = !strcmp(keys[k].id, cr->case_id);
            if (seen)
                continue;
            ALLOC_GROW(keys, n + 1, alloc);
            keys[n].id = cr->case_id;
            keys[n].sizes = cr->sizes ? cr->sizes : "";
            n++;
        }
    }
    *out = keys;
    return n;
}

static const struct case_result *find_case(const struct report_ctx *rc,
                                           const struct variant_result *vr, const char *id)
{
    for (size_t c = 0; c < vr->n_cases; c++)
        if (vr->cases[c].case_id && !strcmp(vr->cases[c].case_id, id) &&
            case_visible(rc, &vr->cases[c]))
            return &vr->cases[c];
    return NULL;
}

/* The CPU baseline time of a case: the same for every variant that measured it. */
static double case_baseline(const struct report_ctx *rc, const struct exercise_result *ex,
                            const char *id)
{
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct case_result *cr = find_case(rc, &ex->variants[v], id);
        if (cr && cr->baseline_ms > 0)
            return cr->baseline_ms;
    }
    return 0;
}

static const char *variant_title(const struct variant_result *vr)
{
    return vr->title && *vr->title ? vr->title : vr->variant_id ? vr->variant_id : "";
}

static bool variant_is_gpu(const struct variant_result *vr)
{
    return vr->target && !strcmp(vr->target, "gpu");
}

/* Whether some case of a variant was timed with its transfers too (a device variant). */
static bool has_transfer_times(const struct variant_result *vr)
{
    for (size_t c = 0; c < vr->n_cases; c++)
        if (vr->cases[c].time_transfer.valid)
            return true;
    return false;
}

/* ------------------------------------------------------------------------ */
/* Comparison tables (Método | Tiempo | Speedup vs CPU | Speedup vs ref.)   */

static void set_speedups(struct tpl_value *row, double vs_base, double vs_ref)
{
    set_own(row, "speedup_baseline", fmt_x(vs_base));
    set_own(row, "speedup_ref", fmt_x(vs_ref));
    tpl_set_bool(row, "has_speedup_baseline", vs_base > 0);
    tpl_set_bool(row, "has_speedup_ref", vs_ref > 0);
    tpl_set_bool(row, "faster", vs_base > 1);
    tpl_set_bool(row, "slower", vs_base > 0 && vs_base < 1);
    set_own(row, "slowdown", vs_base > 0 ? fmt_x(1 / vs_base) : xstrdup(NO_VALUE));
    tpl_set_bool(row, "faster_than_ref", vs_ref > 1);
    tpl_set_bool(row, "slower_than_ref", vs_ref > 0 && vs_ref < 1);
}

static struct tpl_value *comparison_row(struct tpl_value *rows, const char *method,
                                        const char *variant_id, double ms)
{
    struct tpl_value *row = tpl_push_map(rows);
    tpl_set_str(row, "method", method);
    tpl_set_str(row, "variant_id", variant_id ? variant_id : "");
    set_own(row, "time", fmt_ms(ms));
    tpl_set_bool(row, "is_baseline", false);
    tpl_set_bool(row, "with_transfer", false);
    tpl_set_bool(row, "without_transfer", false);
    tpl_set_bool(row, "has_overhead", false);
    tpl_set_md(row, "overhead", NO_VALUE);
    tpl_set_md(row, "factor", NO_VALUE);
    return row;
}

static void add_comparisons(const struct report_ctx *rc, const struct exercise_result *ex,
                            struct tpl_value *exv)
{
    struct tpl_value *list = tpl_set_list(exv, "comparisons");
    bool any_transfer = false;
    for (size_t v = 0; v < ex->n_variants; v++)
        for (size_t c = 0; c < ex->variants[v].n_cases; c++)
            any_transfer |= ex->variants[v].cases[c].time_transfer.valid;
    if (ex->n_variants < 2 && !any_transfer) {
        tpl_set_bool(exv, "has_comparisons", false);
        return;
    }
    struct case_key *keys;
    size_t n = exercise_cases(rc, ex, &keys);
    for (size_t k = 0; k < n; k++) {
        struct tpl_value *cmp = tpl_map();
        tpl_set_str(cmp, "case_id", keys[k].id);
        tpl_set_str(cmp, "sizes", keys[k].sizes);
        struct tpl_value *rows = tpl_set_list(cmp, "rows");
        double base = case_baseline(rc, ex, keys[k].id);
        if (base > 0) {
            struct tpl_value *row = comparison_row(rows, "", NULL, base);
            tpl_set_bool(row, "is_baseline", true);
            set_speedups(row, 1.0, 0);
        }
        size_t timed = 0;
        bool has_overhead = false;
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_result *vr = &ex->variants[v];
            const struct case_result *cr = find_case(rc, vr, keys[k].id);
            if (!cr || !cr->time.valid)
                continue;
            timed++;
            double t = cr->time.median_ms;
            bool is_transfer = variant_is_transfer(vr);
            if (cr->time_transfer.valid) {
                double tt = cr->time_transfer.median_ms;
                struct tpl_value *row = comparison_row(rows, variant_title(vr), vr->variant_id, tt);
                tpl_set_bool(row, "with_transfer", true);
                double ref = cr->ref_time_transfer.valid && tt > 0
                                 ? cr->ref_time_transfer.median_ms / tt
                                 : 0;
                set_speedups(row, base > 0 && tt > 0 ? base / tt : 0, ref);
                /* A copy's "with transfers" is a round trip: nothing to subtract. */
                bool overhead = t > 0 && !is_transfer;
                tpl_set_bool(row, "has_overhead", overhead);
                if (overhead) {
                    set_own(row, "overhead", fmt_ms(tt - t));
                    set_own(row, "factor", fmt_x(tt / t));
                }
                has_overhead |= overhead;
            }
            struct tpl_value *row = comparison_row(rows, variant_title(vr), vr->variant_id, t);
            tpl_set_bool(row, "without_transfer", cr->time_transfer.valid);
            double vs_base = cr->speedup_baseline > 0 ? cr->speedup_baseline
                             : base > 0 && t > 0      ? base / t
                                                      : 0;
            double vs_ref = cr->speedup_ref > 0           ? cr->speedup_ref
                            : cr->ref_time.valid && t > 0 ? cr->ref_time.median_ms / t
                                                          : 0;
            set_speedups(row, vs_base, vs_ref);
        }
        tpl_set_bool(cmp, "has_baseline", base > 0);
        tpl_set_bool(cmp, "has_overhead", has_overhead);
        if (timed == 0 || tpl_list_len(rows) < 2) {
            tpl_value_free(cmp);
            continue;
        }
        tpl_push(list, cmp);
    }
    free(keys);
    tpl_set_bool(exv, "has_comparisons", tpl_list_len(list) > 0);
}

/* ------------------------------------------------------------------------ */
/* Time-versus-size plots and break-even sizes                              */

/* The value of `key` in a sizes string such as "n=100000,m=100". */
static bool size_param(const char *sizes, const char *key, double *val)
{
    size_t klen = strlen(key);
    for (const char *p = sizes; p && *p;) {
        p += strspn(p, " ,;");
        const char *end = p + strcspn(p, ",;");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (eq) {
            const char *ks = p, *ke = eq;
            while (ke > ks && ke[-1] == ' ')
                ke--;
            if ((size_t)(ke - ks) == klen && !memcmp(ks, key, klen)) {
                char buf[64];
                const char *vs = eq + 1 + strspn(eq + 1, " ");
                size_t vlen = (size_t)(end - vs);
                while (vlen && vs[vlen - 1] == ' ')
                    vlen--;
                if (vlen == 0 || vlen >= sizeof(buf))
                    return false;
                memcpy(buf, vs, vlen);
                buf[vlen] = '\0';
                return parse_double(buf, val);
            }
        }
        p = end;
    }
    return false;
}

/* The i-th parameter name of a sizes string. Caller frees; NULL past the end. */
static char *size_param_name(const char *sizes, size_t i)
{
    size_t k = 0;
    for (const char *p = sizes; p && *p;) {
        p += strspn(p, " ,;");
        const char *end = p + strcspn(p, ",;");
        const char *eq = memchr(p, '=', (size_t)(end - p));
        if (eq && eq > p) {
            if (k++ == i) {
                const char *ke = eq;
                while (ke > p && ke[-1] == ' ')
                    ke--;
                return xstrndup(p, (size_t)(ke - p));
            }
        }
        p = end;
    }
    return NULL;
}

/* The first size parameter that every key has and whose value varies. Caller frees. */
static char *varying_param(const struct case_key *keys, size_t n)
{
    if (n < 2)
        return NULL;
    for (size_t i = 0;; i++) {
        char *name = size_param_name(keys[0].sizes, i);
        if (!name)
            return NULL;
        bool all = true, varies = false;
        double first = 0, v;
        for (size_t k = 0; k < n && all; k++) {
            all = size_param(keys[k].sizes, name, &v);
            if (k == 0)
                first = v;
            else
                varies |= v != first;
        }
        if (all && varies)
            return name;
        free(name);
    }
}

static const char *exercise_title(const struct exercise_result *ex)
{
    return ex->title && *ex->title ? ex->title : ex->exercise_id ? ex->exercise_id : "";
}

/* The CPU curve a GPU's break-even is measured against: the CPU baseline, else a CPU variant. */
static bool cpu_time(const struct report_ctx *rc, const struct exercise_result *ex,
                     bool use_baseline, const char *id, double *ms)
{
    if (use_baseline) {
        *ms = case_baseline(rc, ex, id);
        return *ms > 0;
    }
    for (size_t v = 0; v < ex->n_variants; v++) {
        if (variant_is_gpu(&ex->variants[v]))
            continue;
        const struct case_result *cr = find_case(rc, &ex->variants[v], id);
        if (cr && cr->time.valid) {
            *ms = cr->time.median_ms;
            return true;
        }
        return false; /* only the first CPU variant is the curve */
    }
    return false;
}

static void add_plot(struct report_ctx *rc, const struct exercise_result *ex, struct tpl_value *exv)
{
    struct tpl_value *pv = tpl_set_map(exv, "plot");
    struct tpl_value *bl = tpl_set_list(pv, "break_evens");
    tpl_set_bool(exv, "has_plot", false);
    tpl_set_bool(pv, "made", false);
    tpl_set_bool(pv, "no_gnuplot", false);
    tpl_set_bool(pv, "failed", false);
    tpl_set_str(pv, "note", "");
    tpl_set_md(pv, "path", "");
    tpl_set_str(pv, "param", "");
    tpl_set_bool(pv, "has_break_evens", false);

    /* Cases with at least one time (or a baseline time) are the points. */
    struct case_key *all, *keys;
    size_t n_all = exercise_cases(rc, ex, &all), n = 0;
    keys = xcalloc(n_all ? n_all : 1, sizeof(*keys));
    for (size_t k = 0; k < n_all; k++) {
        bool timed = case_baseline(rc, ex, all[k].id) > 0;
        for (size_t v = 0; v < ex->n_variants && !timed; v++) {
            const struct case_result *cr = find_case(rc, &ex->variants[v], all[k].id);
            timed = cr && cr->time.valid;
        }
        if (timed)
            keys[n++] = all[k];
    }
    free(all);
    char *param = varying_param(keys, n);
    if (!param) {
        free(keys);
        return;
    }
    double *xs = xcalloc(n, sizeof(double));
    for (size_t k = 0; k < n; k++)
        size_param(keys[k].sizes, param, &xs[k]);

    struct plot_fig fig;
    plot_fig_init(&fig);
    fig.logx = fig.logy = true;
    fig.xlabel = phrase(&rc->strings, false, "plot.xlabel", "param", param, NULL);
    fig.ylabel = phrase(&rc->strings, false, "plot.ylabel", NULL);

    size_t n_base = 0;
    for (size_t k = 0; k < n; k++)
        n_base += case_baseline(rc, ex, keys[k].id) > 0;
    if (n_base) {
        char *t = phrase(&rc->strings, false, "plot.baseline", NULL);
        struct plot_series *s = plot_fig_add_series(&fig, t, PLOT_LINES);
        free(t);
        s->color = -1;
        s->bold = true;
        s->point_type = 9;
        for (size_t k = 0; k < n; k++) {
            double b = case_baseline(rc, ex, keys[k].id);
            if (b > 0)
                plot_series_add(s, xs[k], b);
        }
    }
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        const char *title = variant_title(vr);
        bool has_transfer = false;
        for (size_t c = 0; c < vr->n_cases; c++)
            has_transfer |= vr->cases[c].time_transfer.valid;
        for (int kind = 0; kind < 3; kind++) {
            const char *const keys_of_kind[] = {has_transfer ? "plot.no_transfer" : "plot.variant",
                                                "plot.transfer", "plot.reference"};
            size_t points = 0;
            for (size_t k = 0; k < n; k++) {
                const struct case_result *cr = find_case(rc, vr, keys[k].id);
                const struct timing *t = !cr         ? NULL
                                         : kind == 0 ? &cr->time
                                         : kind == 1 ? &cr->time_transfer
                                                     : &cr->ref_time;
                points += t && t->valid;
            }
            if (!points)
                continue;
            char *t = phrase(&rc->strings, false, keys_of_kind[kind], "variant", title, NULL);
            struct plot_series *s = plot_fig_add_series(&fig, t, PLOT_LINES);
            free(t);
            s->color = (int)v;
            s->dashed = kind == 2;
            s->point_type = kind == 0 ? 7 : kind == 1 ? 5 : 6;
            for (size_t k = 0; k < n; k++) {
                const struct case_result *cr = find_case(rc, vr, keys[k].id);
                const struct timing *tm = !cr         ? NULL
                                          : kind == 0 ? &cr->time
                                          : kind == 1 ? &cr->time_transfer
                                                      : &cr->ref_time;
                if (tm && tm->valid)
                    plot_series_add(s, xs[k], tm->median_ms);
            }
        }
    }

    /*
     * Break-even of each GPU variant against the CPU curve: with its transfers and,
     * where it has both times, also without them (the call alone).
     */
    bool use_baseline = n_base >= 2;
    double *ga = xcalloc(n, sizeof(double)), *cb = xcalloc(n, sizeof(double));
    double *gx = xcalloc(n, sizeof(double));
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        if (!variant_is_gpu(vr))
            continue;
        bool both = has_transfer_times(vr);
        for (int pass = 0; pass < (both ? 2 : 1); pass++) {
            bool with_transfer = both && pass == 0;
            size_t m = 0;
            for (size_t k = 0; k < n; k++) {
                const struct case_result *cr = find_case(rc, vr, keys[k].id);
                double cpu;
                if (!cr || !cpu_time(rc, ex, use_baseline, keys[k].id, &cpu))
                    continue;
                const struct timing *t = with_transfer ? &cr->time_transfer : &cr->time;
                if (!t->valid)
                    continue;
                gx[m] = xs[k];
                ga[m] = t->median_ms;
                cb[m] = cpu;
                m++;
            }
            double size = 0;
            enum break_even kind = plot_break_even(gx, ga, cb, m, &size);
            if (kind == BREAK_EVEN_NO_DATA)
                continue;
            struct tpl_value *be = tpl_push_map(bl);
            char *size_s = fmt_size(size);
            tpl_set_str(be, "variant", variant_title(vr));
            tpl_set_str(be, "variant_id", vr->variant_id);
            tpl_set_str(be, "param", param);
            tpl_set_bool(be, "with_transfer", with_transfer);
            tpl_set_bool(be, "without_transfer", both && !with_transfer);
            tpl_set_bool(be, "found", kind == BREAK_EVEN_FOUND);
            tpl_set_bool(be, "gpu_faster", kind == BREAK_EVEN_A_FASTER);
            tpl_set_bool(be, "gpu_slower", kind == BREAK_EVEN_A_SLOWER);
            tpl_set_bool(be, "vs_baseline", use_baseline);
            tpl_set_md(be, "size", kind == BREAK_EVEN_FOUND ? size_s : NO_VALUE);
            if (kind == BREAK_EVEN_FOUND) {
                const char *key = with_transfer            ? "plot.break_even_transfer"
                                  : both && !with_transfer ? "plot.break_even_no_transfer"
                                                           : "plot.break_even";
                char *label = phrase(&rc->strings, false, key, "variant", variant_title(vr),
                                     "param", param, "size", size_s, NULL);
                plot_fig_add_marker(&fig, size, label);
                free(label);
            }
            free(size_s);
        }
    }
    free(gx);
    free(ga);
    free(cb);
    tpl_set_bool(pv, "has_break_evens", tpl_list_len(bl) > 0);

    tpl_set_bool(exv, "has_plot", true);
    tpl_set_str(pv, "param", param);
    tpl_set_str(pv, "title", exercise_title(ex));
    char *name = unique_plot_name(rc, ex->exercise_id);
    struct plot_result pr;
    plot_render(&fig, rc->plots_dir, name, &pr);
    set_plot_result(rc, pv, &pr, name);
    free(name);
    plot_fig_release(&fig);
    free(xs);
    free(param);
    free(keys);
}

/* ------------------------------------------------------------------------ */
/* The lab's hand-in table: when the GPU pays off against the CPU baseline   */

/* The speedup the table looks for, and the size it reports the speedup at (the seed's). */
#define SPEEDUP_GOAL 2.0
#define SPEEDUP_AT_SIZE 1e6

struct sized_case {
    const char *id;
    double x;
};

static int by_size(const void *pa, const void *pb)
{
    const struct sized_case *a = pa, *b = pb;
    return (a->x > b->x) - (a->x < b->x);
}

/*
 * One row per GPU method (a variant with its transfers, and without them where it
 * has both times): the smallest size whose speedup over the CPU baseline exceeds
 * SPEEDUP_GOAL, and the speedup at SPEEDUP_AT_SIZE. Passing cases only: the speed
 * of a wrong answer is no result. Applies when the exercise has a GPU variant and
 * a CPU baseline at two or more sizes.
 */
static void add_speedup_rows(const struct report_ctx *rc, const struct exercise_result *ex,
                             struct tpl_value *list)
{
    bool gpu = false;
    for (size_t v = 0; v < ex->n_variants; v++)
        gpu |= variant_is_gpu(&ex->variants[v]);
    if (!gpu)
        return;
    struct case_key *all;
    size_t n_all = exercise_cases(rc, ex, &all), n = 0;
    struct case_key *keys = xcalloc(n_all ? n_all : 1, sizeof(*keys));
    for (size_t k = 0; k < n_all; k++)
        if (case_baseline(rc, ex, all[k].id) > 0)
            keys[n++] = all[k];
    free(all);
    char *param = varying_param(keys, n);
    if (!param) {
        free(keys);
        return;
    }
    struct sized_case *sc = xcalloc(n, sizeof(*sc));
    for (size_t k = 0; k < n; k++) {
        sc[k].id = keys[k].id;
        size_param(keys[k].sizes, param, &sc[k].x);
    }
    qsort(sc, n, sizeof(*sc), by_size);
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        if (!variant_is_gpu(vr))
            continue;
        bool both = has_transfer_times(vr);
        for (int pass = 0; pass < (both ? 2 : 1); pass++) {
            bool with_transfer = both && pass == 0;
            const struct sized_case *first = NULL;
            double first_speedup = 0, at_size = 0, largest = 0;
            size_t measured = 0;
            for (size_t k = 0; k < n; k++) {
                const struct case_result *cr = find_case(rc, vr, sc[k].id);
                double base = case_baseline(rc, ex, sc[k].id);
                if (!cr || cr->verdict != V_PASS)
                    continue;
                const struct timing *t = with_transfer ? &cr->time_transfer : &cr->time;
                if (!t->valid || !(t->median_ms > 0))
                    continue;
                /* The paired speedup where grading measured one, as in the comparisons. */
                double speedup = !with_transfer && cr->speedup_baseline > 0 ? cr->speedup_baseline
                                                                            : base / t->median_ms;
                measured++;
                largest = sc[k].x;
                if (!first && speedup > SPEEDUP_GOAL) {
                    first = &sc[k];
                    first_speedup = speedup;
                }
                if (fabs(sc[k].x - SPEEDUP_AT_SIZE) < 0.5)
                    at_size = speedup;
            }
            if (!measured)
                continue;
            struct tpl_value *row = tpl_push_map(list);
            tpl_set_str(row, "exercise", ex->exercise_id);
            tpl_set_str(row, "exercise_title", exercise_title(ex));
            tpl_set_str(row, "method", variant_title(vr));
            tpl_set_str(row, "variant_id", vr->variant_id);
            tpl_set_bool(row, "with_transfer", with_transfer);
            tpl_set_bool(row, "without_transfer", both && !with_transfer);
            tpl_set_str(row, "param", param);
            tpl_set_bool(row, "found", first != NULL);
            set_own(row, "min_size", first ? xstrfmt("%.0f", first->x) : xstrdup(NO_VALUE));
            tpl_set_str(row, "min_case", first ? first->id : "");
            set_own(row, "min_speedup", fmt_x(first_speedup));
            set_own(row, "max_size", xstrfmt("%.0f", largest));
            tpl_set_bool(row, "has_at_size", at_size > 0);
            set_own(row, "at_size", fmt_x(at_size));
        }
    }
    free(sc);
    free(param);
    free(keys);
}

/* ------------------------------------------------------------------------ */
/* Pinned against pageable host memory                                      */

/*
 * For each pair of GPU variants that differ only in pageable against pinned host
 * memory: per case, the pageable time over the pinned time (the calls alone).
 */
static void add_pinned_factors(const struct report_ctx *rc, const struct exercise_result *ex,
                               struct tpl_value *exv)
{
    struct tpl_value *list = tpl_set_list(exv, "pinned_pairs");
    struct case_key *keys;
    size_t n = exercise_cases(rc, ex, &keys);
    for (size_t i = 0; i < ex->n_variants; i++) {
        for (size_t j = i + 1; j < ex->n_variants; j++) {
            const struct variant_result *a = &ex->variants[i], *b = &ex->variants[j];
            if (!variant_is_gpu(a) || !variant_is_gpu(b))
                continue;
            int which = pageable_pinned_pair(a, b);
            if (!which)
                continue;
            const struct variant_result *pageable = which > 0 ? a : b;
            const struct variant_result *pinned = which > 0 ? b : a;
            struct tpl_value *pair = tpl_map();
            tpl_set_str(pair, "pageable", variant_title(pageable));
            tpl_set_str(pair, "pageable_id", pageable->variant_id);
            tpl_set_str(pair, "pinned", variant_title(pinned));
            tpl_set_str(pair, "pinned_id", pinned->variant_id);
            struct tpl_value *cases = tpl_set_list(pair, "cases");
            for (size_t k = 0; k < n; k++) {
                const struct case_result *pc = find_case(rc, pageable, keys[k].id);
                const struct case_result *fc = find_case(rc, pinned, keys[k].id);
                if (!pc || !fc || !pc->time.valid || !fc->time.valid || !(fc->time.median_ms > 0))
                    continue;
                struct tpl_value *cv = tpl_push_map(cases);
                tpl_set_str(cv, "id", keys[k].id);
                tpl_set_str(cv, "sizes", keys[k].sizes);
                set_own(cv, "pageable_time", fmt_timing(&pc->time));
                set_own(cv, "pinned_time", fmt_timing(&fc->time));
                set_own(cv, "pageable_gbps",
                        pc->gbps > 0 ? xstrfmt("%.1f", pc->gbps) : xstrdup(NO_VALUE));
                set_own(cv, "pinned_gbps",
                        fc->gbps > 0 ? xstrfmt("%.1f", fc->gbps) : xstrdup(NO_VALUE));
                set_own(cv, "factor", fmt_x(pc->time.median_ms / fc->time.median_ms));
            }
            if (tpl_list_len(cases) == 0) {
                tpl_value_free(pair);
                continue;
            }
            tpl_push(list, pair);
        }
    }
    free(keys);
    tpl_set_bool(exv, "has_pinned_pairs", tpl_list_len(list) > 0);
}

/* ------------------------------------------------------------------------ */
/* What cost points                                                         */

static void add_lost(const struct report_ctx *rc, const struct exercise_result *ex,
                     const struct variant_result *vr, struct tpl_value *lost,
                     struct tpl_value *grader)
{
    int hidden_failed = 0;
    double hidden_lost = 0;
    for (size_t c = 0; c < vr->n_cases;) {
        const struct case_result *cr = &vr->cases[c];
        bool fail = verdict_is_failure(cr->verdict), gerr = cr->verdict == V_GRADER;
        if (!case_visible(rc, cr)) {
            if (fail) {
                hidden_failed++;
                hidden_lost += cr->max_points - cr->points;
            }
            c++;
            continue;
        }
        if (!fail && !gerr) {
            c++;
            continue;
        }
        /* Consecutive cases that failed the same way are one line ("does not compile"). */
        size_t end = c + 1;
        double lost_points = cr->max_points - cr->points;
        struct strbuf ids = STRBUF_INIT;
        strbuf_addstr(&ids, cr->case_id ? cr->case_id : "");
        while (end < vr->n_cases) {
            const struct case_result *nx = &vr->cases[end];
            if (!case_visible(rc, nx) || nx->verdict != cr->verdict ||
                strcmp(nx->message ? nx->message : "", cr->message ? cr->message : ""))
                break;
            strbuf_addf(&ids, ", %s", nx->case_id ? nx->case_id : "");
            lost_points += nx->max_points - nx->points;
            end++;
        }
        struct tpl_value *item = tpl_push_map(gerr ? grader : lost);
        tpl_set_str(item, "exercise", ex->exercise_id);
        tpl_set_str(item, "exercise_title", exercise_title(ex));
        tpl_set_str(item, "variant", vr->variant_id);
        tpl_set_str(item, "variant_title", variant_title(vr));
        tpl_set_str(item, "cases", strbuf_str(&ids));
        tpl_set_num(item, "count", (double)(end - c));
        tpl_set_bool(item, "several", end - c > 1);
        set_verdict(rc, item, cr->verdict);
        char *msg = esc_first_line(cr->message, MESSAGE_CHARS);
        tpl_set_str(item, "message", msg);
        tpl_set_bool(item, "has_message", *msg != '\0');
        free(msg);
        tpl_set_bool(item, "hidden", false);
        tpl_set_bool(item, "has_lost_points", lost_points > 0);
        set_own(item, "lost_points", fmt_points(lost_points));
        strbuf_release(&ids);
        c = end;
    }
    if (hidden_failed) {
        struct tpl_value *item = tpl_push_map(lost);
        tpl_set_str(item, "exercise", ex->exercise_id);
        tpl_set_str(item, "exercise_title", exercise_title(ex));
        tpl_set_str(item, "variant", vr->variant_id);
        tpl_set_str(item, "variant_title", variant_title(vr));
        tpl_set_str(item, "cases", "");
        tpl_set_num(item, "count", hidden_failed);
        tpl_set_bool(item, "several", hidden_failed > 1);
        tpl_set_md(item, "verdict", "");
        tpl_set_str(item, "verdict_code", "");
        tpl_set_str(item, "message", "");
        tpl_set_bool(item, "has_message", false);
        tpl_set_bool(item, "hidden", true);
        tpl_set_bool(item, "has_lost_points", hidden_lost > 0);
        set_own(item, "lost_points", fmt_points(hidden_lost));
    }
}

/* ------------------------------------------------------------------------ */
/* The whole per-submission context                                         */

/* The SM clocks of some timed runs, summed up: the range read, the highest maximum, the samples
 * dropped and the runs that throttled throughout. */
struct clock_tally {
    int lo, hi, limit, dropped, throttled;
};

/* Adds a case's two runs (the function's and the reference's); whether either lost samples to
 * throttling. */
static bool clock_tally_add(struct clock_tally *t, const struct case_result *cr)
{
    const struct gpu_clock *k[2] = {&cr->clock, &cr->ref_clock};
    bool hit = false;
    for (int i = 0; i < 2; i++) {
        if (k[i]->max_mhz > 0) {
            t->lo = t->lo == 0 || k[i]->min_mhz < t->lo ? k[i]->min_mhz : t->lo;
            t->hi = k[i]->max_mhz > t->hi ? k[i]->max_mhz : t->hi;
        }
        t->limit = k[i]->limit_mhz > t->limit ? k[i]->limit_mhz : t->limit;
        t->dropped += k[i]->dropped;
        t->throttled += k[i]->throttled;
        hit = hit || k[i]->dropped > 0 || k[i]->throttled;
    }
    return hit;
}

/* The range and maximum as both templates name them; nothing where no clock was read. */
static void set_clock_range(struct tpl_value *m, const struct clock_tally *t)
{
    if (t->hi == 0)
        return;
    tpl_set_num(m, "gpu_clock_min", t->lo);
    tpl_set_num(m, "gpu_clock_max", t->hi);
    tpl_set_num(m, "gpu_clock_limit", t->limit);
    tpl_set_bool(m, "has_gpu_clock_limit", t->limit > 0);
    tpl_set_num(m, "throttle_threshold_pct", (int)(LG_THROTTLE_THRESHOLD * 100 + 0.5));
}

/* The report's timing line: the clocks over every timed run of the submission and of the
 * references it was compared with. */
static void set_gpu_clock(struct tpl_value *m, const struct results *r)
{
    struct clock_tally t = {0};
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r->exercises[e].variants[v];
            for (size_t c = 0; c < vr->n_cases; c++)
                clock_tally_add(&t, &vr->cases[c]);
        }
    tpl_set_bool(m, "gpu_clock", t.hi > 0);
    set_clock_range(m, &t);
    tpl_set_num(m, "gpu_clock_dropped", t.dropped);
    tpl_set_bool(m, "has_gpu_clock_dropped", t.dropped > 0);
    tpl_set_bool(m, "gpu_clock_throttled", t.throttled > 0);
}

static void set_header(struct tpl_value *m, const struct results *r)
{
    tpl_set_str(m, "course", r->course);
    tpl_set_str(m, "lab_id", r->lab_id);
    tpl_set_num(m, "lab_number", (double)r->lab_number);
    tpl_set_str(m, "lab_title", r->lab_title);
    char *name = esc_clip(r->student_name, NAME_CHARS), *id = esc_clip(r->student_id, NAME_CHARS);
    tpl_set_str(m, "student_name", name);
    tpl_set_str(m, "student_id", id);
    free(name);
    free(id);
    tpl_set_str(m, "submission", r->submission);
    char hash[13];
    snprintf(hash, sizeof(hash), "%s", r->submission_hash ? r->submission_hash : "");
    tpl_set_str(m, "submission_hash", hash);
    tpl_set_str(m, "grader_version", r->grader_version);
    tpl_set_str(m, "date", r->date);
    tpl_set_str(m, "mode", r->mode);
    tpl_set_bool(m, "grade_mode", r->mode && !strcmp(r->mode, "grade"));
    tpl_set_str(m, "isolation", r->isolation);
    /* sandbox.h's isolation_name() says "bwrap"; older results said "bubblewrap". */
    tpl_set_bool(m, "isolation_bubblewrap",
                 r->isolation &&
                     (!strcmp(r->isolation, "bwrap") || !strcmp(r->isolation, "bubblewrap")));
    tpl_set_str(m, "timing_mode", r->timing_mode);
    tpl_set_bool(m, "timing_warm", r->timing_mode && !strcmp(r->timing_mode, "warm"));
    tpl_set_bool(m, "timing_cold", r->timing_mode && !strcmp(r->timing_mode, "cold-l2"));
    tpl_set_bool(m, "timing_blocking", r->timing_blocking);
    set_gpu_clock(m, r);
    tpl_set_bool(m, "full", r->full);
    tpl_set_bool(m, "hidden_included", r->hidden);
    tpl_set_bool(m, "show_hidden", r->show_hidden);

    const struct machine_info *mi = &r->machine;
    struct tpl_value *mm = tpl_set_map(m, "machine");
    tpl_set_str(mm, "hostname", mi->hostname);
    tpl_set_str(mm, "cpu_model", mi->cpu_model);
    tpl_set_num(mm, "cpu_threads", mi->cpu_threads);
    tpl_set_bool(mm, "has_gpu", mi->gpu_name && *mi->gpu_name);
    tpl_set_str(mm, "gpu_name", mi->gpu_name);
    tpl_set_str(mm, "gpu_cc", mi->gpu_cc);
    tpl_set_num(mm, "gpu_memory_mib", (double)mi->gpu_memory_mib);
    tpl_set_str(mm, "driver_version", mi->driver_version);
    tpl_set_str(mm, "cuda_runtime_version", mi->cuda_runtime_version);
    tpl_set_str(mm, "gpu_status", mi->gpu_status);
    tpl_set_str(mm, "calibration", mi->calibration);
    tpl_set_bool(mm, "gpu_available", mi->gpu_status && !strcmp(mi->gpu_status, "available"));
    tpl_set_str(mm, "cc_version", mi->cc_version);
    tpl_set_str(mm, "nvcc_version", mi->nvcc_version);
    tpl_set_bool(mm, "has_nvcc", has_text(mi->nvcc_version));
    tpl_set_str(mm, "cflags", mi->cflags);
    tpl_set_str(mm, "nvccflags", mi->nvccflags);
    tpl_set_bool(mm, "has_nvccflags", has_text(mi->nvccflags));
}

static struct tpl_value *student_context(struct report_ctx *rc, const struct results *r)
{
    struct tpl_value *m = tpl_map();
    set_header(m, r);
    tpl_set_str(m, "lang", rc->lang);
    tpl_set_bool(m, "student_view", rc->hide_hidden);
    set_own(m, "score", fmt_points(r->score));
    set_own(m, "max_score", fmt_points(r->max_score));
    set_own(m, "score_pct", fmt_pct(r->score, r->max_score));
    tpl_set_num(m, "n_pass", r->n_pass);
    tpl_set_num(m, "n_fail", r->n_fail);
    tpl_set_num(m, "n_skipped", r->n_skipped);
    tpl_set_num(m, "n_grader_errors", r->n_grader_errors);
    tpl_set_bool(m, "has_skipped", r->n_skipped > 0);
    tpl_set_bool(m, "has_grader_errors", r->n_grader_errors > 0);

    struct tpl_value *exs = tpl_set_list(m, "exercises");
    struct tpl_value *lost = tpl_set_list(m, "lost");
    struct tpl_value *grader = tpl_set_list(m, "grader_errors");
    struct tpl_value *speedups = tpl_set_list(m, "speedup_table");
    bool any_perf = false;
    for (size_t e = 0; e < r->n_exercises; e++) {
        const struct exercise_result *ex = &r->exercises[e];
        struct tpl_value *exv = tpl_push_map(exs);
        tpl_set_str(exv, "id", ex->exercise_id);
        tpl_set_str(exv, "title", exercise_title(ex));
        set_own(exv, "points", fmt_points(ex->points));
        set_own(exv, "max_points", fmt_points(ex->max_points));
        set_own(exv, "perf_points", fmt_points(ex->perf_points));
        set_own(exv, "perf_max_points", fmt_points(ex->perf_max_points));
        tpl_set_bool(exv, "has_perf", ex->perf_max_points > 0);
        tpl_set_bool(exv, "full_marks", ex->max_points > 0 && ex->points >= ex->max_points);
        tpl_set_str(exv, "tol_summary", ex->tol_summary);
        tpl_set_bool(exv, "has_tol", has_text(ex->tol_summary));
        tpl_set_bool(exv, "multi_variant", ex->n_variants > 1);
        any_perf |= ex->perf_max_points > 0;
        struct tpl_value *vs = tpl_set_list(exv, "variants");
        for (size_t v = 0; v < ex->n_variants; v++) {
            tpl_push(vs, variant_value(rc, &ex->variants[v]));
            add_lost(rc, ex, &ex->variants[v], lost, grader);
        }
        add_comparisons(rc, ex, exv);
        add_plot(rc, ex, exv);
        add_pinned_factors(rc, ex, exv);
        add_speedup_rows(rc, ex, speedups);
    }
    tpl_set_bool(m, "has_speedup_table", tpl_list_len(speedups) > 0);
    set_own(m, "speedup_goal", fmt_points(SPEEDUP_GOAL));
    set_own(m, "speedup_at_size", xstrfmt("%.0f", SPEEDUP_AT_SIZE));
    tpl_set_bool(m, "any_perf", any_perf);
    tpl_set_bool(m, "has_lost", tpl_list_len(lost) > 0);
    tpl_set_bool(m, "has_grader_error_items", tpl_list_len(grader) > 0);
    return m;
}

/* ------------------------------------------------------------------------ */
/* Rendering, writing, PDF                                                  */

static int render_file(const struct report_ctx *rc, const char *template_name,
                       const struct tpl_value *ctx, struct strbuf *out, struct error *err)
{
    char *path = path_join(rc->lang_dir, template_name);
    struct template t;
    template_init(&t);
    int res = template_load(&t, path, err);
    if (res == 0) {
        struct tpl_render_opts ro = {md_escape, true};
        res = template_render(&t, ctx, &ro, out, err);
    }
    template_release(&t);
    free(path);
    return res;
}

/* Copy at most size-1 bytes, cutting at a character boundary. */
static void copy_note(char *dst, size_t size, const char *src)
{
    char *clip = esc_clip(src, size / 4);
    size_t n = strlen(clip);
    if (n >= size)
        n = size - 1;
    memcpy(dst, clip, n);
    dst[n] = '\0';
    free(clip);
}

/* The line of pandoc's or LaTeX's output that says what went wrong. */
static char *pdf_failure_line(const char *output)
{
    const char *best = NULL;
    for (const char *p = output; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool latex_error = len > 1 && p[0] == '!';
        bool error_word = memmem(p, len, "rror", 4) != NULL;
        if (latex_error || (error_word && !best))
            best = p;
        if (latex_error)
            break;
        p = nl ? nl + 1 : NULL;
    }
    if (!best) {
        /* the last non-empty line */
        for (const char *p = output; p && *p;) {
            const char *nl = strchr(p, '\n');
            if (p[strspn(p, " \t\r\n")] != '\0' && (!nl || nl > p))
                best = p;
            p = nl ? nl + 1 : NULL;
        }
    }
    return esc_first_line(best ? best : "", 400);
}

int report_make_pdf(const char *md_path, const char *pdf_path, const char *templates_dir,
                    const char *lang, char *note, size_t note_size)
{
    note[0] = '\0';
    char *pandoc = find_program("pandoc");
    if (!pandoc) {
        copy_note(note, note_size,
                  "pandoc not found: install it with 'sudo apt-get install pandoc texlive-xetex "
                  "texlive-latex-recommended texlive-fonts-recommended fonts-dejavu-core'");
        return -1;
    }
    char *xelatex = find_program("xelatex");
    if (!xelatex) {
        free(pandoc);
        copy_note(note, note_size,
                  "xelatex not found: install it with 'sudo apt-get install texlive-xetex "
                  "texlive-latex-recommended texlive-fonts-recommended fonts-dejavu-core'");
        return -1;
    }
    struct error err;
    error_init(&err);
    int rc = -1;
    char *md_abs = path_abs(md_path, &err);
    char *tmp = NULL, *out_pdf = NULL, *engine = NULL, *resources = NULL, *defaults = NULL,
         *header = NULL, *lang_var = NULL, *path_env = NULL;
    struct sandbox_result sr;
    sandbox_result_init(&sr);
    if (!md_abs) {
        copy_note(note, note_size, err.msg);
        goto out;
    }
    const char *tmpdir = getenv("TMPDIR");
    tmp = xstrfmt("%s/lg-pdf-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (!mkdtemp(tmp)) {
        char msg[512];
        snprintf(msg, sizeof(msg), "cannot make a temporary folder: %s", strerror(errno));
        copy_note(note, note_size, msg);
        free(tmp);
        tmp = NULL;
        goto out;
    }
    out_pdf = path_join(tmp, "report.pdf");
    engine = xstrfmt("--pdf-engine=%s", xelatex);
    /* The folder of the Markdown, for the plots it links to (plots/x.png). */
    char *md_dir = xstrdup(md_abs);
    char *slash = strrchr(md_dir, '/');
    if (slash)
        *slash = '\0';
    resources = xstrfmt("--resource-path=%s", *md_dir ? md_dir : "/");
    free(md_dir);
    const char *argv[16];
    size_t a = 0;
    argv[a++] = pandoc;
    if (templates_dir) {
        char *d = xstrfmt("%s/pandoc/defaults.yaml", templates_dir);
        char *h = xstrfmt("%s/pandoc/header.tex", templates_dir);
        if (file_exists(d))
            defaults = path_abs(d, &err);
        if (file_exists(h))
            header = path_abs(h, &err);
        free(d);
        free(h);
    }
    char *defaults_arg = defaults ? xstrfmt("--defaults=%s", defaults) : NULL;
    char *header_arg = header ? xstrfmt("--include-in-header=%s", header) : NULL;
    if (defaults_arg)
        argv[a++] = defaults_arg;
    /* After the defaults, so that no defaults file can turn raw TeX back on. */
    argv[a++] = REPORT_PANDOC_FROM;
    argv[a++] = engine;
    argv[a++] = resources;
    if (header_arg)
        argv[a++] = header_arg;
    if (lang && lang_is_safe(lang)) {
        lang_var = xstrfmt("--variable=lang:%s", lang);
        argv[a++] = lang_var;
    }
    argv[a++] = "--output";
    argv[a++] = out_pdf;
    argv[a++] = md_abs;
    argv[a] = NULL;

    const char *path = getenv("PATH");
    path_env = xstrfmt("PATH=%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
    const char *env[] = {path_env, NULL};
    struct sandbox_opts so;
    sandbox_opts_init(&so);
    so.argv = argv;
    so.workdir = tmp;
    so.env = env;
    so.wall_limit_s = REPORT_PDF_TIMEOUT_S;
    so.isolation = ISOLATION_SUPERVISOR;
    so.output_cap = 256 * 1024;
    int st = sandbox_run(&so, &sr, &err);
    free(defaults_arg);
    free(header_arg);
    if (st != 0) {
        char msg[2300];
        snprintf(msg, sizeof(msg), "pandoc could not be started: %s", err.msg);
        copy_note(note, note_size, msg);
        goto out;
    }
    if (sr.status != SB_EXITED || sr.exit_code != 0 || !file_exists(out_pdf)) {
        char desc[256], msg[1024];
        sandbox_describe(&sr, desc, sizeof(desc));
        char *line = pdf_failure_line(sr.output);
        if (sr.status == SB_TIMEOUT)
            snprintf(msg, sizeof(msg), "pandoc timed out after %.0f s", REPORT_PDF_TIMEOUT_S);
        else
            snprintf(msg, sizeof(msg), "pandoc failed (%s)%s%s", desc, *line ? ": " : "", line);
        free(line);
        copy_note(note, note_size, msg);
        goto out;
    }
    struct strbuf pdf = STRBUF_INIT;
    if (read_file(out_pdf, &pdf, &err) != 0 ||
        write_file_atomic(pdf_path, pdf.buf, pdf.len, &err) != 0) {
        copy_note(note, note_size, err.msg);
        strbuf_release(&pdf);
        goto out;
    }
    strbuf_release(&pdf);
    rc = 0;
out:
    if (tmp)
        remove_tree(tmp, NULL);
    sandbox_result_release(&sr);
    free(tmp);
    free(out_pdf);
    free(engine);
    free(resources);
    free(defaults);
    free(header);
    free(lang_var);
    free(path_env);
    free(md_abs);
    free(pandoc);
    free(xelatex);
    return rc;
}

/* Write the Markdown, then try the PDF; only the Markdown (or a required PDF) can fail. */
static int write_outputs(const struct report_ctx *rc, const char *base, const struct strbuf *md,
                         struct report_outcome *out, struct error *err)
{
    char *md_name = xstrfmt("%s.md", base), *pdf_name = xstrfmt("%s.pdf", base);
    char *md_path = path_join(rc->outdir, md_name), *pdf_path = path_join(rc->outdir, pdf_name);
    int res = -1;
    snprintf(out->md_path, sizeof(out->md_path), "%s", md_path);
    if (write_file_atomic(md_path, md->buf ? md->buf : "", md->len, err) != 0)
        goto done;
    out->md_written = true;
    res = 0;
    if (!rc->o->pdf)
        goto done;
    if (report_make_pdf(md_path, pdf_path, rc->o->templates_dir, rc->lang, out->pdf_note,
                        sizeof(out->pdf_note)) == 0) {
        out->pdf_written = true;
        snprintf(out->pdf_path, sizeof(out->pdf_path), "%s", pdf_path);
        goto done;
    }
    /* An older PDF next to the new Markdown would show results that are gone. */
    unlink(pdf_path);
    if (rc->o->pdf_required) {
        error_set(err, "%s: no PDF: %s", pdf_path, out->pdf_note);
        res = -1;
    }
done:
    free(md_name);
    free(pdf_name);
    free(md_path);
    free(pdf_path);
    return res;
}

void report_opts_init(struct report_opts *o)
{
    o->lang = NULL;
    o->templates_dir = NULL;
    o->pdf = false;
    o->pdf_required = false;
    o->student_view = true;
}

int report_student(const struct results *r, const char *outdir, const struct report_opts *o,
                   struct report_outcome *out, struct error *err)
{
    memset(out, 0, sizeof(*out));
    struct report_ctx rc;
    if (ctx_open(&rc, o, r->lang, outdir, err) != 0) {
        ctx_release(&rc);
        return -1;
    }
    rc.hide_hidden = o->student_view && !r->show_hidden;
    if (mkdir_p(outdir, err) != 0) {
        ctx_release(&rc);
        return -1;
    }
    struct tpl_value *ctx = student_context(&rc, r);
    struct strbuf md = STRBUF_INIT;
    int res = render_file(&rc, "report.md", ctx, &md, err);
    if (res == 0)
        res = write_outputs(&rc, "report", &md, out, err);
    strbuf_release(&md);
    tpl_value_free(ctx);
    ctx_release(&rc);
    return res;
}

/* ------------------------------------------------------------------------ */
/* Class summary                                                            */

struct case_stat {
    const char *ex, *ex_title, *variant, *variant_title, *case_id, *sizes;
    int pass, fail, skipped, grader;
};

struct speed_stat {
    const char *ex, *variant, *variant_title;
    double *vs_ref, *vs_base; /* one geometric mean per student */
    size_t n_ref, n_base, alloc_ref, alloc_base;
};

struct place_count {
    char *where;
    int count;
};

struct verdict_stat {
    enum verdict v;
    int cases, students;
    struct place_count *places;
    size_t n_places, alloc_places;
};

static int by_student_id(const void *pa, const void *pb)
{
    const struct results *a = *(const struct results *const *)pa;
    const struct results *b = *(const struct results *const *)pb;
    return strcmp(a->student_id ? a->student_id : "", b->student_id ? b->student_id : "");
}

static void push_double(double **arr, size_t *n, size_t *alloc, double x)
{
    ALLOC_GROW(*arr, *n + 1, *alloc);
    (*arr)[(*n)++] = x;
}

static int by_place_count(const void *pa, const void *pb)
{
    const struct place_count *a = pa, *b = pb;
    if (a->count != b->count)
        return b->count - a->count;
    return strcmp(a->where, b->where);
}

/* A round bin width giving about ten bins or fewer: 1, 2, 2.5 or 5 times a power of ten. */
static double nice_bin_width(double max)
{
    double raw = max / 10, p = pow(10, floor(log10(raw)));
    static const double steps[] = {1, 2, 2.5, 5, 10};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
        if (steps[i] * p >= raw - 1e-12)
            return steps[i] * p;
    return 10 * p;
}

static void summary_scores(struct report_ctx *rc, const struct results *const *rs, size_t n,
                           struct tpl_value *m)
{
    double *scores = xcalloc(n ? n : 1, sizeof(double));
    double max_score = 0, sum = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        scores[i] = rs[i]->score;
        sum += scores[i];
        lo = fmin(lo, scores[i]);
        hi = fmax(hi, scores[i]);
        max_score = fmax(max_score, rs[i]->max_score);
    }
    set_own(m, "max_score", fmt_points(max_score));
    set_own(m, "mean", n ? fmt_points(sum / (double)n) : xstrdup(NO_VALUE));
    set_own(m, "median", n ? fmt_points(median_of(scores, n)) : xstrdup(NO_VALUE));
    set_own(m, "min", n ? fmt_points(lo) : xstrdup(NO_VALUE));
    set_own(m, "max", n ? fmt_points(hi) : xstrdup(NO_VALUE));

    /* Ten bins over [0, max]; the last one includes the maximum. */
    struct tpl_value *hist = tpl_set_list(m, "histogram");
    struct tpl_value *pv = tpl_set_map(m, "scores_plot");
    tpl_set_bool(pv, "made", false);
    tpl_set_bool(pv, "no_gnuplot", false);
    tpl_set_bool(pv, "failed", false);
    tpl_set_str(pv, "note", "");
    tpl_set_md(pv, "path", "");
    if (max_score > 0 && n > 0) {
        double w = nice_bin_width(max_score);
        int bins = (int)ceil(max_score / w - 1e-9);
        if (bins < 1)
            bins = 1;
        int *counts = xcalloc((size_t)bins, sizeof(int));
        for (size_t i = 0; i < n; i++) {
            int b = (int)floor(scores[i] / w);
            counts[b < 0 ? 0 : b >= bins ? bins - 1 : b]++;
        }
        struct plot_fig fig;
        plot_fig_init(&fig);
        fig.xlabel = phrase(&rc->strings, false, "plot.score_xlabel", NULL);
        fig.ylabel = phrase(&rc->strings, false, "plot.score_ylabel", NULL);
        fig.box_width = w * 0.9;
        fig.xmin = 0;
        fig.xmax = max_score;
        fig.ymin_zero = true;
        fig.y_integer = n <= 12;
        fig.height_px = 400;
        struct plot_series *s = plot_fig_add_series(&fig, "", PLOT_BOXES);
        for (int b = 0; b < bins; b++) {
            struct tpl_value *hv = tpl_push_map(hist);
            set_own(hv, "from", fmt_points(w * b));
            set_own(hv, "to", fmt_points(fmin(w * (b + 1), max_score)));
            tpl_set_num(hv, "count", counts[b]);
            tpl_set_bool(hv, "last", b == bins - 1);
            plot_series_add(s, w * (b + 0.5), counts[b]);
        }
        free(counts);
        char *name = unique_plot_name(rc, "summary-scores");
        struct plot_result pr;
        plot_render(&fig, rc->plots_dir, name, &pr);
        set_plot_result(rc, pv, &pr, name);
        free(name);
        plot_fig_release(&fig);
    }
    tpl_set_bool(m, "has_histogram", tpl_list_len(hist) > 0);
    free(scores);
}

static struct case_stat *find_case_stat(struct case_stat **cs, size_t *n, size_t *alloc,
                                        const struct exercise_result *ex,
                                        const struct variant_result *vr,
                                        const struct case_result *cr)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*cs)[i].ex, ex->exercise_id) && !strcmp((*cs)[i].variant, vr->variant_id) &&
            !strcmp((*cs)[i].case_id, cr->case_id))
            return &(*cs)[i];
    ALLOC_GROW(*cs, *n + 1, *alloc);
    struct case_stat *s = &(*cs)[(*n)++];
    memset(s, 0, sizeof(*s));
    s->ex = ex->exercise_id;
    s->ex_title = exercise_title(ex);
    s->variant = vr->variant_id;
    s->variant_title = variant_title(vr);
    s->case_id = cr->case_id;
    s->sizes = cr->sizes ? cr->sizes : "";
    return s;
}

static struct speed_stat *find_speed_stat(struct speed_stat **ss, size_t *n, size_t *alloc,
                                          const struct exercise_result *ex,
                                          const struct variant_result *vr)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*ss)[i].ex, ex->exercise_id) && !strcmp((*ss)[i].variant, vr->variant_id))
            return &(*ss)[i];
    ALLOC_GROW(*ss, *n + 1, *alloc);
    struct speed_stat *s = &(*ss)[(*n)++];
    memset(s, 0, sizeof(*s));
    s->ex = ex->exercise_id;
    s->variant = vr->variant_id;
    s->variant_title = variant_title(vr);
    return s;
}

static void record_failure(struct verdict_stat *vs, const char *where, bool new_student)
{
    vs->cases++;
    vs->students += new_student;
    for (size_t i = 0; i < vs->n_places; i++) {
        if (!strcmp(vs->places[i].where, where)) {
            vs->places[i].count++;
            return;
        }
    }
    ALLOC_GROW(vs->places, vs->n_places + 1, vs->alloc_places);
    vs->places[vs->n_places].where = xstrdup(where);
    vs->places[vs->n_places].count = 1;
    vs->n_places++;
}

static bool summary_has_ids(const struct results *r)
{
    for (size_t e = 0; e < r->n_exercises; e++) {
        if (!r->exercises[e].exercise_id)
            return false;
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r->exercises[e].variants[v];
            if (!vr->variant_id)
                return false;
            for (size_t c = 0; c < vr->n_cases; c++)
                if (!vr->cases[c].case_id)
                    return false;
        }
    }
    return true;
}

/* A summary row's student: id and name as the tables show them, sanitized and clipped. */
static void set_student_cells(struct tpl_value *row, const struct results *r)
{
    char *id = esc_clip(r->student_id, NAME_CHARS), *name = esc_clip(r->student_name, NAME_CHARS);
    tpl_set_str(row, "id", id);
    tpl_set_str(row, "name", name);
    free(id);
    free(name);
}

/*
 * The class's compute-sanitizer pass: how many students' GPU code ran under it, and one
 * row per run that found something, so an instructor sees at a glance whose kernels write
 * out of bounds or race although their outputs were right. Runs that did not complete are
 * counted apart (the grader's side).
 */
static void summary_sanitizer(const struct results *const *rs, size_t n, struct tpl_value *m)
{
    struct tpl_value *rows = tpl_set_list(m, "sanitizer_findings");
    size_t students = 0, runs = 0, failed = 0;
    for (size_t i = 0; i < n; i++) {
        const struct results *r = rs[i];
        bool ran = false;
        for (size_t e = 0; e < r->n_exercises; e++) {
            const struct exercise_result *ex = &r->exercises[e];
            for (size_t v = 0; v < ex->n_variants; v++) {
                const struct variant_result *vr = &ex->variants[v];
                for (size_t k = 0; k < vr->n_sanitizer; k++) {
                    const struct sanitizer_run *run = &vr->sanitizer[k];
                    failed += run->status == SANITIZER_FAILED;
                    if (run->status != SANITIZER_RAN)
                        continue;
                    ran = true;
                    runs++;
                    long errors = sanitizer_error_count(&run->out);
                    if (errors == 0)
                        continue;
                    struct tpl_value *row = tpl_push_map(rows);
                    set_student_cells(row, r);
                    tpl_set_str(row, "exercise", ex->exercise_id ? ex->exercise_id : "");
                    tpl_set_str(row, "variant", vr->variant_id ? vr->variant_id : "");
                    tpl_set_str(row, "tool", run->tool ? run->tool : "");
                    tpl_set_str(row, "case_id", run->case_id ? run->case_id : "");
                    tpl_set_num(row, "errors", (double)errors);
                    /* The tool's own words (English, like compiler output): the template
                     * frames them in the summary's language. */
                    const struct sanitizer_report *first =
                        run->out.n_reports ? &run->out.reports[0] : NULL;
                    char *kind = esc_clip(first && first->kind ? first->kind : "", FINDING_CHARS);
                    char *where =
                        esc_clip(first && first->location ? first->location : "", FINDING_CHARS);
                    tpl_set_str(row, "kind", kind);
                    tpl_set_str(row, "location", where);
                    tpl_set_bool(row, "has_location", *where != '\0');
                    free(kind);
                    free(where);
                }
            }
        }
        students += ran;
    }
    tpl_set_bool(m, "has_sanitizer", runs + failed > 0);
    tpl_set_num(m, "sanitizer_students", (double)students);
    tpl_set_num(m, "sanitizer_runs", (double)runs);
    tpl_set_bool(m, "has_sanitizer_findings", tpl_list_len(rows) > 0);
    tpl_set_num(m, "sanitizer_failed", (double)failed);
    tpl_set_bool(m, "has_sanitizer_failed", failed > 0);
}

/*
 * The GPU clocks over the class's timed runs: the range read and, one row per student, the
 * samples dropped as taken while the GPU throttled and the runs that gave up dropping. Speed
 * points rest on those times, so a node that throttled during batch grading shows here, and
 * the instructor knows whom to grade again.
 */
static void summary_gpu_clock(const struct results *const *rs, size_t n, struct tpl_value *m)
{
    struct tpl_value *rows = tpl_set_list(m, "throttle_rows");
    struct clock_tally class_tally = {0};
    size_t students = 0;
    for (size_t i = 0; i < n; i++) {
        const struct results *r = rs[i];
        struct clock_tally t = {0};
        int hidden_hits = 0;
        struct strbuf where;
        strbuf_init(&where);
        for (size_t e = 0; e < r->n_exercises; e++) {
            const struct exercise_result *ex = &r->exercises[e];
            for (size_t v = 0; v < ex->n_variants; v++) {
                const struct variant_result *vr = &ex->variants[v];
                for (size_t c = 0; c < vr->n_cases; c++) {
                    const struct case_result *cr = &vr->cases[c];
                    bool hit = clock_tally_add(&t, cr);
                    clock_tally_add(&class_tally, cr);
                    /* Hidden cases by count only: the summary may travel further than the
                     * instructor's reports. */
                    if (hit && cr->hidden)
                        hidden_hits++;
                    else if (hit)
                        strbuf_addf(&where, "%s%s/%s %s", where.len ? ", " : "",
                                    ex->exercise_id ? ex->exercise_id : "",
                                    vr->variant_id ? vr->variant_id : "",
                                    cr->case_id ? cr->case_id : "");
                }
            }
        }
        students += t.hi > 0;
        if (t.dropped > 0 || t.throttled > 0) {
            struct tpl_value *row = tpl_push_map(rows);
            set_student_cells(row, r);
            tpl_set_num(row, "dropped", t.dropped);
            tpl_set_num(row, "throttled", t.throttled);
            char *places = esc_clip(strbuf_str(&where), FINDING_CHARS);
            tpl_set_str(row, "where", places);
            tpl_set_bool(row, "has_where", *places != '\0');
            free(places);
            tpl_set_num(row, "hidden", hidden_hits);
            tpl_set_bool(row, "has_hidden", hidden_hits > 0);
        }
        strbuf_release(&where);
    }
    tpl_set_bool(m, "has_gpu_clock", class_tally.hi > 0);
    tpl_set_num(m, "gpu_clock_students", (double)students);
    set_clock_range(m, &class_tally);
    tpl_set_bool(m, "has_throttle_rows", tpl_list_len(rows) > 0);
}

static struct tpl_value *summary_context(struct report_ctx *rc, const struct results *const *rs,
                                         size_t n)
{
    struct tpl_value *m = tpl_map();
    const struct results *r0 = rs[0];
    tpl_set_str(m, "course", r0->course);
    tpl_set_str(m, "lab_id", r0->lab_id);
    tpl_set_num(m, "lab_number", (double)r0->lab_number);
    tpl_set_str(m, "lab_title", r0->lab_title);
    tpl_set_str(m, "grader_version", r0->grader_version);
    tpl_set_str(m, "lang", rc->lang);
    tpl_set_num(m, "n_students", (double)n);
    /* The newest grading date: the summary then depends on the results only. */
    const char *date = "";
    for (size_t i = 0; i < n; i++)
        if (rs[i]->date && strcmp(rs[i]->date, date) > 0)
            date = rs[i]->date;
    tpl_set_str(m, "date", date);
    summary_scores(rc, rs, n, m);

    struct tpl_value *students = tpl_set_list(m, "students");
    for (size_t i = 0; i < n; i++) {
        const struct results *r = rs[i];
        struct tpl_value *sv = tpl_push_map(students);
        set_student_cells(sv, r);
        set_own(sv, "score", fmt_points(r->score));
        set_own(sv, "max_score", fmt_points(r->max_score));
        set_own(sv, "pct", fmt_pct(r->score, r->max_score));
        tpl_set_num(sv, "n_pass", r->n_pass);
        tpl_set_num(sv, "n_fail", r->n_fail);
        tpl_set_num(sv, "n_skipped", r->n_skipped);
        tpl_set_num(sv, "n_grader_errors", r->n_grader_errors);
        tpl_set_bool(sv, "has_grader_errors", r->n_grader_errors > 0);
    }

    struct case_stat *cs = NULL;
    size_t n_cs = 0, alloc_cs = 0;
    struct speed_stat *ss = NULL;
    size_t n_ss = 0, alloc_ss = 0;
    struct verdict_stat vstats[V_GRADER + 1];
    memset(vstats, 0, sizeof(vstats));
    for (int v = 0; v <= V_GRADER; v++)
        vstats[v].v = (enum verdict)v;
    for (size_t i = 0; i < n; i++) {
        const struct results *r = rs[i];
        if (!summary_has_ids(r))
            continue;
        bool counted[V_GRADER + 1] = {false};
        for (size_t e = 0; e < r->n_exercises; e++) {
            const struct exercise_result *ex = &r->exercises[e];
            for (size_t v = 0; v < ex->n_variants; v++) {
                const struct variant_result *vr = &ex->variants[v];
                double log_ref = 0, log_base = 0;
                int n_ref = 0, n_base = 0;
                for (size_t c = 0; c < vr->n_cases; c++) {
                    const struct case_result *cr = &vr->cases[c];
                    struct case_stat *st = find_case_stat(&cs, &n_cs, &alloc_cs, ex, vr, cr);
                    if (cr->verdict == V_PASS)
                        st->pass++;
                    else if (cr->verdict == V_SKIPPED)
                        st->skipped++;
                    else if (cr->verdict == V_GRADER)
                        st->grader++;
                    else
                        st->fail++;
                    if (cr->verdict != V_PASS && cr->verdict != V_SKIPPED &&
                        (int)cr->verdict >= 0 && cr->verdict <= V_GRADER) {
                        char *where =
                            xstrfmt("%s / %s / %s", ex->exercise_id, vr->variant_id, cr->case_id);
                        record_failure(&vstats[cr->verdict], where, !counted[cr->verdict]);
                        counted[cr->verdict] = true;
                        free(where);
                    }
                    if (cr->verdict == V_PASS && cr->speedup_ref > 0) {
                        log_ref += log(cr->speedup_ref);
                        n_ref++;
                    }
                    if (cr->verdict == V_PASS && cr->speedup_baseline > 0) {
                        log_base += log(cr->speedup_baseline);
                        n_base++;
                    }
                }
                struct speed_stat *sp = find_speed_stat(&ss, &n_ss, &alloc_ss, ex, vr);
                if (n_ref)
                    push_double(&sp->vs_ref, &sp->n_ref, &sp->alloc_ref, exp(log_ref / n_ref));
                if (n_base)
                    push_double(&sp->vs_base, &sp->n_base, &sp->alloc_base, exp(log_base / n_base));
            }
        }
    }

    /* Exercises in first-seen order, with their cases and speedups. */
    struct tpl_value *exs = tpl_set_list(m, "exercises");
    for (size_t i = 0; i < n_cs; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++)
            seen = !strcmp(cs[j].ex, cs[i].ex);
        if (seen)
            continue;
        struct tpl_value *ev = tpl_push_map(exs);
        tpl_set_str(ev, "id", cs[i].ex);
        tpl_set_str(ev, "title", cs[i].ex_title);
        double sum = 0, maxp = 0;
        size_t cnt = 0;
        for (size_t k = 0; k < n; k++)
            for (size_t e = 0; e < rs[k]->n_exercises; e++)
                if (rs[k]->exercises[e].exercise_id &&
                    !strcmp(rs[k]->exercises[e].exercise_id, cs[i].ex)) {
                    sum += rs[k]->exercises[e].points;
                    maxp = fmax(maxp, rs[k]->exercises[e].max_points);
                    cnt++;
                }
        set_own(ev, "mean_points", cnt ? fmt_points(sum / (double)cnt) : xstrdup(NO_VALUE));
        set_own(ev, "max_points", fmt_points(maxp));
        struct tpl_value *cl = tpl_set_list(ev, "cases");
        for (size_t j = i; j < n_cs; j++) {
            if (strcmp(cs[j].ex, cs[i].ex))
                continue;
            struct tpl_value *cv = tpl_push_map(cl);
            tpl_set_str(cv, "variant", cs[j].variant);
            tpl_set_str(cv, "variant_title", cs[j].variant_title);
            tpl_set_str(cv, "case_id", cs[j].case_id);
            tpl_set_str(cv, "sizes", cs[j].sizes);
            tpl_set_num(cv, "n_pass", cs[j].pass);
            tpl_set_num(cv, "n_fail", cs[j].fail);
            tpl_set_num(cv, "n_skipped", cs[j].skipped);
            tpl_set_num(cv, "n_grader_errors", cs[j].grader);
            set_own(cv, "pass_rate", fmt_pct(cs[j].pass, cs[j].pass + cs[j].fail));
        }
        struct tpl_value *sl = tpl_set_list(ev, "speedups");
        for (size_t j = 0; j < n_ss; j++) {
            const struct speed_stat *sp = &ss[j];
            if (strcmp(sp->ex, cs[i].ex) || (!sp->n_ref && !sp->n_base))
                continue;
            struct tpl_value *sv = tpl_push_map(sl);
            tpl_set_str(sv, "variant", sp->variant);
            tpl_set_str(sv, "variant_title", sp->variant_title);
            tpl_set_num(sv, "n", (double)(sp->n_ref > sp->n_base ? sp->n_ref : sp->n_base));
            double lo = INFINITY, hi = 0, blo = INFINITY, bhi = 0;
            for (size_t k = 0; k < sp->n_ref; k++) {
                lo = fmin(lo, sp->vs_ref[k]);
                hi = fmax(hi, sp->vs_ref[k]);
            }
            for (size_t k = 0; k < sp->n_base; k++) {
                blo = fmin(blo, sp->vs_base[k]);
                bhi = fmax(bhi, sp->vs_base[k]);
            }
            tpl_set_bool(sv, "has_ref", sp->n_ref > 0);
            set_own(sv, "ref_min", fmt_x(sp->n_ref ? lo : 0));
            set_own(sv, "ref_median", fmt_x(median_of(sp->vs_ref, sp->n_ref)));
            set_own(sv, "ref_max", fmt_x(hi));
            tpl_set_bool(sv, "has_baseline", sp->n_base > 0);
            set_own(sv, "base_min", fmt_x(sp->n_base ? blo : 0));
            set_own(sv, "base_median", fmt_x(median_of(sp->vs_base, sp->n_base)));
            set_own(sv, "base_max", fmt_x(bhi));
        }
        tpl_set_bool(ev, "has_speedups", tpl_list_len(sl) > 0);
    }

    /* One figure: each student's speedup vs the reference per exercise and variant. */
    struct tpl_value *pv = tpl_set_map(m, "speedup_plot");
    tpl_set_bool(pv, "made", false);
    tpl_set_bool(pv, "no_gnuplot", false);
    tpl_set_bool(pv, "failed", false);
    tpl_set_str(pv, "note", "");
    tpl_set_md(pv, "path", "");
    size_t with_data = 0;
    for (size_t j = 0; j < n_ss; j++)
        with_data += ss[j].n_ref > 0;
    tpl_set_bool(m, "has_speedup_plot", with_data > 0);
    if (with_data) {
        struct plot_fig fig;
        plot_fig_init(&fig);
        fig.logy = true;
        fig.ylabel = phrase(&rc->strings, false, "plot.speedup_ylabel", NULL);
        fig.xmin = 0.5;
        fig.xmax = (double)with_data + 0.5;
        char *t = phrase(&rc->strings, false, "plot.speedup_students", NULL);
        struct plot_series *s = plot_fig_add_series(&fig, t, PLOT_POINTS);
        free(t);
        s->color = 0;
        s->point_type = 6;
        size_t x = 0;
        for (size_t j = 0; j < n_ss; j++) {
            if (!ss[j].n_ref)
                continue;
            x++;
            for (size_t k = 0; k < ss[j].n_ref; k++) {
                /* Spread equal values sideways a little, deterministically. */
                double jitter = ((double)(k % 7) - 3) * 0.03;
                plot_series_add(s, (double)x + jitter, ss[j].vs_ref[k]);
            }
            char *label = xstrfmt("%s/%s", ss[j].ex, ss[j].variant);
            plot_fig_add_xtic(&fig, (double)x, label);
            free(label);
        }
        t = phrase(&rc->strings, false, "plot.speedup_median", NULL);
        s = plot_fig_add_series(&fig, t, PLOT_POINTS);
        free(t);
        s->color = 1;
        s->point_type = 13;
        s->bold = true;
        x = 0;
        for (size_t j = 0; j < n_ss; j++)
            if (ss[j].n_ref)
                plot_series_add(s, (double)++x, median_of(ss[j].vs_ref, ss[j].n_ref));
        t = phrase(&rc->strings, false, "plot.speedup_parity", NULL);
        s = plot_fig_add_series(&fig, t, PLOT_LINES);
        free(t);
        s->color = -1;
        s->dashed = true;
        s->point_type = -1;
        plot_series_add(s, 0.5, 1);
        plot_series_add(s, (double)with_data + 0.5, 1);
        char *name = unique_plot_name(rc, "summary-speedups");
        struct plot_result pr;
        plot_render(&fig, rc->plots_dir, name, &pr);
        set_plot_result(rc, pv, &pr, name);
        free(name);
        plot_fig_release(&fig);
    }

    /* Failures by verdict, most frequent first; where each happened most. */
    struct tpl_value *fl = tpl_set_list(m, "failures");
    int order[V_GRADER + 1], n_order = 0;
    for (int v = 0; v <= V_GRADER; v++)
        if (vstats[v].cases)
            order[n_order++] = v;
    for (int i = 1; i < n_order; i++)
        for (int j = i; j > 0 && vstats[order[j]].cases > vstats[order[j - 1]].cases; j--) {
            int tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (int i = 0; i < n_order; i++) {
        struct verdict_stat *vs = &vstats[order[i]];
        struct tpl_value *fv = tpl_push_map(fl);
        set_verdict(rc, fv, vs->v);
        tpl_set_num(fv, "n_cases", vs->cases);
        tpl_set_num(fv, "n_students", vs->students);
        qsort(vs->places, vs->n_places, sizeof(*vs->places), by_place_count);
        struct tpl_value *pl = tpl_set_list(fv, "places");
        for (size_t k = 0; k < vs->n_places && k < 5; k++) {
            struct tpl_value *p = tpl_push_map(pl);
            tpl_set_str(p, "where", vs->places[k].where);
            tpl_set_num(p, "count", vs->places[k].count);
        }
        tpl_set_bool(fv, "more_places", vs->n_places > 5);
    }
    tpl_set_bool(m, "has_failures", n_order > 0);
    summary_sanitizer(rs, n, m);
    summary_gpu_clock(rs, n, m);

    for (int v = 0; v <= V_GRADER; v++) {
        for (size_t k = 0; k < vstats[v].n_places; k++)
            free(vstats[v].places[k].where);
        free(vstats[v].places);
    }
    for (size_t j = 0; j < n_ss; j++) {
        free(ss[j].vs_ref);
        free(ss[j].vs_base);
    }
    free(ss);
    free(cs);
    return m;
}

int report_summary(const struct results *const *all, size_t n, const char *outdir,
                   const struct report_opts *o, struct report_outcome *out, struct error *err)
{
    memset(out, 0, sizeof(*out));
    if (n == 0)
        return error_set(err, "summary: no results");
    struct report_ctx rc;
    if (ctx_open(&rc, o, all[0]->lang, outdir, err) != 0) {
        ctx_release(&rc);
        return -1;
    }
    if (mkdir_p(outdir, err) != 0) {
        ctx_release(&rc);
        return -1;
    }
    const struct results **sorted = xmalloc(n * sizeof(*sorted));
    memcpy(sorted, all, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), by_student_id);
    struct tpl_value *ctx = summary_context(&rc, sorted, n);
    struct strbuf md = STRBUF_INIT;
    int res = render_file(&rc, "summary.md", ctx, &md, err);
    if (res == 0)
        res = write_outputs(&rc, "summary", &md, out, err);
    strbuf_release(&md);
    tpl_value_free(ctx);
    free(sorted);
    ctx_release(&rc);
    return res;
}

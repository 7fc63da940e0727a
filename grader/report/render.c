#include "report/render.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "report/format.h"
#include "report/pdf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ctx_release(struct report_ctx *rc)
{
    free(rc->lang_dir);
    strings_release(&rc->strings);
    messages_release(&rc->msgs);
    free(rc->plots_dir);
    for (size_t i = 0; i < rc->n_plot_names; i++)
        free(rc->plot_names[i]);
    free(rc->plot_names);
}

int ctx_open(struct report_ctx *rc, const struct report_opts *o, const char *results_lang,
             const char *outdir, struct error *err)
{
    memset(rc, 0, sizeof(*rc));
    strings_init(&rc->strings);
    messages_init(&rc->msgs);
    rc->o = o;
    rc->outdir = outdir;
    rc->lang = o->lang && *o->lang ? o->lang : results_lang && *results_lang ? results_lang : "en";
    if (!o->templates_dir)
        return error_set(err, "report: no templates folder given");
    if (!report_lang_is_safe(rc->lang))
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
    /* The grader's own sentences that reach a report as data (the GPU probe's): a broken
     * catalog leaves them in English, as the console does. */
    struct error ignored;
    error_init(&ignored);
    if (messages_load_lang(&rc->msgs, o->templates_dir, rc->lang, &ignored) != 0)
        messages_init(&rc->msgs);
    rc->plots_dir = path_join(outdir, "plots");
    return 0;
}

char *unique_plot_name(struct report_ctx *rc, const char *base)
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

void set_verdict(const struct report_ctx *rc, struct tpl_value *m, enum verdict v)
{
    char *key = xstrfmt("verdict.%s", verdict_code(v));
    char *name = phrase(&rc->strings, false, key, NULL);
    tpl_set_str(m, "verdict", name);
    free(name);
    free(key);
    tpl_set_str(m, "verdict_code", verdict_code(v));
    tpl_set_bool(m, "passed", v == V_PASS);
    tpl_set_bool(m, "failed", verdict_is_failure(v));
    tpl_set_bool(m, "skipped", v == V_SKIPPED);
    tpl_set_bool(m, "grader_error", v == V_GRADER);
}

void set_plot_result(const struct report_ctx *rc, struct tpl_value *pv,
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

struct tpl_value *set_plot_map(struct tpl_value *m, const char *key)
{
    struct tpl_value *pv = tpl_set_map(m, key);
    tpl_set_bool(pv, "made", false);
    tpl_set_bool(pv, "no_gnuplot", false);
    tpl_set_bool(pv, "failed", false);
    tpl_set_str(pv, "note", "");
    tpl_set_md(pv, "path", "");
    return pv;
}

void set_code(const struct report_ctx *rc, struct tpl_value *m, const char *key, const char *text,
              size_t max_lines)
{
    struct strbuf body = STRBUF_INIT;
    size_t omitted = esc_code_wrap(&body, text ? text : "", CODE_WIDTH, max_lines);
    if (omitted) {
        char n[32];
        snprintf(n, sizeof(n), "%zu", omitted);
        char *marker = phrase(&rc->strings, false, "code.more_lines", "n", n, NULL);
        strbuf_addstr(&body, marker);
        strbuf_addch(&body, '\n');
        free(marker);
    }
    tpl_set_block(m, key, strbuf_str(&body));
    strbuf_release(&body);
}

/* A block in Markdown: a fence longer than any backtick run in it; the template's own line
 * break ends it. */
static void md_block(struct strbuf *out, const char *body)
{
    struct strbuf fenced = STRBUF_INIT;
    esc_md_fence(&fenced, body, NULL);
    strbuf_rtrim(&fenced);
    strbuf_addstr(out, strbuf_str(&fenced));
    strbuf_release(&fenced);
}

int render_file(const struct report_ctx *rc, const char *template_name, const struct tpl_value *ctx,
                struct strbuf *out, struct error *err)
{
    char *path = path_join(rc->lang_dir, template_name);
    struct template t;
    template_init(&t);
    int res = template_load(&t, path, err);
    if (res == 0) {
        struct tpl_render_opts ro = {md_escape, true};
        res = template_render_blocks(&t, ctx, &ro, md_block, out, err);
    }
    template_release(&t);
    free(path);
    return res;
}

int write_outputs(const struct report_ctx *rc, const char *base, const struct strbuf *md,
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
                        sizeof(out->pdf_note), &out->pdf_latex_runs) == 0) {
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

/* mutreport: the mutation run's report and console lines. See mutreport.h. */
#include "analyze/mutreport.h"

#include "analyze/render.h"
#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/messages.h"
#include "base/template.h"
#include "base/util.h"
#include "report/report.h"

#include <string.h>

void mutreport_id(char *buf, size_t size, size_t index)
{
    snprintf(buf, size, "m%04zu", index + 1);
}

static void set_ratio(struct tpl_value *m, const char *key, size_t killed, size_t counted)
{
    if (counted)
        tpl_set_mdf(m, key, "%.1f%%", 100.0 * (double)killed / (double)counted);
    else
        tpl_set_md(m, key, "–");
}

static void set_where(struct tpl_value *m, const struct mutate_result *r,
                      const struct mut_record *rec)
{
    char *w = xstrfmt("%s:%u:%u", r->files[rec->file], rec->m.line, rec->m.col);
    tpl_set_str(m, "where", w);
    free(w);
}

/* The exercises/variants a mutant reaches, "add/cpu, mul/cpu". */
static void set_reaches(struct tpl_value *m, const struct mutate_result *r, const struct lab *lab,
                        const struct mut_record *rec)
{
    struct strbuf s = STRBUF_INIT;
    for (size_t k = 0; k < rec->n_targets; k++) {
        const struct mut_target *t = &r->targets[rec->targets[k]];
        strbuf_addf(&s, "%s%s/%s", k ? ", " : "", lab->exercises[t->ex].id,
                    lab->exercises[t->ex].variants[t->var].id);
    }
    tpl_set_str(m, "reaches", strbuf_str(&s));
    strbuf_release(&s);
}

static void set_diff(struct tpl_value *m, const struct mut_record *rec)
{
    struct strbuf body = STRBUF_INIT, md = STRBUF_INIT;
    esc_code_wrap(&body, rec->diff ? rec->diff : "", 100, 40);
    esc_md_fence(&md, strbuf_str(&body), "diff");
    tpl_set_md(m, "diff", strbuf_str(&md));
    strbuf_release(&body);
    strbuf_release(&md);
}

static struct tpl_value *mutant_map(struct tpl_value *list, const struct mutate_result *r,
                                    const struct lab *lab, size_t i, const struct messages *msgs)
{
    const struct mut_record *rec = &r->recs[i];
    struct tpl_value *m = tpl_push_map(list);
    char id[32];
    mutreport_id(id, sizeof(id), i);
    tpl_set_str(m, "id", id);
    tpl_set_str(m, "op", messages_get(msgs, mut_op_title(rec->m.op)));
    tpl_set_str(m, "op_id", mut_op_id(rec->m.op));
    /* The result's words are the template's. */
    static const char *const st[] = {"st_killed",     "st_ce",      "st_survived",
                                     "st_equivalent", "st_not_run", "st_error"};
    for (size_t k = 0; k < sizeof(st) / sizeof(st[0]); k++)
        tpl_set_bool(m, st[k], (size_t)rec->status == k);
    set_where(m, r, rec);
    set_reaches(m, r, lab, rec);
    set_diff(m, rec);
    tpl_set_str(m, "note", rec->note ? rec->note : "");
    bool killed = rec->status == MUT_KILLED || rec->status == MUT_KILLED_CE;
    tpl_set_bool(m, "killed", killed);
    if (killed) {
        char *by = xstrfmt("%s %s/%s %s", verdict_code(rec->kill_verdict), rec->kill_exercise,
                           rec->kill_variant, rec->kill_case);
        tpl_set_str(m, "killed_by", by);
        free(by);
    } else {
        tpl_set_str(m, "killed_by", "");
    }
    tpl_set_bool(m, "extra_tried", rec->extra_tried);
    tpl_set_bool(m, "reaches_further", mutant_reaches_further(&rec->m));
    struct tpl_value *ex = tpl_set_list(m, "extras");
    for (size_t k = 0; k < rec->n_extra; k++) {
        struct tpl_value *e = tpl_push_map(ex);
        tpl_set_str(e, "sizes", rec->extra[k].sizes);
        tpl_set_str(e, "verdict", verdict_code(rec->extra[k].verdict));
    }
    return m;
}

static void add_lists(struct tpl_value *ctx, const struct mutate_result *r, const struct lab *lab,
                      const struct messages *msgs)
{
    struct tpl_value *all = tpl_set_list(ctx, "mutants"), *surv = tpl_set_list(ctx, "survivors");
    struct tpl_value *eq = tpl_set_list(ctx, "equivalents"), *ce = tpl_set_list(ctx, "ce");
    struct tpl_value *errs = tpl_set_list(ctx, "errors");
    for (size_t i = 0; i < r->n_recs; i++) {
        mutant_map(all, r, lab, i, msgs);
        enum mut_status s = r->recs[i].status;
        struct tpl_value *to = s == MUT_SURVIVED     ? surv
                               : s == MUT_EQUIVALENT ? eq
                               : s == MUT_KILLED_CE  ? ce
                               : s == MUT_ERROR      ? errs
                                                     : NULL;
        if (to)
            mutant_map(to, r, lab, i, msgs);
    }
}

static void add_targets(struct tpl_value *ctx, const struct mutate_result *r, const struct lab *lab)
{
    struct tpl_value *list = tpl_set_list(ctx, "variants");
    for (size_t i = 0; i < r->n_targets; i++) {
        const struct mut_target *t = &r->targets[i];
        const struct exercise_spec *ex = &lab->exercises[t->ex];
        struct tpl_value *m = tpl_push_map(list);
        tpl_set_str(m, "exercise", ex->id);
        tpl_set_str(m, "variant", ex->variants[t->var].id);
        tpl_set_num(m, "total", (double)t->total);
        tpl_set_num(m, "killed", (double)t->killed);
        tpl_set_num(m, "survived", (double)t->survived);
        tpl_set_num(m, "ce", (double)t->ce);
        tpl_set_num(m, "equivalent", (double)t->equivalent);
        set_ratio(m, "ratio", t->killed, t->killed + t->survived);
    }
}

static struct tpl_value *context(const struct mutate_result *r, const struct lab *lab,
                                 const struct messages *msgs)
{
    struct tpl_value *ctx = tpl_map();
    char date[64];
    iso_datetime(date, sizeof(date));
    tpl_set_str(ctx, "lab_id", lab->id);
    tpl_set_num(ctx, "lab_number", (double)lab->number);
    tpl_set_str(ctx, "lab_title", lab->title);
    tpl_set_str(ctx, "course", lab->course ? lab->course : "");
    tpl_set_str(ctx, "date", date);
    tpl_set_bool(ctx, "gpu", r->gpu);
    tpl_set_str(ctx, "gpu_note", r->gpu_note ? r->gpu_note : "");
    tpl_set_num(ctx, "n_mutants", (double)r->n_recs);
    tpl_set_num(ctx, "counted", (double)mutate_counted(r));
    tpl_set_num(ctx, "killed", (double)r->killed);
    tpl_set_num(ctx, "survived", (double)r->survived);
    tpl_set_num(ctx, "n_ce", (double)r->ce);
    tpl_set_num(ctx, "n_equivalent", (double)r->equivalent);
    tpl_set_num(ctx, "not_run", (double)r->not_run);
    tpl_set_num(ctx, "n_errors", (double)r->errors);
    set_ratio(ctx, "ratio", r->killed, mutate_counted(r));
    add_targets(ctx, r, lab);
    add_lists(ctx, r, lab, msgs);
    struct tpl_value *xs = tpl_set_list(ctx, "extra_sizes"), *ws = tpl_set_list(ctx, "warnings");
    for (size_t i = 0; i < r->n_extra_sizes; i++)
        tpl_set_str(tpl_push_map(xs), "text", r->extra_sizes[i]);
    for (size_t i = 0; i < r->n_warnings; i++)
        tpl_set_str(tpl_push_map(ws), "text", r->warnings[i]);
    return ctx;
}

static void json_mutant(struct json_writer *w, const struct mutate_result *r, const struct lab *lab,
                        size_t i)
{
    const struct mut_record *rec = &r->recs[i];
    char id[32];
    mutreport_id(id, sizeof(id), i);
    json_writer_begin_object(w);
    json_writer_key(w, "id");
    json_writer_string(w, id);
    json_writer_key(w, "operator");
    json_writer_string(w, mut_op_id(rec->m.op));
    json_writer_key(w, "file");
    json_writer_string(w, r->files[rec->file]);
    json_writer_key(w, "line");
    json_writer_number(w, rec->m.line);
    json_writer_key(w, "col");
    json_writer_number(w, rec->m.col);
    json_writer_key(w, "status");
    json_writer_string(w, mut_status_id(rec->status));
    json_writer_key(w, "reaches");
    json_writer_begin_array(w);
    for (size_t k = 0; k < rec->n_targets; k++) {
        const struct mut_target *t = &r->targets[rec->targets[k]];
        char *name =
            xstrfmt("%s/%s", lab->exercises[t->ex].id, lab->exercises[t->ex].variants[t->var].id);
        json_writer_string(w, name);
        free(name);
    }
    json_writer_end_array(w);
    json_writer_key(w, "killed_by");
    if (rec->kill_case) {
        char *by = xstrfmt("%s %s/%s %s", verdict_code(rec->kill_verdict), rec->kill_exercise,
                           rec->kill_variant, rec->kill_case);
        json_writer_string(w, by);
        free(by);
    } else {
        json_writer_null(w);
    }
    json_writer_key(w, "extra");
    json_writer_begin_array(w);
    for (size_t k = 0; k < rec->n_extra; k++) {
        char *e = xstrfmt("%s %s", verdict_code(rec->extra[k].verdict), rec->extra[k].sizes);
        json_writer_string(w, e);
        free(e);
    }
    json_writer_end_array(w);
    json_writer_key(w, "note");
    json_writer_string(w, rec->note);
    json_writer_key(w, "diff");
    json_writer_string(w, rec->diff);
    json_writer_end_object(w);
}

void mutreport_json(const struct mutate_result *r, const struct lab *lab, struct strbuf *out)
{
    struct json_writer w;
    const char *keys[] = {"killed", "survived", "ce", "equivalent", "not_run", "errors"};
    const size_t vals[] = {r->killed, r->survived, r->ce, r->equivalent, r->not_run, r->errors};
    json_writer_init(&w, out);
    json_writer_begin_object(&w);
    json_writer_key(&w, "lab");
    json_writer_string(&w, lab->id);
    json_writer_key(&w, "gpu");
    json_writer_bool(&w, r->gpu);
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        json_writer_key(&w, keys[k]);
        json_writer_number(&w, (double)vals[k]);
    }
    json_writer_key(&w, "mutants");
    json_writer_begin_array(&w);
    for (size_t i = 0; i < r->n_recs; i++)
        json_mutant(&w, r, lab, i);
    json_writer_end_array(&w);
    json_writer_end_object(&w);
    strbuf_addch(out, '\n');
}

int mutreport_write(const struct mutate_result *r, const struct lab *lab, const char *dir,
                    const struct mutreport_opts *o, char **md_path, char **pdf_note,
                    struct error *err)
{
    struct messages msgs;
    struct error merr;
    const char *lang = o->lang ? o->lang : lab->lang;
    messages_init(&msgs);
    if (messages_load_lang(&msgs, o->templates_dir, lang, &merr) != 0)
        fprintf(stderr, "grader mutate: warning: %s; the report's phrases stay in English\n",
                merr.msg);
    *md_path = path_join(dir, "report.md");
    *pdf_note = NULL;
    struct tpl_value *ctx = context(r, lab, &msgs);
    struct strbuf json = STRBUF_INIT;
    char *json_path = path_join(dir, "mutants.json");
    mutreport_json(r, lab, &json);
    int rc = mkdir_p(dir, err);
    if (rc == 0)
        rc = write_file_atomic(json_path, strbuf_str(&json), json.len, err);
    if (rc == 0)
        rc = analyze_write(o->templates_dir, lang, "mutate.md", ctx, false, *md_path, err);
    strbuf_release(&json);
    free(json_path);
    tpl_value_free(ctx);
    messages_release(&msgs);
    if (rc != 0 || o->pdf_mode < 0)
        return rc;
    char note[1024] = "", *pdf = path_join(dir, "report.pdf");
    if (report_make_pdf(*md_path, pdf, o->templates_dir, lang, note, sizeof(note), NULL) != 0) {
        *pdf_note = xstrdup(note);
        if (o->pdf_mode > 0)
            rc = error_set(err, "no PDF: %s", note);
    }
    free(pdf);
    return rc;
}

void mutreport_print(FILE *f, const struct mutate_result *r, const struct lab *lab)
{
    if (!r->gpu)
        fprintf(f, "%s: CPU variants only (%s)\n", lab->id, r->gpu_note ? r->gpu_note : "no GPU");
    for (size_t i = 0; i < r->n_targets; i++) {
        const struct mut_target *t = &r->targets[i];
        char name[160];
        snprintf(name, sizeof(name), "%s/%s", lab->exercises[t->ex].id,
                 lab->exercises[t->ex].variants[t->var].id);
        fprintf(f, "  %-28s %3zu of %3zu killed", name, t->killed, t->killed + t->survived);
        if (t->ce || t->equivalent)
            fprintf(f, "  (%zu did not compile, %zu equivalent)", t->ce, t->equivalent);
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->n_recs; i++) {
        const struct mut_record *rec = &r->recs[i];
        if (rec->status != MUT_SURVIVED)
            continue;
        fprintf(f, "  survived m%04zu %s:%u:%u %s", i + 1, r->files[rec->file], rec->m.line,
                rec->m.col, mut_op_id(rec->m.op));
        if (rec->n_extra)
            fprintf(f, "  (killed at %s: %s)", rec->extra[0].sizes,
                    verdict_code(rec->extra[0].verdict));
        else if (rec->extra_tried && mutant_reaches_further(&rec->m))
            fprintf(f, "  (no size tried kills it; it reaches one element further: a read past "
                       "the end, which no output shows?)");
        else if (rec->extra_tried)
            fprintf(f, "  (no size tried kills it)");
        fputc('\n', f);
    }
    for (size_t i = 0; i < r->n_warnings; i++)
        fprintf(f, "warning: %s\n", r->warnings[i]);
    if (r->ce || r->equivalent || r->not_run || r->errors)
        fprintf(f,
                "%s: not counted: %zu did not compile (killed, trivially), %zu equivalent, "
                "%zu not run, %zu grader errors\n",
                lab->id, r->ce, r->equivalent, r->not_run, r->errors);
    size_t counted = mutate_counted(r);
    fprintf(f, "%s: %zu of %zu mutants killed (%.1f%%)\n", lab->id, r->killed, counted,
            counted ? 100.0 * (double)r->killed / (double)counted : 0.0);
}

#include "report/report.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/fs.h"
#include "report/cases.h"
#include "report/clock.h"
#include "report/format.h"
#include "report/html.h"
#include "report/render.h"
#include "report/sections.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The report on one submission as data: one context, section by section, that report.md and
 * report.html both render (the page adds its figures and anchors to it), so that the two never
 * state two different things: what the score means, what cost points, what was not graded and
 * why, every count. templates/README.md and docs/html.md name its keys.
 */

static void set_machine(const struct report_ctx *rc, struct tpl_value *m,
                        const struct machine_info *mi)
{
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
    /* The GPU probe's words, written before any language was known: in the report's. */
    char *status = messages_machine(&rc->msgs, mi->gpu_status);
    tpl_set_str(mm, "gpu_status", status);
    free(status);
    tpl_set_str(mm, "calibration", mi->calibration);
    tpl_set_bool(mm, "has_calibration", has_text(mi->calibration));
    tpl_set_bool(mm, "gpu_available", mi->gpu_status && !strcmp(mi->gpu_status, "available"));
    tpl_set_str(mm, "cc_version", mi->cc_version);
    tpl_set_str(mm, "nvcc_version", mi->nvcc_version);
    tpl_set_bool(mm, "has_nvcc", has_text(mi->nvcc_version));
    tpl_set_str(mm, "cflags", mi->cflags);
    tpl_set_str(mm, "nvccflags", mi->nvccflags);
    tpl_set_bool(mm, "has_nvccflags", has_text(mi->nvccflags));
}

static void set_header(const struct report_ctx *rc, struct tpl_value *m, const struct results *r)
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
    set_machine(rc, m, &r->machine);
}

/* Legends a report says once, at the first place they apply. */
struct legends {
    bool cases, overhead;
};

static void set_exercise(struct report_ctx *rc, const struct exercise_result *ex, size_t i,
                         const struct shown_exercise *sx, struct tpl_value *exv,
                         struct legends *said)
{
    tpl_set_str(exv, "id", ex->exercise_id);
    set_own(exv, "anchor", xstrfmt("ex%zu", i + 1));
    tpl_set_str(exv, "title", exercise_title(ex));
    set_own(exv, "points", fmt_hundredths(sx->points));
    set_own(exv, "max_points", fmt_hundredths(sx->max));
    set_own(exv, "perf_points", fmt_hundredths(sx->perf));
    set_own(exv, "perf_max_points", fmt_hundredths(sx->perf_max));
    tpl_set_bool(exv, "has_perf", ex->perf_max_points > 0);
    tpl_set_bool(exv, "full_marks", ex->max_points > 0 && ex->points >= ex->max_points);
    tpl_set_str(exv, "tol_summary", ex->tol_summary);
    tpl_set_bool(exv, "has_tol", has_text(ex->tol_summary));
    tpl_set_bool(exv, "multi_variant", ex->n_variants > 1);
    struct tpl_value *vs = tpl_set_list(exv, "variants");
    for (size_t v = 0; v < ex->n_variants; v++) {
        bool table;
        struct tpl_value *vv = variant_value(rc, &ex->variants[v], &table);
        /* The table's legend under the first table shown. */
        tpl_set_bool(vv, "legend", table && !said->cases);
        said->cases |= table;
        tpl_push(vs, vv);
    }
    bool overhead = add_comparisons(rc, ex, exv);
    tpl_set_bool(exv, "overhead_legend", overhead && !said->overhead);
    said->overhead |= overhead;
    add_plot(rc, ex, exv);
    add_pinned_factors(rc, ex, exv);
    if (rc->o->html)
        html_add_figures(rc, ex, exv);
}

/* A late submission's penalty, and the score that counts. */
static void set_late(struct tpl_value *m, const struct results *r)
{
    const struct late_record *l = &r->lms.late;
    bool late = l->evaluated && l->late;
    tpl_set_bool(m, "late", late);
    tpl_set_bool(m, "late_days_known", l->days_known);
    set_own(m, "late_days", fmt_points(l->days));
    set_own_points(m, "late_penalty", fmt_points(l->penalty));
    set_own(m, "final_score", fmt_points(results_final_score(r)));
    tpl_set_bool(m, "late_zeroed", late && l->zeroed);
}

static void set_score(struct tpl_value *m, const struct results *r, const struct shown_points *sp)
{
    set_own(m, "score", fmt_hundredths(sp->score));
    set_own(m, "max_score", fmt_hundredths(sp->max));
    set_own(m, "score_pct", fmt_pct(r->score, r->max_score));
    tpl_set_num(m, "n_pass", r->n_pass);
    tpl_set_num(m, "n_fail", r->n_fail);
    tpl_set_num(m, "n_skipped", r->n_skipped);
    tpl_set_num(m, "n_grader_errors", r->n_grader_errors);
    tpl_set_bool(m, "has_skipped", r->n_skipped > 0);
    tpl_set_bool(m, "has_grader_errors", r->n_grader_errors > 0);
    set_late(m, r);
}

static struct tpl_value *student_context(struct report_ctx *rc, const struct results *r)
{
    struct tpl_value *m = tpl_map();
    set_header(rc, m, r);
    tpl_set_str(m, "lang", rc->lang);
    tpl_set_bool(m, "student_view", rc->hide_hidden);
    set_score(m, r, rc->shown);
    add_overview(rc, r, m);
    struct tpl_value *exs = tpl_set_list(m, "exercises");
    struct tpl_value *speedups = tpl_set_list(m, "speedup_table");
    struct legends said = {false, false};
    bool any_perf = false, any_gpu = false;
    for (size_t e = 0; e < r->n_exercises; e++) {
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            any_gpu |= variant_is_gpu(&r->exercises[e].variants[v]);
        set_exercise(rc, &r->exercises[e], e, &rc->shown->ex[e], tpl_push_map(exs), &said);
        add_speedup_rows(rc, &r->exercises[e], speedups);
        any_perf |= r->exercises[e].perf_max_points > 0;
    }
    tpl_set_bool(m, "has_speedup_table", tpl_list_len(speedups) > 0);
    set_own(m, "speedup_goal", fmt_points(SPEEDUP_GOAL));
    set_own(m, "speedup_at_size", xstrfmt("%.0f", SPEEDUP_AT_SIZE));
    tpl_set_bool(m, "any_perf", any_perf);
    tpl_set_bool(m, "has_gpu_variants", any_gpu);
    return m;
}

void report_opts_init(struct report_opts *o)
{
    o->lang = NULL;
    o->templates_dir = NULL;
    o->pdf = false;
    o->pdf_required = false;
    o->student_view = true;
    o->html = true;
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
    rc.r = r;
    struct shown_points shown;
    shown_points_of(r, &shown);
    rc.shown = &shown;
    if (mkdir_p(outdir, err) != 0) {
        shown_points_release(&shown);
        ctx_release(&rc);
        return -1;
    }
    struct tpl_value *ctx = student_context(&rc, r);
    struct strbuf md = STRBUF_INIT;
    int res = render_file(&rc, "report.md", ctx, &md, err);
    if (res == 0)
        res = write_outputs(&rc, "report", &md, out, err);
    /* The page beside the Markdown, from the same context, also when a required PDF could not
     * be made. */
    struct error herr;
    error_init(&herr);
    if (out->md_written && o->html && html_student(&rc, ctx, out, &herr) != 0) {
        error_format(&herr, out->html_note, sizeof(out->html_note));
        if (res == 0) {
            *err = herr;
            res = -1;
        }
    }
    strbuf_release(&md);
    tpl_value_free(ctx);
    shown_points_release(&shown);
    ctx_release(&rc);
    return res;
}

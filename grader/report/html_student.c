/* html_student: report.html, the student's page (report/html.h): report.md's first screen
 * (the score, what cost points, what to try next), then each exercise with its tables,
 * figures, the compiler's first error and the profile. Hidden cases are counts only in the
 * student view, as in report.md: no id, size, message or point of theirs reaches the page. */
#include "report/html.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "base/messages.h"
#include "report/cases.h"
#include "report/format.h"
#include "report/html_parts.h"
#include "report/overview.h"
#include "report/points.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    tpl_set_str(m, "date", r->date);
    tpl_set_str(m, "grader_version", r->grader_version);
    tpl_set_bool(m, "grade_mode", r->mode && !strcmp(r->mode, "grade"));
    char hash[13];
    snprintf(hash, sizeof(hash), "%s", r->submission_hash ? r->submission_hash : "");
    tpl_set_str(m, "submission_hash", hash);
}

/* Points as report.md prints them (report/points.h: apportioned hundredths that add up), so
 * that the page and the Markdown never say two figures for one score. */
static void set_score(struct tpl_value *m, const struct results *r, const struct shown_points *sp)
{
    set_own(m, "score", fmt_hundredths(sp->score));
    set_own(m, "max_score", fmt_hundredths(sp->max));
    set_own(m, "score_pct", fmt_pct(r->score, r->max_score));
    tpl_set_num(m, "n_pass", r->n_pass);
    tpl_set_num(m, "n_fail", r->n_fail);
    tpl_set_num(m, "n_skipped", r->n_skipped);
    tpl_set_num(m, "n_grader_errors", r->n_grader_errors);
    tpl_set_bool(m, "has_grader_errors", r->n_grader_errors > 0);
    const struct late_record *l = &r->lms.late;
    bool late = l->evaluated && l->late;
    tpl_set_bool(m, "late", late);
    tpl_set_bool(m, "late_days_known", l->days_known);
    set_own(m, "late_days", fmt_points(l->days));
    set_own(m, "late_penalty", fmt_points(l->penalty));
    set_own(m, "final_score", fmt_points(results_final_score(r)));
    tpl_set_bool(m, "late_zeroed", late && l->zeroed);
}

/* ---- the first screen: overview.h's data in the page's words ---- */

static void set_lost_item(const struct report_ctx *rc, struct tpl_value *item,
                          const struct lost_item *it)
{
    tpl_set_str(item, "exercise", it->ex->exercise_id);
    tpl_set_str(item, "variant", it->vr->variant_id);
    tpl_set_num(item, "count", (double)it->count);
    tpl_set_bool(item, "several", it->count > 1);
    tpl_set_bool(item, "hidden", it->hidden);
    /* A grader error's points are not lost: they are a part of what was not graded here. */
    tpl_set_bool(item, "has_lost_points", it->grader ? it->shown > 0 : it->points > 0);
    set_own(item, "lost_points", it->grader ? fmt_hundredths(it->shown) : fmt_points(it->points));
    if (it->hidden) { /* a count, never an id, a size or a message */
        tpl_set_str(item, "cases", "");
        tpl_set_str(item, "verdict", "");
        tpl_set_str(item, "verdict_code", "");
        tpl_set_str(item, "message", "");
        tpl_set_bool(item, "has_message", false);
        return;
    }
    const struct case_result *cr = &it->vr->cases[it->first];
    char *ids = lost_item_cases(it);
    tpl_set_str(item, "cases", ids);
    free(ids);
    html_set_verdict(rc, item, cr->verdict);
    char *msg = esc_first_line(cr->message, MESSAGE_CHARS);
    tpl_set_str(item, "message", msg);
    tpl_set_bool(item, "has_message", *msg != '\0');
    free(msg);
}

static void set_not_run(const struct report_ctx *rc, const struct results *r,
                        const struct overview *o, struct tpl_value *m)
{
    struct tpl_value *list = tpl_set_list(m, "not_run");
    for (size_t i = 0; i < o->n_not_run; i++) {
        const struct not_run_item *it = &o->not_run[i];
        struct tpl_value *v = tpl_push_map(list);
        tpl_set_bool(v, "no_gpu", it->kind == SKIP_NO_GPU);
        tpl_set_bool(v, "slow", it->kind == SKIP_SLOW);
        tpl_set_bool(v, "hidden", it->kind == SKIP_HIDDEN);
        tpl_set_bool(v, "other", it->kind == SKIP_OTHER);
        tpl_set_num(v, "count", (double)it->count);
        tpl_set_bool(v, "several", it->count > 1);
        tpl_set_bool(v, "has_points", it->shown > 0);
        set_own(v, "points", fmt_hundredths(it->shown));
        /* The GPU probe's reason, written before any language was known: in the page's. */
        char *said = messages_machine(&rc->msgs, it->kind == SKIP_NO_GPU ? r->machine.gpu_status
                                                                         : it->message);
        char *why = esc_first_line(said, MESSAGE_CHARS);
        free(said);
        tpl_set_str(v, "reason", why);
        tpl_set_bool(v, "has_reason", *why != '\0');
        free(why);
    }
    tpl_set_bool(m, "has_not_run", o->n_not_run > 0);
}

static void set_next(const struct overview *o, struct tpl_value *m)
{
    static const char *const names[N_NEXT_STEPS] = {
        [NEXT_COMPILE] = "compile", [NEXT_WRONG] = "wrong",   [NEXT_CRASH] = "crash",
        [NEXT_LIMITS] = "limits",   [NEXT_CHEAT] = "cheat",   [NEXT_SANITIZER] = "sanitizer",
        [NEXT_GRADER] = "grader",   [NEXT_NO_GPU] = "no_gpu", [NEXT_SLOW] = "slow",
        [NEXT_SPEED] = "speed",     [NEXT_DONE] = "done",
    };
    struct tpl_value *next = tpl_set_map(m, "next");
    for (int i = 0; i < N_NEXT_STEPS; i++)
        tpl_set_bool(next, names[i], o->next[i]);
}

static void set_overview(const struct report_ctx *rc, const struct results *r, struct tpl_value *m)
{
    struct overview o;
    overview_build(&o, r, rc->hide_hidden);
    struct tpl_value *lost = tpl_set_list(m, "lost");
    struct tpl_value *grader = tpl_set_list(m, "grader_errors");
    for (size_t i = 0; i < o.n_lost; i++)
        set_lost_item(rc, tpl_push_map(o.lost[i].grader ? grader : lost), &o.lost[i]);
    tpl_set_bool(m, "has_lost", tpl_list_len(lost) > 0);
    tpl_set_bool(m, "has_grader_error_items", tpl_list_len(grader) > 0);
    set_not_run(rc, r, &o, m);
    tpl_set_num(m, "hidden_total", (double)o.hidden_total);
    tpl_set_num(m, "hidden_passed", (double)o.hidden_passed);
    tpl_set_num(m, "hidden_failed", (double)o.hidden_failed);
    tpl_set_num(m, "hidden_not_run", (double)o.hidden_not_run);
    tpl_set_bool(m, "hidden_ran", o.hidden_total > o.hidden_not_run);
    set_next(&o, m);
    overview_release(&o);
}

/* ---- the exercises ---- */

static void set_figure(struct tpl_value *list, char *svg)
{
    if (*svg)
        tpl_set_md(tpl_push_map(list), "svg", svg);
    free(svg);
}

static void set_exercise(const struct report_ctx *rc, const struct exercise_result *ex, size_t i,
                         struct tpl_value *m)
{
    const struct shown_exercise *sx = &rc->shown->ex[i];
    tpl_set_str(m, "id", ex->exercise_id);
    set_own(m, "anchor", xstrfmt("ex%zu", i + 1));
    tpl_set_str(m, "title", exercise_title(ex));
    set_own(m, "points", fmt_hundredths(sx->points));
    set_own(m, "max_points", fmt_hundredths(sx->max));
    set_own(m, "perf_points", fmt_hundredths(sx->perf));
    set_own(m, "perf_max_points", fmt_hundredths(sx->perf_max));
    tpl_set_bool(m, "has_perf", ex->perf_max_points > 0);
    tpl_set_bool(m, "full_marks", ex->max_points > 0 && ex->points >= ex->max_points);
    tpl_set_str(m, "tol_summary", ex->tol_summary);
    tpl_set_bool(m, "has_tol", has_text(ex->tol_summary));
    struct tpl_value *vs = tpl_set_list(m, "variants");
    for (size_t v = 0; v < ex->n_variants; v++)
        tpl_push(vs, html_variant_value(rc, &ex->variants[v]));
    struct tpl_value *figs = tpl_set_list(m, "figures");
    struct tpl_value *be = tpl_set_list(m, "break_evens");
    set_figure(figs, html_fig_sizes(rc, ex, be));
    set_figure(figs, html_fig_speedups(rc, ex));
    set_figure(figs, html_fig_roofline(rc, ex));
    tpl_set_bool(m, "has_figures", tpl_list_len(figs) > 0);
    tpl_set_bool(m, "has_break_evens", tpl_list_len(be) > 0);
}

static void set_machine(struct tpl_value *m, const struct machine_info *mi)
{
    struct tpl_value *mm = tpl_set_map(m, "machine");
    tpl_set_str(mm, "cpu_model", mi->cpu_model);
    tpl_set_num(mm, "cpu_threads", mi->cpu_threads);
    tpl_set_bool(mm, "gpu_available", mi->gpu_status && !strcmp(mi->gpu_status, "available"));
    tpl_set_str(mm, "gpu_name", mi->gpu_name);
    tpl_set_str(mm, "gpu_status", mi->gpu_status);
    tpl_set_str(mm, "cc_version", mi->cc_version);
    tpl_set_str(mm, "cflags", mi->cflags);
    tpl_set_str(mm, "nvcc_version", mi->nvcc_version);
    tpl_set_bool(mm, "has_nvcc", has_text(mi->nvcc_version));
    tpl_set_str(mm, "calibration", mi->calibration);
    tpl_set_bool(mm, "has_calibration", has_text(mi->calibration));
}

static struct tpl_value *student_page(const struct report_ctx *rc, const struct results *r)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "lang", rc->lang);
    tpl_set_bool(m, "student_view", rc->hide_hidden);
    set_header(m, r);
    set_score(m, r, rc->shown);
    set_overview(rc, r, m);
    struct tpl_value *exs = tpl_set_list(m, "exercises");
    bool any_perf = false;
    for (size_t e = 0; e < r->n_exercises; e++) {
        set_exercise(rc, &r->exercises[e], e, tpl_push_map(exs));
        any_perf |= r->exercises[e].perf_max_points > 0;
    }
    tpl_set_bool(m, "any_perf", any_perf);
    set_machine(m, &r->machine);
    return m;
}

int html_student(const struct report_ctx *rc, const struct results *r, struct report_outcome *out,
                 struct error *err)
{
    struct tpl_value *ctx = student_page(rc, r);
    int res = html_write_page(rc, "report.html", ctx, false, "report.html", out->html_path,
                              sizeof(out->html_path), err);
    out->html_written = res == 0;
    tpl_value_free(ctx);
    return res;
}

#include "report/sections.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "report/cases.h"
#include "report/format.h"
#include "report/overview.h"
#include "report/points.h"

#include <stdlib.h>
#include <string.h>

/* The first page: what cost points (overview.h), one item per cause, and what to try next. */

static void set_lost_item(const struct report_ctx *rc, struct tpl_value *item,
                          const struct lost_item *it)
{
    tpl_set_str(item, "exercise", it->ex->exercise_id);
    tpl_set_str(item, "exercise_title", exercise_title(it->ex));
    tpl_set_str(item, "variant", it->vr->variant_id);
    tpl_set_str(item, "variant_title", variant_title(it->vr));
    tpl_set_num(item, "count", (double)it->count);
    tpl_set_bool(item, "several", it->count > 1);
    tpl_set_bool(item, "hidden", it->hidden);
    /* A grader error's points are not lost: they are a part of what was not graded here. */
    tpl_set_bool(item, "has_lost_points", it->grader ? it->shown > 0 : it->points > 0);
    set_own_points(item, "lost_points",
                   it->grader ? fmt_hundredths(it->shown) : fmt_points(it->points));
    if (it->hidden) {
        /* A count, never an id, a size or a message. */
        tpl_set_str(item, "cases", "");
        tpl_set_md(item, "verdict", "");
        tpl_set_str(item, "verdict_code", "");
        tpl_set_str(item, "message", "");
        tpl_set_bool(item, "has_message", false);
        return;
    }
    const struct case_result *cr = &it->vr->cases[it->first];
    char *ids = lost_item_cases(it);
    tpl_set_str(item, "cases", ids);
    free(ids);
    set_verdict(rc, item, cr->verdict);
    char *msg = esc_first_line(cr->message, MESSAGE_CHARS);
    tpl_set_str(item, "message", msg);
    tpl_set_bool(item, "has_message", *msg != '\0');
    free(msg);
}

static void set_not_run(const struct report_ctx *rc, const struct results *r,
                        struct tpl_value *list, const struct overview *o)
{
    for (size_t i = 0; i < o->n_not_run; i++) {
        const struct not_run_item *it = &o->not_run[i];
        struct tpl_value *v = tpl_push_map(list);
        tpl_set_bool(v, "no_gpu", it->kind == SKIP_NO_GPU);
        tpl_set_bool(v, "slow", it->kind == SKIP_SLOW);
        tpl_set_bool(v, "hidden", it->kind == SKIP_HIDDEN);
        tpl_set_bool(v, "other", it->kind == SKIP_OTHER);
        /* A hidden case once however many variants it runs on: "1 hidden case, in every
         * variant of its exercise (3 runs)". */
        tpl_set_num(v, "count", (double)it->cases);
        tpl_set_bool(v, "several", it->cases > 1);
        tpl_set_num(v, "runs", (double)it->count);
        tpl_set_bool(v, "in_variants", it->count > it->cases);
        tpl_set_bool(v, "has_points", it->shown > 0);
        set_own_points(v, "points", fmt_hundredths(it->shown));
        /* The GPU probe's reason, written before any language was known: in the report's. */
        char *said = messages_machine(&rc->msgs, it->kind == SKIP_NO_GPU ? r->machine.gpu_status
                                                                         : it->message);
        char *why = esc_first_line(said, MESSAGE_CHARS);
        free(said);
        tpl_set_str(v, "reason", why);
        tpl_set_bool(v, "has_reason", *why != '\0');
        free(why);
    }
}

static void set_next(struct tpl_value *m, const struct overview *o)
{
    static const char *const names[N_NEXT_STEPS] = {
        [NEXT_COMPILE] = "compile",     [NEXT_MISSING] = "missing", [NEXT_WRONG] = "wrong",
        [NEXT_CRASH] = "crash",         [NEXT_LIMITS] = "limits",   [NEXT_CHEAT] = "cheat",
        [NEXT_SANITIZER] = "sanitizer", [NEXT_GRADER] = "grader",   [NEXT_NO_GPU] = "no_gpu",
        [NEXT_SLOW] = "slow",           [NEXT_SPEED] = "speed",     [NEXT_DONE] = "done",
    };
    struct tpl_value *next = tpl_set_map(m, "next");
    for (int i = 0; i < N_NEXT_STEPS; i++)
        tpl_set_bool(next, names[i], o->next[i]);
}

/* Speed points not measured here: not lost, not graded here. */
static void set_speed_items(struct tpl_value *list, const struct overview *o)
{
    for (size_t i = 0; i < o->n_speed; i++) {
        const struct speed_item *it = &o->speed[i];
        struct tpl_value *v = tpl_push_map(list);
        tpl_set_str(v, "exercise", it->ex->exercise_id);
        tpl_set_str(v, "exercise_title", exercise_title(it->ex));
        set_own_points(v, "points", fmt_hundredths(it->shown));
        tpl_set_bool(v, "not_timed", it->state == PERF_NOT_TIMED);
        tpl_set_bool(v, "has_variant", it->state == PERF_NOT_RUN && it->vr);
        tpl_set_str(v, "variant", it->vr ? it->vr->variant_id : "");
    }
}

/* What the score is of (score.h): the part graded here, the rest, and whether the grade is
 * incomplete on the grader's side, with its two kinds of cases counted apart (a case not
 * timed is no XX): the counts are the score line's. */
static void set_scope(struct tpl_value *m, const struct results *r, const struct overview *o)
{
    set_own_points(m, "graded_max", fmt_hundredths(o->graded_shown));
    set_own_points(m, "not_graded", fmt_hundredths(o->not_graded_shown));
    tpl_set_bool(m, "has_not_graded", o->not_graded_shown > 0);
    bool gap = o->gap.gap != GAP_NONE, unreadable = o->gap.gap == GAP_UNREADABLE;
    size_t xx = gap && !unreadable ? grader_error_cases(r) : 0;
    size_t not_timed = gap && !unreadable ? (size_t)results_count_not_timed(r) : 0;
    tpl_set_bool(m, "has_gap", gap);
    tpl_set_bool(m, "gap_unreadable", gap && xx + not_timed == 0);
    tpl_set_bool(m, "has_gap_xx", xx > 0);
    tpl_set_num(m, "gap_xx", (double)xx);
    tpl_set_bool(m, "gap_xx_several", xx != 1);
    tpl_set_bool(m, "has_gap_not_timed", not_timed > 0);
    tpl_set_num(m, "gap_not_timed", (double)not_timed);
    tpl_set_bool(m, "gap_not_timed_several", not_timed != 1);
    tpl_set_bool(m, "gap_several", xx + not_timed != 1);
}

void add_overview(const struct report_ctx *rc, const struct results *r, struct tpl_value *m)
{
    struct overview o;
    overview_build(&o, r, rc->hide_hidden);
    struct tpl_value *lost = tpl_set_list(m, "lost");
    struct tpl_value *grader = tpl_set_list(m, "grader_errors");
    for (size_t i = 0; i < o.n_lost; i++)
        set_lost_item(rc, tpl_push_map(o.lost[i].grader ? grader : lost), &o.lost[i]);
    tpl_set_bool(m, "has_lost", tpl_list_len(lost) > 0);
    tpl_set_bool(m, "has_grader_error_items", tpl_list_len(grader) > 0);
    struct tpl_value *not_run = tpl_set_list(m, "not_run");
    set_not_run(rc, r, not_run, &o);
    tpl_set_bool(m, "has_not_run", o.n_not_run > 0);
    struct tpl_value *speed = tpl_set_list(m, "speed_not_measured");
    set_speed_items(speed, &o);
    tpl_set_bool(m, "has_not_graded_items", o.n_not_run + o.n_speed + tpl_list_len(grader) > 0);
    tpl_set_bool(m, "any_ran", r->n_pass + r->n_fail > 0);
    set_scope(m, r, &o);
    tpl_set_num(m, "hidden_cases", (double)o.hidden_cases);
    tpl_set_bool(m, "hidden_several", o.hidden_cases > 1);
    tpl_set_num(m, "hidden_runs", (double)o.hidden_total);
    tpl_set_bool(m, "hidden_in_variants", o.hidden_total > o.hidden_cases);
    tpl_set_bool(m, "has_hidden", o.hidden_total > 0);
    tpl_set_num(m, "hidden_passed", (double)o.hidden_passed);
    tpl_set_num(m, "hidden_failed", (double)o.hidden_failed);
    tpl_set_num(m, "hidden_not_run", (double)o.hidden_not_run);
    tpl_set_bool(m, "hidden_ran", o.hidden_total > o.hidden_not_run);
    set_next(m, &o);
    overview_release(&o);
}

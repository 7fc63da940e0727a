/*
 * score: speed points, for correct code only (labs/README.md, "Performance points"), and what
 * a score is of (score.h).
 *
 * Full points at or under full_at times the reference's time, falling log-linearly to none at
 * zero_at. The ratio is the end of the timed pairs' 95% interval least favourable to the
 * student: points are awarded only where the interval clears the band that earns them, so
 * that measurement noise never buys a point, and the share is rounded down to tenths.
 */
#include "grade/score.h"

#include "grade/grading.h"
#include "grade/decisions.h"

#include "base/alloc.h"
#include "base/messages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The time ratio to the reference that speed points are decided on; 0 when there is none. */
static double perf_ratio(const struct case_result *cr)
{
    if (cr->pairs > 0 && cr->speedup_lo > 0)
        return 1 / cr->speedup_lo;
    return 0;
}

/* The share case cr earns: its interval's worst end's, or the band kept for the same code on
 * this machine where the interval reaches it (decisions.h). */
static double perf_fraction(struct grading *g, const struct exercise_spec *ex,
                            const struct variant_result *vr, const struct case_result *cr)
{
    if (cr->verdict != V_PASS)
        return -1;
    double f = perf_share(&ex->perf, perf_ratio(cr));
    double best = cr->speedup_hi > 0 ? perf_share(&ex->perf, 1 / cr->speedup_hi) : f;
    const struct variant_spec *v = vr->variant_id ? exercise_variant(ex, vr->variant_id) : NULL;
    return v && f >= 0 ? decisions_settle(g, ex, v, cr, f, best) : f;
}

/* Whether a variant is the one an exercise's speed points are measured on. */
static bool is_perf_variant(const char *perf_variant, const struct variant_result *vr)
{
    return !perf_variant || (vr->variant_id && !strcmp(vr->variant_id, perf_variant));
}

/* A case that speed points are averaged over: it ran and was judged by the submission's
 * code. A skip, the grader's failure or a correct case that was not timed counts neither
 * for nor against. */
static bool counts_for_speed(const struct case_result *cr)
{
    if (cr->verdict == V_SKIPPED || case_is_grader_gap(cr) || cr->max_points <= 0)
        return false;
    return cr->verdict != V_PASS || perf_ratio(cr) > 0;
}

static const struct variant_result *variant_named(const struct exercise_result *er, const char *id)
{
    for (size_t v = 0; id && v < er->n_variants; v++)
        if (er->variants[v].variant_id && !strcmp(er->variants[v].variant_id, id))
            return &er->variants[v];
    return NULL;
}

/*
 * One CPU baseline per case, from this run: the baseline variant's reference was timed in
 * pairs beside the student's function, so its median is the baseline, and that variant's
 * "vs CPU" is its "vs ref". Every variant of the case is then measured against that same time
 * (speed.c took a separate, cached run's, which on a loaded machine can be several times
 * off). Where the baseline variant did not pass or was not timed, the cached time stays.
 */
static void one_baseline(const struct exercise_spec *ex, struct exercise_result *er)
{
    const struct variant_result *bv = variant_named(er, ex->baseline);
    for (size_t c = 0; bv && c < bv->n_cases; c++) {
        const struct case_result *bc = &bv->cases[c];
        if (bc->verdict != V_PASS || bc->pairs <= 0 || !bc->ref_time.valid ||
            !(bc->ref_time.median_ms > 0) || !bc->case_id)
            continue;
        double base = bc->ref_time.median_ms;
        for (size_t v = 0; v < er->n_variants; v++)
            for (size_t k = 0; k < er->variants[v].n_cases; k++) {
                struct case_result *cr = &er->variants[v].cases[k];
                if (!cr->case_id || strcmp(cr->case_id, bc->case_id) || cr->baseline_ms <= 0)
                    continue;
                cr->baseline_ms = base;
                if (&er->variants[v] == bv)
                    cr->speedup_baseline = cr->speedup_ref;
                else if (cr->time.valid && cr->time.median_ms > 0)
                    cr->speedup_baseline = base / cr->time.median_ms;
            }
    }
}

void score_performance(struct grading *g, const struct exercise_spec *ex,
                       struct exercise_result *er)
{
    double sum = 0;
    int counted = 0;
    one_baseline(ex, er);
    if (!ex->has_perf)
        return;
    /* The lab's points whatever is measured here: one maximum on every machine. */
    er->perf_max_points = ex->perf.points;
    er->perf_points = 0;
    free(er->perf_variant);
    er->perf_variant = ex->perf.variant ? xstrdup(ex->perf.variant) : NULL;
    if (g->o->no_timing)
        return;
    for (size_t v = 0; v < er->n_variants; v++) {
        struct variant_result *vr = &er->variants[v];
        if (!is_perf_variant(ex->perf.variant, vr))
            continue;
        for (size_t c = 0; c < vr->n_cases; c++) {
            struct case_result *cr = &vr->cases[c];
            if (!counts_for_speed(cr))
                continue;
            double f = perf_fraction(g, ex, vr, cr);
            counted++;
            if (f > 0)
                sum += f;
            if (f < 0)
                continue;
            judge_add_finding(
                cr, xstrfmt(messages_get(g->o->messages, "performance: %.2fx the reference's time "
                                                         "at worst (95%% interval of %d timed "
                                                         "pairs: %.2fx to %.2fx) earns %.0f%% of "
                                                         "the speed points"),
                            perf_ratio(cr), cr->pairs, 1 / cr->speedup_hi, 1 / cr->speedup_lo,
                            f * 100));
            /* The interval reached the band kept for this code (decisions.h). */
            if (f > perf_share(&ex->perf, perf_ratio(cr)) + 1e-9)
                judge_add_finding(
                    cr, xstrfmt(messages_get(g->o->messages,
                                             "the same code graded earlier on this machine "
                                             "earned %.0f%%, which this interval allows: the "
                                             "band is kept, so that copies of a submission get "
                                             "the same points"),
                                f * 100));
            cr->perf_finding = cr->n_findings;
        }
    }
    if (counted > 0)
        er->perf_points = ex->perf.points * sum / counted;
}

/* ---- what a score is of ---- */

static enum grade_gap case_gap(const struct case_result *c)
{
    if (c->verdict == V_GRADER)
        return GAP_GRADER_ERROR;
    return case_not_timed(c) ? GAP_NOT_TIMED : GAP_NONE;
}

bool case_is_grader_gap(const struct case_result *c)
{
    return case_gap(c) != GAP_NONE;
}

/* Why a case is a gap, in the results' own words: its message, or what kept it from being
 * timed. */
static const char *gap_reason(const struct case_result *c)
{
    if (case_not_timed(c))
        return c->not_timed_detail ? c->not_timed_detail : not_timed_name(c->not_timed);
    return c->message ? c->message : "";
}

enum grade_gap grade_gap_of(const struct results *r, struct grade_gap_info *info)
{
    struct grade_gap_info me = {GAP_NONE, 0, ""};
    if (r->unreadable) {
        me.gap = GAP_UNREADABLE;
        me.reason = r->unreadable;
    }
    for (size_t e = 0; e < r->n_exercises && me.gap != GAP_UNREADABLE; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            for (size_t c = 0; c < r->exercises[e].variants[v].n_cases; c++) {
                const struct case_result *cr = &r->exercises[e].variants[v].cases[c];
                enum grade_gap g = case_gap(cr);
                if (g == GAP_NONE)
                    continue;
                me.cases++;
                /* A grader error outranks a case not timed: it is the one to fix first. */
                if (me.gap == GAP_NONE || g < me.gap) {
                    me.gap = g;
                    me.reason = gap_reason(cr);
                }
            }
    /* A count without its cases (a stand-in built by hand): still the grader's failure. */
    if (me.gap == GAP_NONE && r->n_grader_errors > 0) {
        me.gap = GAP_GRADER_ERROR;
        me.cases = (size_t)r->n_grader_errors;
    }
    if (info)
        *info = me;
    return me.gap;
}

const char *grade_gap_status(enum grade_gap g)
{
    switch (g) {
    case GAP_NONE:
        return NULL;
    case GAP_UNREADABLE:
    case GAP_GRADER_ERROR:
        return "grader-error";
    case GAP_NOT_TIMED:
        return "not-timed";
    }
    return "grader-error";
}

enum perf_state exercise_perf_state(const struct exercise_result *ex,
                                    const struct variant_result **variant)
{
    bool ran = false, timed = false;
    if (variant)
        *variant = NULL;
    if (!(ex->perf_max_points > 0))
        return PERF_NONE;
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct variant_result *vr = &ex->variants[v];
        if (!is_perf_variant(ex->perf_variant, vr))
            continue;
        if (variant && ex->perf_variant)
            *variant = vr;
        for (size_t c = 0; c < vr->n_cases; c++) {
            const struct case_result *cr = &vr->cases[c];
            if (cr->verdict == V_SKIPPED || case_is_grader_gap(cr))
                continue;
            ran = true;
            /* A failure costs the speed points as surely as a slow time does. */
            timed |= cr->verdict != V_PASS || perf_ratio(cr) > 0 || cr->perf_finding > 0;
        }
    }
    if (!ran)
        return PERF_NOT_RUN;
    return timed ? PERF_MEASURED : PERF_NOT_TIMED;
}

void score_scope_of(const struct results *r, struct score_scope *s)
{
    s->graded_max = 0;
    for (size_t e = 0; e < r->n_exercises; e++) {
        const struct exercise_result *ex = &r->exercises[e];
        if (exercise_perf_state(ex, NULL) == PERF_MEASURED)
            s->graded_max += ex->perf_max_points;
        for (size_t v = 0; v < ex->n_variants; v++)
            for (size_t c = 0; c < ex->variants[v].n_cases; c++) {
                const struct case_result *cr = &ex->variants[v].cases[c];
                /* A case not timed was graded all the same: only its speed is missing. */
                if (cr->verdict != V_SKIPPED && cr->verdict != V_GRADER)
                    s->graded_max += cr->max_points;
            }
    }
    s->not_graded = r->max_score - s->graded_max;
    if (s->not_graded < 1e-9)
        s->not_graded = 0;
}

#include "report/overview.h"

#include "base/alloc.h"
#include "base/strbuf.h"
#include "report/points.h"

#include <stdlib.h>
#include <string.h>

enum skip_kind case_skip_kind(const struct results *r, const struct variant_result *vr,
                              const struct case_result *cr)
{
    bool gpu_here = r->machine.gpu_status && !strcmp(r->machine.gpu_status, "available");
    if (cr->hidden && !r->hidden)
        return SKIP_HIDDEN;
    if (cr->slow && !r->full)
        return SKIP_SLOW;
    if (vr->target && !strcmp(vr->target, "gpu") && !gpu_here)
        return SKIP_NO_GPU;
    return SKIP_OTHER;
}

static const char *msg_of(const struct case_result *cr)
{
    return cr->message ? cr->message : "";
}

/* Whether (ex, the case's id) was seen before under tag (HIDDEN_COUNTED, or the skip_kind it
 * was not run for): each hidden case is then counted once however many variants ran it. */
#define HIDDEN_COUNTED (-1)
static bool seen_before(struct overview *o, const struct exercise_result *ex,
                        const struct case_result *cr, int tag)
{
    const char *id = cr->case_id ? cr->case_id : "";
    for (size_t i = 0; i < o->n_seen; i++)
        if (o->seen[i].ex == ex && o->seen[i].tag == tag && !strcmp(o->seen[i].case_id, id))
            return true;
    ALLOC_GROW(o->seen, o->n_seen + 1, o->alloc_seen);
    o->seen[o->n_seen++] = (struct hidden_seen){ex, id, tag};
    return false;
}

static void add_not_run(struct overview *o, const struct results *r,
                        const struct exercise_result *ex, const struct variant_result *vr,
                        const struct case_result *cr)
{
    enum skip_kind kind = case_skip_kind(r, vr, cr);
    struct not_run_item *it = NULL;
    for (size_t i = 0; i < o->n_not_run && !it; i++)
        if (o->not_run[i].kind == kind &&
            (kind != SKIP_OTHER || !strcmp(o->not_run[i].message, msg_of(cr))))
            it = &o->not_run[i];
    if (!it) {
        ALLOC_GROW(o->not_run, o->n_not_run + 1, o->alloc_not_run);
        it = &o->not_run[o->n_not_run++];
        memset(it, 0, sizeof(*it));
        it->kind = kind;
        it->message = msg_of(cr);
    }
    it->count++;
    /* A hidden case not run, whatever the reason (a kit's check withholds it), once. */
    it->cases += !cr->hidden || !seen_before(o, ex, cr, (int)kind);
    it->points += cr->max_points - cr->points;
}

static struct lost_item *add_lost(struct overview *o, const struct exercise_result *ex,
                                  const struct variant_result *vr, size_t first)
{
    ALLOC_GROW(o->lost, o->n_lost + 1, o->alloc_lost);
    struct lost_item *it = &o->lost[o->n_lost++];
    memset(it, 0, sizeof(*it));
    it->ex = ex;
    it->vr = vr;
    it->first = first;
    return it;
}

static bool is_hidden(const struct case_result *cr, bool hide_hidden)
{
    return cr->hidden && hide_hidden;
}

static void note_verdict(struct overview *o, enum verdict v)
{
    static const enum next_step step[] = {
        [V_COMPILE] = NEXT_COMPILE, [V_MISSING] = NEXT_MISSING, [V_WRONG] = NEXT_WRONG,
        [V_CRASH] = NEXT_CRASH,     [V_EXIT] = NEXT_CRASH,      [V_TIMEOUT] = NEXT_LIMITS,
        [V_MEMORY] = NEXT_LIMITS,   [V_OUTPUT] = NEXT_LIMITS,   [V_CHEAT] = NEXT_CHEAT,
        [V_GRADER] = NEXT_GRADER,
    };
    if (v != V_PASS && v != V_SKIPPED && (size_t)v < sizeof(step) / sizeof(step[0]))
        o->next[step[v]] = true;
}

/* The visible cases from c on with the verdict of cases[c]: how many. Their messages may
 * differ (a count of wrong elements per size); the first one stands for them. */
static size_t same_run(const struct variant_result *vr, size_t c, bool hide_hidden)
{
    const struct case_result *cr = &vr->cases[c];
    size_t end = c + 1;
    while (end < vr->n_cases && !is_hidden(&vr->cases[end], hide_hidden) &&
           vr->cases[end].verdict == cr->verdict)
        end++;
    return end - c;
}

/* A variant's hidden cases in the student view, by count: failures, and grader errors. */
struct hidden_count {
    size_t failed, grader;
    double lost, grader_points;
};

/* A hidden case in the student view: counted; a failure or a grader error added to h. */
static void count_hidden(struct overview *o, const struct exercise_result *ex,
                         const struct case_result *cr, struct hidden_count *h)
{
    o->hidden_cases += !seen_before(o, ex, cr, HIDDEN_COUNTED);
    o->hidden_total++;
    o->hidden_passed += cr->verdict == V_PASS;
    o->hidden_not_run += cr->verdict == V_SKIPPED || cr->verdict == V_GRADER;
    if (cr->verdict == V_GRADER) {
        note_verdict(o, cr->verdict);
        h->grader++;
        h->grader_points += cr->max_points - cr->points;
        return;
    }
    if (!verdict_is_failure(cr->verdict))
        return;
    o->hidden_failed++;
    note_verdict(o, cr->verdict);
    h->failed++;
    h->lost += cr->max_points - cr->points;
}

static void add_variant(struct overview *o, const struct results *r,
                        const struct exercise_result *ex, const struct variant_result *vr,
                        bool hide_hidden)
{
    struct hidden_count h = {0, 0, 0, 0};
    for (size_t c = 0; c < vr->n_cases;) {
        const struct case_result *cr = &vr->cases[c];
        if (cr->verdict == V_SKIPPED)
            add_not_run(o, r, ex, vr, cr);
        if (is_hidden(cr, hide_hidden)) {
            count_hidden(o, ex, cr, &h);
            c++;
            continue;
        }
        if (!verdict_is_failure(cr->verdict) && cr->verdict != V_GRADER) {
            c++;
            continue;
        }
        note_verdict(o, cr->verdict);
        struct lost_item *it = add_lost(o, ex, vr, c);
        it->count = same_run(vr, c, hide_hidden);
        it->grader = cr->verdict == V_GRADER;
        for (size_t k = c; k < c + it->count; k++)
            it->points += vr->cases[k].max_points - vr->cases[k].points;
        c += it->count;
    }
    /* The variant's hidden failures, then its hidden grader errors: an item each, after its
     * visible ones, by count only. */
    if (h.failed) {
        struct lost_item *it = add_lost(o, ex, vr, 0);
        it->hidden = true;
        it->count = h.failed;
        it->points = h.lost;
    }
    if (h.grader) {
        struct lost_item *it = add_lost(o, ex, vr, 0);
        it->hidden = it->grader = true;
        it->count = h.grader;
        it->points = h.grader_points;
    }
}

/* compute-sanitizer errors on a case the reader may see. */
static bool sanitizer_found(const struct variant_result *vr, bool hide_hidden)
{
    for (size_t k = 0; k < vr->n_sanitizer; k++) {
        const struct sanitizer_run *run = &vr->sanitizer[k];
        bool hidden = false;
        for (size_t c = 0; run->case_id && c < vr->n_cases; c++)
            hidden |= vr->cases[c].case_id && !strcmp(vr->cases[c].case_id, run->case_id) &&
                      is_hidden(&vr->cases[c], hide_hidden);
        if (run->status == SANITIZER_RAN && sanitizer_error_count(&run->out) > 0 && !hidden)
            return true;
    }
    return false;
}

static void decide_next(struct overview *o, const struct results *r, bool sanitizer)
{
    bool no_gpu = false;
    for (size_t i = 0; i < o->n_not_run; i++) {
        no_gpu |= o->not_run[i].kind == SKIP_NO_GPU;
        o->next[NEXT_SLOW] |= o->not_run[i].kind == SKIP_SLOW;
    }
    o->next[NEXT_NO_GPU] = no_gpu;
    o->next[NEXT_SANITIZER] = sanitizer;
    bool speed_lost = false;
    for (size_t e = 0; e < r->n_exercises; e++)
        speed_lost |= exercise_perf_state(&r->exercises[e], NULL) == PERF_MEASURED &&
                      r->exercises[e].perf_points + 1e-9 < r->exercises[e].perf_max_points;
    /* Speed points wait for the GPU where it did not run. */
    o->next[NEXT_SPEED] = o->n_failures == 0 && !no_gpu && speed_lost;
    bool any = false;
    for (int i = 0; i < NEXT_DONE; i++)
        any |= o->next[i];
    o->next[NEXT_DONE] = !any;
}

/* Speed points not measured here: an item each, like the cases not run. */
static void add_speed_items(struct overview *o, const struct results *r)
{
    for (size_t e = 0; e < r->n_exercises; e++) {
        const struct variant_result *vr;
        enum perf_state st = exercise_perf_state(&r->exercises[e], &vr);
        if (st != PERF_NOT_RUN && st != PERF_NOT_TIMED)
            continue;
        ALLOC_GROW(o->speed, o->n_speed + 1, o->alloc_speed);
        struct speed_item *it = &o->speed[o->n_speed++];
        it->ex = &r->exercises[e];
        it->vr = vr;
        it->state = st;
        it->points = r->exercises[e].perf_max_points;
        it->shown = 0;
    }
}

/* The parts of what was not graded here, printed so that they add up (points.h): the cases
 * not run, the speed points not measured, the grader's errors, in the order printed. */
static void share_not_graded(struct overview *o)
{
    size_t n = o->n_not_run + o->n_speed + o->n_lost, k = 0;
    double *exact = xcalloc(n + 1, sizeof(double));
    long *out = xcalloc(n + 1, sizeof(long));
    for (size_t i = 0; i < o->n_not_run; i++)
        exact[k++] = o->not_run[i].points;
    for (size_t i = 0; i < o->n_speed; i++)
        exact[k++] = o->speed[i].points;
    for (size_t i = 0; i < o->n_lost; i++)
        exact[k++] = o->lost[i].grader ? o->lost[i].points : 0;
    apportion(exact, n, o->not_graded_shown, out);
    k = 0;
    for (size_t i = 0; i < o->n_not_run; i++)
        o->not_run[i].shown = out[k++];
    for (size_t i = 0; i < o->n_speed; i++)
        o->speed[i].shown = out[k++];
    for (size_t i = 0; i < o->n_lost; i++)
        o->lost[i].shown = out[k++];
    free(exact);
    free(out);
}

/* What the score is of, as printed: the graded part and the rest add up to the maximum. */
static void set_scope(struct overview *o, const struct results *r)
{
    score_scope_of(r, &o->scope);
    o->score_shown = hundredths(r->score);
    o->max_shown = hundredths(r->max_score);
    o->graded_shown = hundredths(o->scope.graded_max);
    if (o->graded_shown > o->max_shown)
        o->graded_shown = o->max_shown;
    o->not_graded_shown = o->max_shown - o->graded_shown;
    grade_gap_of(r, &o->gap);
}

void overview_build(struct overview *o, const struct results *r, bool hide_hidden)
{
    memset(o, 0, sizeof(*o));
    bool sanitizer = false;
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r->exercises[e].variants[v];
            add_variant(o, r, &r->exercises[e], vr, hide_hidden);
            sanitizer |= sanitizer_found(vr, hide_hidden);
        }
    /* The causes in the order of skip_kind: no GPU, slow, hidden, the rest (stable). */
    for (size_t i = 1; i < o->n_not_run; i++)
        for (size_t j = i; j > 0 && o->not_run[j].kind < o->not_run[j - 1].kind; j--) {
            struct not_run_item t = o->not_run[j];
            o->not_run[j] = o->not_run[j - 1];
            o->not_run[j - 1] = t;
        }
    for (size_t i = 0; i < o->n_lost; i++)
        o->n_failures += !o->lost[i].grader;
    add_speed_items(o, r);
    set_scope(o, r);
    share_not_graded(o);
    decide_next(o, r, sanitizer);
}

void overview_release(struct overview *o)
{
    free(o->lost);
    free(o->not_run);
    free(o->speed);
    free(o->seen);
    memset(o, 0, sizeof(*o));
}

char *lost_item_cases(const struct lost_item *it)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t k = it->first; !it->hidden && k < it->first + it->count; k++) {
        const char *id = it->vr->cases[k].case_id;
        strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", id ? id : "");
    }
    return strbuf_detach(&sb);
}

#include "report/overview.h"

#include "base/alloc.h"
#include "base/strbuf.h"

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

static void add_not_run(struct overview *o, const struct results *r,
                        const struct variant_result *vr, const struct case_result *cr)
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
        [V_COMPILE] = NEXT_COMPILE, [V_MISSING] = NEXT_COMPILE, [V_WRONG] = NEXT_WRONG,
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

/* A hidden case in the student view: counted; a failure adds to *failed and *lost. */
static void count_hidden(struct overview *o, const struct case_result *cr, size_t *failed,
                         double *lost)
{
    o->hidden_total++;
    o->hidden_passed += cr->verdict == V_PASS;
    o->hidden_not_run += cr->verdict == V_SKIPPED || cr->verdict == V_GRADER;
    if (!verdict_is_failure(cr->verdict))
        return;
    o->hidden_failed++;
    note_verdict(o, cr->verdict);
    (*failed)++;
    *lost += cr->max_points - cr->points;
}

static void add_variant(struct overview *o, const struct results *r,
                        const struct exercise_result *ex, const struct variant_result *vr,
                        bool hide_hidden)
{
    size_t hidden_failed = 0;
    double hidden_lost = 0;
    for (size_t c = 0; c < vr->n_cases;) {
        const struct case_result *cr = &vr->cases[c];
        if (cr->verdict == V_SKIPPED)
            add_not_run(o, r, vr, cr);
        if (is_hidden(cr, hide_hidden)) {
            count_hidden(o, cr, &hidden_failed, &hidden_lost);
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
    /* The variant's failed hidden cases: one item, after its visible ones. */
    if (hidden_failed) {
        struct lost_item *it = add_lost(o, ex, vr, 0);
        it->hidden = true;
        it->count = hidden_failed;
        it->points = hidden_lost;
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
    bool failed = false, no_gpu = false;
    for (size_t i = 0; i < o->n_lost; i++)
        failed |= !o->lost[i].grader;
    for (size_t i = 0; i < o->n_not_run; i++) {
        no_gpu |= o->not_run[i].kind == SKIP_NO_GPU;
        o->next[NEXT_SLOW] |= o->not_run[i].kind == SKIP_SLOW;
    }
    o->next[NEXT_NO_GPU] = no_gpu;
    o->next[NEXT_SANITIZER] = sanitizer;
    bool speed_lost = false;
    for (size_t e = 0; e < r->n_exercises; e++)
        speed_lost |= r->exercises[e].perf_points + 1e-9 < r->exercises[e].perf_max_points;
    /* Speed points wait for the GPU where it did not run. */
    o->next[NEXT_SPEED] = !failed && !no_gpu && speed_lost;
    bool any = false;
    for (int i = 0; i < NEXT_DONE; i++)
        any |= o->next[i];
    o->next[NEXT_DONE] = !any;
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
    decide_next(o, r, sanitizer);
}

void overview_release(struct overview *o)
{
    free(o->lost);
    free(o->not_run);
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

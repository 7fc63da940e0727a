#include "report/cases.h"

#include "base/alloc.h"
#include "base/strbuf.h"
#include "report/format.h"
#include "report/points.h"

#include <stdlib.h>
#include <string.h>

bool case_visible(const struct report_ctx *rc, const struct case_result *cr)
{
    return !(cr->hidden && rc->hide_hidden);
}

size_t exercise_cases(const struct report_ctx *rc, const struct exercise_result *ex,
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
            keys[n].first = cr;
            n++;
        }
    }
    *out = keys;
    return n;
}

const struct case_result *find_case(const struct report_ctx *rc, const struct variant_result *vr,
                                    const char *id)
{
    for (size_t c = 0; c < vr->n_cases; c++)
        if (vr->cases[c].case_id && !strcmp(vr->cases[c].case_id, id) &&
            case_visible(rc, &vr->cases[c]))
            return &vr->cases[c];
    return NULL;
}

double case_baseline(const struct report_ctx *rc, const struct exercise_result *ex, const char *id)
{
    for (size_t v = 0; v < ex->n_variants; v++) {
        const struct case_result *cr = find_case(rc, &ex->variants[v], id);
        if (cr && cr->baseline_ms > 0)
            return cr->baseline_ms;
    }
    return 0;
}

const char *variant_title(const struct variant_result *vr)
{
    return vr->title && *vr->title ? vr->title : vr->variant_id ? vr->variant_id : "";
}

bool variant_is_gpu(const struct variant_result *vr)
{
    return vr->target && !strcmp(vr->target, "gpu");
}

bool has_transfer_times(const struct variant_result *vr)
{
    for (size_t c = 0; c < vr->n_cases; c++)
        if (vr->cases[c].time_transfer.valid)
            return true;
    return false;
}

const char *exercise_title(const struct exercise_result *ex)
{
    return ex->title && *ex->title ? ex->title : ex->exercise_id ? ex->exercise_id : "";
}

bool case_param(const struct case_result *cr, const char *name, double *val)
{
    for (size_t i = 0; i < cr->n_params; i++)
        if (cr->params[i].name && !strcmp(cr->params[i].name, name)) {
            *val = (double)cr->params[i].value;
            return true;
        }
    return false;
}

const char *varying_param(const struct case_key *keys, size_t n)
{
    if (n < 2)
        return NULL;
    for (size_t i = 0; i < keys[0].first->n_params; i++) {
        const char *name = keys[0].first->params[i].name;
        bool all = true, varies = false;
        double first = 0, v = 0;
        for (size_t k = 0; k < n && all; k++) {
            all = case_param(keys[k].first, name, &v);
            if (k == 0)
                first = v;
            else
                varies |= v != first;
        }
        if (all && varies)
            return name;
    }
    return NULL;
}

void set_case_sizes(struct tpl_value *m, const struct case_result *cr)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < cr->n_params; i++)
        strbuf_addf(&sb, "%s%s=%ld", i ? "," : "", cr->params[i].name, cr->params[i].value);
    tpl_set_str(m, "sizes", strbuf_str(&sb));
    strbuf_release(&sb);
}

void set_case_points(const struct report_ctx *rc, struct tpl_value *m, const struct case_result *cr)
{
    long pts, max;
    if (rc->shown && rc->r && shown_case(rc->shown, rc->r, cr, &pts, &max)) {
        set_own(m, "points", fmt_hundredths(pts));
        set_own(m, "max_points", fmt_hundredths(max));
    } else {
        set_own(m, "points", fmt_points(cr->points));
        set_own(m, "max_points", fmt_points(cr->max_points));
    }
}

/* How many pairs the speed-up's interval came from, and why the series stopped there where that
 * is not its precision: "22 pairs", "11 pairs, the time budget spent". */
static char *timing_note(const struct messages *msgs, const struct case_result *cr)
{
    if (!strcmp(cr->stopped, "alone"))
        return xstrdup(messages_get(msgs, "1 call, against the reference's time on this machine"));
    char *pairs = xstrfmt(
        cr->pairs == 1 ? messages_get(msgs, "%d pair") : messages_get(msgs, "%d pairs"), cr->pairs);
    const char *why = !strcmp(cr->stopped, "budget") ? messages_get(msgs, "the time budget spent")
                      : !strcmp(cr->stopped, "pairs")
                          ? messages_get(msgs, "the most the lab allows")
                          : NULL;
    if (!why)
        return pairs;
    char *note = xstrfmt("%s, %s", pairs, why);
    free(pairs);
    return note;
}

void set_case_times(struct tpl_value *m, const struct messages *msgs, const struct case_result *cr)
{
    tpl_set_bool(m, "has_time", cr->time.valid);
    set_own(m, "time", fmt_timing(&cr->time));
    set_own(m, "spread", fmt_spread(&cr->time));
    tpl_set_bool(m, "has_transfer", cr->time_transfer.valid);
    set_own(m, "time_transfer", fmt_timing(&cr->time_transfer));
    set_own(m, "ref_time", fmt_timing(&cr->ref_time));
    set_own(m, "speedup_baseline", fmt_x(cr->speedup_baseline));
    set_own(m, "speedup_ref", fmt_x(cr->speedup_ref));
    tpl_set_bool(m, "has_interval", cr->speedup_lo > 0 && cr->speedup_hi > 0);
    set_own(m, "speedup_lo", fmt_x(cr->speedup_lo));
    set_own(m, "speedup_hi", fmt_x(cr->speedup_hi));
    set_own(m, "timing_note", cr->pairs > 0 ? timing_note(msgs, cr) : xstrdup(""));
    set_rate(m, cr);
}

bool case_shows_message(const struct case_result *cr)
{
    return cr->verdict != V_PASS && cr->verdict != V_SKIPPED && has_text(cr->message);
}

/* Why a correct case has no time: said with what the grader saw (results.h's not_timed). */
char *case_not_timed_reason(const struct messages *m, const struct case_result *cr)
{
    const char *d = cr->not_timed_detail ? cr->not_timed_detail : "?";
    switch (cr->not_timed) {
    case NOT_TIMED_BUSY:
        return cr->not_timed_detail
                   ? xstrfmt(messages_get(m, "not timed: the machine was busy (its turn held by "
                                             "%s); grade again later"),
                             d)
                   : xstrdup(messages_get(m, "not timed: the machine was busy; grade again later"));
    case NOT_TIMED_SHARED:
        if (cr->not_timed_gpu_pid > 0)
            return xstrfmt(messages_get(m, "not timed: another process (%s, pid %ld) computed on "
                                           "its GPU each time it was measured; grade again "
                                           "later"),
                           d, cr->not_timed_gpu_pid);
        /* No process to name when the kernel or a hypervisor took most of it. */
        if (cr->not_timed_steal_cpus > 0 && 2 * cr->not_timed_steal_cpus >= cr->not_timed_cpus)
            return xstrfmt(messages_get(m, "not timed: the machine's hypervisor took %.1f of its "
                                           "cores (steal time) each time it was measured; grade "
                                           "again later"),
                           cr->not_timed_steal_cpus);
        if (cr->not_timed_irq_cpus > 0 && 2 * cr->not_timed_irq_cpus >= cr->not_timed_cpus)
            return xstrfmt(messages_get(m, "not timed: the kernel's interrupt handling took %.1f "
                                           "of its cores each time it was measured; grade again "
                                           "later"),
                           cr->not_timed_irq_cpus);
        if (cr->not_timed_cpu_pid > 0 && cr->not_timed_detail)
            return xstrfmt(messages_get(m, "not timed: other processes took %.1f of its cores each "
                                           "time it was measured (the busiest: %s, pid %ld); "
                                           "grade again later"),
                           cr->not_timed_cpus, d, cr->not_timed_cpu_pid);
        return xstrfmt(messages_get(m, "not timed: other processes took %.1f of its cores each "
                                       "time it was measured; grade again later"),
                       cr->not_timed_cpus);
    case NOT_TIMED_COORDINATOR:
        return xstrfmt(messages_get(m, "not timed: %s"), d);
    default:
        return xstrdup("");
    }
}

size_t grader_error_cases(const struct results *r)
{
    size_t n = 0;
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            for (size_t c = 0; c < r->exercises[e].variants[v].n_cases; c++)
                n += r->exercises[e].variants[v].cases[c].verdict == V_GRADER;
    return n || r->n_grader_errors <= 0 ? n : (size_t)r->n_grader_errors;
}

/*
 * speed: a passed case's times, from the timed pairs its run reported (run/runner.h).
 *
 * The function and its reference were timed alternately in the same process on the same fresh
 * inputs, so the speedup is the median of the pairs' ratios, with its 95% interval: what drifts
 * (clocks, temperature, a neighbour's load, the host's launch latency) hits both sides of a
 * pair. Two checks turn a forged time into CH, never a speedup: the harness's clock against the
 * supervisor's (a clock that runs slow inside the process), and on the GPU the host clock
 * around a device-wide synchronize against the events (work on a stream of the function's own
 * escapes the events, never the synchronize). And the two orders of the pairs must agree: a
 * function whose speed shows when it runs second and not when it runs first (or the other way)
 * is credited with the less favourable of the two, or CH where they are far apart
 * (orders_agree).
 */
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/messages.h"
#include "base/stats.h"
#include "harness/throttle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A harness span this much shorter than the supervisor's, beyond a scheduling margin, is a
 * clock that does not run at the speed of time. */
#define CLOCK_SPAN_RATIO 0.8
#define CLOCK_SPAN_MARGIN_MS 20.0
/* The device busy after the stop event beyond the reference: more than an OS hiccup in the
 * median (microseconds), and a fair share of the call's own time. */
#define TAIL_MARGIN_MS 0.005
#define TAIL_RATIO 0.25
/* The host clock's excess over the events beyond the reference's: a margin and a share of the
 * call, in nearly every pair (see series_streams_honest). */
#define STREAMS_MARGIN_MS 0.05
#define STREAMS_RATIO 0.5
#define STREAMS_CONSISTENT 0.8

/* The orders' agreement (orders_agree): a disagreement is judged from this many blocks of two
 * pairs on (fewer give no interval worth the name: the points then come from the sample's
 * whole range, stats.h). Beyond noise: its interval over the blocks lies beyond ORDERS_MARGIN
 * on one side of 1, or the interval of the shift between the two orders' pairs beyond
 * ORDERS_SHIFT_MARGIN (wider: it does not cancel drift as the blocks do, and keeps its place
 * where a few blocks spoiled by stray delays take the blocks' away), and that part of it is
 * more than ORDERS_FLOOR_MS of the call. Gross (CH): beyond ORDERS_GROSS, or
 * ORDERS_SHIFT_GROSS, and ORDERS_GROSS_FLOOR_MS. Set from the honest spread (docs/timing.md,
 * "When the orders disagree"). */
#define ORDERS_MIN_BLOCKS 6
#define ORDERS_MARGIN 1.15
#define ORDERS_SHIFT_MARGIN 1.3
#define ORDERS_FLOOR_MS 0.002
#define ORDERS_GROSS 1.5
#define ORDERS_SHIFT_GROSS 2.0
#define ORDERS_GROSS_FLOOR_MS 0.01

static void cheat(struct case_result *cr, char *message)
{
    cr->verdict = V_CHEAT;
    free(cr->message);
    cr->message = message;
    cr->points = 0;
}

/* The process's own clock against the supervisor's, over each timed series. */
static bool clock_honest(const struct messages *msgs, const struct run_case_outcome *co,
                         struct case_result *cr)
{
    for (int k = 0; k < RUN_SERIES_COUNT; k++) {
        const struct run_series *s = &co->series[k];
        if (!s->present || s->supervisor_min_ms <= 0)
            continue;
        if (s->harness_span_ms < CLOCK_SPAN_RATIO * s->supervisor_min_ms - CLOCK_SPAN_MARGIN_MS) {
            cheat(cr, xstrfmt(messages_get(msgs, "the clock inside the program ran slow: its timed "
                                                 "calls took %.1f ms by its own clock but %.1f ms "
                                                 "by the grader's (a redefined or patched clock?)"),
                              s->harness_span_ms, s->supervisor_min_ms));
            return false;
        }
    }
    return true;
}

/* GPU: the function's host-clock excess over its events, beyond what the reference's shows on
 * the same path, means work the events did not see. Judged pair by pair: the two calls of a
 * pair run a moment apart, so a neighbour that delays the host (load on the cores, a hypervisor)
 * delays either side alike, at random; work on a stream of the function's own shows in nearly
 * every pair. A series that shared its cores or GPU is not judged this way at all (speed_case). */
static bool series_streams_honest(const struct messages *msgs, const struct run_series *s,
                                  struct case_result *cr)
{
    if (!s->stu_event || !s->n || s->stu_event[0] < 0 || !s->paired || !s->ref_event || s->shared)
        return true;
    double stu_ev = stats_median(s->stu_event, s->n);
    double margin = STREAMS_MARGIN_MS + STREAMS_RATIO * stu_ev;
    double *d = xcalloc(s->n, sizeof(double));
    size_t beyond = 0;
    for (size_t i = 0; i < s->n; i++) {
        d[i] = (s->stu_host[i] - s->stu_event[i]) - (s->ref_host[i] - s->ref_event[i]);
        beyond += d[i] > margin;
    }
    double excess = stats_median(d, s->n);
    free(d);
    if (excess <= margin || (double)beyond < STREAMS_CONSISTENT * (double)s->n)
        return true;
    cheat(cr, xstrfmt(messages_get(msgs, "CUDA events measured %.3f ms but the host clock "
                                         "around a device-wide synchronize %.3f ms longer than "
                                         "the reference's: work left running on another stream "
                                         "after the call returned is not a speed-up"),
                      stu_ev, excess));
    return false;
}

/* GPU: the device still busy after the function's stop event, longer than after the
 * reference's (or an idle device's), is work on a stream the events do not see. The harness
 * already charged that time to the samples; this names it, whatever its size against the
 * call's. */
static bool series_tail_honest(const struct messages *msgs, const struct run_series *s,
                               struct case_result *cr)
{
    if (!s->has_tail || !s->stu_event || !s->n || s->stu_event[0] < 0 || s->shared)
        return true;
    double stu_ev = stats_median(s->stu_event, s->n);
    double base = fmax(s->paired ? s->tail_ref_ms : 0, s->tail_idle_ms);
    if (s->tail_stu_ms - base <= TAIL_MARGIN_MS + TAIL_RATIO * stu_ev)
        return true;
    cheat(cr, xstrfmt(messages_get(msgs, "the GPU stayed busy %.3f ms after the call's last "
                                         "event (the reference's: %.3f ms): work left running "
                                         "on another stream after the call returned is not a "
                                         "speed-up"),
                      s->tail_stu_ms, base));
    return false;
}

/* How far the interval lo..hi of a disagreement lies from 1, as a factor (1 when it holds 1),
 * where that part of it is more than floor_ms of a call of t_ms. */
static double beyond(double lo, double hi, double t_ms, double floor_ms)
{
    double f = lo > 1 ? lo : hi > 0 && hi < 1 ? 1 / hi : 1;
    return log(f) * t_ms > floor_ms ? f : 1;
}

/* Whether the orders disagree past the margins: the blocks' interval, or the shift's. */
static bool disagree(const struct stats_positions *p, double t_ms, double floor_ms, double margin,
                     double shift_margin)
{
    return beyond(p->disagreement_lo, p->disagreement_hi, t_ms, floor_ms) > margin ||
           beyond(p->shift_lo, p->shift_hi, t_ms, floor_ms) > shift_margin;
}

/* A gain that shows in one order only is not a speed-up: the function's speed against the
 * reference when both run first in their pair and when both run second (stats_positions) must
 * agree, as an honest penalty for a position does on both sides. Beyond noise, only the less
 * favourable of the two is credited, with a finding; grossly, CH. false when CH. */
static bool orders_agree(const struct messages *msgs, const struct run_series *s, bool credit,
                         struct case_result *cr)
{
    struct stats_positions p;
    if (!s->present || !s->paired || s->n < 2 * ORDERS_MIN_BLOCKS ||
        stats_positions(series_samples(s, true), series_samples(s, false), s->order, s->n, &p) ||
        p.blocks < ORDERS_MIN_BLOCKS || !(p.first > 0) || !(p.second > 0))
        return true;
    double t_ms = stats_median(series_samples(s, true), s->n);
    if (disagree(&p, t_ms, ORDERS_GROSS_FLOOR_MS, ORDERS_GROSS, ORDERS_SHIFT_GROSS)) {
        cheat(cr, xstrfmt(messages_get(msgs, "the function's speed against the reference depends "
                                             "on the order of its pair: %.2fx when both run "
                                             "first, %.2fx when both run second (%zu blocks of "
                                             "two pairs, apart by %.2fx at least; an honest "
                                             "penalty for a position is paid by both sides "
                                             "alike): a gain in one order only is not a "
                                             "speed-up"),
                          1 / p.first, 1 / p.second, p.blocks,
                          fmax(beyond(p.disagreement_lo, p.disagreement_hi, t_ms, 0),
                               beyond(p.shift_lo, p.shift_hi, t_ms, 0))));
        cr->speedup_ref = cr->speedup_lo = cr->speedup_hi = 0;
        return false;
    }
    if (!credit || !disagree(&p, t_ms, ORDERS_FLOOR_MS, ORDERS_MARGIN, ORDERS_SHIFT_MARGIN))
        return true;
    bool first_worse = p.first > p.second;
    double r = first_worse ? p.first : p.second, lo = first_worse ? p.first_lo : p.second_lo,
           hi = first_worse ? p.first_hi : p.second_hi;
    cr->speedup_ref = 1 / r;
    cr->speedup_lo = hi > 0 ? 1 / hi : 0;
    cr->speedup_hi = lo > 0 ? 1 / lo : 0;
    judge_add_finding(cr, xstrfmt(messages_get(msgs, "the function's speed against the reference "
                                                     "depends on the order of its pair: %.2fx "
                                                     "when both run first, %.2fx when both run "
                                                     "second (%zu blocks of two pairs): only the "
                                                     "less favourable is credited"),
                                  1 / p.first, 1 / p.second, p.blocks));
    return true;
}

bool speed_honest(struct grading *g, const struct run_case_outcome *co, struct case_result *cr)
{
    const struct messages *msgs = g->o->messages;
    return clock_honest(msgs, co, cr) &&
           series_streams_honest(msgs, &co->series[RUN_SERIES_CALL], cr) &&
           series_streams_honest(msgs, &co->series[RUN_SERIES_TRANSFER], cr) &&
           series_tail_honest(msgs, &co->series[RUN_SERIES_CALL], cr) &&
           series_tail_honest(msgs, &co->series[RUN_SERIES_TRANSFER], cr);
}

static void clock_of(const struct run_series *s, struct gpu_clock *k)
{
    memset(k, 0, sizeof(*k));
    k->min_mhz = s->clock_min_mhz;
    k->max_mhz = s->clock_max_mhz;
    k->limit_mhz = s->throttle_max_mhz;
    k->dropped = s->throttle_dropped;
    k->throttled = s->throttle_gave_up;
}

static void clock_findings(const struct messages *msgs, const struct run_series *s,
                           struct case_result *cr)
{
    int threshold_pct = (int)(LG_THROTTLE_THRESHOLD * 100 + 0.5);
    if (s->clock_max_mhz > 0 && s->clock_min_mhz < 0.9 * s->clock_max_mhz)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "GPU SM clock varied from %d to %d MHz "
                                                         "while timing (throttling or power "
                                                         "management): times may be noisy"),
                                      s->clock_min_mhz, s->clock_max_mhz));
    if (s->throttle_gave_up)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "the GPU ran under %d%% of its maximum "
                                                         "SM clock (%d MHz) for most samples: the "
                                                         "machine is throttling (power or heat), "
                                                         "so times are slower than this GPU's "
                                                         "best and may be noisy"),
                                      threshold_pct, s->throttle_max_mhz));
    else if (s->throttle_dropped > 0)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "%d samples taken while the GPU's SM "
                                                         "clock was under %d%% of its maximum "
                                                         "(%d MHz) were dropped (throttling) and "
                                                         "taken again"),
                                      s->throttle_dropped, threshold_pct, s->throttle_max_mhz));
}

static void blocking_finding(const struct messages *msgs, const struct run_case_outcome *co,
                             struct case_result *cr)
{
    if (co->blocking >= 0)
        return;
    judge_add_finding(
        cr, xstrdup(co->blocking_off && !strcmp(co->blocking_off, "synchronizes")
                        ? messages_get(msgs, "the function waits for the GPU inside the call (a "
                                             "device synchronize, a synchronous cudaMemcpy or "
                                             "cudaFree), so it could not be timed behind the "
                                             "blocking kernel: its GPU time includes the host's "
                                             "launch overhead")
                        : messages_get(msgs, "the blocking kernel could not be set up: GPU times "
                                             "include the host's launch overhead")));
}

/* The function's and the reference's timings of one series, and the paired speedup. */
static void series_times(const struct run_series *s, struct timing *stu, struct timing *ref)
{
    memset(stu, 0, sizeof(*stu));
    memset(ref, 0, sizeof(*ref));
    if (!s->present || !s->n)
        return;
    stats_timing(series_samples(s, true), s->n, stu);
    if (s->paired)
        stats_timing(series_samples(s, false), s->n, ref);
}

static void set_not_timed(struct case_result *cr, enum not_timed why, char *detail)
{
    cr->not_timed = why;
    free(cr->not_timed_detail);
    cr->not_timed_detail = detail;
}

/* What shared a series, as data for the report: the busiest other process on its GPU, or the
 * other processes' load on its cores and the busiest of them. */
static void shared_with(struct case_result *cr, const struct run_series *s)
{
    bool gpu = s->gpu_pid > 0, cpu = !gpu && s->cpu_pid > 0 && s->cpu_comm[0];
    set_not_timed(cr, NOT_TIMED_SHARED,
                  gpu && s->gpu_comm[0] ? xstrdup(s->gpu_comm)
                  : cpu                 ? xstrdup(s->cpu_comm)
                                        : NULL);
    cr->not_timed_cpus = gpu ? 0 : s->foreign_cpus;
    cr->not_timed_irq_cpus = gpu ? 0 : s->irq_cpus;
    cr->not_timed_steal_cpus = gpu ? 0 : s->steal_cpus;
    cr->not_timed_cpu_pid = cpu ? s->cpu_pid : 0;
    cr->not_timed_gpu_pid = s->gpu_pid;
    cr->not_timed_gpu_util = s->gpu_util;
}

/* Correct code whose speed was to be measured and was not: no turn came, every measurement
 * shared its cores or GPU, or no coordinator to take turns through. true when so (the case
 * then has no speed-up and no speed points: score.c). */
static bool not_timed_here(struct grading *g, const struct run_case_outcome *co,
                           struct case_result *cr)
{
    if (g->o->no_timing)
        return false;
    if (g->env && g->env->turns.problem) {
        set_not_timed(cr, NOT_TIMED_COORDINATOR, xstrdup(g->env->turns.problem));
        return true;
    }
    if (co->busy) {
        set_not_timed(cr, NOT_TIMED_BUSY, co->busy_holders[0] ? xstrdup(co->busy_holders) : NULL);
        return true;
    }
    for (int k = 0; k < RUN_SERIES_COUNT; k++)
        if (co->series[k].present && co->series[k].shared) {
            shared_with(cr, &co->series[k]);
            return true;
        }
    return false;
}

/* A series that timed the function alone: one call, against the reference's time measured once
 * on this machine (a pair would have cost more than the series' budget: harness/timing.h). The
 * speed-up is of the two medians, its interval the reference's own spread there (its
 * quartiles); the case says so. */
static void alone_speed(struct grading *g, const struct exercise_spec *ex,
                        const struct variant_spec *v, const struct case_spec *c,
                        const struct run_case_outcome *co, struct case_result *cr)
{
    const struct run_series *call = &co->series[RUN_SERIES_CALL];
    const struct run_series *xfer = &co->series[RUN_SERIES_TRANSFER];
    struct error ignored;
    error_init(&ignored);
    const struct ref_timing *rt = reference_time(g, ex, v, c, &ignored);
    if (!rt || !rt->ok)
        return;
    if (xfer->present && !strcmp(xfer->stopped, "alone"))
        cr->ref_time_transfer = rt->transfer;
    if (!call->present || strcmp(call->stopped, "alone") || !(cr->time.median_ms > 0))
        return;
    cr->ref_time = rt->call;
    cr->speedup_ref = rt->call.median_ms / cr->time.median_ms;
    cr->speedup_lo = rt->call.q1_ms / cr->time.median_ms;
    cr->speedup_hi = rt->call.q3_ms / cr->time.median_ms;
    cr->pairs = (int)call->n;
    snprintf(cr->stopped, sizeof(cr->stopped), "alone");
    judge_add_finding(
        cr, xstrfmt(messages_get(g->o->messages, "timed once, against the reference's own time "
                                                 "on this machine (the median of %d calls, "
                                                 "measured once for every grader): a pair would "
                                                 "take longer than the lab's time budget for the "
                                                 "case (%.2f s)"),
                    rt->call.samples, grading_timing(g, ex).budget_s));
}

void speed_case(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                const struct case_spec *c, const struct run_case_outcome *co,
                struct case_result *cr)
{
    const struct messages *msgs = g->o->messages;
    const struct run_series *call = &co->series[RUN_SERIES_CALL];
    if (cr->verdict != V_PASS || not_timed_here(g, co, cr) || !call->present ||
        !speed_honest(g, co, cr))
        return;
    series_times(call, &cr->time, &cr->ref_time);
    series_times(&co->series[RUN_SERIES_TRANSFER], &cr->time_transfer, &cr->ref_time_transfer);
    clock_of(call, &cr->clock);
    /* One process times both, pair by pair: the same clock readings are the reference's. */
    clock_of(call, &cr->ref_clock);
    cr->checks_s = (call->checks_ms + co->series[RUN_SERIES_TRANSFER].checks_ms) / 1e3;
    cr->draws_s = (call->draws_ms + co->series[RUN_SERIES_TRANSFER].draws_ms) / 1e3;
    clock_findings(msgs, call, cr);
    blocking_finding(msgs, co, cr);
    if (call->paired && call->n > 0) {
        double lo, hi;
        double ratio =
            stats_paired_ratio_ordered(series_samples(call, true), series_samples(call, false),
                                       call->order, call->n, &lo, &hi);
        if (ratio > 0) {
            cr->speedup_ref = 1 / ratio;
            cr->speedup_lo = hi > 0 ? 1 / hi : 0;
            cr->speedup_hi = lo > 0 ? 1 / lo : 0;
            cr->pairs = (int)call->n;
            snprintf(cr->stopped, sizeof(cr->stopped), "%s", call->stopped);
        }
        if (!orders_agree(msgs, call, true, cr) ||
            !orders_agree(msgs, &co->series[RUN_SERIES_TRANSFER], false, cr))
            return;
    }
    alone_speed(g, ex, v, c, co, cr);
    const struct variant_spec *bv = ex->baseline ? exercise_variant(ex, ex->baseline) : NULL;
    struct error ignored;
    error_init(&ignored);
    /* No baseline declared: no "vs CPU" speedup (a copy's reference is no CPU time). */
    const struct ref_timing *bt = bv ? reference_time(g, ex, bv, c, &ignored) : NULL;
    if (bt && bt->ok)
        cr->baseline_ms = bt->call.median_ms;
    if (cr->time.valid && cr->time.median_ms > 0) {
        if (cr->baseline_ms > 0)
            cr->speedup_baseline = cr->baseline_ms / cr->time.median_ms;
        double secs = cr->time.median_ms / 1e3;
        cr->gflops = c->flops / secs / 1e9;
        cr->gbps = c->bytes / secs / 1e9;
    }
    (void)v;
}

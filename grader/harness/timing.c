#include "timing.h"

#include "base/seal.h"
#include "clock.h"
#include "draw.h"
#include "fence.h"
#include "result.h"
#include "stop.h"
#include "throttle.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Long enough for any honest host-side launch work, short enough that a function that
 * synchronizes inside (and so waits on the blocked stream) costs one probe, not a run. */
#define BLOCK_TIMEOUT_MS 200.0
/* A call at least this long needs one warm-up call, whatever the spec asks. */
#define LONG_CALL_MS 50.0
/* The jitter of a device-wide synchronize on an idle device, not charged to a call. */
#define TAIL_SLACK_MS 0.002

/* One series being timed: the call alone, or with host-device transfers. */
struct series {
    const char *name;
    bool transfer;
    bool block; /* behind the blocking kernel (both sides, or neither) */
    int n;      /* pairs kept */
    double *stu_ev, *stu_host, *ref_ev, *ref_host;
    /* GPU: how long the device stayed busy after each call's stop event (lg_gpu_event_stop),
     * and on an idle device before the series. */
    double *stu_tail, *ref_tail, idle_tail;
    char *order; /* '0': the function first, '1': the reference first */
    int clk_min, clk_max;
    struct lg_throttle throttle;
    bool failed;      /* a pair's check failed: the series stopped there */
    double checks_ms; /* spent checking the pairs (outputs, guards, inputs), for `make bench` */
    double draws_ms;  /* spent drawing each pair's fresh inputs, likewise */
    double fence_ms;  /* spent fencing each call's other side (fence.h), in checks_ms too */
    struct lg_stop_rule rule;
    enum lg_stop_why stopped;
    /* The function alone, against the reference's time measured once (series_alone). */
    bool alone;
};

struct side {
    bool student;
    lg_invoke_fn fn;
    void *const *argv;
};

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static struct side side_of(const struct lg_case_state *s, bool student)
{
    struct side d = {student, student ? lg_invoke : s->ref, student ? s->argv : s->ref_argv};
    return d;
}

static void copy_or_fail(void *dst, const void *src, size_t bytes, int to_device, const char *what)
{
    char err[512];
    if (lg_gpu_copy(dst, src, bytes, to_device, err, sizeof(err)) != 0)
        lg_fail(LG_EXIT_CUDA, "cuda", "copying %s %s the device failed: %s", what,
                to_device ? "to" : "from", err);
}

static size_t arg_bytes(const struct lg_job_arg *a)
{
    return a->count * lg_dtype_size(a->dtype);
}

/* The with-transfer path: the side's inputs up from host buffers, its outputs down to its own
 * host buffers, inside the timed region. */
static void transfer(struct lg_case_state *s, const struct side *d, bool in)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        const struct lg_job_arg *a = st->spec;
        if (a->kind == LG_ARG_SCALAR || a->space != LG_SPACE_DEVICE)
            continue;
        void *dev = d->student || a->kind == LG_ARG_IN ? st->data.p : st->ref.p;
        void *host = d->student || a->kind == LG_ARG_IN ? st->xfer.p : st->xfer_ref.p;
        if (in && a->kind != LG_ARG_OUT)
            copy_or_fail(dev, host, arg_bytes(a), 1, a->name);
        if (!in && a->kind != LG_ARG_IN)
            copy_or_fail(host, dev, arg_bytes(a), 0, a->name);
    }
}

/* One timed call of one side: CUDA events on the default stream and the host clock around a
 * device-wide synchronize (the grader compares the two: work on another stream escapes the
 * events, never the synchronize). */
static void time_call(struct lg_case_state *s, struct series *ser, const struct side *d,
                      double *event_ms, double *host_ms, double *tail_ms, bool fenced)
{
    bool gpu = s->job->gpu;
    if (gpu && s->job->timing.flush_l2)
        lg_gpu_flush_l2();
    if (gpu)
        lg_after_call(s, "before a timed call of");
    if (ser->block && lg_gpu_block_arm(BLOCK_TIMEOUT_MS) != 0)
        lg_fail(LG_EXIT_CUDA, "cuda", "the blocking kernel could not be armed again");
    double t0 = lg_now_ms();
    *event_ms = -1;
    *tail_ms = 0;
    if (gpu) {
        lg_gpu_event_start();
        if (ser->transfer)
            transfer(s, d, true);
        d->fn(d->argv);
        if (ser->transfer)
            transfer(s, d, false);
        *event_ms = lg_gpu_event_stop(tail_ms);
    } else {
        d->fn(d->argv);
    }
    *host_ms = lg_now_ms() - t0;
    /* The function ran with the reference's outputs out of reach: a kernel that reached for
     * them fails here as an illegal address (fence.h). */
    lg_after_call(s, d->student && fenced ? "in a timed call (the reference's outputs out of its "
                                            "reach) of"
                                          : "while timing");
}

/* A pair's first side fenced off while the second runs, or given back after (fence.h): the
 * same steps whichever side went first, so that the fence costs both orders alike. Only the
 * second call needs it: what the other side left before the first call is its outputs of the
 * previous pair, computed on inputs that are gone. */
static void fence_first(struct lg_case_state *s, struct series *ser, bool first_is_student, bool on)
{
    double t0 = lg_now_ms();
    lg_fence_side(s, first_is_student, on, ser->name, ser->n + 1);
    double t = lg_now_ms() - t0;
    ser->fence_ms += t;
    ser->checks_ms += t;
}

/* The calls of a pair in the order given (one call, unpaired), each timed into ev, host and
 * tail ([0] the function's, [1] the reference's). */
static void pair_calls(struct lg_case_state *s, struct series *ser, bool ref_first, double *ev,
                       double *host, double *tail)
{
    bool paired = s->ref != NULL;
    for (int k = 0; k < (paired ? 2 : 1); k++) {
        bool student = (k == 0) != ref_first;
        int at = student ? 0 : 1;
        struct side d = side_of(s, student);
        time_call(s, ser, &d, &ev[at], &host[at], &tail[at], paired && k == 1);
        if (paired)
            fence_first(s, ser, !ref_first, k == 0);
    }
}

/* Whether both sides can be timed behind the blocking kernel: one probe each. A side that
 * synchronizes inside waits on the blocked stream; then neither is blocked, so that the two
 * are always timed the same way. */
static bool blocking_usable(struct lg_case_state *s, bool paired)
{
    for (int k = 0; k < (paired ? 2 : 1); k++) {
        struct side d = side_of(s, k == 0);
        if (lg_gpu_block_arm(BLOCK_TIMEOUT_MS) != 0) {
            lg_result("blocking off setup");
            return false;
        }
        lg_gpu_event_start();
        d.fn(d.argv);
        lg_gpu_event_stop(NULL);
        lg_after_call(s, "during warm-up of");
        if (lg_gpu_block_timed_out()) {
            lg_result("blocking off synchronizes %s", k == 0 ? "function" : "reference");
            return false;
        }
    }
    lg_result("blocking on");
    return true;
}

static void warm_up(struct lg_case_state *s, struct series *ser)
{
    double ev[2], host[2] = {0, 0}, tail[2];
    /* The checked calls just ran the function on buffers of this size: a call that long is warm
     * (its caches, pages and clocks settle within milliseconds of work), so only the reference,
     * which has not run in this process yet (its library's start, its outputs' first touch: on an
     * H200, lab 6's reference ran 27% slower than the function on its first call at n7000),
     * runs once. Not the transfers' path, which no checked call took. */
    if (s->checked_ms > LONG_CALL_MS && !ser->transfer) {
        if (s->ref) {
            struct side d = side_of(s, false);
            d.fn(d.argv);
            lg_after_call(s, "during warm-up of");
        }
        return;
    }
    for (int w = 0; w < s->job->timing.warmup; w++) {
        pair_calls(s, ser, false, ev, host, tail);
        /* A long call is warm after one run (caches, pages and clocks settle within
         * milliseconds of work): more would only spend the budget. */
        if (host[0] > LONG_CALL_MS)
            break;
    }
}

/* Fresh inputs for a pair: every input and inout, both sides alike (from the precision
 * check's distribution where probe asks and the job gives one). With digests, each input's
 * digest as drawn (0 for the other arguments), taken in the draw's own pass. */
static void draw_inputs(struct lg_case_state *s, bool transfer, bool probe, uint64_t seed,
                        uint64_t *digests)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        const struct lg_job_arg *a = st->spec;
        if (a->kind == LG_ARG_SCALAR || a->kind == LG_ARG_OUT)
            continue;
        bool host_path = transfer && a->space == LG_SPACE_DEVICE, alt = probe && a->has_probe;
        struct lg_buf *b = host_path ? &st->xfer : &st->data;
        struct lg_buf *r = host_path ? &st->xfer_ref : &st->ref;
        uint64_t arg_seed = lg_draw_mix(seed ^ (0x9e3779b97f4a7c15ull * (uint64_t)(i + 1)));
        uint64_t *digest = digests && a->kind == LG_ARG_IN ? &digests[i] : NULL;
        if (lg_buf_draw(b, a->dtype, a->count, (int)(alt ? a->probe_dist : a->dist),
                        alt ? a->probe_p1 : a->p1, alt ? a->probe_p2 : a->p2, arg_seed,
                        digest) != 0)
            lg_fail(LG_EXIT_CUDA, "cuda", "drawing timed inputs for %s failed", a->name);
        if (a->kind != LG_ARG_INOUT || !r->p)
            continue;
        if (r->space == LG_SPACE_DEVICE ? lg_gpu_copy_d2d(r->p, b->p, arg_bytes(a)) != 0
                                        : (memcpy(r->p, b->p, arg_bytes(a)), 0))
            lg_fail(LG_EXIT_CUDA, "cuda", "copying timed inputs for %s failed", a->name);
    }
}

/* After the pair: the function's outputs against the reference's. false: a mismatch, reported
 * as "<head> <arg> <count> <first>". */
static bool pair_agrees(struct lg_case_state *s, bool transfer, const char *head)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        const struct lg_job_arg *a = st->spec;
        long long first;
        if (a->kind != LG_ARG_OUT && a->kind != LG_ARG_INOUT)
            continue;
        bool host_path = transfer && a->space == LG_SPACE_DEVICE;
        long long bad =
            lg_buf_compare(host_path ? &st->xfer : &st->data, host_path ? &st->xfer_ref : &st->ref,
                           a->dtype, a->count, a->rtol, a->atol, a->equal_nan, &first);
        if (bad < 0)
            lg_fail(LG_EXIT_CUDA, "cuda", "comparing the timed outputs of %s failed", a->name);
        if (bad > 0) {
            lg_result("%s %s %lld %lld", head, a->name, bad, first);
            return false;
        }
    }
    return true;
}

/* Whether the function left its inputs as drawn (when it ran first, the reference computed
 * on what it left). */
static bool inputs_kept(const struct lg_case_state *s, const char *series, int pair,
                        const uint64_t *drawn)
{
    for (int i = 0; i < s->c->n_args; i++)
        if (s->args[i].spec->kind == LG_ARG_IN && lg_buf_digest(&s->args[i].data) != drawn[i]) {
            lg_result("timed_modified %s %d %s", series, pair + 1, s->args[i].spec->name);
            return false;
        }
    return true;
}

/* What the series is held to (stop.h): the lab's rule for the call alone, where its speed
 * points are decided; the grader's own for the transfer path, which decides none. */
static struct lg_stop_rule series_rule(const struct lg_job *job, bool transfer)
{
    const struct lg_timing *t = &job->timing;
    struct lg_stop_rule r = {t->min_pairs, t->max_pairs, t->target_ci,
                             t->budget_s,  job->bands,   job->n_bands};
    if (transfer) {
        r.min_pairs = t->transfer_min_pairs < r.max_pairs ? t->transfer_min_pairs : r.max_pairs;
        r.target_ci = t->transfer_target_ci;
        r.budget_s = t->transfer_budget_s;
        r.n_bands = 0;
    }
    return r;
}

static void series_init(struct series *ser, const struct lg_job *job, const char *name,
                        bool transfer, int max_clock)
{
    int max_pairs = job->timing.max_pairs;
    memset(ser, 0, sizeof(*ser));
    ser->name = name;
    ser->transfer = transfer;
    ser->rule = series_rule(job, transfer);
    ser->stu_ev = calloc((size_t)max_pairs, sizeof(double));
    ser->stu_host = calloc((size_t)max_pairs, sizeof(double));
    ser->ref_ev = calloc((size_t)max_pairs, sizeof(double));
    ser->ref_host = calloc((size_t)max_pairs, sizeof(double));
    ser->stu_tail = calloc((size_t)max_pairs, sizeof(double));
    ser->ref_tail = calloc((size_t)max_pairs, sizeof(double));
    ser->order = calloc((size_t)max_pairs + 1, 1);
    if (!ser->stu_ev || !ser->stu_host || !ser->ref_ev || !ser->ref_host || !ser->stu_tail ||
        !ser->ref_tail || !ser->order)
        lg_fail(LG_EXIT_SETUP, "setup", "cannot allocate the timing samples");
    lg_throttle_init(&ser->throttle, max_clock);
}

static void series_release(struct series *ser)
{
    free(ser->stu_ev);
    free(ser->stu_host);
    free(ser->ref_ev);
    free(ser->ref_host);
    free(ser->stu_tail);
    free(ser->ref_tail);
    free(ser->order);
}

/* Pairs come in blocks of two, one of each order, the first order drawn at random: each order
 * then has half the pairs, which the stratified estimate needs (ordered_width). */
static bool reference_first(const struct series *ser, uint64_t pair_seed)
{
    if (ser->n % 2)
        return ser->order[ser->n - 1] == '0';
    return lg_draw_mix(pair_seed) & 1;
}

/* The function's output buffers and the reference's change hands. Where a buffer sits (its
 * pages, its cache sets) can make a call a few percent faster in one process and slower in
 * the next; a pair's first call always writes the same buffers, so that the two orders'
 * medians carry that difference the opposite way, and the estimate that combines them
 * (stats_paired_ratio_ordered) cancels it, as it cancels the order itself. */
static void trade_outputs(struct lg_case_state *s)
{
    for (int i = 0; i < s->c->n_args; i++) {
        struct lg_arg_state *st = &s->args[i];
        if (st->spec->kind == LG_ARG_SCALAR || st->spec->kind == LG_ARG_IN || !st->ref.p)
            continue;
        struct lg_buf t = st->data;
        st->data = st->ref;
        st->ref = t;
        if (st->xfer_ref.p) {
            t = st->xfer;
            st->xfer = st->xfer_ref;
            st->xfer_ref = t;
        }
        s->argv[i] = st->data.p;
        s->ref_argv[i] = st->ref.p;
    }
}

/* A pair in the order given, the reference's first when ref_first. Between its two calls
 * nothing runs but the fences (the same steps in either order): the function's guards, whether
 * it kept its inputs and whether the outputs agree are checked once both have run, so that
 * what runs between the calls does not depend on the order (docs/timing.md, "Between the calls
 * of a pair"). */
static bool take_ordered_pair(struct lg_case_state *s, struct series *ser, uint64_t pair_seed,
                              bool ref_first)
{
    bool paired = s->ref != NULL;
    bool watch_inputs = paired && !ref_first && !ser->transfer;
    uint64_t drawn[LG_MAX_ARGS] = {0};
    double ev[2] = {-1, -1}, host[2] = {0, 0}, tail[2] = {0, 0};
    char label[64];
    double t_draw = lg_now_ms();
    draw_inputs(s, ser->transfer, false, pair_seed, watch_inputs ? drawn : NULL);
    ser->draws_ms += lg_now_ms() - t_draw;
    pair_calls(s, ser, ref_first, ev, host, tail);
    double t0 = lg_now_ms();
    snprintf(label, sizeof(label), "timed_guard %s %d", ser->name, ser->n + 1);
    bool agrees = lg_case_guards(s, label) == 0 &&
                  (!watch_inputs || inputs_kept(s, ser->name, ser->n, drawn));
    snprintf(label, sizeof(label), "timed_mismatch %s %d", ser->name, ser->n + 1);
    agrees = agrees && (!paired || pair_agrees(s, ser->transfer, label));
    ser->checks_ms += lg_now_ms() - t0;
    if (!agrees)
        return !(ser->failed = true);
    if (s->job->gpu) {
        int clk = lg_gpu_sm_clock_mhz();
        if (!lg_throttle_keep(&ser->throttle, clk)) {
            /* Taken while throttled: dropped, and the GPU given time to recover. */
            sleep_ms(LG_THROTTLE_RECOVERY_MS);
            return true;
        }
        if (clk > 0) {
            ser->clk_min = ser->clk_min == 0 || clk < ser->clk_min ? clk : ser->clk_min;
            ser->clk_max = clk > ser->clk_max ? clk : ser->clk_max;
        }
    }
    ser->stu_ev[ser->n] = ev[0];
    ser->stu_host[ser->n] = host[0];
    ser->ref_ev[ser->n] = ev[1];
    ser->ref_host[ser->n] = host[1];
    ser->stu_tail[ser->n] = tail[0];
    ser->ref_tail[ser->n] = tail[1];
    ser->order[ser->n] = ref_first ? '1' : '0';
    ser->n++;
    return true;
}

/* One pair (or one call, unpaired) on fresh inputs. false when a check failed (reported). */
static bool take_pair(struct lg_case_state *s, struct series *ser, uint64_t pair_seed)
{
    bool paired = s->ref != NULL, ref_first = paired && reference_first(ser, pair_seed);
    if (!ref_first)
        return take_ordered_pair(s, ser, pair_seed, false);
    trade_outputs(s);
    bool ok = take_ordered_pair(s, ser, pair_seed, true);
    trade_outputs(s);
    return ok;
}

static void emit_samples(const struct series *ser, const char *which, const double *x)
{
    char buf[4096];
    size_t len = (size_t)snprintf(buf, sizeof(buf), "samples %s %s", ser->name, which);
    for (int i = 0; i < ser->n; i++) {
        if (len > sizeof(buf) - 32) {
            lg_result("%s \\", buf); /* continued on the next line */
            len = (size_t)snprintf(buf, sizeof(buf), "samples %s %s", ser->name, which);
        }
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, " " LG_SEAL_SAMPLE_FORMAT, x[i]);
    }
    lg_result("%s", buf);
}

/* Work a call left on streams its events do not see still ran on the GPU: the time the device
 * stayed busy after the stop event, beyond an idle device's and a jitter margin, is added to
 * the call's GPU time, on both sides alike, before the samples are sealed. So a side stream
 * buys nothing, whatever the grader decides about it (the "tail" line, grade/speed.c). */
static void charge_tails(struct series *ser)
{
    for (int i = 0; i < ser->n; i++) {
        if (ser->stu_ev[i] >= 0)
            ser->stu_ev[i] += fmax(0, ser->stu_tail[i] - ser->idle_tail - TAIL_SLACK_MS);
        if (ser->ref_ev[i] >= 0)
            ser->ref_ev[i] += fmax(0, ser->ref_tail[i] - ser->idle_tail - TAIL_SLACK_MS);
    }
}

/* Whether the series times pairs: the function and its reference, unless it times the function
 * alone. */
static bool series_paired(const struct lg_case_state *s, const struct series *ser)
{
    return s->ref != NULL && !ser->alone;
}

static void emit_series(const struct lg_case_state *s, const struct series *ser)
{
    bool paired = series_paired(s, ser), gpu = s->job->gpu;
    lg_result("series %s %d %d %d", ser->name, ser->n, paired ? 1 : 0, ser->block ? 1 : 0);
    if (gpu)
        emit_samples(ser, "stu_event", ser->stu_ev);
    emit_samples(ser, "stu_host", ser->stu_host);
    if (paired && gpu)
        emit_samples(ser, "ref_event", ser->ref_ev);
    if (paired) {
        emit_samples(ser, "ref_host", ser->ref_host);
        lg_result("order %s %s", ser->name, ser->n ? ser->order : "-");
    }
    lg_result("checks %s %.3f %.3f %.3f", ser->name, ser->checks_ms, ser->draws_ms, ser->fence_ms);
    lg_result("stop %s %s", ser->name, lg_stop_name(ser->stopped));
    if (gpu && ser->n && ser->stu_ev[0] >= 0)
        lg_result("tail %s %.4f %.4f %.4f", ser->name, lg_stop_median(ser->stu_tail, ser->n),
                  paired ? lg_stop_median(ser->ref_tail, ser->n) : 0, ser->idle_tail);
    if (ser->clk_max > 0)
        lg_result("clock %s %d %d", ser->name, ser->clk_min, ser->clk_max);
    /* Whenever the maximum is known, so results record what the samples were held to. */
    if (ser->throttle.max_mhz > 0)
        lg_result("throttle %s %d %d %d", ser->name, ser->throttle.dropped,
                  ser->throttle.gave_up ? 1 : 0, ser->throttle.max_mhz);
}

/* Whether the series has what its case decides, or has spent what it may (stop.h). */
static bool enough(const struct lg_case_state *s, struct series *ser, double elapsed_s)
{
    bool gpu = s->job->gpu && ser->n > 0 && ser->stu_ev[0] >= 0;
    const double *stu = gpu ? ser->stu_ev : ser->stu_host, *ref = gpu ? ser->ref_ev : ser->ref_host;
    ser->stopped =
        lg_stop_next(&ser->rule, stu, ref, ser->order, ser->n, series_paired(s, ser), elapsed_s);
    return ser->stopped != LG_STOP_NOT_YET;
}

/* The samples emit_series writes, sealed in the same order (base/seal.h). */
static uint64_t series_seal(const struct lg_case_state *s, const struct series *ser)
{
    bool paired = series_paired(s, ser), gpu = s->job->gpu;
    size_t n = (size_t)ser->n;
    uint64_t h = LG_SEAL_START;
    if (gpu)
        h = lg_seal_samples(h, ser->stu_ev, n);
    h = lg_seal_samples(h, ser->stu_host, n);
    if (paired && gpu)
        h = lg_seal_samples(h, ser->ref_ev, n);
    if (paired)
        h = lg_seal_samples(h, ser->ref_host, n);
    return h;
}

/* One measurement of the series, announced on the control pipe from "S" to "E". */
static void measure_series(struct lg_case_state *s, struct series *ser, uint64_t seed)
{
    const struct lg_timing *t = &s->job->timing;
    ser->idle_tail = s->job->gpu ? lg_gpu_idle_tail_ms() : 0;
    lg_control("S %d %s", s->index, ser->name);
    double start = lg_now_ms();
    for (uint64_t attempt = 0; attempt < 4 * (uint64_t)t->max_pairs + 8; attempt++) {
        uint64_t pair_seed = lg_draw_mix(seed + (attempt + 1) * 0x9e3779b97f4a7c15ull);
        if (!take_pair(s, ser, pair_seed))
            break;
        if (enough(s, ser, (lg_now_ms() - start) / 1e3))
            break;
    }
    double span = lg_now_ms() - start;
    charge_tails(ser);
    lg_control("E %d %s %.3f %d %016llx %016llx", s->index, ser->name, span, ser->n,
               (unsigned long long)series_seal(s, ser), (unsigned long long)lg_seal_vdso());
}

/* Whether the series times the function alone: a pair would cost more than its budget by the
 * reference's own time on this machine (measured once by the grader: job.h's ref_ms), no speed
 * points hang on it (they are read from pairs), and it is the case's last series, so that what
 * the call wrote stays in the buffers until it is checked, after the turn. */
static bool series_alone(const struct lg_case_state *s, const struct series *ser)
{
    double ref_ms = s->c->ref_ms[ser->transfer ? 1 : 0];
    bool last = ser->transfer || !s->job->timing.transfer || !s->has_device;
    return s->ref && ref_ms > 0 && 2 * ref_ms > 1e3 * ser->rule.budget_s &&
           ser->rule.n_bands == 0 && last;
}

/* One timed call of the function on fresh inputs, announced as a series; its outputs fenced
 * until they are checked after the turn, so that work it left running cannot finish them
 * meanwhile (a write there faults: timed_fault ... function write). */
static void measure_alone(struct lg_case_state *s, struct series *ser, uint64_t seed)
{
    double ev = -1, host = 0, tail = 0;
    struct side d = side_of(s, true);
    ser->idle_tail = s->job->gpu ? lg_gpu_idle_tail_ms() : 0;
    lg_control("S %d %s", s->index, ser->name);
    double start = lg_now_ms(), t_draw = start;
    memset(s->alone_drawn, 0, sizeof(s->alone_drawn));
    draw_inputs(s, ser->transfer, false, lg_draw_mix(seed + 0x9e3779b97f4a7c15ull),
                ser->transfer ? NULL : s->alone_drawn);
    ser->draws_ms += lg_now_ms() - t_draw;
    time_call(s, ser, &d, &ev, &host, &tail, false);
    if (!ser->transfer)
        fence_first(s, ser, true, true);
    ser->stu_ev[0] = ev;
    ser->stu_host[0] = host;
    ser->stu_tail[0] = tail;
    ser->n = 1;
    ser->stopped = LG_STOP_ALONE;
    double span = lg_now_ms() - start;
    charge_tails(ser);
    lg_control("E %d %s %.3f %d %016llx %016llx", s->index, ser->name, span, ser->n,
               (unsigned long long)series_seal(s, ser), (unsigned long long)lg_seal_vdso());
}

/* The samples dropped, for a measurement from nothing (what the checks and draws cost stays
 * counted). */
static void series_restart(struct series *ser)
{
    memset(ser->order, 0, (size_t)ser->n);
    ser->n = 0;
    ser->stopped = LG_STOP_NOT_YET;
    ser->clk_min = ser->clk_max = 0;
    lg_throttle_init(&ser->throttle, ser->throttle.max_mhz);
}

static void run_series(struct lg_case_state *s, struct series *ser, uint64_t seed)
{
    const struct lg_timing *t = &s->job->timing;
    ser->alone = series_alone(s, ser);
    bool paired = series_paired(s, ser);
    lg_control("P %d warmup", s->index);
    lg_result("phase warmup %s", ser->name);
    /* A call that long is warm from its checked calls, as warm_up says. */
    if (!ser->alone)
        warm_up(s, ser);
    ser->block = !ser->transfer && s->job->gpu && t->blocking && blocking_usable(s, paired);
    lg_result("phase time %s", ser->name);
    /* What the warm-up's fences cost is not the timed pairs' checking. */
    ser->checks_ms = ser->fence_ms = 0;
    /* Measured again, from nothing, when the supervisor saw another process share the series'
     * cores or GPU (result.h's lg_series_verdict); a series whose check failed is over. */
    for (int again = 0;; again++) {
        uint64_t attempt_seed = lg_draw_mix(seed + (uint64_t)again * 0x632be59bd9b4e019ull);
        if (ser->alone) {
            if (again > 0 && !ser->transfer)
                fence_first(s, ser, true, false);
            measure_alone(s, ser, attempt_seed);
        } else {
            measure_series(s, ser, attempt_seed);
        }
        int v = lg_series_verdict();
        if (v < 0)
            lg_fail(LG_EXIT_SETUP, "setup", "the grader stopped answering after a timed series");
        if (v == 0 || ser->failed)
            break;
        series_restart(ser);
    }
    emit_series(s, ser);
    if (ser->alone) {
        s->alone = ser->name;
        s->alone_transfer = ser->transfer;
    }
}

void lg_case_time(struct lg_case_state *s, uint64_t seed)
{
    if (s->ref)
        lg_fence_init();
    const struct lg_timing *t = &s->job->timing;
    int max_clock = s->job->gpu ? lg_gpu_sm_clock_max_mhz() : 0;
    struct series ser;
    series_init(&ser, s->job, "call", false, max_clock);
    run_series(s, &ser, lg_draw_mix(seed ^ 1));
    bool failed = ser.failed;
    series_release(&ser);
    if (failed || !t->transfer || !s->has_device)
        return;
    series_init(&ser, s->job, "transfer", true, max_clock);
    run_series(s, &ser, lg_draw_mix(seed ^ 2));
    series_release(&ser);
}

bool lg_case_precision(struct lg_case_state *s, uint64_t seed)
{
    bool asked = false;
    for (int i = 0; i < s->c->n_args; i++)
        asked |= s->args[i].spec->has_probe;
    if (!asked || !s->ref)
        return true;
    lg_result("phase time precision");
    draw_inputs(s, false, true, lg_draw_mix(seed ^ 3), NULL);
    /* The function first: the reference has written nothing of these inputs yet. */
    for (int k = 0; k < 2; k++) {
        struct side d = side_of(s, k == 0);
        d.fn(d.argv);
        lg_after_call(s, "in the precision check of");
    }
    return lg_case_guards(s, "timed_guard call 0") == 0 &&
           pair_agrees(s, false, "precision_mismatch");
}

void lg_case_verify_alone(struct lg_case_state *s)
{
    if (!s->alone)
        return;
    bool xfer = s->alone_transfer;
    char label[64];
    if (!xfer)
        lg_fence_side(s, true, false, s->alone, 1);
    /* The reference on the same inputs, as the second call of a pair, untimed. */
    struct side d = side_of(s, false);
    if (xfer)
        transfer(s, &d, true);
    d.fn(d.argv);
    if (xfer)
        transfer(s, &d, false);
    lg_after_call(s, "checking the timed call of");
    snprintf(label, sizeof(label), "timed_guard %s 1", s->alone);
    bool agrees =
        lg_case_guards(s, label) == 0 && (xfer || inputs_kept(s, s->alone, 0, s->alone_drawn));
    snprintf(label, sizeof(label), "timed_mismatch %s 1", s->alone);
    if (agrees)
        pair_agrees(s, xfer, label);
    s->alone = NULL;
}

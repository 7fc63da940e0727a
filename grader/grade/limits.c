/*
 * limits: each passed case's time against what this machine can do (grade/calibration.h).
 *
 * From the spec's work formulas, a time gives a bandwidth and an arithmetic rate; the report
 * shows them as shares of the measured limits where that share means something (the data do
 * not fit in the caches, or the arithmetic is long enough to measure). A time that implies more
 * than a limit no hardware here can exceed (with the margins below) is impossible: CH, no points,
 * and the instructor's summary lists it. The limits: memory bandwidth (CPU, or GPU for device
 * data), for data the caches cannot hold (the part that fits is not counted); the host-device bus
 * for GPU functions given host pointers; the FP32 SGEMM rate for float32 arithmetic, or the
 * TF32 tensor-core rate where the lab allows TF32 (allow_tf32).
 */
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/messages.h"

#include <stdlib.h>
#include <string.h>

/* How far past a measured limit a time may imply before it is impossible. The limits are what
 * this machine was measured to do (a copy, an SGEMM), not its datasheet peaks: a kernel that
 * only reads streams faster than a copy, and a hand-tuned kernel may edge past the library's
 * rate; the margins cover that and stay well under anything a cheat would show. */
#define SLACK_GPU_MEMORY 1.2
#define SLACK_CPU_MEMORY 1.5
#define SLACK_GPU_COMPUTE 1.35
#define SLACK_CPU_COMPUTE 1.5
#define SLACK_BUS 1.2
/* Below this the arithmetic of a whole series (every sample's) is too short to say anything
 * about the machine. A series, not a call: a rate no hardware here reaches is impossible at
 * 17 us as at 17 ms, and a series of 17 us calls is measured as well as one long call. */
#define MEANINGFUL_S 50e-6

/* The reference, paired call by call with the function in the same process, proves what this
 * machine does right now; a calibration made on a busier moment of the machine (two test
 * suites, a class beside it) can be half of that. So a time is impossible only when it is past
 * the limit by the slack and also faster than the reference's own by the same slack: past the
 * calibration alone, the limit is a finding (CI once made the lab 6 solution CH at 1.38x its
 * reference, with OpenBLAS calibrated at 97 GFLOP/s under load). "Faster by the slack" is read
 * off the low end of the speedup's interval where the pairs give one: three pairs of a 5M-element
 * case on a loaded machine put the lab 6 solution at 1.77x its own code (interval 0.81-2.30x).
 * A cheat's gain is a multiple of the reference's time (3.4x and up in tests/exploits), on
 * every pair, so its interval's low end is past the slack too. */
static bool beyond_reference(const struct case_result *cr, double slack)
{
    double faster = cr->pairs > 0 && cr->speedup_lo > 0 ? cr->speedup_lo : cr->speedup_ref;
    return !(faster > 0 && faster <= slack);
}

static void impossible(struct case_result *cr, double slack, char *message)
{
    if (!beyond_reference(cr, slack)) {
        judge_add_finding(cr, message);
        return;
    }
    cr->verdict = V_CHEAT;
    free(cr->message);
    cr->message = message;
    cr->points = 0;
}

/* Bytes the function's host arrays must cross the bus with: inputs up, outputs down. */
static void host_bytes(const struct exercise_spec *ex, const struct variant_spec *v,
                       const struct case_spec *c, double *up, double *down)
{
    *up = *down = 0;
    for (size_t i = 0; i < ex->n_args; i++) {
        const struct arg_spec *a = &ex->args[i];
        if (a->kind == ARG_SCALAR || a->is_return || variant_arg_memory(v, ex, i) == MEM_DEVICE)
            continue;
        double b = (double)c->args[i].count * (double)lg_dtype_size(a->dtype);
        if (a->kind != ARG_OUT)
            *up += b;
        if (a->kind != ARG_IN)
            *down += b;
    }
}

/* A GPU function on host pointers: its data must cross the bus, at the pinned rate at best. */
static bool bus_check(struct grading *g, const struct exercise_spec *ex,
                      const struct variant_spec *v, const struct case_spec *c,
                      struct case_result *cr, double secs, bool share_shown)
{
    const struct calibration *cal = &g->env->cal;
    const struct messages *msgs = g->o->messages;
    double up, down;
    host_bytes(ex, v, c, &up, &down);
    if (up + down < (1 << 20) || cal->h2d_pinned_gbs <= 0 || cal->d2h_pinned_gbs <= 0)
        return false;
    double floor_s = up / (cal->h2d_pinned_gbs * 1e9) + down / (cal->d2h_pinned_gbs * 1e9);
    const char *what = NULL;
    double peak, bw = calibration_bus_gbs(cal, ex, v, &what, &peak);
    double share = bw > 0 ? c->bytes / (bw * 1e9) / secs : 0;
    /* A share over 1 is said as what it is: the measurement, not a peak, was beaten. */
    if (share_shown && bw > 0 && c->bytes > 0 && share <= 1)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "transfer: %.1f GB/s, %.0f%% of this "
                                                         "machine's measured %s bandwidth (%.1f "
                                                         "GB/s)"),
                                      c->bytes / secs / 1e9, 100 * share, messages_get(msgs, what),
                                      bw));
    else if (share_shown && bw > 0 && c->bytes > 0)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "transfer: %.1f GB/s, %.2fx this "
                                                         "machine's measured %s bandwidth (%.1f "
                                                         "GB/s): faster than that measurement, "
                                                         "which was taken at a busier moment"),
                                      c->bytes / secs / 1e9, share, messages_get(msgs, what), bw));
    if (secs * SLACK_BUS < floor_s)
        impossible(cr, SLACK_BUS,
                   xstrfmt(messages_get(msgs, "impossible time: %.4f ms for a function on "
                                              "host memory that must move %.1f MB between "
                                              "host and device, which takes at least %.4f ms "
                                              "at this machine's pinned bandwidth"),
                           cr->time.median_ms, (up + down) / 1e6, floor_s * 1e3));
    return true;
}

static void memory_check(struct grading *g, const struct variant_spec *v, const struct case_spec *c,
                         struct case_result *cr, double secs, bool share_shown)
{
    const struct calibration *cal = &g->env->cal;
    const struct messages *msgs = g->o->messages;
    bool device = v->target == TARGET_GPU;
    double bw = device ? cal->gpu_copy_gbs : cal->cpu_bw_gbs;
    double cache = device ? (double)(cal->gpu_l2_bytes > 0 ? cal->gpu_l2_bytes : 50e6)
                          : (double)(cal->cpu_cache_bytes > 0 ? cal->cpu_cache_bytes : 256e6);
    if (c->bytes <= 0 || bw <= 0 || c->bytes <= cache)
        return;
    /* What the caches could hold might not come from memory: only the rest is counted. */
    double floor_s = (c->bytes - cache) / (bw * 1e9);
    double share = c->bytes / (bw * 1e9) / secs;
    if (share_shown && share <= 1)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "memory traffic: %.0f%% of this machine's "
                                                         "measured %s bandwidth (%.0f GB/s)"),
                                      100 * share, device ? "GPU" : "CPU", bw));
    else if (share_shown)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "memory traffic: %.2fx this machine's "
                                                         "measured %s bandwidth (%.0f GB/s): more "
                                                         "than the measurement, which is not a "
                                                         "peak (part of the data can come from "
                                                         "the caches)"),
                                      share, device ? "GPU" : "CPU", bw));
    double slack = device ? SLACK_GPU_MEMORY : SLACK_CPU_MEMORY;
    if (secs * slack < floor_s)
        impossible(cr, slack,
                   xstrfmt(messages_get(msgs, "impossible time: %.4f ms moves %.0f MB, of "
                                              "which the caches cannot hold %.0f MB, which "
                                              "take at least %.4f ms at the measured "
                                              "bandwidth"),
                           cr->time.median_ms, c->bytes / 1e6, (c->bytes - cache) / 1e6,
                           floor_s * 1e3));
}

/* float32 arithmetic: the FP32 rate, or TF32's where the lab allows it. */
static bool float32_outputs(const struct exercise_spec *ex)
{
    for (size_t i = 0; i < ex->n_args; i++)
        if (ex->args[i].kind != ARG_SCALAR && ex->args[i].kind != ARG_IN &&
            ex->args[i].dtype != LG_F32)
            return false;
    return true;
}

/* The float32 rate a case is held to (0: none applies), and its name. */
static double float32_rate(struct grading *g, const struct exercise_spec *ex,
                           const struct variant_spec *v, const struct case_spec *c,
                           const struct case_result *cr, const char **name)
{
    const struct calibration *cal = &g->env->cal;
    const struct messages *msgs = g->o->messages;
    bool gpu = v->target == TARGET_GPU, tf32 = gpu && ex->allow_tf32 && cal->gpu_tf32_gflops > 0;
    double rate =
        gpu ? (tf32 ? cal->gpu_tf32_gflops : cal->gpu_sgemm_gflops) : cal->cpu_sgemm_gflops;
    *name = gpu ? (tf32 ? messages_get(msgs, "cuBLAS TF32 tensor-core rate")
                        : messages_get(msgs, "cuBLAS FP32 SGEMM rate"))
                : messages_get(msgs, "OpenBLAS SGEMM rate");
    int samples = cr->time.samples > 0 ? cr->time.samples : 1;
    /* The SGEMM rates are float32's: they say nothing of other arithmetic. */
    if (!float32_outputs(ex) || c->flops <= 0 || rate <= 0 ||
        c->flops * samples / (rate * 1e9) < MEANINGFUL_S)
        return 0;
    return rate;
}

static double compute_slack(const struct variant_spec *v)
{
    return v->target == TARGET_GPU ? SLACK_GPU_COMPUTE : SLACK_CPU_COMPUTE;
}

/* Whether a time of secs implies float32 arithmetic past the measured rate by the slack: the
 * rate no hardware here reaches. The rate (0 when none applies) and its name as well. */
static bool past_rate(struct grading *g, const struct exercise_spec *ex,
                      const struct variant_spec *v, const struct case_spec *c,
                      const struct case_result *cr, double secs, double *rate, const char **name)
{
    *rate = float32_rate(g, ex, v, c, cr, name);
    return *rate > 0 && c->flops / secs / 1e9 > compute_slack(v) * *rate;
}

static void compute_check(struct grading *g, const struct exercise_spec *ex,
                          const struct variant_spec *v, const struct case_spec *c,
                          struct case_result *cr, double secs, bool share_shown)
{
    const struct messages *msgs = g->o->messages;
    const char *name;
    double rate;
    bool past = past_rate(g, ex, v, c, cr, secs, &rate, &name);
    if (rate <= 0)
        return;
    double achieved = c->flops / secs / 1e9;
    if (share_shown && achieved <= rate)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "arithmetic: %.0f%% of the measured %s "
                                                         "(%.0f GFLOP/s)"),
                                      100 * achieved / rate, name, rate));
    else if (share_shown)
        judge_add_finding(cr, xstrfmt(messages_get(msgs, "arithmetic: %.2fx the measured %s "
                                                         "(%.0f GFLOP/s): faster than that "
                                                         "measurement, which is not a peak"),
                                      achieved / rate, name, rate));
    if (past)
        impossible(cr, compute_slack(v),
                   xstrfmt(messages_get(msgs, "impossible time: %.4f ms for %.3g GFLOP is "
                                              "%.0f GFLOP/s, over the %s of this machine "
                                              "(%.0f GFLOP/s)%s"),
                           cr->time.median_ms, c->flops / 1e9, achieved, name, rate,
                           v->target == TARGET_GPU && !ex->allow_tf32
                               ? messages_get(msgs, "; this lab does not allow TF32")
                               : ""));
}

/*
 * Whether the case's arithmetic, not its data, is what limits it on this machine (a roofline's
 * ridge): its float32 work takes longer at the measured rate than its bytes at the bandwidth
 * they must cross (the bus for a GPU function on host data). Only the binding limit's share is
 * a finding: a memory-bound kernel at "13% of the SGEMM rate" is at its limit, and says so
 * against the bandwidth (issue 47). An impossible time is judged against every limit alike.
 */
static bool arithmetic_binds(struct grading *g, const struct exercise_spec *ex,
                             const struct variant_spec *v, const struct case_spec *c,
                             const struct case_result *cr, bool bus)
{
    const struct calibration *cal = &g->env->cal;
    const char *name, *what = NULL;
    double rate = float32_rate(g, ex, v, c, cr, &name), peak;
    double bw = bus                       ? calibration_bus_gbs(cal, ex, v, &what, &peak)
                : v->target == TARGET_GPU ? cal->gpu_copy_gbs
                                          : cal->cpu_bw_gbs;
    if (rate <= 0 || c->bytes <= 0 || bw <= 0)
        return rate > 0;
    return c->flops / (rate * 1e9) >= c->bytes / (bw * 1e9);
}

void limits_case(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                 const struct case_spec *c, struct case_result *cr)
{
    double secs = cr->time.median_ms / 1e3;
    if (!g->env->cal.valid || cr->verdict != V_PASS || !cr->time.valid || secs <= 0)
        return;
    bool host_data = false;
    for (size_t i = 0; i < ex->n_args; i++)
        host_data |= ex->args[i].kind != ARG_SCALAR && !ex->args[i].is_return &&
                     variant_arg_memory(v, ex, i) != MEM_DEVICE;
    bool bus = v->target == TARGET_GPU && host_data;
    bool arithmetic = arithmetic_binds(g, ex, v, c, cr, bus);
    if (bus)
        bus_check(g, ex, v, c, cr, secs, !arithmetic);
    else
        memory_check(g, v, c, cr, secs, !arithmetic);
    if (cr->verdict == V_PASS)
        compute_check(g, ex, v, c, cr, secs, arithmetic);
}

bool limits_reduced_precision(struct grading *g, const struct exercise_spec *ex,
                              const struct variant_spec *v, const struct case_spec *c,
                              const struct case_result *cr)
{
    const char *name;
    double rate, secs = cr->time.median_ms / 1e3;
    if (!g->env->cal.valid || v->target != TARGET_GPU || ex->allow_tf32 || !cr->time.valid ||
        secs <= 0)
        return false;
    /* The rule compute_check made the case CH by, whatever the case's pairs. */
    return past_rate(g, ex, v, c, cr, secs, &rate, &name) && beyond_reference(cr, compute_slack(v));
}

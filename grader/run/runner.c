#include "run/runner.h"
#include "run/turns.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/seal.h"
#include "base/trace.h"
#include "spec/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A 95% interval's half-width, in standard errors. */
#define Z95 1.96
/* The series with transfers (device-pointer variants) decides no points and times mostly the
 * grader's own copies, whose speed is the machine's: a looser precision, a quarter of the
 * budget, and the pairs that the orders' medians need (docs/timing.md, "When a series
 * stops"). */
#define TRANSFER_MIN_PAIRS 6
#define TRANSFER_RSE_FACTOR 2.5
#define TRANSFER_BUDGET_SHARE 0.25

static const char *const series_names[RUN_SERIES_COUNT] = {"call", "transfer"};

const char *run_series_name(enum run_series_kind k)
{
    return k >= 0 && k < RUN_SERIES_COUNT ? series_names[k] : NULL;
}

int run_series_lookup(const char *name)
{
    for (int i = 0; name && i < RUN_SERIES_COUNT; i++)
        if (!strcmp(series_names[i], name))
            return i;
    return -1;
}

void run_outcome_init(struct run_outcome *o)
{
    memset(o, 0, sizeof(*o));
    sandbox_result_init(&o->sb);
    o->error_case = -1;
    o->last_case = -1;
}

static void incident_free(struct run_incident *x)
{
    if (!x)
        return;
    free(x->series);
    free(x->arg);
    free(x);
}

static void case_release(struct run_case_outcome *c)
{
    free(c->phase);
    for (size_t i = 0; i < c->n_modified; i++)
        free(c->modified[i]);
    free(c->modified);
    for (size_t i = 0; i < c->n_unready; i++)
        free(c->unready[i]);
    free(c->unready);
    for (size_t i = 0; i < c->n_guards; i++) {
        free(c->guards[i].series);
        free(c->guards[i].arg);
    }
    free(c->guards);
    incident_free(c->timed_mismatch);
    incident_free(c->timed_modified);
    incident_free(c->timed_fault);
    incident_free(c->precision_mismatch);
    free(c->blocking_off);
    for (int s = 0; s < RUN_SERIES_COUNT; s++) {
        struct run_series *r = &c->series[s];
        free(r->stu_event);
        free(r->stu_host);
        free(r->ref_event);
        free(r->ref_host);
        free(r->order);
    }
}

void run_outcome_release(struct run_outcome *o)
{
    sandbox_result_release(&o->sb);
    free(o->error_kind);
    free(o->error_msg);
    free(o->tampered);
    for (size_t i = 0; i < o->n_cases; i++)
        case_release(&o->cases[i]);
    free(o->cases);
    run_outcome_init(o);
}

/* ---- the job ---- */

/* A GPU function given host pointers must copy its results back before it returns, so it
 * waits on the GPU inside the call: behind a blocking kernel it would only wait out the
 * blocker's timeout. The blocking kernel is for functions on device pointers alone. */
static bool blocking_applies(const struct run_spec *s)
{
    bool any_array = false;
    if (!s->timing.blocking || s->v->target != TARGET_GPU)
        return false;
    for (size_t i = 0; i < s->ex->n_args; i++) {
        if (s->ex->args[i].kind == ARG_SCALAR || s->ex->args[i].is_return)
            continue;
        if (variant_arg_memory(s->v, s->ex, i) != MEM_DEVICE)
            return false;
        any_array = true;
    }
    return any_array;
}

static void job_case(const struct run_spec *s, size_t index, struct strbuf *out)
{
    const struct exercise_spec *ex = s->ex;
    const struct case_spec *c = s->cases[index];
    strbuf_addf(out, "case %s\nchecks %d\n", c->id, s->checks);
    if (s->ref_ms && s->time && s->reference_lib)
        strbuf_addf(out, "reftime %.6g %.6g\n", s->ref_ms[index][0], s->ref_ms[index][1]);
    for (int k = 0; k < s->checks; k++)
        strbuf_addf(out, "seed %d %llu\n", k, (unsigned long long)c->seeds[k]);
    for (size_t i = 0; i < ex->n_args; i++) {
        const struct arg_spec *a = &ex->args[i];
        const struct arg_plan *p = &c->args[i];
        if (a->kind == ARG_SCALAR) {
            strbuf_addf(out, "arg %s scalar %s 1 host constant %.17g 0\n", a->name,
                        lg_dtype_name(a->dtype), p->value);
            continue;
        }
        const struct init_spec *in = a->kind == ARG_OUT ? &a->init : &p->init;
        strbuf_addf(out, "arg %s %s %s %ld %s %s %.17g %.17g\n", a->name, arg_kind_name(a->kind),
                    lg_dtype_name(a->dtype), p->count,
                    mem_space_name(variant_arg_memory(s->v, ex, i)), dist_name(in->dist),
                    in->dist == DIST_NORMAL     ? in->mean
                    : in->dist == DIST_CONSTANT ? in->value
                                                : in->low,
                    in->dist == DIST_NORMAL ? in->std : in->high);
        if (a->kind != ARG_IN)
            strbuf_addf(out, "tol %s %.17g %.17g %d\n", a->name, p->tol.rtol, p->tol.atol,
                        p->tol.equal_nan ? 1 : 0);
    }
    /* The precision check's inputs (spec.h's precision_check), when the pairs are timed. */
    for (size_t i = 0; s->time && s->reference_lib && i < ex->n_precision_check; i++) {
        const struct init_spec *in = &ex->precision_check[i].init;
        strbuf_addf(out, "probe %s %s %.17g %.17g\n", ex->precision_check[i].arg,
                    dist_name(in->dist),
                    in->dist == DIST_NORMAL     ? in->mean
                    : in->dist == DIST_CONSTANT ? in->value
                                                : in->low,
                    in->dist == DIST_NORMAL ? in->std : in->high);
    }
    strbuf_addstr(out, "end\n");
}

/* Where the variant's speed points change (spec.h's perf_band_edges), for the series to stop
 * only once its interval has chosen one band: the student's variant that carries them, never a
 * reference's own timing. */
static void job_bands(const struct run_spec *s, struct strbuf *out)
{
    const struct exercise_spec *ex = s->ex;
    if (s->reference || !ex->has_perf || (ex->perf.variant && strcmp(ex->perf.variant, s->v->id)))
        return;
    double edges[PERF_BANDS];
    perf_band_edges(&ex->perf, edges);
    strbuf_addf(out, "bands %d", PERF_BANDS);
    for (int j = 0; j < PERF_BANDS; j++)
        strbuf_addf(out, " %.9g", edges[j]);
    strbuf_addch(out, '\n');
}

void runner_job_text(const struct run_spec *s, struct strbuf *out)
{
    const struct variant_spec *v = s->v;
    const struct timing_spec *t = &s->timing;
    strbuf_addf(out, "harness 2\nfunction %s\ntarget %s\ntime %d\n",
                s->reference ? v->reference.function : v->student.function, target_name(v->target),
                s->time ? 1 : 0);
    if (s->reference_lib)
        strbuf_addf(out, "reference_lib %s\n", s->reference_lib);
    /* Under compute-sanitizer the allocations must be exactly the arguments' size, or a write
     * past the end lands in a guard zone, inside the allocation, where memcheck cannot see it. */
    strbuf_addf(out, "guards %d\n", s->wrap ? 0 : 1);
    /* Every timing key, always: the harness has no defaults of its own. The spec asks for a
     * relative standard error, the harness stops on a 95% interval: Z95 standard errors wide
     * on each side. Holding the interval to the spec's figure itself would ask for a standard
     * error half as large, and about four times the pairs. */
    strbuf_addf(out,
                "warmup %d\nmin_pairs %d\nmax_pairs %d\ntarget_ci %.6g\nbudget %.6g\n"
                "flush_l2 %d\nblocking %d\ntransfer 1\ntransfer_from %s\n",
                t->warmup, t->min_samples, t->max_samples, Z95 * t->target_rse, t->budget_s,
                t->flush_l2 ? 1 : 0, blocking_applies(s) ? 1 : 0, mem_space_name(v->transfer_from));
    strbuf_addf(out, "transfer_rule %d %.6g %.6g\n", TRANSFER_MIN_PAIRS,
                Z95 * TRANSFER_RSE_FACTOR * t->target_rse, TRANSFER_BUDGET_SHARE * t->budget_s);
    job_bands(s, out);
    for (size_t i = 0; i < s->n_cases; i++)
        job_case(s, i, out);
}

double runner_cpu_limit(double timeout_s, long online_cpus)
{
    if (timeout_s <= 0)
        return 0;
    return timeout_s * (double)(online_cpus > 0 ? online_cpus : 1);
}

/* ---- the run ---- */

static const char **run_argv(const struct run_spec *s)
{
    size_t n_wrap = 0;
    while (s->wrap && s->wrap[n_wrap])
        n_wrap++;
    const char **argv = xcalloc(n_wrap + 3, sizeof(char *));
    for (size_t i = 0; i < n_wrap; i++)
        argv[i] = s->wrap[i];
    argv[n_wrap] = s->runner;
    argv[n_wrap + 1] = "job.txt";
    return argv;
}

static const char **run_ro_paths(const struct run_spec *s)
{
    size_t n = 0;
    while (s->wrap_ro && s->wrap_ro[n])
        n++;
    const char **extra = xcalloc(n + 3, sizeof(char *));
    size_t k = 0;
    extra[k++] = s->runner;
    if (s->reference_lib)
        extra[k++] = s->reference_lib;
    for (size_t i = 0; i < n; i++)
        extra[k++] = s->wrap_ro[i];
    const char **ro = toolchain_ro_paths(s->tc, extra);
    free(extra);
    return ro;
}

/* The whole run's limit: every case's own, and a margin for starting up (a CUDA context). */
static double run_wall_limit(const struct run_spec *s)
{
    double total = 30;
    for (size_t i = 0; i < s->n_cases; i++)
        total += s->case_timeout_s[i];
    return total;
}

static void sandbox_setup(const struct run_spec *s, const char **argv, const char **ro,
                          struct sandbox_opts *opts)
{
    sandbox_opts_init(opts);
    opts->argv = argv;
    opts->workdir = s->workdir;
    opts->ro_paths = ro;
    opts->env = (const char *const *)s->tc->env;
    opts->wall_limit_s = run_wall_limit(s);
    opts->cpu_limit_s = runner_cpu_limit(opts->wall_limit_s, sysconf(_SC_NPROCESSORS_ONLN));
    opts->file_limit_bytes = 4LL << 30;
    opts->output_cap = s->output_cap ? s->output_cap : 64 * 1024;
    opts->output_tail = s->output_tail;
    opts->gpu = s->v->target == TARGET_GPU;
    opts->memory_limit_bytes = s->memory_limit_bytes;
    /* Threads count as tasks: OpenBLAS starts one per core and CUDA a few of its own. */
    opts->max_processes = s->reference ? 0 : 4096;
    opts->isolation = s->tc->isolation;
    opts->control = true;
    opts->case_limits_s = s->case_timeout_s;
    opts->n_case_limits = s->n_cases;
}

/* The machine's timing coordinator as this run takes part in it (run/turns.h): pinned to its
 * lane's cores, holding their locks (and its GPU's) shared while it does not time, and while
 * its series run its cores exclusively (a CPU variant) or its GPU (a GPU variant, the cores
 * kept shared); every series watched for what ran beside it. */
static void take_turns(const struct run_spec *s, struct sandbox_opts *opts, struct turns_locks *l)
{
    const struct turns *t = s->tc->turns;
    bool gpu = s->v->target == TARGET_GPU;
    enum turns_use use = !s->time ? TURNS_UNTIMED : gpu ? TURNS_GPU_SERIES : TURNS_CPU_SERIES;
    turns_join(t, use, gpu, opts, l);
}

const char *const run_stage_names[RUN_STAGE_COUNT] = {"setup", "checked", "warmup",
                                                      "timed", "after",   "queue"};

/* Walking the control pipe's lines: the case and stage running, since when. */
struct event_walk {
    int in_case, stage;
    double case_start, stage_start, series_start, series_after;
    int asked, released; /* the current case's "W" and "R" lines: once each, in that order */
};

/* The stage running ends at t (its time goes to the case it belongs to) and another begins. */
static void stage_enter(struct event_walk *w, struct run_outcome *o, int stage, double t)
{
    if (w->in_case >= 0 && w->stage >= 0)
        o->cases[w->in_case].stage_s[w->stage] += fmax(0, t - w->stage_start);
    w->stage = stage;
    w->stage_start = t;
}

/* "E": the series' span as the supervisor saw it, beside the harness's. false: malformed. */
static bool series_end(const struct event_walk *w, const struct sandbox_event *ev,
                       struct run_outcome *o)
{
    char name[16];
    int i, n_pairs = -1;
    double span;
    unsigned long long seal = 0, vdso = 0;
    if (sscanf(ev->line, "E %d %15s %lf %d %llx %llx", &i, name, &span, &n_pairs, &seal, &vdso) !=
            6 ||
        i != w->in_case || w->series_start < 0 || n_pairs < 0)
        return false;
    int k = run_series_lookup(name);
    if (k >= 0) {
        struct run_series *x = &o->cases[i].series[k];
        x->supervised = true;
        x->supervisor_span_ms = (ev->t_s - w->series_start) * 1e3;
        x->supervisor_max_ms = (ev->t_s - w->series_after) * 1e3;
        x->supervisor_min_ms = fmax(0, ev->t_after_s - w->series_start) * 1e3;
        x->harness_span_ms = span;
        x->sealed_n = (size_t)n_pairs;
        x->seal = seal;
        x->vdso = vdso;
    }
    return true;
}

/* The supervisor's timestamps: each case's stages, and each series' span as the supervisor saw
 * it beside the span the harness measured. */
void runner_apply_events(const struct run_spec *s, struct run_outcome *o)
{
    struct event_walk w = {.in_case = -1, .stage = -1, .series_start = -1};
    char name[16];
    for (size_t e = 0; e < o->sb.n_events && !o->tampered; e++) {
        const struct sandbox_event *ev = &o->sb.events[e];
        /* Every line but a case's begin belongs to the case begun, none before the first:
         * "S -1" and "E -1" before "B 0" (a constructor of the submission's can write them)
         * once reached o->cases[-1]. */
        bool in = w.in_case >= 0;
        int i;
        if (sscanf(ev->line, "B %d", &i) == 1 && i == w.in_case + 1 && (size_t)i < s->n_cases) {
            stage_enter(&w, o, -1, ev->t_s);
            if (w.in_case >= 0)
                o->cases[w.in_case].wall_s = ev->t_s - w.case_start;
            w.in_case = i;
            w.case_start = ev->t_s;
            w.asked = w.released = 0;
            stage_enter(&w, o, RUN_STAGE_SETUP, ev->t_s);
        } else if (in && sscanf(ev->line, "P %d %15s", &i, name) == 2 && i == w.in_case &&
                   (!strcmp(name, "checks") || !strcmp(name, "warmup")) && w.series_start < 0) {
            stage_enter(&w, o, name[0] == 'c' ? RUN_STAGE_CHECKED : RUN_STAGE_WARMUP, ev->t_s);
        } else if (in && sscanf(ev->line, "W %d", &i) == 1 && i == w.in_case &&
                   w.series_start < 0 && w.asked++ == 0) {
            stage_enter(&w, o, RUN_STAGE_QUEUE, ev->t_s);
        } else if (in && sscanf(ev->line, "R %d", &i) == 1 && i == w.in_case &&
                   w.series_start < 0 && w.asked == 1 && w.released++ == 0) {
            stage_enter(&w, o, RUN_STAGE_AFTER, ev->t_s);
        } else if (in && sscanf(ev->line, "S %d %15s", &i, name) == 2 && i == w.in_case) {
            w.series_start = ev->t_s;
            w.series_after = ev->t_after_s;
            stage_enter(&w, o, RUN_STAGE_TIMED, ev->t_s);
        } else if (in && series_end(&w, ev, o)) {
            w.series_start = -1;
            stage_enter(&w, o, RUN_STAGE_AFTER, ev->t_s);
        } else {
            o->tampered = xstrfmt("the control pipe carried a line the harness does not send "
                                  "there: '%.60s'",
                                  ev->line);
        }
    }
    stage_enter(&w, o, -1, o->sb.wall_s);
    if (w.in_case >= 0)
        o->cases[w.in_case].wall_s = o->sb.wall_s - w.case_start;
}

/* The samples as result.txt gave them, sealed as the harness sealed them when it sent the
 * series' end (the arrays present are the lines it wrote, in its order). */
static uint64_t read_seal(const struct run_series *x)
{
    uint64_t h = LG_SEAL_START;
    const double *arrays[4] = {x->stu_event, x->stu_host, x->ref_event, x->ref_host};
    for (int a = 0; a < 4; a++)
        if (arrays[a])
            h = lg_seal_samples(h, arrays[a], x->n);
    return h;
}

/* Why a series cannot be believed, or NULL. */
static char *series_forged(const struct run_series *x, size_t i, const char *name,
                           uint64_t own_vdso)
{
    double sum = 0;
    for (size_t j = 0; j < x->n; j++)
        sum += x->stu_host[j] + (x->paired ? x->ref_host[j] : 0);
    if (!x->supervised)
        return xstrfmt("case %zu reports a %s series the supervisor never saw begin and end", i + 1,
                       name);
    if (x->sealed_n != x->n || x->seal != read_seal(x))
        return xstrfmt("the %s samples of case %zu in result.txt are not the ones the harness "
                       "measured: they were rewritten after the series ended",
                       name, i + 1);
    if (own_vdso && x->vdso != own_vdso)
        return xstrfmt("the kernel's clock code (the vDSO) in the program was changed before "
                       "its %s series of case %zu ended: its times were read through a "
                       "patched clock",
                       name, i + 1);
    if (sum > x->supervisor_max_ms * 1.05 + 5)
        return xstrfmt("reported times add up to %.1f ms but the series ran at most %.1f ms by "
                       "the supervisor's clock",
                       sum, x->supervisor_max_ms);
    return NULL;
}

/* What the supervisor recorded of the machine around each series, and of the turns that never
 * came: a "busy" case in result.txt that the supervisor never answered "busy" is forged (a way
 * not to be timed at all). */
static void supervisor_records(struct run_outcome *o)
{
    for (size_t k = 0; k < o->sb.n_loads; k++) {
        const struct sb_series_load *l = &o->sb.loads[k];
        int x = run_series_lookup(l->series);
        if (l->case_index < 0 || (size_t)l->case_index >= o->n_cases || x < 0)
            continue;
        struct run_series *r = &o->cases[l->case_index].series[x];
        r->attempts = l->attempts;
        r->shared = l->shared;
        r->foreign_cpus = l->foreign_cpus;
        r->irq_cpus = l->irq_cpus;
        r->steal_cpus = l->steal_cpus;
        r->gpu_pid = l->gpu_pid;
        r->gpu_util = l->gpu_util;
        snprintf(r->gpu_comm, sizeof(r->gpu_comm), "%s", l->gpu_comm);
        r->cpu_pid = l->cpu_pid;
        snprintf(r->cpu_comm, sizeof(r->cpu_comm), "%s", l->cpu_comm);
    }
    bool *told = xcalloc(o->n_cases + 1, sizeof(bool));
    for (size_t k = 0; k < o->sb.n_busy; k++) {
        const struct sb_busy *b = &o->sb.busy[k];
        if (b->case_index < 0 || (size_t)b->case_index >= o->n_cases)
            continue;
        told[b->case_index] = true;
        o->cases[b->case_index].busy_waited_s = b->waited_s;
        snprintf(o->cases[b->case_index].busy_holders, sizeof(o->cases[b->case_index].busy_holders),
                 "%s", b->holders);
    }
    for (size_t i = 0; i < o->n_cases && !o->tampered; i++)
        if (o->cases[i].busy && !told[i])
            o->tampered = xstrfmt("case %zu says it got no turn to be timed, but the grader "
                                  "gave it one: the line was forged",
                                  i + 1);
    free(told);
}

/* Samples are taken inside the process, where student code runs: each series must match what
 * the harness sealed on the control pipe, be read through the kernel's own clock, and fit in
 * the time the supervisor saw it run. */
static void cross_check(struct run_outcome *o)
{
    uint64_t own_vdso = lg_seal_vdso();
    for (size_t i = 0; i < o->n_cases && !o->tampered; i++)
        for (int k = 0; k < RUN_SERIES_COUNT && !o->tampered; k++)
            if (o->cases[i].series[k].present)
                o->tampered =
                    series_forged(&o->cases[i].series[k], i, run_series_name(k), own_vdso);
}

static void read_result(const struct run_spec *s, struct run_outcome *o)
{
    struct strbuf res = STRBUF_INIT;
    struct error rerr;
    char *res_path = path_join(s->workdir, "result.txt");
    error_init(&rerr);
    /* The run's processes controlled result.txt: a link, a FIFO or a huge file there is
     * tampering, and must neither block nor exhaust the grader. Missing: the process never
     * got as far as creating it, and the verdict says how it ended. */
    switch (read_run_file(res_path, RUNNER_RESULT_MAX, false, &res, &rerr)) {
    case 0:
        runner_parse_result(o, strbuf_str(&res));
        break;
    case RUN_FILE_MISSING:
        break;
    default:
        o->tampered = xstrfmt("result.txt %s", rerr.msg);
        break;
    }
    free(res_path);
    strbuf_release(&res);
    if (!o->tampered)
        runner_apply_events(s, o);
    /* Lines in the harness's order, yet a series outside the locks: a grant the run took for
     * itself (a request forged in an earlier case, answered in advance). */
    if (!o->tampered && o->sb.unlocked_series)
        o->tampered = xstrdup("a timed series ran outside the timing locks the grader gave the "
                              "run: a request for them on the control pipe was forged");
    if (!o->tampered)
        supervisor_records(o);
    if (!o->tampered)
        cross_check(o);
}

int runner_run(const struct run_spec *s, struct run_outcome *o, struct error *err)
{
    struct strbuf job = STRBUF_INIT;
    char *job_path = path_join(s->workdir, "job.txt");
    const char **argv = run_argv(s), **ro = NULL;
    struct sandbox_opts opts;
    struct turns_locks locks = {NULL, NULL, 0};
    int rc = -1;
    o->n_cases = s->n_cases;
    o->cases = xcalloc(s->n_cases ? s->n_cases : 1, sizeof(*o->cases));
    runner_job_text(s, &job);
    if (write_file_atomic(job_path, job.buf, job.len, err) != 0)
        goto out;
    ro = run_ro_paths(s);
    sandbox_setup(s, argv, ro, &opts);
    take_turns(s, &opts, &locks);
    trace_point("    %s: job written, starting", s->v->id);
    int sbrc = sandbox_run(&opts, &o->sb, err);
    trace_point("    %s: process ended (%.3f s waiting for timing locks)", s->v->id,
                o->sb.lock_wait_s);
    if (sbrc != 0) {
        error_prefix(err, "cannot run %s: ", s->runner);
        goto out;
    }
    if (o->sb.uncoordinated || o->sb.n_busy)
        turns_note_busy();
    read_result(s, o);
    trace_point("    %s: results read", s->v->id);
    rc = 0;
out:
    turns_locks_release(&locks);
    free(ro);
    free(argv);
    free(job_path);
    strbuf_release(&job);
    return rc;
}

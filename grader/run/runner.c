#include "run/runner.h"

#include "spec/plan.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include <string.h>

void run_outcome_init(struct run_outcome *o)
{
    memset(o, 0, sizeof(*o));
    sandbox_result_init(&o->sb);
}

void run_outcome_release(struct run_outcome *o)
{
    sandbox_result_release(&o->sb);
    free(o->phase);
    free(o->error_kind);
    free(o->error_msg);
    free(o->timed_mismatch);
    free(o->tampered);
    free(o->blocking_off);
    for (size_t i = 0; i < o->n_modified; i++)
        free(o->modified[i]);
    free(o->modified);
    for (int i = 0; i < SERIES_COUNT; i++)
        free(o->samples[i]);
    run_outcome_init(o);
}

static const char *space_word(enum mem_space m)
{
    return m == MEM_DEVICE ? "device" : m == MEM_PINNED ? "pinned" : "host";
}

/* A GPU function given host pointers must copy its results back before it returns, so it
 * waits on the GPU inside the call: behind a blocking kernel it would only wait out the
 * blocker's timeout, and every such solution would carry a finding about it. The blocking
 * kernel is for functions on device pointers alone. */
static bool blocking_applies(const struct run_spec *s)
{
    bool any_array = false;
    if (!s->timing.blocking || s->v->target != TARGET_GPU)
        return false;
    for (size_t i = 0; i < s->ex->n_args; i++) {
        if (s->ex->args[i].kind == ARG_SCALAR)
            continue;
        if (variant_arg_memory(s->v, s->ex, i) != MEM_DEVICE)
            return false;
        any_array = true;
    }
    return any_array;
}

int runner_job_text(const struct run_spec *s, bool for_key, struct strbuf *out, struct error *err)
{
    const struct exercise_spec *ex = s->ex;
    const struct variant_spec *v = s->v;
    const char *fn = s->reference ? v->reference.function : v->student.function;
    (void)err;
    plan_key_text(ex, v, s->c, fn, s->checks, out);
    if (for_key)
        return 0;
    strbuf_addf(out, "time %d\n", s->time ? 1 : 0);
    strbuf_addf(out, "warmup %d\nmin_samples %d\nmax_samples %d\ntarget_rse %.6g\nbudget %.6g\n",
                s->timing.warmup, s->timing.min_samples, s->timing.max_samples,
                s->timing.target_rse, s->timing.budget_s);
    strbuf_addf(out, "blocking %d\n", blocking_applies(s) ? 1 : 0);
    strbuf_addf(out, "flush_l2 %d\ntransfer 1\ntransfer_from %s\nverify_timed %d\n",
                s->timing.flush_l2 ? 1 : 0, space_word(v->transfer_from), 1);
    for (size_t i = 0; i < ex->n_args; i++) {
        if (ex->args[i].kind != ARG_OUT && ex->args[i].kind != ARG_INOUT)
            continue;
        const struct tolerance *t = &s->c->args[i].tol;
        strbuf_addf(out, "tol %s %.17g %.17g\n", ex->args[i].name, t->rtol, t->atol);
    }
    return 0;
}

static void add_modified(struct run_outcome *o, const char *name)
{
    for (size_t i = 0; i < o->n_modified; i++)
        if (!strcmp(o->modified[i], name))
            return;
    o->modified = xrealloc(o->modified, (o->n_modified + 1) * sizeof(char *));
    o->modified[o->n_modified++] = xstrdup(name);
}

static void parse_samples(struct run_outcome *o, const char *series, const char *rest)
{
    static const char *const names[SERIES_COUNT] = {"call_host", "call_event", "transfer_host",
                                                    "transfer_event"};
    int idx = -1;
    for (int i = 0; i < SERIES_COUNT; i++)
        if (!strcmp(series, names[i]))
            idx = i;
    if (idx < 0)
        return;
    if (o->samples[idx]) {
        /* The harness writes each series once: a second one was written by someone else. */
        if (!o->tampered)
            o->tampered = xstrfmt("result.txt holds the '%s' samples twice", series);
        return;
    }
    size_t cap = 16, n = 0;
    double *x = xmalloc(cap * sizeof(double));
    const char *p = rest;
    while (*p) {
        char *end;
        errno = 0;
        double v = strtod(p, &end);
        if (end == p || errno)
            break;
        if (n == cap) {
            cap *= 2;
            x = xrealloc(x, cap * sizeof(double));
        }
        x[n++] = v;
        p = end;
    }
    free(o->samples[idx]);
    o->samples[idx] = x;
    o->n_samples[idx] = n;
}

/* result.txt comes from a process that also ran student code: parse defensively. */
void runner_parse_result(struct run_outcome *o, const char *text)
{
    const char *line = text;
    /* Once the harness wrote "phase check 0", the student's code has run, and could have
     * appended any line: the harness's own "error" lines that blame the machine (setup,
     * nogpu) are only written before that. "cuda" errors come after calls and are charged
     * to the submission anyway. */
    bool student_ran = false;
    while (line && *line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        char *l = xstrndup(line, len > 1 << 20 ? 1 << 20 : len);
        char *sp = strchr(l, ' ');
        const char *rest = sp ? sp + 1 : "";
        if (sp)
            *sp = '\0';
        if (!strcmp(l, "status") && !strcmp(rest, "ok")) {
            if (o->finished && !o->tampered)
                o->tampered = xstrdup("result.txt says 'status ok' twice");
            o->finished = true;
        } else if (!strcmp(l, "harness") && line != text && !o->tampered) {
            o->tampered = xstrdup("result.txt was rewritten while the program ran");
        } else if (!strcmp(l, "phase")) {
            free(o->phase);
            o->phase = xstrndup(rest, 100);
            if (strcmp(rest, "setup") != 0)
                student_ran = true;
        } else if (!strcmp(l, "check")) {
            long k;
            char word[16] = "";
            if (sscanf(rest, "%ld %15s", &k, word) == 2 && !strcmp(word, "done") && k >= 0 &&
                k < SPEC_MAX_CHECKS && k + 1 > o->checks_done)
                o->checks_done = (int)k + 1;
        } else if (!strcmp(l, "modified")) {
            char name[128];
            int k;
            if (sscanf(rest, "%d %127s", &k, name) == 2)
                add_modified(o, name);
        } else if (!strcmp(l, "error")) {
            char *sp2 = strchr(rest, ' ');
            char *kind = sp2 ? xstrndup(rest, (size_t)(sp2 - rest)) : xstrdup(rest);
            if (o->error_kind) {
                /* The harness exits right after its error line: a second one is forged. */
                if (!o->tampered)
                    o->tampered = xstrdup("result.txt holds two harness error lines");
                free(kind);
            } else if (student_ran && strcmp(kind, "cuda") != 0) {
                if (!o->tampered)
                    o->tampered = xstrfmt("result.txt holds a harness error line ('%.40s') "
                                          "written after the student's code ran",
                                          kind);
                free(kind);
            } else {
                o->error_kind = kind;
                free(o->error_msg);
                o->error_msg = xstrndup(sp2 ? sp2 + 1 : "", 1000);
            }
        } else if (!strcmp(l, "samples")) {
            char *sp2 = strchr(rest, ' ');
            if (sp2) {
                char *series = xstrndup(rest, (size_t)(sp2 - rest));
                parse_samples(o, series, sp2 + 1);
                free(series);
            }
        } else if (!strcmp(l, "timed_mismatch")) {
            int k;
            char name[128];
            long bad;
            if (sscanf(rest, "%d %127s %ld", &k, name, &bad) == 3 && !o->timed_mismatch) {
                o->timed_mismatch = xstrdup(name);
                o->timed_mismatch_call = k + 1;
                o->timed_mismatch_elements = bad;
            }
        } else if (!strcmp(l, "blocking")) {
            /* "on", or "off <why>"; once off it stays off. */
            if (!strcmp(rest, "on")) {
                if (o->blocking == 0)
                    o->blocking = 1;
            } else if (!strncmp(rest, "off ", 4) && !o->blocking_off) {
                o->blocking = -1;
                o->blocking_off = xstrndup(rest + 4, 40);
            }
        } else if (!strcmp(l, "throttle")) {
            char label[32];
            int dropped, gave_up, max_mhz;
            if (sscanf(rest, "%31s %d %d %d", label, &dropped, &gave_up, &max_mhz) == 4 &&
                dropped >= 0 && dropped <= 100000 && max_mhz >= 0) {
                o->throttle_dropped += dropped;
                o->throttle_gave_up = o->throttle_gave_up || gave_up != 0;
                o->throttle_max_mhz = max_mhz;
            }
        } else if (!strcmp(l, "clock")) {
            char label[32];
            int lo, hi;
            if (sscanf(rest, "%31s %d %d", label, &lo, &hi) == 3) {
                if (o->clock_min_mhz == 0 || lo < o->clock_min_mhz)
                    o->clock_min_mhz = lo;
                if (hi > o->clock_max_mhz)
                    o->clock_max_mhz = hi;
            }
        }
        free(l);
        line = nl ? nl + 1 : NULL;
    }
}

double runner_cpu_limit(double timeout_s, long online_cpus)
{
    /* Threads (OpenBLAS starts one per core) legitimately use more CPU time than wall
     * time, but never more than every core for the whole wall limit; the rlimit is a
     * backstop for the processes the wall-clock kill might miss, not a tighter bound. */
    if (timeout_s <= 0)
        return 0;
    return timeout_s * (double)(online_cpus > 0 ? online_cpus : 1);
}

int runner_run(const struct run_spec *s, struct run_outcome *o, struct error *err)
{
    struct strbuf job = STRBUF_INIT, res = STRBUF_INIT;
    struct error rerr;
    char *job_path = path_join(s->workdir, "job.txt");
    char *res_path = path_join(s->workdir, "result.txt");
    const char **argv = NULL, **extra = NULL;
    size_t n_wrap = 0, n_wrap_ro = 0;
    const char **ro = NULL;
    struct sandbox_opts opts;
    int rc = -1;

    while (s->wrap && s->wrap[n_wrap])
        n_wrap++;
    while (s->wrap_ro && s->wrap_ro[n_wrap_ro])
        n_wrap_ro++;
    argv = xcalloc(n_wrap + 3, sizeof(char *));
    for (size_t i = 0; i < n_wrap; i++)
        argv[i] = s->wrap[i];
    argv[n_wrap] = s->runner;
    argv[n_wrap + 1] = "job.txt";
    extra = xcalloc(n_wrap_ro + 2, sizeof(char *));
    extra[0] = s->runner;
    for (size_t i = 0; i < n_wrap_ro; i++)
        extra[i + 1] = s->wrap_ro[i];

    if (runner_job_text(s, false, &job, err) != 0)
        goto out;
    if (write_file_atomic(job_path, job.buf, job.len, err) != 0)
        goto out;
    ro = toolchain_ro_paths(s->tc, extra);
    sandbox_opts_init(&opts);
    opts.argv = argv;
    opts.workdir = s->workdir;
    opts.ro_paths = ro;
    opts.env = (const char *const *)s->tc->env;
    opts.wall_limit_s = s->timeout_s;
    opts.cpu_limit_s = runner_cpu_limit(s->timeout_s, sysconf(_SC_NPROCESSORS_ONLN));
    opts.file_limit_bytes = 4LL << 30;
    opts.output_cap = s->output_cap ? s->output_cap : 64 * 1024;
    opts.output_tail = s->output_tail;
    opts.gpu = s->v->target == TARGET_GPU;
    opts.memory_limit_bytes = s->memory_limit_bytes;
    /* Threads count as tasks: OpenBLAS starts one per core and CUDA a few of its own. */
    opts.max_processes = s->reference ? 0 : 4096;
    opts.isolation = s->tc->isolation;
    /* Batch grading with several workers: timed CPU work runs alone (see batch.h). */
    const char *lock_path = getenv("LABGRADER_CPU_LOCK");
    int lock_fd = -1;
    if (lock_path && *lock_path && s->time && s->v->target == TARGET_CPU) {
        lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        if (lock_fd >= 0)
            while (flock(lock_fd, LOCK_EX) != 0 && errno == EINTR)
                ;
    }
    int sbrc = sandbox_run(&opts, &o->sb, err);
    if (lock_fd >= 0)
        close(lock_fd);
    if (sbrc != 0) {
        error_prefix(err, "cannot run %s: ", s->runner);
        goto out;
    }
    error_init(&rerr);
    /* The run's processes controlled result.txt: a link, a FIFO or a huge file there is
     * tampering, and must neither block nor exhaust the grader. Missing: the process
     * never got as far as creating it, and the verdict says how it ended. */
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
    /* Samples are taken inside the process: together they cannot outlast it. */
    for (int i = 0; i < SERIES_COUNT && !o->tampered; i += 2) {
        double sum = 0;
        for (size_t k = 0; k < o->n_samples[i]; k++)
            sum += o->samples[i][k];
        if (sum > o->sb.wall_s * 1e3 * 1.05 + 5)
            o->tampered = xstrfmt("reported times add up to %.1f ms but the process ran %.1f ms",
                                  sum, o->sb.wall_s * 1e3);
    }
    rc = 0;
out:
    free(ro);
    free(argv);
    free(extra);
    free(job_path);
    free(res_path);
    strbuf_release(&job);
    strbuf_release(&res);
    return rc;
}

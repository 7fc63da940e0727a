#include "grade/grade.h"

#include "grade/compare.h"
#include "spec/plan.h"
#include "harness/throttle.h"
#include "base/messages.h"
#include "run/runner.h"
#include "run/sanitizer.h"
#include "base/stats.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/util.h"

#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LG_VERSION
#define LG_VERSION "0.0.0"
#endif

struct ref_timing {
    char *key; /* "exercise/variant/case" */
    struct timing call, transfer;
    struct gpu_clock clock;
    bool ok;
    char *message; /* why the reference failed, when !ok */
};

void grade_env_init(struct grade_env *env)
{
    memset(env, 0, sizeof(*env));
    toolchain_init(&env->tc);
    gpu_probe_init(&env->gpu);
}

void grade_env_release(struct grade_env *env)
{
    toolchain_release(&env->tc);
    gpu_probe_release(&env->gpu);
    free(env->cache_dir);
    for (size_t i = 0; i < env->n_ref_times; i++) {
        free(env->ref_times[i].key);
        free(env->ref_times[i].message);
    }
    free(env->ref_times);
    free(env->sanitizer);
    grade_env_init(env);
}

int grade_env_setup(struct grade_env *env, const char *harness_dir, const char *include_dir,
                    const char *cache_dir, enum isolation iso, struct error *err)
{
    if (toolchain_detect(&env->tc, harness_dir, include_dir, err) != 0)
        return -1;
    env->tc.isolation = iso;
    gpu_probe_run(&env->gpu, &env->tc);
    env->cal.valid = false;
    if (env->gpu.available && env->gpu.cc) {
        int major = 0, minor = 0;
        if (sscanf(env->gpu.cc, "%d.%d", &major, &minor) == 2)
            env->tc.gpu_arch = xstrfmt("sm_%d%d", major, minor);
    }
    if (mkdir_p(cache_dir, err) != 0)
        return -1;
    /* Absolute: programs run with their own scratch folder as working directory. */
    env->cache_dir = path_abs(cache_dir, err);
    if (env->memory_limit_bytes == 0) {
        /* Three quarters of the machine's memory: a runaway allocation costs its own
         * grade, not the grader (where cgroups are delegated; see README). */
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        if (pages > 0 && page > 0)
            env->memory_limit_bytes = (long long)pages * page / 4 * 3;
    }
    return env->cache_dir ? 0 : -1;
}

static void parse_calibration(const char *text, struct calibration *c)
{
    static const struct {
        const char *key;
        size_t off;
    } keys[] = {
        {"cpu_bw_gbs", offsetof(struct calibration, cpu_bw_gbs)},
        {"cpu_sgemm_gflops", offsetof(struct calibration, cpu_sgemm_gflops)},
        {"gpu_copy_gbs", offsetof(struct calibration, gpu_copy_gbs)},
        {"h2d_pinned_gbs", offsetof(struct calibration, h2d_pinned_gbs)},
        {"h2d_pageable_gbs", offsetof(struct calibration, h2d_pageable_gbs)},
        {"d2h_pinned_gbs", offsetof(struct calibration, d2h_pinned_gbs)},
        {"d2h_pageable_gbs", offsetof(struct calibration, d2h_pageable_gbs)},
        {"gpu_sgemm_gflops", offsetof(struct calibration, gpu_sgemm_gflops)},
    };
    memset(c, 0, sizeof(*c));
    for (const char *line = text; line && *line;) {
        char key[64];
        double v;
        if (sscanf(line, "%63s %lf", key, &v) == 2) {
            for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
                if (!strcmp(key, keys[i].key))
                    *(double *)((char *)c + keys[i].off) = v;
            if (!strcmp(key, "gpu_l2_bytes"))
                c->gpu_l2_bytes = (long)v;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    c->valid = c->cpu_bw_gbs > 0;
}

void grade_calibrate(struct grade_env *env, FILE *log)
{
    struct sha256 h;
    char hex[65], host[256] = "";
    const char *env_off = getenv("LABGRADER_NO_CALIBRATE");
    if (env_off && *env_off)
        return;
    gethostname(host, sizeof(host) - 1);
    sha256_init(&h);
    const char *parts[] = {host, env->gpu.name, env->tc.nvcc_version, "calibrate-1"};
    for (size_t i = 0; i < 4; i++)
        sha256_update(&h, parts[i] ? parts[i] : "-", strlen(parts[i] ? parts[i] : "-") + 1);
    sha256_final_hex(&h, hex);
    hex[16] = '\0';
    char *dir = xstrfmt("%s/calibration", env->cache_dir);
    char *path = xstrfmt("%s/%s.txt", dir, hex);
    struct strbuf text = STRBUF_INIT;
    if (read_file(path, &text, NULL) != 0) {
        char *prog = path_join(env->tc.harness_dir, "calibrate");
        const char *argv[] = {prog, NULL};
        struct sandbox_opts o;
        struct sandbox_result r;
        struct error err;
        sandbox_opts_init(&o);
        sandbox_result_init(&r);
        o.argv = argv;
        o.workdir = "/tmp";
        o.wall_limit_s = 180;
        o.isolation = ISOLATION_SUPERVISOR;
        o.env = (const char *const *)env->tc.env;
        o.gpu = env->gpu.available;
        if (log)
            fprintf(log, "measuring this machine's limits once (memory bandwidth, BLAS, GPU "
                         "copies) ...\n");
        if (file_exists(prog) && sandbox_run(&o, &r, &err) == 0 && r.status == SB_EXITED &&
            r.exit_code == 0 && r.output) {
            strbuf_addstr(&text, r.output);
            mkdir_p(dir, NULL);
            write_file_atomic(path, text.buf, text.len, NULL);
        }
        sandbox_result_release(&r);
        free(prog);
    }
    parse_calibration(strbuf_str(&text), &env->cal);
    strbuf_release(&text);
    free(dir);
    free(path);
}

char *calibration_summary(const struct calibration *c)
{
    struct strbuf sb = STRBUF_INIT;
    if (!c->valid)
        return NULL;
    strbuf_addf(&sb, "CPU memory %.1f GB/s, OpenBLAS SGEMM %.0f GFLOP/s", c->cpu_bw_gbs,
                c->cpu_sgemm_gflops);
    if (c->gpu_copy_gbs > 0)
        strbuf_addf(&sb,
                    "; GPU copy %.0f GB/s, host-to-device %.1f GB/s pinned / %.1f GB/s "
                    "pageable, device-to-host %.1f / %.1f GB/s, cuBLAS SGEMM %.0f GFLOP/s",
                    c->gpu_copy_gbs, c->h2d_pinned_gbs, c->h2d_pageable_gbs, c->d2h_pinned_gbs,
                    c->d2h_pageable_gbs, c->gpu_sgemm_gflops);
    return strbuf_detach(&sb);
}

void grade_opts_init(struct grade_opts *o)
{
    memset(o, 0, sizeof(*o));
}

/* Per-submission state while grading. */
struct grading {
    struct grade_env *env;
    const struct lab *lab;
    const struct grade_opts *o;
    struct results *r;
    struct build_ctx ref_build, student_build;
    char ref_digest[65];
    char *ref_dir;
    char *work;
    bool ref_ready;
};

static void case_skip(struct case_result *cr, enum verdict v, const char *msg)
{
    cr->verdict = v;
    free(cr->message);
    cr->message = xstrdup(msg);
    cr->points = 0;
}

static void add_finding(struct case_result *cr, char *text)
{
    cr->findings = xrealloc(cr->findings, (cr->n_findings + 1) * sizeof(char *));
    cr->findings[cr->n_findings++] = text;
}

static char *sizes_text(const struct case_spec *c)
{
    struct strbuf sb = STRBUF_INIT;
    case_sizes_text(c, &sb);
    return strbuf_detach(&sb);
}

static bool case_listed(const char *list, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, id, n))
            return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

static bool case_selected(const struct grading *g, const struct case_spec *c, const char **why)
{
    if (g->o->cases && !case_listed(g->o->cases, c->id)) {
        *why = messages_get(g->o->messages, "not selected (--case)");
        return false;
    }
    if (c->hidden && !g->o->hidden) {
        *why = messages_get(g->o->messages, "hidden case: run only when the instructor grades");
        return false;
    }
    if (c->slow && !g->o->full) {
        *why = messages_get(g->o->messages, "slow case: run with --full (make check ARGS=--full)");
        return false;
    }
    return true;
}

static double case_timeout(const struct grading *g, const struct exercise_spec *ex,
                           const struct case_spec *c)
{
    if (g->o->timeout_s > 0)
        return g->o->timeout_s;
    return c->timeout_s > 0 ? c->timeout_s : ex->timeout_s;
}

static void fill_run_spec(struct grading *g, struct run_spec *s, const struct exercise_spec *ex,
                          const struct variant_spec *v, const struct case_spec *c, bool reference,
                          const char *runner, const char *workdir, int checks, bool time)
{
    memset(s, 0, sizeof(*s));
    s->tc = &g->env->tc;
    s->lab = g->lab;
    s->ex = ex;
    s->v = v;
    s->c = c;
    s->reference = reference;
    s->runner = runner;
    s->workdir = workdir;
    s->checks = checks;
    s->time = time;
    s->timing = ex->timing;
    s->timeout_s = case_timeout(g, ex, c);
    s->memory_limit_bytes = reference ? 0 : g->env->memory_limit_bytes;
    /* A reference is trusted and may need longer at the largest sizes on a slow CPU. */
    if (reference)
        s->timeout_s *= 4;
}

static char *fresh_dir(struct grading *g, const char *name, struct error *err)
{
    char *d = xstrfmt("%s/run/%s", g->work, name);
    remove_tree(d, NULL);
    if (mkdir_p(d, err) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

/* Timings of one series, in ms: events on the GPU unless they disagree with the host clock. */
static void series_timing(const struct messages *msgs, const struct run_outcome *o, bool gpu,
                          bool transfer, struct timing *t, struct case_result *cr)
{
    enum sample_series host = transfer ? SERIES_XFER_HOST : SERIES_CALL_HOST;
    enum sample_series ev = transfer ? SERIES_XFER_EVENT : SERIES_CALL_EVENT;
    memset(t, 0, sizeof(*t));
    if (!o->n_samples[host])
        return;
    if (gpu && o->n_samples[ev] == o->n_samples[host]) {
        double mh = stats_median(o->samples[host], o->n_samples[host]);
        double me = stats_median(o->samples[ev], o->n_samples[ev]);
        /* The host clock brackets a device-wide synchronize: it is never shorter than the
         * events by more than timer noise. Much longer means work escaped the events. */
        if (me > 0 && mh > me * 1.25 + 0.05) {
            if (cr)
                add_finding(cr, xstrfmt(messages_get(msgs, "%s: CUDA events measured %.3f ms but "
                                                           "the host clock around a device "
                                                           "synchronize %.3f ms: work outside the "
                                                           "default stream or left running; the "
                                                           "host-clock time counts"),
                                        transfer ? messages_get(msgs, "with transfer")
                                                 : messages_get(msgs, "call"),
                                        me, mh));
            stats_timing(o->samples[host], o->n_samples[host], t);
        } else if (me > 0) {
            stats_timing(o->samples[ev], o->n_samples[ev], t);
        } else {
            stats_timing(o->samples[host], o->n_samples[host], t);
        }
        return;
    }
    stats_timing(o->samples[host], o->n_samples[host], t);
}

static const char *phase_words(const struct messages *msgs, const char *phase)
{
    if (!phase)
        return messages_get(msgs, "before the first call");
    if (!strncmp(phase, "check", 5))
        return messages_get(msgs, "during a checked call");
    if (!strncmp(phase, "warmup", 6))
        return messages_get(msgs, "during warm-up");
    if (!strncmp(phase, "time", 4))
        return messages_get(msgs, "while timing");
    if (!strcmp(phase, "setup"))
        return messages_get(msgs, "while setting up");
    return phase;
}

static char *output_excerpt(const struct run_outcome *o)
{
    return sandbox_output_excerpt(&o->sb, 4000);
}

/* Turn a run's fate into a verdict; true when it ran to completion. */
static bool run_verdict(const struct messages *msgs, const struct run_outcome *o,
                        struct case_result *cr, const char *fn, double timeout_s)
{
    switch (o->sb.status) {
    case SB_SETUP_FAILED:
        case_skip(cr, V_GRADER, messages_get(msgs, "the sandbox could not start the program"));
        return false;
    case SB_TIMEOUT:
        cr->verdict = V_TIMEOUT;
        cr->message = xstrfmt(messages_get(msgs, "timed out after %.1f s (wall clock) %s of %s; "
                                                 "the whole process group was killed"),
                              timeout_s, phase_words(msgs, o->phase), fn);
        return false;
    case SB_CPU_LIMIT:
        cr->verdict = V_TIMEOUT;
        cr->message = xstrfmt(messages_get(msgs, "CPU time limit exceeded %s of %s"),
                              phase_words(msgs, o->phase), fn);
        return false;
    case SB_SIGNALED: {
        /* The signal's meaning in the student's language: the commonest failure they meet. */
        const char *what = signal_description(o->sb.term_signal);
        cr->verdict = V_CRASH;
        if (what)
            cr->message = xstrfmt(messages_get(msgs, "killed by %s (%s) %s of %s"),
                                  signal_name(o->sb.term_signal), messages_get(msgs, what),
                                  phase_words(msgs, o->phase), fn);
        else
            cr->message = xstrfmt(messages_get(msgs, "killed by signal %d %s of %s"),
                                  o->sb.term_signal, phase_words(msgs, o->phase), fn);
        cr->detail = output_excerpt(o);
        return false;
    }
    case SB_FILE_LIMIT:
        cr->verdict = V_OUTPUT;
        cr->message = xstrfmt(messages_get(msgs, "file size limit exceeded %s of %s"),
                              phase_words(msgs, o->phase), fn);
        return false;
    case SB_MEMORY_LIMIT:
        cr->verdict = V_MEMORY;
        cr->message = xstrfmt(messages_get(msgs, "memory limit exceeded %s of %s"),
                              phase_words(msgs, o->phase), fn);
        return false;
    case SB_EXITED:
        break;
    }
    if (o->error_kind && !strcmp(o->error_kind, "cuda")) {
        cr->verdict = V_EXIT;
        cr->message = xstrdup(o->error_msg ? o->error_msg : "CUDA error");
        cr->detail = output_excerpt(o);
        return false;
    }
    if (o->sb.exit_code != 0 || !o->finished) {
        cr->verdict = V_EXIT;
        if (o->sb.exit_code == 0)
            cr->message = xstrfmt(messages_get(msgs, "the program exited (status 0) %s of %s: the "
                                                     "function must return, not call exit()"),
                                  phase_words(msgs, o->phase), fn);
        else
            cr->message = xstrfmt(messages_get(msgs, "exited with status %d %s of %s"),
                                  o->sb.exit_code, phase_words(msgs, o->phase), fn);
        cr->detail = output_excerpt(o);
        return false;
    }
    return true;
}

static char *expected_dir(struct grading *g, const struct exercise_spec *ex,
                          const struct variant_spec *oracle, const struct case_spec *c,
                          struct error *err)
{
    struct run_spec s;
    struct strbuf key = STRBUF_INIT;
    struct sha256 h;
    char hex[65];
    fill_run_spec(g, &s, ex, oracle, c, true, "", "", ex->timing.checks, false);
    if (runner_job_text(&s, true, &key, err) != 0) {
        strbuf_release(&key);
        return NULL;
    }
    sha256_init(&h);
    sha256_update(&h, g->ref_digest, 64);
    sha256_update(&h, key.buf, key.len);
    sha256_final_hex(&h, hex);
    strbuf_release(&key);
    return xstrfmt("%s/expected/%s", g->env->cache_dir, hex);
}

static const char *ref_runner(struct grading *g, const struct exercise_spec *ex,
                              const struct variant_spec *v, char **why, struct error *err)
{
    static char path[4096];
    struct build_result br;
    snprintf(path, sizeof(path), "%s/%s-%s/runner", g->ref_dir, ex->id, v->id);
    if (file_exists(path))
        return path;
    /* Shards of a class (Slurm tasks, GPU workers) share the cache: one builds, the
     * others wait and then find the runner. */
    char *lock_path = xstrfmt("%s.lock", g->ref_dir);
    int lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    free(lock_path);
    if (lock_fd >= 0)
        while (flock(lock_fd, LOCK_EX) != 0 && errno == EINTR)
            ;
    if (file_exists(path)) {
        if (lock_fd >= 0)
            close(lock_fd);
        return path;
    }
    build_result_init(&br);
    int brc = build_variant(&g->ref_build, ex, v, &br, err);
    if (lock_fd >= 0)
        close(lock_fd);
    if (brc != 0) {
        build_result_release(&br);
        return NULL;
    }
    if (br.status != BUILD_OK) {
        *why = br.status == BUILD_NO_TOOLCHAIN
                   ? xstrdup(br.message)
                   : xstrfmt("the reference %s does not build: %s\n%s", v->reference.function,
                             br.message ? br.message : "", strbuf_str(&br.log));
        build_result_release(&br);
        return NULL;
    }
    build_result_release(&br);
    return path;
}

static struct ref_timing *ref_timing_find(struct grade_env *env, const char *key)
{
    for (size_t i = 0; i < env->n_ref_times; i++)
        if (!strcmp(env->ref_times[i].key, key))
            return &env->ref_times[i];
    return NULL;
}

/* What a run's harness said of the GPU's clocks, as results keep it. */
static struct gpu_clock run_clock(const struct run_outcome *o)
{
    struct gpu_clock k = {
        .min_mhz = o->clock_min_mhz,
        .max_mhz = o->clock_max_mhz,
        .limit_mhz = o->throttle_max_mhz,
        .dropped = o->throttle_dropped,
        .throttled = o->throttle_gave_up,
    };
    return k;
}

/*
 * One timing run of a variant's reference on a case, into rt (ok and the timings, or the
 * message saying why not). round: 0 for the run cached per env, else the alternating round
 * it belongs to (its own folder). -1 only when the grader itself failed (err set).
 */
static int reference_measure(struct grading *g, const struct exercise_spec *ex,
                             const struct variant_spec *v, const struct case_spec *c, int round,
                             struct ref_timing *rt, struct error *err)
{
    rt->ok = false;
    if (!v->has_reference) {
        rt->message = xstrdup("no reference");
        return 0;
    }
    if (v->target == TARGET_GPU && !g->env->gpu.available) {
        rt->message = xstrdup(g->env->gpu.reason ? g->env->gpu.reason : "no GPU");
        return 0;
    }
    char *why = NULL;
    const char *runner = ref_runner(g, ex, v, &why, err);
    if (!runner) {
        if (!why)
            return -1;
        rt->message = why;
        return 0;
    }
    char *name = round ? xstrfmt("ref-%s-%s-%s-round%d", ex->id, v->id, c->id, round)
                       : xstrfmt("ref-%s-%s-%s", ex->id, v->id, c->id);
    char *dir = fresh_dir(g, name, err);
    free(name);
    if (!dir)
        return -1;
    struct run_spec s;
    struct run_outcome o;
    fill_run_spec(g, &s, ex, v, c, true, runner, dir, 1, true);
    run_outcome_init(&o);
    if (runner_run(&s, &o, err) != 0) {
        free(dir);
        run_outcome_release(&o);
        return -1;
    }
    if (o.finished) {
        series_timing(NULL, &o, v->target == TARGET_GPU, false, &rt->call, NULL);
        series_timing(NULL, &o, v->target == TARGET_GPU, true, &rt->transfer, NULL);
        rt->clock = run_clock(&o);
        rt->ok = true;
    } else {
        char d[512];
        sandbox_describe(&o.sb, d, sizeof(d));
        rt->message = xstrfmt("the reference %s failed: %s%s%s", v->reference.function,
                              o.error_msg ? o.error_msg : d, o.sb.output_len ? "\n" : "",
                              o.sb.output ? o.sb.output : "");
    }
    run_outcome_release(&o);
    if (!g->o->keep_work)
        remove_tree(dir, NULL);
    free(dir);
    return 0;
}

/* Reference timing of a variant on a case: measured once per env when reuse is on. */
static struct ref_timing *reference_timing(struct grading *g, const struct exercise_spec *ex,
                                           const struct variant_spec *v, const struct case_spec *c,
                                           struct error *err)
{
    char *key = xstrfmt("%s/%s/%s", ex->id, v->id, c->id);
    struct ref_timing *rt = ref_timing_find(g->env, key);
    if (rt && g->o->reuse_ref_times) {
        free(key);
        return rt;
    }
    if (!rt) {
        ALLOC_GROW(g->env->ref_times, g->env->n_ref_times + 1, g->env->alloc_ref_times);
        rt = &g->env->ref_times[g->env->n_ref_times++];
        memset(rt, 0, sizeof(*rt));
        rt->key = key;
    } else {
        free(key);
        free(rt->message);
        rt->message = NULL;
        rt->ok = false;
    }
    return reference_measure(g, ex, v, c, 0, rt, err) == 0 ? rt : NULL;
}

/* Make sure expected outputs exist for (exercise, case); NULL + *why when they cannot. */
static char *ensure_expected(struct grading *g, const struct exercise_spec *ex,
                             const struct case_spec *c, char **why, struct error *err)
{
    const struct variant_spec *oracle = exercise_variant(ex, ex->oracle);
    if (!oracle) {
        *why = xstrfmt("exercise %s has no oracle variant", ex->id);
        return NULL;
    }
    char *dir = expected_dir(g, ex, oracle, c, err);
    if (!dir)
        return NULL;
    char *done = path_join(dir, "done");
    if (file_exists(done)) {
        free(done);
        return dir;
    }
    free(done);
    if (oracle->target == TARGET_GPU && !g->env->gpu.available) {
        *why =
            xstrfmt(messages_get(g->o->messages, "expected values come from a GPU reference: %s"),
                    g->env->gpu.reason ? g->env->gpu.reason : "no GPU");
        free(dir);
        return NULL;
    }
    const char *runner = ref_runner(g, ex, oracle, why, err);
    if (!runner) {
        free(dir);
        return NULL;
    }
    char *name = xstrfmt("expected-%s-%s", ex->id, c->id);
    char *rundir = fresh_dir(g, name, err);
    free(name);
    if (!rundir) {
        free(dir);
        return NULL;
    }
    struct run_spec s;
    struct run_outcome o;
    fill_run_spec(g, &s, ex, oracle, c, true, runner, rundir, ex->timing.checks, false);
    run_outcome_init(&o);
    if (runner_run(&s, &o, err) != 0)
        goto fail;
    if (!o.finished || o.checks_done < s.checks) {
        char d[512];
        sandbox_describe(&o.sb, d, sizeof(d));
        *why = xstrfmt("the reference %s failed on case %s: %s", oracle->reference.function, c->id,
                       o.error_msg ? o.error_msg : d);
        goto fail;
    }
    /* Publish atomically: outputs first, then the marker. */
    char *tmp = xstrfmt("%s.tmp.%ld", dir, (long)getpid());
    remove_tree(tmp, NULL);
    if (mkdir_p(tmp, err) != 0) {
        free(tmp);
        goto fail;
    }
    for (size_t i = 0; i < ex->n_args; i++) {
        if (ex->args[i].kind != ARG_OUT && ex->args[i].kind != ARG_INOUT)
            continue;
        for (int k = 0; k < s.checks; k++) {
            char *f = xstrfmt("out_%s_%d.bin", ex->args[i].name, k);
            char *from = path_join(rundir, f), *to = path_join(tmp, f);
            int rc = rename(from, to);
            free(f);
            free(from);
            free(to);
            if (rc != 0) {
                error_set_at(err, tmp, 0, 0, "cannot store expected outputs: %s", strerror(errno));
                free(tmp);
                goto fail;
            }
        }
    }
    char *marker = path_join(tmp, "done");
    if (write_file_atomic(marker, "ok\n", 3, err) != 0) {
        free(marker);
        free(tmp);
        goto fail;
    }
    free(marker);
    char *done_path = path_join(dir, "done");
    bool someone_else = file_exists(done_path);
    free(done_path);
    if (someone_else) {
        /* Another shard stored the same outputs meanwhile: keep theirs. */
        remove_tree(tmp, NULL);
        free(tmp);
        run_outcome_release(&o);
        if (!g->o->keep_work)
            remove_tree(rundir, NULL);
        free(rundir);
        return dir;
    }
    remove_tree(dir, NULL);
    char *parent = xstrdup(dir);
    *strrchr(parent, '/') = '\0';
    mkdir_p(parent, NULL);
    free(parent);
    if (rename(tmp, dir) != 0 && !dir_exists(dir)) {
        error_set_at(err, dir, 0, 0, "cannot store expected outputs: %s", strerror(errno));
        free(tmp);
        goto fail;
    }
    remove_tree(tmp, NULL);
    free(tmp);
    run_outcome_release(&o);
    if (!g->o->keep_work)
        remove_tree(rundir, NULL);
    free(rundir);
    return dir;
fail:
    run_outcome_release(&o);
    free(rundir);
    free(dir);
    return NULL;
}

static long *arg_shape(const struct case_spec *c, size_t i, size_t *n_dims)
{
    const struct arg_plan *p = &c->args[i];
    long *dims = xcalloc(p->n_dims + 1, sizeof(long));
    memcpy(dims, p->dims, p->n_dims * sizeof(long));
    *n_dims = p->n_dims;
    return dims;
}

/* Compare every output of every checked call; fills cr on the first disagreement. */
static int compare_outputs(struct grading *g, const struct exercise_spec *ex,
                           const struct case_spec *c, const char *expected, const char *rundir,
                           int checks, struct case_result *cr, struct error *err)
{
    (void)g;
    for (int k = 0; k < checks; k++) {
        for (size_t i = 0; i < ex->n_args; i++) {
            const struct arg_spec *a = &ex->args[i];
            if (a->kind != ARG_OUT && a->kind != ARG_INOUT)
                continue;
            struct strbuf act = STRBUF_INIT, exp = STRBUF_INIT;
            char *f = xstrfmt("out_%s_%d.bin", a->name, k);
            char *ap = path_join(rundir, f), *ep = path_join(expected, f);
            free(f);
            long count = c->args[i].count;
            size_t bytes = (size_t)count * lg_dtype_size(a->dtype);
            int rc = read_file(ep, &exp, err);
            if (rc == 0 && exp.len != bytes)
                rc = error_set_at(err, ep, 0, 0, "expected output has %zu bytes, not %zu", exp.len,
                                  bytes);
            if (rc != 0) {
                free(ap);
                free(ep);
                strbuf_release(&act);
                strbuf_release(&exp);
                return -1;
            }
            struct error aerr;
            error_init(&aerr);
            /* The harness wrote this file before it reported the call done, and only the
             * run's own processes could touch it since: missing, short, a link or anything
             * but a plain file of the exact size is the submission's doing, never the
             * grader's. Read without following links or blocking (grader/base/fs.h). */
            int arc = read_run_file(ap, bytes, true, &act, &aerr);
            if (arc != 0) {
                cr->verdict = V_CHEAT;
                cr->message = xstrfmt(
                    messages_get(g->o->messages, "the harness's results were tampered with: "
                                                 "output %s of call %d (out_%s_%d.bin) %s after "
                                                 "the harness wrote it"),
                    a->name, k + 1, a->name, k,
                    arc == RUN_FILE_MISSING ? messages_get(g->o->messages, "was deleted")
                                            : aerr.msg);
                free(ap);
                free(ep);
                strbuf_release(&act);
                strbuf_release(&exp);
                return 0;
            }
            struct tolerance tol = c->args[i].tol;
            struct compare_opts co = {tol.rtol, tol.atol, tol.equal_nan};
            struct mismatch m;
            size_t n_dims;
            long *dims = arg_shape(c, i, &n_dims);
            memset(&m, 0, sizeof(m));
            bool ok =
                compare_buffers(a->dtype, act.buf, exp.buf, (size_t)count, dims, n_dims, &co, &m);
            free(dims);
            free(ap);
            free(ep);
            strbuf_release(&act);
            strbuf_release(&exp);
            if (ok)
                continue;
            snprintf(m.arg, sizeof(m.arg), "%s", a->name);
            cr->verdict = V_WRONG;
            bool first_nan = m.n_first > 0 && isnan(m.first[0].actual);
            bool all_nan = first_nan && m.max_abs == 0 && m.max_rel == 0;
            const struct messages *msgs = g->o->messages;
            const char *again =
                k > 0 ? messages_get(msgs, " on the second call with fresh inputs") : "";
            if (all_nan && lg_dtype_is_float(a->dtype))
                cr->message = xstrfmt(messages_get(msgs, "%s: %ld of %ld elements were never "
                                                         "written (still NaN, the value the "
                                                         "grader fills outputs with)%s"),
                                      a->name, m.n_mismatch, m.n_total, again);
            else
                cr->message =
                    xstrfmt(messages_get(msgs, "%s: %ld of %ld elements differ (max abs diff "
                                               "%.3g, max rel diff %.3g)%s%s"),
                            a->name, m.n_mismatch, m.n_total, m.max_abs, m.max_rel, again,
                            first_nan ? messages_get(msgs, "; some are NaN: never written?") : "");
            struct strbuf d = STRBUF_INIT;
            strbuf_addf(&d, "Not equal to tolerance rtol=%g, atol=%g (output %s, call %d)\n",
                        tol.rtol, tol.atol, a->name, k + 1);
            compare_format(&m, &d);
            cr->detail = strbuf_detach(&d);
            cr->mismatches = xrealloc(cr->mismatches, (cr->n_mismatches + 1) * sizeof(m));
            cr->mismatches[cr->n_mismatches++] = m;
            if (k > 0)
                add_finding(cr, xstrdup(messages_get(msgs, "correct on the first call but wrong "
                                                           "on a later call with fresh inputs: "
                                                           "results cached between calls, or "
                                                           "stale memory returned?")));
            return 0;
        }
    }
    return 0;
}

static void limit_findings(struct grading *g, const struct exercise_spec *ex,
                           const struct variant_spec *v, const struct case_spec *c,
                           struct case_result *cr);

/* results' record of what held the student's runs: the weakest run counts. */
static void note_run_limits(struct results *r, const struct sandbox_result *sb)
{
    if (!r->cgroup) {
        r->cgroup = xstrdup(sb->cgroup_used ? "v2" : "none");
        r->memory_limit_enforced = sb->memory_limit_enforced;
        r->pids_limit_enforced = sb->pids_limit_enforced;
        return;
    }
    if (!sb->cgroup_used && strcmp(r->cgroup, "none") != 0) {
        free(r->cgroup);
        r->cgroup = xstrdup("none");
    }
    r->memory_limit_enforced = r->memory_limit_enforced && sb->memory_limit_enforced;
    r->pids_limit_enforced = r->pids_limit_enforced && sb->pids_limit_enforced;
}

static char *tampered_message(const struct messages *msgs, const struct run_outcome *o)
{
    return xstrfmt(messages_get(msgs, "the harness's results were tampered with: %s"), o->tampered);
}

static char *timed_mismatch_message(const struct messages *msgs, const struct run_outcome *o)
{
    return xstrfmt(o->timed_mismatch_elements == 1
                       ? messages_get(msgs, "timed call %d left %ld element of '%s' wrong or "
                                            "unwritten (the checked calls were right): does the "
                                            "function behave differently when timed?")
                       : messages_get(msgs, "timed call %d left %ld elements of '%s' wrong or "
                                            "unwritten (the checked calls were right): does the "
                                            "function behave differently when timed?"),
                   o->timed_mismatch_call, o->timed_mismatch_elements, o->timed_mismatch);
}

/* "timed in 3 alternating rounds with the reference: ... ratios 1.02, 0.99, 1.01 ..." */
static char *rounds_finding(const struct messages *msgs, const struct case_result *cr, double ratio)
{
    struct strbuf list = STRBUF_INIT;
    for (size_t i = 0; i < cr->n_rounds; i++)
        strbuf_addf(&list, "%s%.3f", i ? ", " : "", cr->round_ms[i] / cr->round_ref_ms[i]);
    char *text = xstrfmt(messages_get(msgs, "timed in %zu alternating rounds with the reference "
                                            "(function, reference, function, ...): time ratios "
                                            "%s; the speedup is from their median, %.3f"),
                         cr->n_rounds, strbuf_str(&list), ratio);
    strbuf_release(&list);
    return text;
}

/*
 * Alternating timing (timing.rounds > 1): the student's run just graded is round 1; each
 * round then times the reference afresh, and rounds 2.. time the student again, so the
 * runs go student, reference, student, reference (ABAB) on the same device and anything
 * that drifts (clocks, temperature, a neighbour's load) hits both sides of each pair.
 * Fills cr->round_ms / round_ref_ms when at least two pairs were measured. A later round
 * that shows tampering or a timed call that skipped its work makes the case CH, as it would
 * in round 1. -1 only when the grader itself failed.
 */
static int time_rounds(struct grading *g, const struct exercise_spec *ex,
                       const struct variant_spec *v, const struct case_spec *c,
                       const struct build_result *br, struct case_result *cr, struct error *err)
{
    const struct messages *msgs = g->o->messages;
    int n = ex->timing.rounds;
    bool gpu = v->target == TARGET_GPU;
    double *stu = xcalloc((size_t)n, sizeof(double)), *ref = xcalloc((size_t)n, sizeof(double));
    size_t done = 0;
    char *why = NULL;
    int rc = 0;
    for (int i = 0; i < n && !why && rc == 0; i++) {
        struct timing t = cr->time;
        if (i > 0) {
            char *name = xstrfmt("%s-%s-%s-round%d", ex->id, v->id, c->id, i + 1);
            char *dir = fresh_dir(g, name, err);
            free(name);
            if (!dir) {
                rc = -1;
                break;
            }
            struct run_spec s;
            struct run_outcome o;
            fill_run_spec(g, &s, ex, v, c, false, br->runner, dir, 1, true);
            run_outcome_init(&o);
            if (runner_run(&s, &o, err) != 0) {
                rc = -1;
            } else if (o.tampered || o.timed_mismatch) {
                free(cr->message);
                cr->verdict = V_CHEAT;
                cr->message =
                    o.tampered ? tampered_message(msgs, &o) : timed_mismatch_message(msgs, &o);
                cr->points = 0;
                why = xstrfmt(messages_get(msgs, "round %d: %s"), i + 1, cr->message);
            } else if (!o.finished) {
                char d[512];
                sandbox_describe(&o.sb, d, sizeof(d));
                why = xstrfmt(messages_get(msgs, "round %d of the function's timing did not "
                                                 "finish: %s"),
                              i + 1, o.error_msg ? o.error_msg : d);
            } else {
                series_timing(msgs, &o, gpu, false, &t, NULL);
            }
            run_outcome_release(&o);
            if (!g->o->keep_work)
                remove_tree(dir, NULL);
            free(dir);
            if (rc != 0 || why)
                break;
        }
        struct ref_timing r;
        memset(&r, 0, sizeof(r));
        if (reference_measure(g, ex, v, c, i + 1, &r, err) != 0) {
            rc = -1;
        } else if (!r.ok) {
            why = xstrfmt(messages_get(msgs, "round %d: %s"), i + 1, r.message);
        } else if (t.valid && r.call.valid && t.median_ms > 0 && r.call.median_ms > 0) {
            stu[done] = t.median_ms;
            ref[done] = r.call.median_ms;
            done++;
            if (i == 0) {
                /* The reference paired with the run that was graded. */
                cr->ref_time = r.call;
                cr->ref_time_transfer = r.transfer;
                cr->ref_clock = r.clock;
            }
        }
        free(r.message);
    }
    if (rc == 0 && why)
        add_finding(cr, xstrfmt(messages_get(msgs, "alternating timing stopped after %zu of %d "
                                                   "rounds: %s"),
                                done, n, why));
    free(why);
    if (rc == 0 && done >= 2) {
        cr->round_ms = stu;
        cr->round_ref_ms = ref;
        cr->n_rounds = done;
    } else {
        free(stu);
        free(ref);
    }
    return rc;
}

static int grade_case(struct grading *g, const struct exercise_spec *ex, size_t vi, size_t ci,
                      struct build_result *br, struct case_result *cr, struct error *err)
{
    const struct variant_spec *v = &ex->variants[vi];
    const struct case_spec *c = &ex->cases[ci];
    const char *why = NULL;
    double wsum = 0;
    for (size_t i = 0; i < ex->n_variants; i++)
        wsum += ex->variants[i].weight;
    cr->case_id = xstrdup(c->id);
    cr->sizes = sizes_text(c);
    cr->hidden = c->hidden;
    cr->slow = c->slow;
    cr->max_points = exercise_case_points(ex, ci) * v->weight / (wsum > 0 ? wsum : 1);

    if (!case_selected(g, c, &why)) {
        case_skip(cr, V_SKIPPED, why);
        return 0;
    }
    switch (br->status) {
    case BUILD_COMPILE_ERROR:
        cr->verdict = V_COMPILE;
        cr->message =
            xstrdup(br->message ? br->message : messages_get(g->o->messages, "does not compile"));
        return 0;
    case BUILD_MISSING_FUNCTION:
        cr->verdict = V_MISSING;
        cr->message =
            xstrdup(br->message ? br->message : messages_get(g->o->messages, "function missing"));
        return 0;
    case BUILD_NO_TOOLCHAIN:
        case_skip(cr, g->env->grade_mode ? V_GRADER : V_SKIPPED,
                  br->message ? br->message : "no toolchain");
        return 0;
    case BUILD_GRADER_ERROR:
        case_skip(cr, V_GRADER, br->message ? br->message : "the grader could not build");
        return 0;
    case BUILD_OK:
        break;
    }
    if (v->target == TARGET_GPU && !g->env->gpu.available) {
        /* The reason itself is the probe's (and CUDA's) English; the frame is translated. */
        char *m = xstrfmt(messages_get(g->o->messages, "GPU variant not run here: %s"),
                          g->env->gpu.reason ? g->env->gpu.reason : "no usable GPU");
        case_skip(cr, g->env->grade_mode ? V_GRADER : V_SKIPPED, m);
        free(m);
        return 0;
    }

    char *exp_why = NULL;
    char *expected = ensure_expected(g, ex, c, &exp_why, err);
    if (!expected) {
        if (!exp_why)
            return -1;
        case_skip(cr, V_GRADER, exp_why);
        free(exp_why);
        return 0;
    }
    struct ref_timing *rt = NULL, *bt = NULL;
    if (!g->o->no_timing) {
        rt = reference_timing(g, ex, v, c, err);
        if (!rt) {
            free(expected);
            return -1;
        }
        const struct variant_spec *bv = ex->baseline ? exercise_variant(ex, ex->baseline) : NULL;
        /* No baseline declared: no "vs CPU" speedup (a copy's reference is no CPU time). */
        bt = !bv ? NULL : bv != v ? reference_timing(g, ex, bv, c, err) : rt;
        if (bv && !bt) {
            free(expected);
            return -1;
        }
    }

    char *name = xstrfmt("%s-%s-%s", ex->id, v->id, c->id);
    char *rundir = fresh_dir(g, name, err);
    free(name);
    if (!rundir) {
        free(expected);
        return -1;
    }
    struct run_spec s;
    struct run_outcome o;
    fill_run_spec(g, &s, ex, v, c, false, br->runner, rundir, ex->timing.checks, !g->o->no_timing);
    run_outcome_init(&o);
    if (runner_run(&s, &o, err) != 0) {
        run_outcome_release(&o);
        free(rundir);
        free(expected);
        return -1;
    }
    note_run_limits(g->r, &o.sb);
    cr->wall_s = o.sb.wall_s;
    cr->cpu_s = o.sb.cpu_s;
    cr->peak_rss_kb = o.sb.peak_rss_kb;
    bool nogpu = o.error_kind && !strcmp(o.error_kind, "nogpu");
    if (!o.tampered && nogpu && v->target != TARGET_GPU) {
        /* Only a GPU variant's harness looks for a GPU: the line is forged. */
        o.tampered = xstrdup("result.txt reports 'no GPU' for a CPU variant, whose harness "
                             "never looks for one");
    }
    if (o.tampered) {
        /* Nothing the run reported can be trusted: before any other verdict, which would
         * rest on what the student's process wrote. */
        cr->verdict = V_CHEAT;
        cr->message = tampered_message(g->o->messages, &o);
    } else if (nogpu) {
        /* The harness reports this only before the first call (runner_parse_result), but
         * the grader's own probe found a GPU (else the variant was skipped above): a
         * machine fault, or a forgery by code that runs before main (a constructor).
         * Either way never a silent skip: the grader's fault, reported as such. */
        char *m = xstrfmt("the harness found no usable GPU although the grader's probe did: %s",
                          o.error_msg ? o.error_msg : "no GPU");
        case_skip(cr, V_GRADER, m);
        free(m);
    } else if (o.error_kind && !strcmp(o.error_kind, "setup")) {
        case_skip(cr, V_GRADER, o.error_msg ? o.error_msg : "harness setup failed");
    } else {
        /* Outputs of completed checked calls are compared even when a later phase failed:
         * the verdict names the first problem in the order a student would meet them. */
        bool ran = run_verdict(g->o->messages, &o, cr, v->student.function, s.timeout_s);
        if (ran || o.checks_done > 0) {
            struct case_result tmp;
            memset(&tmp, 0, sizeof(tmp));
            tmp.verdict = V_PASS;
            if (compare_outputs(g, ex, c, expected, rundir, o.checks_done, &tmp, err) != 0) {
                run_outcome_release(&o);
                free(rundir);
                free(expected);
                return -1;
            }
            if (tmp.verdict != V_PASS) {
                free(cr->message);
                free(cr->detail);
                cr->verdict = tmp.verdict;
                cr->message = tmp.message;
                cr->detail = tmp.detail;
                cr->mismatches = tmp.mismatches;
                cr->n_mismatches = tmp.n_mismatches;
                for (size_t i = 0; i < tmp.n_findings; i++)
                    add_finding(cr, tmp.findings[i]);
                free(tmp.findings);
                ran = false;
            }
        }
        if (ran && o.timed_mismatch) {
            cr->verdict = V_CHEAT;
            cr->message = timed_mismatch_message(g->o->messages, &o);
            ran = false;
        }
        if (ran && o.n_modified > 0) {
            cr->verdict = V_WRONG;
            cr->message = xstrfmt(
                messages_get(g->o->messages, "changed its input '%s' (inputs are read-only)"),
                o.modified[0]);
            ran = false;
        }
        if (ran) {
            cr->verdict = V_PASS;
            cr->message = xstrdup(messages_get(g->o->messages, "passed"));
            cr->points = cr->max_points;
            bool gpu = v->target == TARGET_GPU;
            series_timing(g->o->messages, &o, gpu, false, &cr->time, cr);
            series_timing(g->o->messages, &o, gpu, true, &cr->time_transfer, cr);
            cr->clock = run_clock(&o);
            if (o.clock_max_mhz > 0 && o.clock_min_mhz < 0.9 * o.clock_max_mhz)
                add_finding(cr, xstrfmt(messages_get(g->o->messages,
                                                     "GPU SM clock varied from %d to %d MHz while "
                                                     "timing (throttling or power management): "
                                                     "times may be noisy"),
                                        o.clock_min_mhz, o.clock_max_mhz));
            int threshold_pct = (int)(LG_THROTTLE_THRESHOLD * 100 + 0.5);
            if (o.throttle_gave_up)
                add_finding(cr, xstrfmt(messages_get(g->o->messages,
                                                     "the GPU ran under %d%% of its maximum SM "
                                                     "clock (%d MHz) for most samples: the "
                                                     "machine is throttling (power or heat), so "
                                                     "times are slower than this GPU's best and "
                                                     "may be noisy"),
                                        threshold_pct, o.throttle_max_mhz));
            else if (o.throttle_dropped > 0)
                add_finding(cr, xstrfmt(messages_get(g->o->messages,
                                                     "%d samples taken while the GPU's SM clock "
                                                     "was under %d%% of its maximum (%d MHz) "
                                                     "were dropped (throttling) and taken again"),
                                        o.throttle_dropped, threshold_pct, o.throttle_max_mhz));
            if (o.blocking < 0)
                add_finding(
                    cr, xstrdup(o.blocking_off && !strcmp(o.blocking_off, "synchronizes")
                                    ? messages_get(g->o->messages,
                                                   "the function waits for the GPU inside the call "
                                                   "(a device synchronize, a synchronous "
                                                   "cudaMemcpy or cudaFree), so it could not be "
                                                   "timed behind the blocking kernel: its GPU time "
                                                   "includes the host's launch overhead")
                                    : messages_get(g->o->messages,
                                                   "the blocking kernel could not be set up: GPU "
                                                   "times include the host's launch overhead")));
        }
    }
    if (!rt) {
        /* correctness only */
    } else if (rt->ok) {
        cr->ref_time = rt->call;
        cr->ref_time_transfer = rt->transfer;
        cr->ref_clock = rt->clock;
        if (rt->clock.throttled && cr->verdict == V_PASS)
            add_finding(cr, xstrfmt(messages_get(g->o->messages,
                                                 "the reference was timed while the GPU ran "
                                                 "under %d%% of its maximum SM clock (%d MHz) for "
                                                 "most samples: comparisons with it are "
                                                 "unreliable; grade again on an idle, cool GPU"),
                                    (int)(LG_THROTTLE_THRESHOLD * 100 + 0.5), rt->clock.limit_mhz));
    } else if (cr->verdict == V_PASS && rt->message) {
        add_finding(cr,
                    xstrfmt(messages_get(g->o->messages, "reference not timed: %s"), rt->message));
    }
    if (bt && bt->ok)
        cr->baseline_ms = bt->call.median_ms;
    if (rt && rt->ok && ex->timing.rounds > 1 && cr->verdict == V_PASS && cr->time.valid &&
        time_rounds(g, ex, v, c, br, cr, err) != 0) {
        run_outcome_release(&o);
        free(rundir);
        free(expected);
        return -1;
    }
    if (cr->verdict == V_PASS && cr->time.valid && cr->time.median_ms > 0) {
        if (cr->n_rounds >= 2) {
            double lo, hi;
            double ratio =
                stats_paired_ratio(cr->round_ms, cr->round_ref_ms, cr->n_rounds, &lo, &hi);
            cr->speedup_ref = 1 / ratio;
            add_finding(cr, rounds_finding(g->o->messages, cr, ratio));
        } else if (cr->ref_time.valid) {
            cr->speedup_ref = cr->ref_time.median_ms / cr->time.median_ms;
        }
        if (cr->baseline_ms > 0)
            cr->speedup_baseline = cr->baseline_ms / cr->time.median_ms;
        double secs = cr->time.median_ms / 1e3;
        cr->gflops = c->flops / secs / 1e9;
        cr->gbps = c->bytes / secs / 1e9;
        limit_findings(g, ex, v, c, cr);
    }
    run_outcome_release(&o);
    if (!g->o->keep_work)
        remove_tree(rundir, NULL);
    free(rundir);
    free(expected);
    return 0;
}

double calibration_bus_gbs(const struct calibration *c, const struct exercise_spec *ex,
                           const struct variant_spec *v, const char **what, double *peak_gbs)
{
    bool in_host = false, in_dev = false, out_host = false, out_dev = false, pageable = false;
    *what = NULL;
    *peak_gbs = 0;
    if (!c->valid || v->target != TARGET_GPU)
        return 0;
    for (size_t i = 0; i < ex->n_args; i++) {
        const struct arg_spec *a = &ex->args[i];
        if (a->kind == ARG_SCALAR)
            continue;
        enum mem_space m = variant_arg_memory(v, ex, i);
        bool host = m != MEM_DEVICE;
        pageable = pageable || m == MEM_HOST;
        if (a->kind != ARG_OUT)
            *(host ? &in_host : &in_dev) = true;
        if (a->kind != ARG_IN)
            *(host ? &out_host : &out_dev) = true;
    }
    double gbs;
    if (in_host && !in_dev && out_dev && !out_host) {
        gbs = pageable ? c->h2d_pageable_gbs : c->h2d_pinned_gbs;
        *peak_gbs = c->h2d_pinned_gbs;
        *what = pageable ? "pageable host-to-device" : "pinned host-to-device";
    } else if (in_dev && !in_host && out_host && !out_dev) {
        gbs = pageable ? c->d2h_pageable_gbs : c->d2h_pinned_gbs;
        *peak_gbs = c->d2h_pinned_gbs;
        *what = pageable ? "pageable device-to-host" : "pinned device-to-host";
    } else {
        return 0;
    }
    if (gbs <= 0) {
        *what = NULL;
        *peak_gbs = 0;
    }
    return gbs > 0 ? gbs : 0;
}

/*
 * Each time as a share of what this machine can do, from the spec's work formulas and
 * the calibration. A time below the memory-bandwidth floor, on data too large for the
 * caches to explain, cannot be real: the timing was tampered with.
 */
static void limit_findings(struct grading *g, const struct exercise_spec *ex,
                           const struct variant_spec *v, const struct case_spec *c,
                           struct case_result *cr)
{
    const struct calibration *cal = &g->env->cal;
    const struct messages *msgs = g->o->messages;
    double bytes = c->bytes, flops = c->flops;
    double secs = cr->time.median_ms / 1e3;
    bool device = v->target == TARGET_GPU && v->memory == MEM_DEVICE;
    bool gpu = v->target == TARGET_GPU;
    if (!cal->valid || secs <= 0)
        return;
    /* A copy between host and device (lab 3's transfers): the bus is the limit. Its floor is
     * the pinned rate whatever the host memory: pageable copies of some sizes beat the
     * pageable rate measured at 256 MB, none beats the DMA engines. */
    const char *bus = NULL;
    double bus_peak = 0;
    double bus_bw = gpu && !device ? calibration_bus_gbs(cal, ex, v, &bus, &bus_peak) : 0;
    if (bytes > 0 && bus_bw > 0) {
        double floor_s = bytes / (bus_peak * 1e9);
        add_finding(cr, xstrfmt(messages_get(msgs, "transfer: %.1f GB/s, %.0f%% of this machine's "
                                                   "measured %s bandwidth (%.1f GB/s)"),
                                bytes / secs / 1e9, 100 * bytes / (bus_bw * 1e9) / secs,
                                messages_get(msgs, bus), bus_bw));
        if (secs < 0.5 * floor_s) {
            cr->verdict = V_CHEAT;
            free(cr->message);
            cr->message = xstrfmt(messages_get(msgs, "impossible time: %.4f ms moves %.0f MB "
                                                     "between host and device, which takes at "
                                                     "least %.4f ms at the measured pinned "
                                                     "bandwidth"),
                                  cr->time.median_ms, bytes / 1e6, floor_s * 1e3);
            cr->points = 0;
        }
        return;
    }
    double bw = device ? cal->gpu_copy_gbs : gpu ? 0 : cal->cpu_bw_gbs;
    if (bytes > 0 && bw > 0) {
        double floor_s = bytes / (bw * 1e9);
        double cache = device ? (double)(cal->gpu_l2_bytes > 0 ? cal->gpu_l2_bytes : 50e6)
                              : 256e6; /* last-level caches of large CPUs */
        add_finding(cr, xstrfmt(messages_get(msgs, "memory traffic: %.0f%% of this machine's "
                                                   "measured %s bandwidth (%.0f GB/s)"),
                                100 * floor_s / secs, device ? "GPU" : "CPU", bw));
        if (secs < 0.5 * floor_s && bytes > 4 * cache) {
            cr->verdict = V_CHEAT;
            free(cr->message);
            cr->message = xstrfmt(messages_get(msgs, "impossible time: %.4f ms moves %.0f MB, "
                                                     "which takes at least %.4f ms at the "
                                                     "measured bandwidth"),
                                  cr->time.median_ms, bytes / 1e6, floor_s * 1e3);
            cr->points = 0;
        }
    }
    double rate = device ? cal->gpu_sgemm_gflops : gpu ? 0 : cal->cpu_sgemm_gflops;
    if (flops > 0 && rate > 0 && flops / secs / 1e9 > 0.01 * rate)
        add_finding(cr,
                    xstrfmt(messages_get(msgs, "arithmetic: %.0f%% of the measured %s SGEMM "
                                               "rate (%.0f GFLOP/s)"),
                            100 * flops / secs / 1e9 / rate, device ? "cuBLAS" : "OpenBLAS", rate));
}

static char *build_log_excerpt(const struct build_result *br)
{
    const char *log = strbuf_str(&br->log);
    size_t n = strlen(log);
    if (n == 0)
        return NULL;
    if (n > 8000)
        return xstrfmt("%.8000s\n[... %zu more bytes]", log, n - 8000);
    return xstrdup(log);
}

/*
 * The time ratio to the reference that speed points are decided on, and whether it came
 * from alternating rounds. Timed once each: the favourable end of an interquartile interval
 * (student q1 over reference q3). Alternating rounds: the median of the paired ratios,
 * which drift between runs cannot move. 0 when there is none.
 */
static double perf_ratio(const struct case_result *cr, bool *paired)
{
    *paired = cr->n_rounds >= 2 && cr->speedup_ref > 0;
    if (*paired)
        return 1 / cr->speedup_ref;
    if (!cr->time.valid || !cr->ref_time.valid || cr->ref_time.q3_ms <= 0)
        return 0;
    return cr->time.q1_ms / cr->ref_time.q3_ms;
}

/*
 * Speed points (like Stanford CS149's checker): full at or under full_at times the
 * reference's time, falling log-linearly to zero at zero_at, from perf_ratio(). The
 * fraction is rounded down to tenths, so noise between re-grades does not move the score.
 */
static double perf_fraction(const struct perf_spec *p, const struct case_result *cr)
{
    bool paired;
    double ratio = perf_ratio(cr, &paired);
    if (cr->verdict != V_PASS || ratio <= 0)
        return -1;
    double f;
    if (ratio <= p->full_at)
        f = 1;
    else if (ratio >= p->zero_at)
        f = 0;
    else
        f = 1 - log(ratio / p->full_at) / log(p->zero_at / p->full_at);
    return floor(f * 10 + 1e-9) / 10;
}

static void score_performance(struct grading *g, const struct exercise_spec *ex,
                              struct exercise_result *er)
{
    double sum = 0;
    int counted = 0;
    if (!ex->has_perf || g->o->no_timing)
        return;
    for (size_t v = 0; v < er->n_variants; v++) {
        struct variant_result *vr = &er->variants[v];
        if (ex->perf.variant && strcmp(ex->perf.variant, vr->variant_id))
            continue;
        for (size_t c = 0; c < vr->n_cases; c++) {
            struct case_result *cr = &vr->cases[c];
            if (cr->verdict == V_SKIPPED)
                continue;
            double f = perf_fraction(&ex->perf, cr);
            counted++;
            if (f > 0)
                sum += f;
            if (f >= 0) {
                bool paired;
                double ratio = perf_ratio(cr, &paired);
                add_finding(cr, paired ? xstrfmt(messages_get(g->o->messages,
                                                              "performance: %.2fx the reference's "
                                                              "time (median of %zu alternating "
                                                              "rounds) earns %.0f%% of the speed "
                                                              "points"),
                                                 ratio, cr->n_rounds, f * 100)
                                       : xstrfmt(messages_get(g->o->messages,
                                                              "performance: %.2fx the reference's "
                                                              "time (best quartiles) earns %.0f%% "
                                                              "of the speed points"),
                                                 ratio, f * 100));
                cr->perf_finding = cr->n_findings;
            }
        }
    }
    if (counted == 0)
        return;
    er->perf_max_points = ex->perf.points;
    er->perf_points = ex->perf.points * sum / counted;
}

/* ------------------------------------------------------------------------ */
/* The compute-sanitizer pass (sanitizer.h): findings beside the grade       */

static const char *sanitizer_program(struct grade_env *env)
{
    if (!env->sanitizer_probed) {
        env->sanitizer_probed = true;
        env->sanitizer = sanitizer_find(getenv("CUDA_HOME"), getenv("PATH"), env->tc.cuda_home);
    }
    return env->sanitizer;
}

/* Why the pass cannot run here on case c of a variant, in the report's language; NULL when it
 * can. Only a checked run that passed or failed is worth repeating under the tool. */
static char *sanitizer_why_not(struct grading *g, const struct exercise_spec *ex,
                               const struct case_spec *c, const struct variant_result *vr)
{
    const struct messages *msgs = g->o->messages;
    if (g->o->sanitize == SANITIZE_NONE)
        return xstrdup(messages_get(msgs, "turned off (--no-sanitize)"));
    if (!c)
        return xstrdup(messages_get(msgs, "every case of the exercise is hidden"));
    if (!g->env->gpu.available)
        return xstrfmt(messages_get(msgs, "compute-sanitizer needs a GPU: %s"),
                       g->env->gpu.reason ? g->env->gpu.reason : "no GPU");
    if (!sanitizer_program(g->env))
        return xstrdup(messages_get(msgs, "compute-sanitizer not found in $CUDA_HOME/bin, "
                                          "/usr/local/cuda/bin, PATH or beside nvcc"));
    const struct case_result *cr = &vr->cases[c - ex->cases];
    switch (cr->verdict) {
    case V_COMPILE:
    case V_MISSING:
        return xstrdup(messages_get(msgs, "the variant was not built"));
    case V_SKIPPED:
    case V_GRADER:
        return xstrfmt(messages_get(msgs, "case %s was not run: %s"), c->id,
                       cr->message ? cr->message : "");
    case V_TIMEOUT:
        return xstrfmt(messages_get(msgs, "case %s timed out: under compute-sanitizer, ten to a "
                                          "hundred times slower, it would again"),
                       c->id);
    default:
        return NULL;
    }
}

/* One more run of the built runner on case c, checks only, under the tool. -1 only when
 * the grader itself failed; a run that could not start is a failed pass, not a stop. */
static int sanitizer_run_one(struct grading *g, const struct exercise_spec *ex,
                             const struct variant_spec *v, const struct case_spec *c,
                             const struct build_result *br, struct sanitizer_run *run,
                             struct error *err)
{
    const char *program = sanitizer_program(g->env);
    const char *wrap[SANITIZER_ARGV_MAX];
    char *name = xstrfmt("sanitizer-%s-%s-%s-%s", ex->id, v->id, c->id, run->tool);
    char *dir = fresh_dir(g, name, err);
    free(name);
    if (!dir)
        return -1;
    struct run_spec s;
    struct run_outcome o;
    struct error rerr;
    fill_run_spec(g, &s, ex, v, c, false, br->runner, dir, ex->timing.checks, false);
    double limit = sanitizer_wall_limit(s.timeout_s);
    char **ro = sanitizer_ro_paths(program);
    sanitizer_argv(program, run->tool, wrap);
    s.timeout_s = limit;
    s.wrap = wrap;
    s.wrap_ro = (const char *const *)ro;
    s.output_cap = SANITIZER_OUTPUT_HEAD;
    s.output_tail = SANITIZER_OUTPUT_TAIL;
    run_outcome_init(&o);
    error_init(&rerr);
    if (runner_run(&s, &o, &rerr) != 0) {
        run->status = SANITIZER_FAILED;
        run->reason = xstrfmt(
            messages_get(g->o->messages, "the sandbox could not start compute-sanitizer: %s"),
            rerr.msg);
    } else {
        note_run_limits(g->r, &o.sb);
        sanitizer_judge(&o.sb, limit, g->o->messages, run);
    }
    run_outcome_release(&o);
    sanitizer_paths_free(ro);
    if (!g->o->keep_work)
        remove_tree(dir, NULL);
    free(dir);
    return 0;
}

/*
 * The pass over one GPU variant, after its cases were graded: one run per tool, each
 * recorded (ran, skipped or failed, and why). Nothing here touches a case's verdict or
 * points: what compute-sanitizer finds goes beside the grade.
 */
static int sanitize_variant(struct grading *g, const struct exercise_spec *ex,
                            const struct variant_spec *v, const struct build_result *br,
                            struct variant_result *vr, struct error *err)
{
    static const char *const default_tools[] = {SANITIZER_DEFAULT_TOOL};
    enum sanitize_mode mode = g->o->sanitize;
    if (v->target != TARGET_GPU || (mode != SANITIZE_ALL && !ex->sanitizer.enabled))
        return 0;
    const char *const *tools =
        ex->sanitizer.n_tools ? (const char *const *)ex->sanitizer.tools : default_tools;
    size_t n_tools = ex->sanitizer.n_tools ? ex->sanitizer.n_tools : 1;
    const struct case_spec *c = exercise_sanitizer_case(ex);
    vr->sanitizer = xcalloc(n_tools, sizeof(*vr->sanitizer));
    for (size_t t = 0; t < n_tools; t++) {
        struct sanitizer_run *run = &vr->sanitizer[vr->n_sanitizer++];
        sanitizer_run_init(run);
        run->tool = xstrdup(tools[t]);
        run->case_id = c ? xstrdup(c->id) : NULL;
        run->reason = sanitizer_why_not(g, ex, c, vr);
        if (run->reason)
            run->status = SANITIZER_SKIPPED;
        else if (sanitizer_run_one(g, ex, v, c, br, run, err) != 0)
            return -1;
        if (g->o->progress) {
            char *line = sanitizer_run_summary(run, NULL);
            fprintf(g->o->progress, "  %s/%s sanitizer %s\n", ex->id, v->id, line);
            fflush(g->o->progress);
            free(line);
        }
    }
    return 0;
}

static int grade_exercise(struct grading *g, const struct exercise_spec *ex,
                          struct exercise_result *er, struct error *err)
{
    er->exercise_id = xstrdup(ex->id);
    er->title = xstrdup(ex->title);
    {
        struct tolerance t = ex->tol;
        struct strbuf sb = STRBUF_INIT;
        if (t.has_rtol || t.has_atol)
            strbuf_addf(&sb, "rtol=%g atol=%g%s", t.rtol, t.atol, t.equal_nan ? " equal_nan" : "");
        else
            strbuf_addstr(&sb, "dtype defaults (torch.testing.assert_close)");
        er->tol_summary = strbuf_detach(&sb);
    }
    er->variants = xcalloc(ex->n_variants, sizeof(*er->variants));
    er->n_variants = ex->n_variants;
    for (size_t vi = 0; vi < ex->n_variants; vi++) {
        const struct variant_spec *v = &ex->variants[vi];
        struct variant_result *vr = &er->variants[vi];
        struct build_result br;
        vr->variant_id = xstrdup(v->id);
        vr->title = xstrdup(v->title ? v->title : v->id);
        vr->function = xstrdup(v->student.function);
        vr->target = xstrdup(target_name(v->target));
        if (v->n_mem > 0) {
            /* Per argument ("dst=device, src=pinned"), so the report can tell apart two
             * variants that differ only in where some arguments live (pinned vs pageable). */
            struct strbuf mem = STRBUF_INIT;
            for (size_t ai = 0; ai < ex->n_args; ai++) {
                if (ex->args[ai].kind == ARG_SCALAR)
                    continue;
                strbuf_addf(&mem, "%s%s=%s", mem.len ? ", " : "", ex->args[ai].name,
                            mem_space_name(variant_arg_memory(v, ex, ai)));
            }
            vr->memory = strbuf_detach(&mem);
        } else {
            vr->memory = xstrdup(mem_space_name(v->memory));
        }
        build_result_init(&br);
        if (build_variant(&g->student_build, ex, v, &br, err) != 0) {
            build_result_release(&br);
            return -1;
        }
        if (g->o->build_only) {
            build_result_release(&br);
            continue;
        }
        vr->built = br.status == BUILD_OK;
        vr->build_log = build_log_excerpt(&br);
        vr->n_warnings = br.n_warnings;
        vr->cases = xcalloc(ex->n_cases, sizeof(*vr->cases));
        vr->n_cases = ex->n_cases;
        for (size_t ci = 0; ci < ex->n_cases; ci++) {
            struct case_result *cr = &vr->cases[ci];
            if (grade_case(g, ex, vi, ci, &br, cr, err) != 0) {
                build_result_release(&br);
                return -1;
            }
            if (g->o->progress) {
                fprintf(g->o->progress, "  %s/%s %-10s %s", ex->id, v->id, cr->case_id,
                        verdict_code(cr->verdict));
                if (cr->verdict == V_PASS && cr->time.valid)
                    fprintf(g->o->progress, "  %.3f ms", cr->time.median_ms);
                fputc('\n', g->o->progress);
                fflush(g->o->progress);
            }
        }
        if (sanitize_variant(g, ex, v, &br, vr, err) != 0) {
            build_result_release(&br);
            return -1;
        }
        build_result_release(&br);
    }
    if (!g->o->build_only)
        score_performance(g, ex, er);
    return 0;
}

int submission_digest(const char *dir, char out[65], struct error *err)
{
    return submission_files_digest(dir, out, err);
}

int grade_prepare(struct grade_env *env, const struct lab *lab, const struct grade_opts *o,
                  struct error *err)
{
    struct grading g;
    int rc = -1;
    memset(&g, 0, sizeof(g));
    g.env = env;
    g.lab = lab;
    g.o = o;
    if (mkdir_p(o->work_dir, err) != 0)
        goto out;
    char *work_abs = path_abs(o->work_dir, err);
    if (!work_abs)
        goto out;
    g.work = xstrfmt("%s/.prepare", work_abs);
    free(work_abs);
    if (mkdir_p(g.work, err) != 0)
        goto out;
    if (build_reference_digest(&env->tc, lab, g.ref_digest, err) != 0)
        goto out;
    g.ref_dir = xstrfmt("%s/build/%s", env->cache_dir, g.ref_digest);
    if (build_ctx_init(&g.ref_build, &env->tc, lab, true, NULL, g.ref_dir, err) != 0)
        goto out;
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        if (o->only && strcmp(o->only, ex->id))
            continue;
        for (size_t v = 0; v < ex->n_variants; v++) {
            char *why = NULL;
            const struct variant_spec *var = &ex->variants[v];
            if (!var->has_reference || (var->target == TARGET_GPU && !env->gpu.available))
                continue;
            if (!ref_runner(&g, ex, var, &why, err) && !why)
                goto out;
            free(why);
        }
        for (size_t c = 0; c < ex->n_cases; c++) {
            const char *skip;
            char *why = NULL;
            if (!case_selected(&g, &ex->cases[c], &skip))
                continue;
            char *dir = ensure_expected(&g, ex, &ex->cases[c], &why, err);
            if (!dir && !why)
                goto out;
            free(dir);
            free(why);
        }
    }
    rc = 0;
out:
    build_ctx_release(&g.ref_build);
    if (g.work)
        remove_tree(g.work, NULL);
    free(g.work);
    free(g.ref_dir);
    return rc;
}

int grade_submission(struct grade_env *env, const struct lab *lab, const struct grade_opts *o,
                     struct results *r, struct error *err)
{
    struct grading g;
    char date[64], digest[65];
    int rc = -1;
    char *abs = path_abs(o->submission, err);
    if (!abs)
        return error_prefix(err, "submission folder: "), -1;
    if (!dir_exists(abs)) {
        free(abs);
        return error_set_at(err, o->submission, 0, 0, "not a folder");
    }
    memset(&g, 0, sizeof(g));
    g.env = env;
    g.lab = lab;
    g.o = o;
    g.r = r;

    r->lab_id = xstrdup(lab->id);
    r->lab_number = lab->number;
    r->lab_title = xstrdup(lab->title);
    r->course = xstrdup(lab->course ? lab->course : "");
    r->lang = xstrdup(lab->lang ? lab->lang : "en");
    r->student_id = xstrdup(o->student_id ? o->student_id : path_base(abs));
    r->student_name = xstrdup(o->student_name ? o->student_name : r->student_id);
    r->submission = xstrdup(o->submission);
    if (submission_digest(abs, digest, err) != 0)
        goto out;
    r->submission_hash = xstrdup(digest);
    r->grader_version = xstrdup(LG_VERSION);
    iso_datetime(date, sizeof(date));
    r->date = xstrdup(date);
    r->mode = xstrdup(env->grade_mode ? "grade" : "check");
    r->isolation = xstrdup(isolation_name(env->tc.isolation == ISOLATION_AUTO ? sandbox_available()
                                                                              : env->tc.isolation));
    r->timing_mode = xstrdup("warm");
    for (size_t e = 0; e < lab->n_exercises; e++)
        if (lab->exercises[e].timing.flush_l2) {
            free(r->timing_mode);
            r->timing_mode = xstrdup("cold-l2 for some exercises");
        }
    for (size_t e = 0; e < lab->n_exercises; e++)
        if (lab->exercises[e].timing.blocking)
            r->timing_blocking = true;
    r->full = o->full;
    r->hidden = o->hidden;
    r->show_hidden = lab->show_hidden;
    machine_info_collect(&r->machine, &env->tc, &env->gpu, lab);
    r->machine.calibration = calibration_summary(&env->cal);

    if (mkdir_p(o->work_dir, err) != 0)
        goto out;
    char *work_abs = path_abs(o->work_dir, err);
    if (!work_abs)
        goto out;
    g.work = xstrfmt("%s/%s", work_abs, r->student_id);
    free(work_abs);
    if (!o->reuse_build)
        remove_tree(g.work, NULL);
    if (mkdir_p(g.work, err) != 0)
        goto out;
    if (build_reference_digest(&env->tc, lab, g.ref_digest, err) != 0)
        goto out;
    g.ref_dir = xstrfmt("%s/build/%s", env->cache_dir, g.ref_digest);
    if (build_ctx_init(&g.ref_build, &env->tc, lab, true, NULL, g.ref_dir, err) != 0)
        goto out;
    char *sdir = xstrfmt("%s/build", g.work);
    rc = build_ctx_init(&g.student_build, &env->tc, lab, false, abs, sdir, err);
    g.student_build.messages = o->messages;
    free(sdir);
    if (rc != 0)
        goto out;
    rc = -1;

    size_t n = 0;
    for (size_t e = 0; e < lab->n_exercises; e++)
        if (!o->only || !strcmp(o->only, lab->exercises[e].id))
            n++;
    if (n == 0) {
        error_set(err, "no exercise '%s' in %s", o->only, lab->path);
        goto out;
    }
    r->exercises = xcalloc(n, sizeof(*r->exercises));
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        if (o->only && strcmp(o->only, ex->id))
            continue;
        struct exercise_result *er = &r->exercises[r->n_exercises++];
        if (grade_exercise(&g, ex, er, err) != 0)
            goto out;
    }
    results_tally(r);
    rc = 0;
out:
    build_ctx_release(&g.ref_build);
    build_ctx_release(&g.student_build);
    if (g.work && !o->keep_work && !o->build_only)
        remove_tree(g.work, NULL);
    free(g.work);
    free(g.ref_dir);
    free(abs);
    return rc;
}

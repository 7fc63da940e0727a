/*
 * grade: one submission end to end (grade.h). The stages live in their own files
 * (grading.h); this file is their table of contents.
 */
#include "grade/grade.h"
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "base/trace.h"
#include "base/util.h"
#include "spec/plan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#ifndef LG_VERSION
#define LG_VERSION "0.0.0"
#endif

/* ---- what a case result starts as ---- */

static void case_head(const struct exercise_spec *ex, size_t vi, size_t ci, struct case_result *cr)
{
    const struct case_spec *c = &ex->cases[ci];
    struct strbuf sizes = STRBUF_INIT;
    double wsum = 0;
    for (size_t i = 0; i < ex->n_variants; i++)
        wsum += ex->variants[i].weight;
    case_sizes_text(c, &sizes);
    cr->case_id = xstrdup(c->id);
    cr->sizes = strbuf_detach(&sizes);
    for (size_t i = 0; i < c->n_sizes; i++)
        case_result_add_param(cr, c->sizes[i].name, c->sizes[i].value);
    cr->hidden = c->hidden;
    cr->slow = c->slow;
    cr->max_points = exercise_case_points(ex, ci) * ex->variants[vi].weight / (wsum > 0 ? wsum : 1);
}

static void variant_head(const struct exercise_spec *ex, const struct variant_spec *v,
                         struct variant_result *vr)
{
    vr->variant_id = xstrdup(v->id);
    vr->title = xstrdup(v->title ? v->title : v->id);
    vr->function = xstrdup(v->student.function);
    vr->target = xstrdup(target_name(v->target));
    if (v->n_mem > 0) {
        /* Per argument ("dst=device, src=pinned"), so the report can tell apart two variants
         * that differ only in where some arguments live (pinned vs pageable). */
        struct strbuf mem = STRBUF_INIT;
        for (size_t ai = 0; ai < ex->n_args; ai++) {
            if (ex->args[ai].kind == ARG_SCALAR || ex->args[ai].is_return)
                continue;
            strbuf_addf(&mem, "%s%s=%s", mem.len ? ", " : "", ex->args[ai].name,
                        mem_space_name(variant_arg_memory(v, ex, ai)));
        }
        vr->memory = strbuf_detach(&mem);
    } else {
        vr->memory = xstrdup(mem_space_name(v->memory));
    }
    for (size_t ai = 0; ai < ex->n_args; ai++)
        if (ex->args[ai].kind != ARG_SCALAR && !ex->args[ai].is_return)
            variant_result_add_arg_memory(vr, ex->args[ai].name, variant_arg_memory(v, ex, ai));
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

/* ---- a variant that cannot run ---- */

static enum gpu_policy gpu_policy(const struct grading *g)
{
    if (g->o->gpu_policy != GPU_POLICY_DEFAULT)
        return g->o->gpu_policy;
    return g->env->grade_mode ? GPU_POLICY_RERUN : GPU_POLICY_SKIP;
}

/* GPU code that cannot run here: one policy for check and grade (grade.h). */
static void gpu_unavailable(const struct grading *g, struct case_result *cr, const char *why)
{
    /* why is the GPU probe's, written in English before any language was known. */
    char *said = messages_machine(g->o->messages, why);
    char *m = xstrfmt(messages_get(g->o->messages, "GPU variant not run here: %s"), said);
    free(said);
    switch (gpu_policy(g)) {
    case GPU_POLICY_RERUN:
        judge_skip(cr, V_GRADER, m);
        break;
    case GPU_POLICY_INFORMATIONAL:
        judge_skip(cr, V_SKIPPED, m);
        cr->max_points = 0;
        break;
    default:
        judge_skip(cr, V_SKIPPED, m);
        break;
    }
    free(m);
}

/* The verdict every selected case of a variant gets when it did not build; false when it did. */
static bool build_failed(const struct grading *g, const struct variant_spec *v,
                         const struct build_result *br, struct case_result *cr)
{
    const struct messages *msgs = g->o->messages;
    switch (br->status) {
    case BUILD_COMPILE_ERROR:
        judge_skip(cr, V_COMPILE,
                   br->message ? br->message : messages_get(msgs, "does not compile"));
        return true;
    case BUILD_MISSING_FUNCTION:
        judge_skip(cr, V_MISSING,
                   br->message ? br->message : messages_get(msgs, "function missing"));
        return true;
    case BUILD_NO_TOOLCHAIN:
        gpu_unavailable(g, cr, br->message ? br->message : "no toolchain");
        return true;
    case BUILD_GRADER_ERROR:
        judge_skip(cr, V_GRADER, br->message ? br->message : "the grader could not build");
        return true;
    case BUILD_OK:
        break;
    }
    if (v->target == TARGET_GPU && !g->env->gpu.available) {
        gpu_unavailable(g, cr, g->env->gpu.reason ? g->env->gpu.reason : "no usable GPU");
        return true;
    }
    return false;
}

/* ---- one variant ---- */

/* Every case's head, and which run: not skipped, built, with expected outputs to compare. */
static int select_cases(struct grading *g, const struct exercise_spec *ex, size_t vi,
                        const struct build_result *br, struct variant_result *vr, bool *selected,
                        char **expected, struct error *err)
{
    const struct variant_spec *v = &ex->variants[vi];
    for (size_t ci = 0; ci < ex->n_cases; ci++) {
        struct case_result *cr = &vr->cases[ci];
        const char *skip = grading_case_skipped(g, &ex->cases[ci]);
        case_head(ex, vi, ci, cr);
        if (skip) {
            judge_skip(cr, V_SKIPPED, skip);
            continue;
        }
        if (build_failed(g, v, br, cr))
            continue;
        char *why = NULL;
        double t0 = now_seconds();
        expected[ci] = expected_outputs(g, ex, &ex->cases[ci], &why, err);
        g->phase_references_s += now_seconds() - t0;
        if (!expected[ci] && !why)
            return -1;
        if (!expected[ci]) {
            judge_skip(cr, V_GRADER, why);
            free(why);
            continue;
        }
        selected[ci] = true;
    }
    return 0;
}

static void progress_line(const struct grading *g, const struct exercise_spec *ex,
                          const struct variant_spec *v, const struct case_result *cr)
{
    if (!g->o->progress)
        return;
    /* A student's check names no hidden case: its id, size or time is a hint. */
    bool veil = cr->hidden && !g->env->grade_mode && !g->lab->show_hidden;
    fprintf(g->o->progress, "  %s/%s %-10s %s", ex->id, v->id, veil ? "(hidden)" : cr->case_id,
            verdict_code(cr->verdict));
    if (cr->verdict == V_PASS && cr->time.valid && !veil)
        fprintf(g->o->progress, "  %.3f ms", cr->time.median_ms);
    fputc('\n', g->o->progress);
    fflush(g->o->progress);
}

/* Each case from the run it was in: verdict, times, limits. */
static int judge_runs(struct grading *g, const struct exercise_spec *ex,
                      const struct variant_spec *v, struct variant_result *vr,
                      const struct variant_runs *runs, char **expected, const char *no_pair,
                      struct error *err)
{
    for (size_t ci = 0; ci < ex->n_cases; ci++) {
        struct case_result *cr = &vr->cases[ci];
        const struct case_spec *c = &ex->cases[ci];
        if (runs->not_run && runs->not_run[ci]) {
            judge_skip(cr, V_TIMEOUT, runs->not_run[ci]);
        } else if (runs->run_of && runs->run_of[ci] >= 0) {
            const struct run_outcome *o = &runs->outcomes[runs->run_of[ci]];
            const struct run_case_outcome *co = &o->cases[runs->index_in[ci]];
            if (judge_case(g, ex, v, c, o, co, runs->dirs[runs->run_of[ci]], expected[ci], cr,
                           err) != 0)
                return -1;
            speed_case(g, ex, v, c, co, cr);
            size_t before = cr->n_findings;
            limits_case(g, ex, v, c, cr);
            /* Which findings are the roofline's: the report shows them only where they mean
             * something (report/findings.h). */
            cr->roofline_first = cr->n_findings > before ? before + 1 : 0;
            cr->roofline_count = cr->n_findings - before;
            if (no_pair && cr->verdict == V_PASS)
                judge_add_finding(
                    cr, xstrfmt(messages_get(g->o->messages, "reference not timed: %s"), no_pair));
        }
    }
    /* Decided for the variant before any case's line says otherwise. */
    judge_variant_precision(g, ex, v, vr, runs);
    for (size_t ci = 0; ci < ex->n_cases; ci++)
        if ((runs->not_run && runs->not_run[ci]) || (runs->run_of && runs->run_of[ci] >= 0))
            progress_line(g, ex, v, &vr->cases[ci]);
    return 0;
}

static void runs_cleanup(const struct grading *g, struct variant_runs *runs)
{
    for (size_t i = 0; i < runs->n_outcomes && !g->o->keep_work; i++)
        remove_tree(runs->dirs[i], NULL);
    variant_runs_release(runs);
}

/* ---- one variant: prepared by the grading process, then run ---- */

static void variant_task_release(struct variant_task *t)
{
    for (size_t ci = 0; t->expected && ci < t->ex->n_cases; ci++)
        free(t->expected[ci]);
    free(t->expected);
    free(t->selected);
    free(t->lib);
    free(t->no_pair);
    build_result_release(&t->br);
}

/* The references' timings the runs will ask for (the case limits, the CPU baseline), taken
 * now, one after another: a variant running beside others must find them measured, never
 * time a reference itself. */
static void reference_times_ready(struct grading *g, const struct variant_task *t)
{
    const struct exercise_spec *ex = t->ex;
    const struct variant_spec *v = &ex->variants[t->vi];
    const struct variant_spec *bv = ex->baseline ? exercise_variant(ex, ex->baseline) : NULL;
    struct error ignored;
    double t0 = now_seconds();
    for (size_t ci = 0; ci < ex->n_cases && !g->o->no_timing; ci++) {
        if (!t->selected[ci])
            continue;
        grading_case_timeout(g, ex, v, &ex->cases[ci]);
        error_init(&ignored);
        if (bv)
            reference_time(g, ex, bv, &ex->cases[ci], &ignored);
    }
    g->phase_references_s += now_seconds() - t0;
}

/* The reference to pair the timed calls with; none (and why, for every case) without one. */
static int paired_reference(struct grading *g, struct variant_task *t, struct error *err)
{
    const struct variant_spec *v = &t->ex->variants[t->vi];
    if (g->o->no_timing || !v->has_reference)
        return 0;
    double t0 = now_seconds();
    t->lib = reference_library(g, t->ex, v, &t->no_pair, err);
    g->phase_references_s += now_seconds() - t0;
    return t->lib || t->no_pair ? 0 : -1;
}

/* Everything a variant needs before it runs. -1 only on a grader failure. */
static int variant_prepare(struct grading *g, struct variant_task *t, struct error *err)
{
    const struct exercise_spec *ex = t->ex;
    const struct variant_spec *v = &ex->variants[t->vi];
    struct variant_result *vr = t->vr;
    variant_head(ex, v, vr);
    double t0 = now_seconds();
    int rc = student_build(g, ex, v, &t->br, err);
    g->phase_build_s += now_seconds() - t0;
    trace_point("%s/%s built", ex->id, v->id);
    if (rc != 0 || g->o->build_only)
        return rc;
    vr->built = t->br.status == BUILD_OK;
    vr->build_log = build_log_excerpt(&t->br);
    vr->n_warnings = t->br.n_warnings;
    vr->cases = xcalloc(ex->n_cases, sizeof(*vr->cases));
    vr->n_cases = ex->n_cases;
    t->selected = xcalloc(ex->n_cases + 1, sizeof(bool));
    t->expected = xcalloc(ex->n_cases + 1, sizeof(char *));
    rc = select_cases(g, ex, t->vi, &t->br, vr, t->selected, t->expected, err);
    trace_point("%s/%s expected outputs ready", ex->id, v->id);
    for (size_t ci = 0; ci < ex->n_cases; ci++)
        t->any |= t->selected[ci];
    if (rc == 0 && t->any)
        rc = paired_reference(g, t, err);
    if (rc == 0 && t->any)
        reference_times_ready(g, t);
    return rc;
}

/* Where a case's wall went, stage by stage, for whoever tunes a rush from the trace. */
static void trace_case(size_t k, size_t i, const struct run_case_outcome *c)
{
    const double *st = c->stage_s;
    trace_point("  case %zu of run %zu: %.3f s (setup %.3f, checked %.3f, queue %.3f, warm-up "
                "%.3f, timed %.3f, after %.3f)",
                k, i, c->wall_s, st[RUN_STAGE_SETUP], st[RUN_STAGE_CHECKED], st[RUN_STAGE_QUEUE],
                st[RUN_STAGE_WARMUP], st[RUN_STAGE_TIMED], st[RUN_STAGE_AFTER]);
}

/* Run and judge the selected cases of a built variant. */
static int run_variant(struct grading *g, const struct variant_task *t, struct error *err)
{
    const struct exercise_spec *ex = t->ex;
    const struct variant_spec *v = &ex->variants[t->vi];
    struct variant_runs runs;
    double t0 = now_seconds();
    trace_point("%s/%s reference library ready", ex->id, v->id);
    int rc = variant_run(g, ex, v, t->br.runner, t->lib, t->selected, &runs, err);
    for (size_t i = 0; rc == 0 && trace_enabled() && i < runs.n_outcomes; i++)
        for (size_t k = 0; k < runs.outcomes[i].n_cases; k++)
            trace_case(k, i, &runs.outcomes[i].cases[k]);
    if (rc == 0)
        rc = judge_runs(g, ex, v, t->vr, &runs, t->expected, t->no_pair, err);
    trace_point("%s/%s ran and judged", ex->id, v->id);
    g->phase_runs_s += now_seconds() - t0;
    runs_cleanup(g, &runs);
    if (rc == 0)
        variant_runs_disk_full(g, ex, t->vr);
    return rc;
}

/* A prepared variant's runs, judging, and the passes beside the grade. */
int variant_execute(struct grading *g, const struct variant_task *t, struct error *err)
{
    const struct variant_spec *v = &t->ex->variants[t->vi];
    int rc = t->any ? run_variant(g, t, err) : 0;
    if (rc == 0)
        rc = sanitize_variant(g, t->ex, v, &t->br, t->vr, err);
    if (rc == 0)
        rc = profile_variant(g, t->ex, v, &t->br, t->vr, err);
    return rc;
}

static void tolerance_summary(const struct exercise_spec *ex, struct exercise_result *er)
{
    struct tolerance t = ex->tol;
    struct strbuf sb = STRBUF_INIT;
    if (t.rtol_expr || t.atol_expr)
        strbuf_addf(&sb, "rtol=%s atol=%s%s", t.rtol_expr ? t.rtol_expr : "-",
                    t.atol_expr ? t.atol_expr : "-", t.equal_nan ? " equal_nan" : "");
    else if (t.has_rtol || t.has_atol)
        strbuf_addf(&sb, "rtol=%g atol=%g%s", t.rtol, t.atol, t.equal_nan ? " equal_nan" : "");
    else
        strbuf_addstr(&sb, "dtype defaults (torch.testing.assert_close)");
    er->tol_summary = strbuf_detach(&sb);
}

static void exercise_head(const struct exercise_spec *ex, struct exercise_result *er)
{
    er->exercise_id = xstrdup(ex->id);
    er->title = xstrdup(ex->title);
    tolerance_summary(ex, er);
    er->variants = xcalloc(ex->n_variants, sizeof(*er->variants));
    er->n_variants = ex->n_variants;
}

/* Whether --only leaves exercise ex in. */
static bool exercise_selected(const struct grade_opts *o, const struct exercise_spec *ex)
{
    return !o->only || !strcmp(o->only, ex->id);
}

/* The prepared variants run, one after another or side by side (side.c). The Nsight Compute
 * pass wants the GPU to itself: with it, one at a time. */
static int variants_run(struct grading *g, struct variant_task *tasks, size_t n, struct error *err)
{
    int jobs = g->o->profile ? 1 : side_jobs(g->o->variant_jobs, &g->env->gpu);
    if (jobs > 1 && n > 1)
        return variants_side_by_side(g, tasks, n, jobs, err);
    for (size_t i = 0; i < n; i++)
        if (variant_execute(g, &tasks[(i + g->o->first_variant) % n], err) != 0)
            return -1;
    return 0;
}

/* Every selected exercise: its variants prepared in order, then run, then its speed points. */
static int grade_exercises(struct grading *g, size_t n_selected, struct error *err)
{
    const struct lab *lab = g->lab;
    struct results *r = g->r;
    size_t n = 0, k = 0;
    int rc = 0;
    r->exercises = xcalloc(n_selected, sizeof(*r->exercises));
    for (size_t e = 0; e < lab->n_exercises; e++)
        if (exercise_selected(g->o, &lab->exercises[e]))
            n += lab->exercises[e].n_variants;
    struct variant_task *tasks = xcalloc(n + 1, sizeof(*tasks));
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        if (!exercise_selected(g->o, ex))
            continue;
        struct exercise_result *er = &r->exercises[r->n_exercises++];
        exercise_head(ex, er);
        for (size_t vi = 0; vi < ex->n_variants; vi++, k++) {
            tasks[k] = (struct variant_task){.ex = ex, .vi = vi, .vr = &er->variants[vi]};
            build_result_init(&tasks[k].br);
        }
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = variant_prepare(g, &tasks[i], err);
    if (rc == 0 && !g->o->build_only)
        rc = variants_run(g, tasks, n, err);
    for (size_t e = 0, i = 0; rc == 0 && !g->o->build_only && e < lab->n_exercises; e++)
        if (exercise_selected(g->o, &lab->exercises[e]))
            score_performance(g, &lab->exercises[e], &r->exercises[i++]);
    for (size_t i = 0; i < n; i++)
        variant_task_release(&tasks[i]);
    free(tasks);
    return rc;
}

/* ---- one submission ---- */

static void results_head(const struct grading *g, const char *digest)
{
    struct results *r = g->r;
    const struct lab *lab = g->lab;
    const struct grade_opts *o = g->o;
    char date[64];
    r->lab_id = xstrdup(lab->id);
    r->lab_number = lab->number;
    r->lab_title = xstrdup(lab->title);
    r->course = xstrdup(lab->course ? lab->course : "");
    r->lang = xstrdup(lab->lang ? lab->lang : "en");
    r->student_id = xstrdup(o->student_id ? o->student_id : path_base(o->submission));
    r->student_name = xstrdup(o->student_name ? o->student_name : r->student_id);
    r->submission = xstrdup(o->submission);
    r->submission_hash = xstrdup(digest);
    r->grader_version = xstrdup(LG_VERSION);
    iso_datetime(date, sizeof(date));
    r->date = xstrdup(date);
    r->mode = xstrdup(g->env->grade_mode ? "grade" : "check");
    enum isolation iso = g->env->tc.isolation;
    r->isolation = xstrdup(isolation_name(iso == ISOLATION_AUTO ? sandbox_available() : iso));
    r->timing_mode = xstrdup("warm");
    for (size_t e = 0; e < lab->n_exercises; e++) {
        if (lab->exercises[e].timing.flush_l2) {
            free(r->timing_mode);
            r->timing_mode = xstrdup("cold-l2 for some exercises");
        }
        r->timing_blocking |= lab->exercises[e].timing.blocking;
    }
    r->full = o->full;
    r->hidden = o->hidden;
    r->show_hidden = lab->show_hidden;
    machine_info_collect(&r->machine, &g->env->tc, &g->env->gpu, lab);
    r->machine.calibration = calibration_summary(&g->env->cal, g->o->messages);
    if (g->env->blas_forced)
        r->machine.blas_core = xstrfmt("%s (forced: OpenBLAS chose %s)", g->env->blas_forced,
                                       g->env->blas_chosen ? g->env->blas_chosen : "?");
    else if (g->env->blas_chosen)
        r->machine.blas_core = xstrdup(g->env->blas_chosen);
}

/* Wait for any other grading of the same work folder to finish with it. */
static int lock_work(struct grading *g, struct error *err)
{
    char *path = xstrfmt("%s.lock", g->work);
    int rc = 0;
    g->work_lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (g->work_lock < 0) {
        rc = error_set(err, "cannot open %s: %s (is the work folder writable?)", path,
                       strerror(errno));
    } else if (flock(g->work_lock, LOCK_EX | LOCK_NB) != 0) {
        trace_point("grade: %s is held by another grading; waiting", path);
        while (flock(g->work_lock, LOCK_EX) != 0 && rc == 0)
            if (errno != EINTR)
                rc = error_set(err, "cannot lock %s: %s", path, strerror(errno));
    }
    free(path);
    return rc;
}

/* The work folder, the references' and the submission's build folders. */
static int grading_setup(struct grading *g, const char *abs, struct error *err)
{
    if (mkdir_p(g->o->work_dir, err) != 0)
        return -1;
    char *work_abs = path_abs(g->o->work_dir, err);
    if (!work_abs)
        return -1;
    g->work = xstrfmt("%s/%s", work_abs, g->r ? g->r->student_id : ".prepare");
    free(work_abs);
    if (lock_work(g, err) != 0)
        return -1;
    if (!g->o->reuse_build)
        remove_tree(g->work, NULL);
    if (mkdir_p(g->work, err) != 0 ||
        build_reference_digest(&g->env->tc, g->lab, g->ref_digest, err) != 0)
        return -1;
    g->ref_dir = xstrfmt("%s/build/%s", g->env->cache_dir, g->ref_digest);
    if (build_ctx_init(&g->ref_build, &g->env->tc, g->lab, true, NULL, g->ref_dir, err) != 0)
        return -1;
    if (!abs)
        return 0;
    char *sdir = xstrfmt("%s/build", g->work);
    int rc = build_ctx_init(&g->student_build, &g->env->tc, g->lab, false, abs, sdir, err);
    g->student_build.messages = g->o->messages;
    g->student_build.cache_dir = g->env->cache_dir;
    free(sdir);
    return rc;
}

static void grading_release(struct grading *g)
{
    build_ctx_release(&g->ref_build);
    build_ctx_release(&g->student_build);
    if (g->work && !g->o->keep_work && !g->o->build_only)
        remove_tree(g->work, NULL);
    if (g->work_lock >= 0)
        close(g->work_lock);
    g->work_lock = -1;
    free(g->work);
    free(g->ref_dir);
}

/* --only and --case must name something that exists. */
static int check_selection(const struct lab *lab, const struct grade_opts *o, size_t *n,
                           struct error *err)
{
    *n = 0;
    for (size_t e = 0; e < lab->n_exercises; e++)
        if (exercise_selected(o, &lab->exercises[e]))
            (*n)++;
    if (*n == 0)
        return error_set(err, "no exercise '%s' in %s", o->only, lab->path);
    return 0;
}

/* While a compile or a run waits for the machine's turn (run/turns.h): the console says so,
 * and who holds the turn, so that a student whose check waits (or an autograde at a deadline)
 * knows it is queued. arg: the struct grading. */
static void grading_waiting(void *arg, double waited_s, const char *holders)
{
    struct grading *g = arg;
    if (!g->o->progress)
        return;
    const struct messages *msgs = g->o->messages;
    if (holders)
        fprintf(g->o->progress,
                messages_get(msgs, "  queued: waiting %.0f s for this machine's turn to time "
                                   "(held by %s)\n"),
                waited_s, holders);
    else
        fprintf(g->o->progress,
                messages_get(msgs, "  queued: waiting %.0f s for this machine's turn to time\n"),
                waited_s);
    fflush(g->o->progress);
}

int grade_submission(struct grade_env *env, const struct lab *lab, const struct grade_opts *o,
                     struct results *r, struct error *err)
{
    struct grading g = {.env = env, .lab = lab, .o = o, .r = r, .work_lock = -1};
    char digest[65];
    size_t n;
    int rc = -1;
    char *abs = path_abs(o->submission, err);
    if (!abs)
        return error_prefix(err, "submission folder: "), -1;
    if (!dir_exists(abs)) {
        free(abs);
        return error_set_at(err, o->submission, 0, 0, "not a folder");
    }
    if (submission_digest(abs, digest, err) != 0 || check_selection(lab, o, &n, err) != 0)
        goto out;
    results_head(&g, digest);
    /* Every compile and run of this grading says so when it waits for the machine's turn. */
    env->turns.on_wait = grading_waiting;
    env->turns.on_wait_arg = &g;
    if (grading_setup(&g, abs, err) != 0)
        goto out;
    bool *selected = xcalloc(lab->n_exercises + 1, sizeof(bool));
    for (size_t e = 0; e < lab->n_exercises; e++)
        selected[e] = exercise_selected(o, &lab->exercises[e]);
    double t0 = now_seconds();
    student_build_all(&g, selected);
    g.phase_build_s += now_seconds() - t0;
    free(selected);
    if (grade_exercises(&g, n, err) != 0)
        goto out;
    r->phase_build_s = g.phase_build_s;
    r->phase_references_s = g.phase_references_s;
    r->phase_runs_s = g.phase_runs_s;
    results_tally(r);
    rc = 0;
out:
    env->turns.on_wait = NULL;
    env->turns.on_wait_arg = NULL;
    grading_release(&g);
    free(abs);
    return rc;
}

int grade_prepare(struct grade_env *env, const struct lab *lab, const struct grade_opts *o,
                  struct error *err)
{
    struct grading g = {.env = env, .lab = lab, .o = o, .work_lock = -1};
    size_t n;
    int rc = check_selection(lab, o, &n, err) == 0 && grading_setup(&g, NULL, err) == 0 ? 0 : -1;
    for (size_t e = 0; e < lab->n_exercises && rc == 0; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        if (!exercise_selected(o, ex))
            continue;
        for (size_t v = 0; v < ex->n_variants && rc == 0; v++) {
            const struct variant_spec *var = &ex->variants[v];
            char *why = NULL, *built = NULL;
            if (!var->has_reference || (var->target == TARGET_GPU && !env->gpu.available))
                continue;
            built = reference_runner(&g, ex, var, &why, err);
            if (built && !o->no_timing) {
                free(built);
                built = reference_library(&g, ex, var, &why, err);
            }
            rc = built || why ? 0 : -1;
            free(built);
            free(why);
        }
        for (size_t c = 0; c < ex->n_cases && rc == 0; c++) {
            char *why = NULL;
            if (grading_case_skipped(&g, &ex->cases[c]))
                continue;
            char *dir = expected_outputs(&g, ex, &ex->cases[c], &why, err);
            rc = dir || why ? 0 : -1;
            free(dir);
            free(why);
        }
    }
    grading_release(&g);
    return rc;
}

int submission_digest(const char *dir, char out[65], struct error *err)
{
    return submission_files_digest(dir, out, err);
}

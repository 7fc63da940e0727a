/* profile: the Nsight Compute pass over a GPU variant (grade/profile.h): which case, the
 * student's runner and the reference's under ncu in the sandbox, the report file imported as
 * CSV, and the kernel times checked against the grader's own. Findings beside the grade. */
#include "grade/profile.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "base/strbuf.h"
#include "grade/grading.h"
#include "run/sandbox.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a profiling run's output and the import's CSV may take up. */
#define PROFILE_OUTPUT_HEAD ((size_t)256 * 1024)
#define PROFILE_OUTPUT_TAIL ((size_t)64 * 1024)
#define PROFILE_CSV_MAX ((size_t)4 << 20)
#define PROFILE_IMPORT_WALL_S 120.0

/* The exercise's `profile: {case: ID}`, else its largest visible case that is not slow (a slow
 * one only when there is nothing else); among those that passed when passed is set. */
static const struct case_spec *pick_case(const struct exercise_spec *ex,
                                         const struct variant_result *vr, bool passed)
{
    const struct case_spec *best = NULL;
    for (int allow_slow = 0; allow_slow < 2 && !best; allow_slow++)
        for (size_t i = 0; i < ex->n_cases && i < vr->n_cases; i++) {
            const struct case_spec *c = &ex->cases[i];
            if (c->hidden || (c->slow && !allow_slow) || (passed && vr->cases[i].verdict != V_PASS))
                continue;
            if (ex->profile_case && strcmp(ex->profile_case, c->id) != 0)
                continue;
            if (!best || c->array_bytes > best->array_bytes)
                best = c;
        }
    return best;
}

/* The case profiled; *passed false when it did not pass (it is then only named). */
static const struct case_spec *profile_case(const struct exercise_spec *ex,
                                            const struct variant_result *vr, bool *passed)
{
    const struct case_spec *c = pick_case(ex, vr, true);
    *passed = c != NULL;
    return c ? c : pick_case(ex, vr, false);
}

/* Why the pass cannot run here; PROFILE_REASON_NONE when it can. */
static enum profile_reason why_not(const struct grading *g, const struct case_spec *c, bool passed,
                                   const char *ncu)
{
    if (!g->env->gpu.available)
        return PROFILE_NO_GPU;
    if (!c)
        return PROFILE_NO_CASE;
    if (!passed)
        return PROFILE_NOT_PASSED;
    if (!ncu)
        return PROFILE_NO_NCU;
    return PROFILE_REASON_NONE;
}

static void skip_side(struct profile_side *s, enum profile_status st, enum profile_reason r)
{
    s->status = st;
    s->reason = r;
}

/* One `ncu --import` of the report file (argv), in the sandbox: it reads a file the run's folder
 * holds. 0 with r filled (caller releases), or -1 with err set. */
static int run_import(struct grading *g, const char *ncu, const char *dir, const char **argv,
                      struct sandbox_result *r, struct error *err)
{
    char **extra = ncu_ro_paths(ncu);
    const char **ro = toolchain_ro_paths(&g->env->tc, (const char *const *)extra);
    struct sandbox_opts o;
    sandbox_opts_init(&o);
    o.argv = argv;
    o.workdir = dir;
    o.ro_paths = ro;
    o.env = (const char *const *)g->env->tc.env;
    o.wall_limit_s = PROFILE_IMPORT_WALL_S;
    o.output_cap = PROFILE_CSV_MAX;
    o.isolation = g->env->tc.isolation;
    int rc = sandbox_run(&o, r, err);
    free(ro);
    ncu_paths_free(extra);
    return rc;
}

/* The import's output kept beside the report (for --keep). */
static void keep_output(const char *dir, const char *name, const struct sandbox_result *r)
{
    char *keep = path_join(dir, name);
    write_file_atomic(keep, r->output, r->output_len, NULL);
    free(keep);
}

/* The raw page, into s->prof; its CSV kept as profile.csv. */
static void import_report(struct grading *g, const char *ncu, const char *dir,
                          const char *report_file, struct profile_side *s)
{
    const char *argv[NCU_ARGV_MAX];
    struct sandbox_result r;
    struct error err;
    ncu_import_argv(ncu, report_file, argv);
    sandbox_result_init(&r);
    error_init(&err);
    if (run_import(g, ncu, dir, argv, &r, &err) == 0 && r.output) {
        ncu_parse_csv(r.output, r.output_len, &s->prof);
        keep_output(dir, "profile.csv", &r);
    }
    if (s->prof.n_kernels == 0 && !s->detail)
        s->detail = xstrdup(err.msg[0] ? err.msg : "ncu --import printed no kernel");
    sandbox_result_release(&r);
}

/* Why the profile has no source line: in the progress output (lines: ncu_parse_source's). */
static void source_note(const struct grading *g, int lines, const char *detail)
{
    if (!g->o->progress)
        return;
    const struct messages *m = g->o->messages;
    char *note = lines < 0 ? xstrfmt(messages_get(m, "note: ncu's source page could not be read "
                                                     "(%s): no source lines in the profile"),
                                     detail)
                           : xstrdup(messages_get(m, "note: ncu's profile names no source line "
                                                     "(built without -lineinfo, or an older ncu)"));
    fprintf(g->o->progress, "  %s\n", note);
    fflush(g->o->progress);
    free(note);
}

/* The source page, into the kernels the raw page gave (profile-source.csv kept). Its failure
 * (an older ncu, code built without -lineinfo, the import failing) only leaves the kernels
 * without source lines: a note in the progress output (the student's side: note), never a failed
 * profile. */
static void import_source(struct grading *g, const char *ncu, const char *dir,
                          const char *report_file, bool note, struct profile_side *s)
{
    if (s->prof.n_kernels == 0)
        return;
    const char *argv[NCU_ARGV_MAX];
    struct sandbox_result r;
    struct error err;
    ncu_source_argv(ncu, report_file, argv);
    sandbox_result_init(&r);
    error_init(&err);
    int lines = -1;
    if (run_import(g, ncu, dir, argv, &r, &err) == 0 && r.output) {
        lines = ncu_parse_source(r.output, r.output_len, &s->prof);
        keep_output(dir, "profile-source.csv", &r);
    }
    if (lines <= 0 && note)
        source_note(g, lines, err.msg[0] ? err.msg : "no source page printed");
    sandbox_result_release(&r);
}

/* The lines' text from the side's own sources: the submission's files (as the spec names
 * them, under the submission folder), or the reference's. */
static void fill_sources(const struct grading *g, const struct variant_spec *v, bool reference,
                         struct profile_side *s)
{
    const struct impl_spec *impl = reference ? &v->reference : &v->student;
    char **paths = xcalloc(impl->n_sources + 1, sizeof(char *));
    for (size_t i = 0; i < impl->n_sources; i++)
        paths[i] = reference || !g->o->submission ? xstrdup(impl->sources[i])
                                                  : path_join(g->o->submission, impl->sources[i]);
    profile_fill_sources(&s->prof, (const char *const *)paths, impl->n_sources);
    for (size_t i = 0; i < impl->n_sources; i++)
        free(paths[i]);
    free(paths);
}

static void judge_side(const struct run_outcome *o, struct profile_side *s)
{
    char *detail = NULL;
    enum ncu_failure f = ncu_diagnose(o->sb.output, o->sb.output_len,
                                      o->sb.status == SB_EXITED ? o->sb.exit_code : -1, &detail);
    static const enum profile_reason reasons[] = {
        [NCU_OK] = PROFILE_NO_KERNEL,
        [NCU_NO_PERMISSION] = PROFILE_NO_PERMISSION,
        [NCU_NO_KERNEL] = PROFILE_NO_KERNEL,
        [NCU_UNSUPPORTED] = PROFILE_UNSUPPORTED,
        [NCU_TOOL_FAILED] = PROFILE_TOOL_FAILED,
    };
    if (s->prof.n_kernels > 0) {
        s->status = PROFILE_RAN;
        s->reason = PROFILE_REASON_NONE;
        free(detail);
        return;
    }
    s->status = PROFILE_FAILED;
    s->reason = reasons[f];
    if (!detail && o->sb.status != SB_EXITED) {
        char buf[256];
        sandbox_describe(&o->sb, buf, sizeof(buf));
        detail = xstrdup(buf);
    }
    free(s->detail);
    s->detail = detail;
}

/* One side's run under ncu: the runner on case c, one checked call, no timing. */
static int profile_side_run(struct grading *g, const struct exercise_spec *ex,
                            const struct variant_spec *v, const struct case_spec *c,
                            const char *runner, bool reference, const char *ncu,
                            struct profile_side *s, struct error *err)
{
    char *name = xstrfmt("profile-%s-%s-%s-%s", ex->id, v->id, c->id, reference ? "ref" : "stu");
    char *dir = grading_fresh_dir(g, name, err);
    free(name);
    if (!dir)
        return -1;
    struct timing_spec timing = grading_timing(g, ex);
    char *report = path_join(dir, "profile");
    char *report_file = xstrfmt("%s.ncu-rep", report);
    char *home = xstrfmt("HOME=%s", dir);
    char *metric_list = NULL;
    const char *wrap[NCU_ARGV_MAX + 2] = {"/usr/bin/env", home};
    ncu_profile_argv(ncu, report, timing.flush_l2, &metric_list, wrap + 2);
    char **ro = ncu_ro_paths(ncu);
    double limit = ncu_wall_limit(grading_case_timeout(g, ex, v, c));
    struct run_spec rs = {.tc = &g->env->tc,
                          .lab = g->lab,
                          .ex = ex,
                          .v = v,
                          .cases = &c,
                          .n_cases = 1,
                          .case_timeout_s = &limit,
                          .reference = reference,
                          .runner = runner,
                          .workdir = dir,
                          .checks = 1,
                          .time = false,
                          .timing = timing,
                          .memory_limit_bytes = g->env->memory_limit_bytes,
                          .wrap = wrap,
                          .wrap_ro = (const char *const *)ro,
                          .output_cap = PROFILE_OUTPUT_HEAD,
                          .output_tail = PROFILE_OUTPUT_TAIL};
    struct run_outcome o;
    struct error rerr;
    run_outcome_init(&o);
    error_init(&rerr);
    if (runner_run(&rs, &o, &rerr) != 0) {
        skip_side(s, PROFILE_FAILED, PROFILE_TOOL_FAILED);
        s->detail = xstrdup(rerr.msg);
    } else {
        s->wall_s = o.sb.wall_s;
        char *out = path_join(dir, "profile-run.txt");
        write_file_atomic(out, o.sb.output ? o.sb.output : "", o.sb.output_len, NULL);
        free(out);
        if (file_exists(report_file)) {
            import_report(g, ncu, dir, report_file, s);
            import_source(g, ncu, dir, report_file, !reference, s);
            fill_sources(g, v, reference, s);
        }
        judge_side(&o, s);
    }
    run_outcome_release(&o);
    ncu_paths_free(ro);
    if (!g->o->keep_work)
        remove_tree(dir, NULL);
    free(metric_list);
    free(home);
    free(report_file);
    free(report);
    free(dir);
    return 0;
}

/* Every array on the device: the event time is the kernels' alone, comparable with ncu's. */
static bool device_only(const struct exercise_spec *ex, const struct variant_spec *v)
{
    for (size_t i = 0; i < ex->n_args; i++)
        if (ex->args[i].kind != ARG_SCALAR && !ex->args[i].is_return &&
            variant_arg_memory(v, ex, i) != MEM_DEVICE)
            return false;
    return true;
}

static long launches(const struct ncu_profile *p)
{
    long n = 0;
    for (size_t i = 0; i < p->n_kernels; i++)
        n += p->kernels[i].launches;
    return n;
}

static void crosscheck(const struct exercise_spec *ex, const struct variant_spec *v,
                       const struct case_result *cr, struct variant_profile *p)
{
    /* A profile cut at ncu's launch count (a kernel launched in a loop) misses the rest of the
     * call's kernels: its total says nothing about the call's time. */
    if (!device_only(ex, v) || p->student.prof.rows >= NCU_LAUNCH_LIMIT ||
        p->reference.prof.rows >= NCU_LAUNCH_LIMIT)
        return;
    if (cr->time.valid && p->student.status == PROFILE_RAN)
        profile_crosscheck(profile_kernel_ms(&p->student.prof), cr->time.median_ms,
                           launches(&p->student.prof), &p->check);
    if (cr->ref_time.valid && p->reference.status == PROFILE_RAN)
        profile_crosscheck(profile_kernel_ms(&p->reference.prof), cr->ref_time.median_ms,
                           launches(&p->reference.prof), &p->ref_check);
}

static void progress(const struct grading *g, const struct exercise_spec *ex,
                     const struct variant_spec *v, const struct variant_profile *p)
{
    if (!g->o->progress)
        return;
    fprintf(g->o->progress, "  %s/%s profile %s: %s%s%s\n", ex->id, v->id,
            p->case_id ? p->case_id : "-", profile_status_name(p->student.status),
            p->student.reason ? " " : "",
            p->student.reason ? profile_reason_name(p->student.reason) : "");
    fflush(g->o->progress);
}

/* The reference's side: its own runner, built (cached) as for the expected outputs. */
static int reference_side(struct grading *g, const struct exercise_spec *ex,
                          const struct variant_spec *v, const struct case_spec *c, const char *ncu,
                          struct variant_profile *p, struct error *err)
{
    char *why = NULL;
    char *runner = v->has_reference ? reference_runner(g, ex, v, &why, err) : NULL;
    if (!runner && !why && v->has_reference)
        return -1;
    int rc = 0;
    if (!runner) {
        skip_side(&p->reference, PROFILE_SKIPPED, PROFILE_NO_REFERENCE);
        p->reference.detail = why;
        return 0;
    }
    rc = profile_side_run(g, ex, v, c, runner, true, ncu, &p->reference, err);
    free(runner);
    free(why);
    return rc;
}

int profile_variant(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                    const struct build_result *br, struct variant_result *vr, struct error *err)
{
    if (!g->o->profile || v->target != TARGET_GPU || !vr->cases)
        return 0;
    struct variant_profile *p = xmalloc(sizeof(*p));
    variant_profile_init(p);
    vr->profile = p;
    bool passed;
    const struct case_spec *c = profile_case(ex, vr, &passed);
    char *ncu = ncu_find(getenv("CUDA_HOME"), getenv("PATH"), g->env->tc.cuda_home);
    enum profile_reason why = why_not(g, c, passed, ncu);
    p->case_id = c ? xstrdup(c->id) : NULL;
    int rc = 0;
    if (why != PROFILE_REASON_NONE || br->status != BUILD_OK) {
        why = why != PROFILE_REASON_NONE ? why : PROFILE_NOT_PASSED;
        skip_side(&p->student, PROFILE_SKIPPED, why);
        skip_side(&p->reference, PROFILE_SKIPPED, why);
    } else {
        rc = profile_side_run(g, ex, v, c, br->runner, false, ncu, &p->student, err);
        if (rc == 0)
            rc = reference_side(g, ex, v, c, ncu, p, err);
        if (rc == 0)
            crosscheck(ex, v, &vr->cases[c - ex->cases], p);
    }
    free(ncu);
    if (rc == 0)
        progress(g, ex, v, p);
    return rc;
}

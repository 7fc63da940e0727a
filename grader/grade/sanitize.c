/* sanitize: the compute-sanitizer pass (run/sanitizer.h): findings beside the grade, which they
 * never change. */
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "run/sanitizer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    char *dir = grading_fresh_dir(g, name, err);
    free(name);
    if (!dir)
        return -1;
    struct run_outcome o;
    struct error rerr;
    double limit = sanitizer_wall_limit(grading_case_timeout(g, ex, v, c));
    char **ro = sanitizer_ro_paths(program);
    sanitizer_argv(program, run->tool, wrap);
    struct run_spec s = {.tc = &g->env->tc,
                         .lab = g->lab,
                         .ex = ex,
                         .v = v,
                         .cases = &c,
                         .n_cases = 1,
                         .case_timeout_s = &limit,
                         .runner = br->runner,
                         .workdir = dir,
                         .checks = ex->timing.checks,
                         .timing = ex->timing,
                         .memory_limit_bytes = g->env->memory_limit_bytes};
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
int sanitize_variant(struct grading *g, const struct exercise_spec *ex,
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

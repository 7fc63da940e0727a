/*
 * variant_run: a variant's cases in one process (one CUDA context, one start-up), each under
 * its own time limit. A crash ends the process but not the variant: the cases after it run
 * again in a new process, so a bug at one size costs no other size. Cases run smallest first,
 * and a case that times out ends the variant for every case no smaller: they are not run (a
 * hang costs one case's limit, not one per case), and each says so.
 */
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "base/space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void variant_runs_release(struct variant_runs *vr)
{
    for (size_t i = 0; i < vr->n_outcomes; i++) {
        run_outcome_release(&vr->outcomes[i]);
        free(vr->dirs[i]);
    }
    free(vr->outcomes);
    free(vr->dirs);
    free(vr->run_of);
    free(vr->index_in);
    free(vr->not_run);
    memset(vr, 0, sizeof(*vr));
}

/* The reference's own times on this machine for case c (the call alone, with transfers), where
 * one grader measured them once (references.c); 0 where not known. */
static void reference_ms(struct grading *g, const struct exercise_spec *ex,
                         const struct variant_spec *v, const struct case_spec *c, double ms[2])
{
    struct error ignored;
    error_init(&ignored);
    const struct ref_timing *rt = v->has_reference ? reference_time(g, ex, v, c, &ignored) : NULL;
    ms[0] = rt && rt->ok && rt->call.valid ? rt->call.median_ms : 0;
    ms[1] = rt && rt->ok && rt->transfer.valid ? rt->transfer.median_ms : 0;
}

/* One process over the pending cases (indices into ex->cases). -1: the grader failed. */
static int run_once(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                    const char *runner, const char *reference_lib, const size_t *pending, size_t n,
                    struct variant_runs *out, struct error *err)
{
    const struct case_spec **cases = xcalloc(n, sizeof(*cases));
    double *limits = xcalloc(n, sizeof(double));
    double(*ref_ms)[2] = xcalloc(n, sizeof(*ref_ms));
    for (size_t i = 0; i < n; i++) {
        cases[i] = &ex->cases[pending[i]];
        limits[i] = grading_case_timeout(g, ex, v, cases[i]);
        reference_ms(g, ex, v, cases[i], ref_ms[i]);
    }
    char *name = xstrfmt("%s-%s-run%zu", ex->id, v->id, out->n_outcomes + 1);
    char *dir = grading_fresh_dir(g, name, err);
    free(name);
    int rc = -1;
    if (dir) {
        out->outcomes = xrealloc(out->outcomes, (out->n_outcomes + 1) * sizeof(*out->outcomes));
        out->dirs = xrealloc(out->dirs, (out->n_outcomes + 1) * sizeof(*out->dirs));
        struct run_outcome *o = &out->outcomes[out->n_outcomes];
        out->dirs[out->n_outcomes++] = dir;
        run_outcome_init(o);
        struct run_spec s = {.tc = &g->env->tc,
                             .lab = g->lab,
                             .ex = ex,
                             .v = v,
                             .cases = cases,
                             .n_cases = n,
                             .case_timeout_s = limits,
                             .reference_lib = reference_lib,
                             .runner = runner,
                             .workdir = dir,
                             .checks = ex->timing.checks,
                             .time = !g->o->no_timing && !g->env->turns.problem,
                             .timing = grading_timing(g, ex),
                             .ref_ms = (const double(*)[2])ref_ms,
                             .memory_limit_bytes = g->env->memory_limit_bytes};
        rc = runner_run(&s, o, err);
    }
    free(cases);
    free(limits);
    free(ref_ms);
    return rc;
}

/* How far the last run got: its cases up to the one it ended in are its; returns how many of
 * the pending cases it settled (the rest are run again, or not at all after a hang). */
static size_t settle(const struct exercise_spec *ex, struct variant_runs *out,
                     const size_t *pending, size_t n, const struct messages *msgs)
{
    int run = (int)out->n_outcomes - 1;
    const struct run_outcome *o = &out->outcomes[run];
    size_t k = 0;
    while (k < n && o->cases[k].finished)
        k++;
    /* Nothing it said can be trusted, or it never got to a case (setup, no GPU): every pending
     * case is judged from this run. */
    bool all = o->finished || o->tampered || o->last_case < 0 || k == n;
    for (size_t i = 0; i < n && (all || i <= k); i++) {
        out->run_of[pending[i]] = run;
        out->index_in[pending[i]] = (int)i;
    }
    if (all)
        return n;
    if (o->sb.status != SB_TIMEOUT)
        return k + 1;
    /* A hang: the cases no smaller than the one that timed out are not run. */
    double hung = ex->cases[pending[k]].array_bytes;
    for (size_t i = k + 1; i < n; i++)
        if (ex->cases[pending[i]].array_bytes >= hung)
            out->not_run[pending[i]] =
                xstrfmt(messages_get(msgs, "not run: the smaller case %s already timed out"),
                        ex->cases[pending[k]].id);
    return k + 1;
}

/* Smallest first (by the bytes of their arrays; equal sizes in the spec's order): a function
 * that hangs at every size then costs one case's limit, the smallest's, and every other case
 * is "not run" after it. */
static void smallest_first(const struct exercise_spec *ex, size_t *pending, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        size_t c = pending[i], j = i;
        for (; j > 0 && ex->cases[pending[j - 1]].array_bytes > ex->cases[c].array_bytes; j--)
            pending[j] = pending[j - 1];
        pending[j] = c;
    }
}

int variant_run(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
                const char *runner, const char *reference_lib, const bool *selected,
                struct variant_runs *out, struct error *err)
{
    size_t *pending = xcalloc(ex->n_cases + 1, sizeof(size_t)), n = 0;
    memset(out, 0, sizeof(*out));
    out->run_of = xcalloc(ex->n_cases + 1, sizeof(int));
    out->index_in = xcalloc(ex->n_cases + 1, sizeof(int));
    out->not_run = xcalloc(ex->n_cases + 1, sizeof(char *));
    for (size_t i = 0; i < ex->n_cases; i++) {
        out->run_of[i] = out->index_in[i] = -1;
        if (selected[i])
            pending[n++] = i;
    }
    smallest_first(ex, pending, n);
    int rc = 0;
    while (n > 0 && rc == 0) {
        rc = run_once(g, ex, v, runner, reference_lib, pending, n, out, err);
        if (rc != 0)
            break;
        size_t done = settle(ex, out, pending, n, g->o->messages), m = 0;
        for (size_t i = done; i < n; i++)
            if (!out->not_run[pending[i]])
                pending[m++] = pending[i];
        n = m;
    }
    free(pending);
    return rc;
}

/* What case c's run writes of its own, besides the student's doing: its checked outputs, every
 * check, and the harness's files. */
static long long case_output_bytes(const struct exercise_spec *ex, const struct case_spec *c)
{
    long long bytes = 1 << 20; /* the job, the result, the logs */
    for (size_t i = 0; i < ex->n_args; i++)
        if (ex->args[i].kind == ARG_OUT || ex->args[i].kind == ARG_INOUT)
            bytes += (long long)c->args[i].count * (long long)lg_dtype_size(ex->args[i].dtype) *
                     ex->timing.checks;
    return bytes;
}

void variant_runs_disk_full(struct grading *g, const struct exercise_spec *ex,
                            struct variant_result *vr)
{
    long long need = 0;
    for (size_t ci = 0; ci < vr->n_cases; ci++)
        if (verdict_is_failure(vr->cases[ci].verdict)) {
            long long b = case_output_bytes(ex, &ex->cases[ci]);
            need = b > need ? b : need;
        }
    if (need == 0)
        return;
    char *runs = xstrfmt("%s/run", g->work);
    struct error e;
    error_init(&e);
    if (space_probe(runs, need, &e) == SPACE_FULL) {
        char *m = xstrfmt(messages_get(g->o->messages, "the run failed because the grader's disk "
                                                       "is full (not the submission's fault): %s"),
                          e.msg);
        for (size_t ci = 0; ci < vr->n_cases; ci++) {
            struct case_result *cr = &vr->cases[ci];
            if (!verdict_is_failure(cr->verdict))
                continue;
            judge_skip(cr, V_GRADER, m);
            free(cr->detail);
            cr->detail = NULL;
        }
        free(m);
    }
    free(runs);
}

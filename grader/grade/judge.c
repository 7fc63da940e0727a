/*
 * judge: a case's verdict from its run, in the order a student meets the problems: the
 * results could not be trusted (CH), the run never got to the case (XX), how the process
 * ended (SG, TO, RE, ML, OL), a write past a buffer's end (RE), wrong outputs of a checked
 * call (WA), a timed call that disagreed with the reference on inputs of its own (WA), an
 * input changed (WA), and only then OK.
 */
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "grade/bootmemo.h"
#include "grade/compare.h"
#include "run/work.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void judge_skip(struct case_result *cr, enum verdict v, const char *msg)
{
    cr->verdict = v;
    free(cr->message);
    cr->message = xstrdup(msg);
    cr->points = 0;
}

void judge_add_finding(struct case_result *cr, char *text)
{
    cr->findings = xrealloc(cr->findings, (cr->n_findings + 1) * sizeof(char *));
    cr->findings[cr->n_findings++] = text;
}

static void set_verdict(struct case_result *cr, enum verdict v, char *message)
{
    cr->verdict = v;
    free(cr->message);
    cr->message = message;
    cr->points = 0;
}

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

static void crash_verdict(const struct messages *msgs, const struct run_outcome *o,
                          const char *where, struct case_result *cr, const char *fn)
{
    /* The signal's meaning in the student's language: the commonest failure they meet. */
    const char *what = signal_description(o->sb.term_signal);
    cr->verdict = V_CRASH;
    if (what)
        cr->message = xstrfmt(messages_get(msgs, "killed by %s (%s) %s of %s"),
                              signal_name(o->sb.term_signal), messages_get(msgs, what), where, fn);
    else
        cr->message = xstrfmt(messages_get(msgs, "killed by signal %d %s of %s"), o->sb.term_signal,
                              where, fn);
    cr->detail = output_excerpt(o);
}

/* How the process ended, for the case it ended in; true when it ended well. */
static bool run_verdict(const struct messages *msgs, const struct run_outcome *o,
                        const struct run_case_outcome *co, struct case_result *cr, const char *fn,
                        double timeout_s)
{
    const char *where = phase_words(msgs, co->phase);
    switch (o->sb.status) {
    case SB_SETUP_FAILED:
        judge_skip(cr, V_GRADER, messages_get(msgs, "the sandbox could not start the program"));
        return false;
    case SB_TIMEOUT:
        cr->verdict = V_TIMEOUT;
        cr->message = xstrfmt(messages_get(msgs, "timed out after %.1f s (wall clock) %s of %s; "
                                                 "the whole process group was killed"),
                              timeout_s, where, fn);
        return false;
    case SB_CPU_LIMIT:
        cr->verdict = V_TIMEOUT;
        cr->message = xstrfmt(messages_get(msgs, "CPU time limit exceeded %s of %s"), where, fn);
        return false;
    case SB_SIGNALED:
        crash_verdict(msgs, o, where, cr, fn);
        return false;
    case SB_FILE_LIMIT:
        cr->verdict = V_OUTPUT;
        cr->message = xstrfmt(messages_get(msgs, "file size limit exceeded %s of %s"), where, fn);
        return false;
    case SB_MEMORY_LIMIT:
        cr->verdict = V_MEMORY;
        cr->message = xstrfmt(messages_get(msgs, "memory limit exceeded %s of %s"), where, fn);
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
    cr->verdict = V_EXIT;
    if (o->sb.exit_code == 0)
        cr->message = xstrfmt(messages_get(msgs, "the program exited (status 0) %s of %s: the "
                                                 "function must return, not call exit()"),
                              where, fn);
    else
        cr->message = xstrfmt(messages_get(msgs, "exited with status %d %s of %s"), o->sb.exit_code,
                              where, fn);
    cr->detail = output_excerpt(o);
    return false;
}

/* The message of a checked call's wrong output, naming the likely bug. */
static char *wrong_message(const struct messages *msgs, const struct arg_spec *a,
                           const struct mismatch *m, int k)
{
    const char *again = k > 0 ? messages_get(msgs, " on the second call with fresh inputs") : "";
    if (m->n_unwritten == m->n_mismatch && !m->integer)
        return xstrfmt(messages_get(msgs, "%s: %ld of %ld elements are NaN, the value outputs "
                                          "arrive with: never written, or computed from it (+= "
                                          "or *= on an output?)%s"),
                       a->name, m->n_mismatch, m->n_total, again);
    if (m->n_unwritten == m->n_mismatch)
        return xstrfmt(messages_get(msgs, "%s: %ld of %ld elements still hold the fill pattern "
                                          "%.0f the grader writes first: never written%s"),
                       a->name, m->n_mismatch, m->n_total, m->n_first ? m->first[0].actual : 0.0,
                       again);
    return xstrfmt(messages_get(msgs, "%s: %ld of %ld elements differ (max abs diff %.3g, max "
                                      "rel diff %.3g)%s%s"),
                   a->name, m->n_mismatch, m->n_total, m->max_abs, m->max_rel, again,
                   m->n_unwritten ? messages_get(msgs, "; some still hold the fill value: never "
                                                       "written?")
                                  : "");
}

static void record_mismatch(struct grading *g, const struct arg_spec *a, const struct arg_plan *p,
                            struct mismatch *m, int k, struct case_result *cr)
{
    const struct messages *msgs = g->o->messages;
    snprintf(m->arg, sizeof(m->arg), "%s", a->name);
    set_verdict(cr, V_WRONG, wrong_message(msgs, a, m, k));
    struct strbuf d = STRBUF_INIT;
    strbuf_addf(&d, "Not equal to tolerance rtol=%g, atol=%g (output %s, call %d)\n", p->tol.rtol,
                p->tol.atol, a->name, k + 1);
    compare_format(m, &d);
    cr->detail = strbuf_detach(&d);
    cr->mismatches = xrealloc(cr->mismatches, (cr->n_mismatches + 1) * sizeof(*m));
    cr->mismatches[cr->n_mismatches++] = *m;
    if (k > 0)
        judge_add_finding(cr, xstrdup(messages_get(msgs, "correct on the first call but wrong on "
                                                         "a later call with fresh inputs: results "
                                                         "cached between calls, or stale memory "
                                                         "returned?")));
}

/* One output of one checked call against the expected one: 0 and true when it agrees, 0 and
 * false when the verdict is set (WA, or CH when the file was tampered with), -1 when the
 * grader could not read its own cache (err). */
static int compare_one(struct grading *g, const struct exercise_spec *ex, size_t i,
                       const struct case_spec *c, const char *actual_path,
                       const char *expected_path, int k, struct case_result *cr, bool *ok,
                       struct error *err)
{
    const struct arg_spec *a = &ex->args[i];
    const struct arg_plan *p = &c->args[i];
    size_t bytes = (size_t)p->count * lg_dtype_size(a->dtype);
    struct strbuf act = STRBUF_INIT, exp = STRBUF_INIT;
    struct error aerr;
    int rc = read_file(expected_path, &exp, err);
    if (rc == 0 && exp.len != bytes)
        rc = error_set_at(err, expected_path, 0, 0, "expected output has %zu bytes, not %zu",
                          exp.len, bytes);
    *ok = false;
    error_init(&aerr);
    /* The harness wrote this file before it reported the call done, and only the run's own
     * processes could touch it since: missing, short, a link or anything but a plain file of
     * the exact size is the submission's doing, never the grader's (grader/base/fs.h). */
    int arc = rc == 0 ? read_run_file(actual_path, bytes, true, &act, &aerr) : 0;
    if (rc == 0 && arc != 0) {
        set_verdict(cr, V_CHEAT,
                    xstrfmt(messages_get(g->o->messages,
                                         "the harness's results were tampered with: output %s of "
                                         "call %d %s after the harness wrote it"),
                            a->name, k + 1,
                            arc == RUN_FILE_MISSING ? messages_get(g->o->messages, "was deleted")
                                                    : aerr.msg));
    } else if (rc == 0) {
        struct compare_opts co = {p->tol.rtol, p->tol.atol, p->tol.equal_nan, k % 2};
        struct mismatch m;
        memset(&m, 0, sizeof(m));
        *ok = compare_buffers(a->dtype, act.buf, exp.buf, (size_t)p->count, p->dims, p->n_dims, &co,
                              &m);
        if (!*ok)
            record_mismatch(g, a, p, &m, k, cr);
    }
    strbuf_release(&act);
    strbuf_release(&exp);
    return rc;
}

/* Every output of every completed checked call; stops at the first disagreement. */
/* Outputs this large are compared holding the lane's cores (judge_case). */
#define COMPARE_COORDINATED_BYTES (1 << 20)

static int compare_outputs(struct grading *g, const struct exercise_spec *ex,
                           const struct case_spec *c, int idx, const char *expected,
                           const char *rundir, int checks, struct case_result *cr, bool *ok,
                           struct error *err)
{
    *ok = true;
    for (int k = 0; k < checks && *ok; k++)
        for (size_t i = 0; i < ex->n_args && *ok; i++) {
            if (ex->args[i].kind != ARG_OUT && ex->args[i].kind != ARG_INOUT)
                continue;
            char *af = xstrfmt("%s/c%d_%s_%d.bin", rundir, idx, ex->args[i].name, k);
            char *ef = xstrfmt("%s/out_%s_%d.bin", expected, ex->args[i].name, k);
            int rc = compare_one(g, ex, i, c, af, ef, k, cr, ok, err);
            work_checkpoint();
            free(af);
            free(ef);
            if (rc != 0)
                return -1;
        }
    return 0;
}

static const char *series_words(const struct messages *msgs, const char *series)
{
    return series && !strcmp(series, "transfer") ? messages_get(msgs, "timed call with transfers")
                                                 : messages_get(msgs, "timed call");
}

/* A guard zone written into: RE, saying how far and where. */
static void guard_verdict(const struct messages *msgs, const struct exercise_spec *ex,
                          const struct case_spec *c, const struct run_incident *x,
                          struct case_result *cr)
{
    int i = exercise_arg_index(ex, x->arg);
    size_t esz = i >= 0 ? lg_dtype_size(ex->args[i].dtype) : 1;
    long long first = x->first >= 0 ? x->first / (long long)esz : x->first / (long long)esz - 1;
    char when[96];
    if (x->series)
        snprintf(when, sizeof(when), "%s %d", series_words(msgs, x->series), x->call);
    else
        snprintf(when, sizeof(when), messages_get(msgs, "checked call %d"), x->call + 1);
    long count = i >= 0 ? c->args[i].count : 0L;
    if (x->after > 0 && count == 1)
        set_verdict(cr, V_EXIT,
                    xstrfmt(messages_get(msgs, "wrote past the end of %s (at least %lld bytes, "
                                               "first at index %lld; %s has 1 element) in %s: a "
                                               "missing bounds check?"),
                            x->arg, x->after, first, x->arg, when));
    else if (x->after > 0)
        set_verdict(cr, V_EXIT,
                    xstrfmt(messages_get(msgs, "wrote past the end of %s (at least %lld bytes, "
                                               "first at index %lld; %s has %ld elements) in %s: "
                                               "a missing bounds check?"),
                            x->arg, x->after, first, x->arg, count, when));
    else
        set_verdict(cr, V_EXIT,
                    xstrfmt(messages_get(msgs, "wrote before the start of %s (at least %lld "
                                               "bytes, first at index %lld) in %s"),
                            x->arg, x->before, first, when));
}

/* What the harness saw once the checked calls agreed: changed inputs, timed calls that
 * disagreed with the reference. false when one set the verdict. */
static bool incidents_verdict(const struct messages *msgs, const struct run_case_outcome *co,
                              struct case_result *cr)
{
    if (co->n_unready > 0) {
        set_verdict(cr, V_WRONG,
                    xstrfmt(messages_get(msgs, "'%s' was not complete when the function "
                                               "returned: work still running on another stream "
                                               "or thread, or an asynchronous copy not waited "
                                               "for (a caller reading it right away gets "
                                               "wrong values)"),
                            co->unready[0]));
        return false;
    }
    if (co->n_modified > 0) {
        set_verdict(cr, V_WRONG,
                    xstrfmt(messages_get(msgs, "changed its input '%s' (inputs are read-only)"),
                            co->modified[0]));
        return false;
    }
    if (co->precision_mismatch) {
        const struct run_incident *x = co->precision_mismatch;
        set_verdict(cr, V_WRONG,
                    xstrfmt(messages_get(msgs, "on the precision check's inputs, %lld elements of "
                                               "'%s' differ from the reference's beyond the "
                                               "tolerance (first at index %lld): a reduced "
                                               "precision (TF32, FP16, BF16) where the lab asks "
                                               "for float32?"),
                            x->count, x->arg, x->first));
        return false;
    }
    if (co->timed_mismatch) {
        const struct run_incident *x = co->timed_mismatch;
        set_verdict(cr, V_WRONG,
                    xstrfmt(messages_get(msgs, "correct when checked, wrong on %s %d: %lld "
                                               "elements of '%s' differ from the reference's on "
                                               "the same fresh inputs (first at index %lld); "
                                               "results cached, computed lazily or only where "
                                               "checked?"),
                            series_words(msgs, x->series), x->call, x->count, x->arg, x->first));
        return false;
    }
    if (co->timed_modified) {
        set_verdict(cr, V_WRONG,
                    xstrfmt(messages_get(msgs, "changed its input '%s' on %s %d (inputs are "
                                               "read-only)"),
                            co->timed_modified->arg, series_words(msgs, co->timed_modified->series),
                            co->timed_modified->call));
        return false;
    }
    return true;
}

/* A timed call that touched a buffer fenced off from it (grader/harness/fence.h): a read of the
 * reference's outputs, which hold the answer when the function runs second, is CH; a write
 * (into either side's, while the other call ran) is work the function left running after it
 * returned: WA, as an output not ready at return. The process was ended by the fault: this
 * comes before how it ended. */
static bool fault_verdict(const struct messages *msgs, const struct run_case_outcome *co,
                          struct case_result *cr)
{
    const struct run_incident *x = co->timed_fault;
    if (!x)
        return false;
    if (x->own || x->write)
        set_verdict(cr, V_WRONG,
                    xstrfmt(messages_get(msgs, "'%s' was still being written after the function "
                                               "returned, while the other call of its pair ran "
                                               "(%s %d): work left running on another thread"),
                            x->arg, series_words(msgs, x->series), x->call));
    else
        set_verdict(cr, V_CHEAT,
                    xstrfmt(messages_get(msgs, "reached into the reference's output '%s' on %s "
                                               "%d, which is out of the function's reach while "
                                               "it runs: what the other call of a pair left is "
                                               "not a speed-up"),
                            x->arg, series_words(msgs, x->series), x->call));
    return true;
}

/* A run whose results cannot be used as such: tampering, the harness's own failures. */
static bool run_untrusted(struct grading *g, const struct variant_spec *v,
                          const struct run_outcome *o, int idx, struct case_result *cr)
{
    const struct messages *msgs = g->o->messages;
    bool nogpu = o->error_kind && !strcmp(o->error_kind, "nogpu");
    if (o->tampered || (nogpu && v->target != TARGET_GPU)) {
        /* Only a GPU variant's harness looks for a GPU: a 'nogpu' line elsewhere is forged. */
        set_verdict(cr, V_CHEAT,
                    xstrfmt(messages_get(msgs, "the harness's results were tampered with: %s"),
                            o->tampered ? o->tampered
                                        : "result.txt reports 'no GPU' for a CPU variant, whose "
                                          "harness never looks for one"));
        return true;
    }
    if (nogpu) {
        /* The grader's own probe found a GPU (else the variant was not run): a machine fault,
         * or a forgery by code that runs before main. Never a silent skip. Its answer may have
         * been remembered: the next check asks the GPU again. */
        if (g->env->gpu_memo)
            bootmemo_forget(g->env->gpu_memo);
        char *m = xstrfmt("the harness found no usable GPU although the grader's probe did: %s",
                          o->error_msg ? o->error_msg : "no GPU");
        judge_skip(cr, V_GRADER, m);
        free(m);
        return true;
    }
    if (o->error_kind && !strcmp(o->error_kind, "setup") &&
        (o->error_case < 0 || o->error_case == idx)) {
        judge_skip(cr, V_GRADER, o->error_msg ? o->error_msg : "harness setup failed");
        return true;
    }
    return false;
}

int judge_case(struct grading *g, const struct exercise_spec *ex, const struct variant_spec *v,
               const struct case_spec *c, const struct run_outcome *o,
               const struct run_case_outcome *co, const char *rundir, const char *expected,
               struct case_result *cr, struct error *err)
{
    int idx = (int)(co - o->cases);
    note_run_limits(g->r, &o->sb);
    cr->wall_s = co->wall_s;
    memcpy(cr->stage_s, co->stage_s, sizeof(cr->stage_s));
    cr->cpu_s = o->sb.cpu_s;
    cr->peak_rss_kb = o->sb.peak_rss_kb;
    if (run_untrusted(g, v, o, idx, cr) || fault_verdict(g->o->messages, co, cr))
        return 0;
    /* The process ended in this case, or right after its last case. */
    bool ended_here = !co->finished || (idx == o->last_case && !o->finished);
    bool ran = !ended_here || run_verdict(g->o->messages, o, co, cr, v->student.function,
                                          grading_case_timeout(g, ex, v, c));
    if (ran && co->n_guards > 0) {
        /* A write past a buffer comes first: it may also be why an output is wrong. */
        guard_verdict(g->o->messages, ex, c, &co->guards[0], cr);
        ran = false;
    } else if (ran || co->checks_done > 0) {
        /* Outputs of completed checked calls are compared even when a later phase failed:
         * the verdict names the first problem in the order a student would meet them. */
        struct case_result tmp;
        bool ok;
        memset(&tmp, 0, sizeof(tmp));
        /* Comparing megabytes takes a core for milliseconds: not while a series is timed on the
         * lane's cores, where it would be another process's load (run/work.h). */
        bool section = c->array_bytes >= COMPARE_COORDINATED_BYTES;
        if (section)
            work_begin();
        int crc = compare_outputs(g, ex, c, idx, expected, rundir, co->checks_done, &tmp, &ok, err);
        if (section)
            work_end();
        if (crc)
            return -1;
        if (!ok) {
            free(cr->message);
            free(cr->detail);
            cr->verdict = tmp.verdict;
            cr->message = tmp.message;
            cr->detail = tmp.detail;
            cr->mismatches = tmp.mismatches;
            cr->n_mismatches = tmp.n_mismatches;
            for (size_t i = 0; i < tmp.n_findings; i++)
                judge_add_finding(cr, tmp.findings[i]);
            free(tmp.findings);
            ran = false;
        }
    }
    /* A forged clock or work left on another stream is CH before what the timed pairs saw:
     * with transfers, a side stream's unfinished outputs also disagree with the reference. */
    if (ran && !speed_honest(g, co, cr))
        ran = false;
    if (ran && incidents_verdict(g->o->messages, co, cr)) {
        cr->verdict = V_PASS;
        free(cr->message);
        cr->message = xstrdup(messages_get(g->o->messages, "passed"));
        cr->points = cr->max_points;
    }
    return 0;
}

/* The case that shows a precision the lab forbids, and how: by numbers (its precision check
 * disagreed: WA) before by rate (its time past what FP32 can do: CH). -1 when none does. */
static int precision_source(struct grading *g, const struct exercise_spec *ex,
                            const struct variant_spec *v, const struct variant_result *vr,
                            const struct variant_runs *runs, bool *by_numbers)
{
    for (size_t ci = 0; runs->run_of && ci < ex->n_cases; ci++)
        if (runs->run_of[ci] >= 0 &&
            runs->outcomes[runs->run_of[ci]].cases[runs->index_in[ci]].precision_mismatch) {
            *by_numbers = true;
            return (int)ci;
        }
    for (size_t ci = 0; ci < ex->n_cases; ci++)
        if (vr->cases[ci].verdict == V_CHEAT &&
            limits_reduced_precision(g, ex, v, &ex->cases[ci], &vr->cases[ci])) {
            *by_numbers = false;
            return (int)ci;
        }
    return -1;
}

void judge_variant_precision(struct grading *g, const struct exercise_spec *ex,
                             const struct variant_spec *v, struct variant_result *vr,
                             const struct variant_runs *runs)
{
    const struct messages *msgs = g->o->messages;
    bool by_numbers = false;
    int src = precision_source(g, ex, v, vr, runs, &by_numbers);
    if (src < 0)
        return;
    const struct case_result *from = &vr->cases[src];
    /* A student's check names no hidden case (grade.c's progress lines). */
    bool veil = from->hidden && !g->env->grade_mode && !g->lab->show_hidden;
    const char *where = veil ? messages_get(msgs, "a hidden case") : from->case_id;
    for (size_t ci = 0; ci < ex->n_cases; ci++) {
        struct case_result *cr = &vr->cases[ci];
        if ((int)ci == src || cr->verdict != V_PASS)
            continue;
        set_verdict(cr, by_numbers ? V_WRONG : V_CHEAT,
                    xstrfmt(messages_get(msgs, "a precision the lab forbids is decided once for "
                                               "the whole variant, and case %s showed it: %s"),
                            where, from->message ? from->message : ""));
        cr->speedup_ref = cr->speedup_lo = cr->speedup_hi = cr->speedup_baseline = 0;
        cr->gflops = cr->gbps = 0;
    }
}

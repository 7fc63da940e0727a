#include "grade/results.h"

#include "base/json.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <limits.h>
#include <stdlib.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
    const char *code, *name;
} verdicts[] = {
    [V_PASS] = {"OK", "passed"},           [V_WRONG] = {"WA", "wrong values"},
    [V_COMPILE] = {"CE", "compile error"}, [V_MISSING] = {"MF", "missing function"},
    [V_CRASH] = {"SG", "crashed"},         [V_EXIT] = {"RE", "runtime error"},
    [V_TIMEOUT] = {"TO", "timed out"},     [V_MEMORY] = {"ML", "memory limit"},
    [V_OUTPUT] = {"OL", "output limit"},   [V_CHEAT] = {"CH", "tampering detected"},
    [V_SKIPPED] = {"SK", "skipped"},       [V_GRADER] = {"XX", "grader error"},
};

#define N_VERDICTS (sizeof(verdicts) / sizeof(verdicts[0]))

static const char *const not_timed_names[] = {NULL, "busy", "shared", "coordinator"};

const char *not_timed_name(enum not_timed n)
{
    return (size_t)n < sizeof(not_timed_names) / sizeof(*not_timed_names) ? not_timed_names[n]
                                                                          : NULL;
}

enum not_timed not_timed_parse(const char *name)
{
    for (size_t i = 1; name && i < sizeof(not_timed_names) / sizeof(*not_timed_names); i++)
        if (!strcmp(name, not_timed_names[i]))
            return (enum not_timed)i;
    return NOT_TIMED_NO;
}

const char *verdict_code(enum verdict v)
{
    return (size_t)v < N_VERDICTS ? verdicts[v].code : "??";
}

const char *verdict_name(enum verdict v)
{
    return (size_t)v < N_VERDICTS ? verdicts[v].name : "unknown";
}

int verdict_parse(const char *code)
{
    for (size_t i = 0; code && i < N_VERDICTS; i++)
        if (!strcmp(verdicts[i].code, code))
            return (int)i;
    return -1;
}

bool verdict_is_failure(enum verdict v)
{
    return v != V_PASS && v != V_SKIPPED && v != V_GRADER;
}

void results_init(struct results *r)
{
    memset(r, 0, sizeof(*r));
}

static void case_release(struct case_result *c)
{
    free(c->case_id);
    free(c->sizes);
    for (size_t i = 0; i < c->n_params; i++)
        free(c->params[i].name);
    free(c->params);
    free(c->message);
    free(c->detail);
    free(c->not_timed_detail);
    free(c->mismatches);
    free(c->round_ms);
    free(c->round_ref_ms);
    for (size_t i = 0; i < c->n_findings; i++)
        free(c->findings[i]);
    free(c->findings);
}

static void machine_release(struct machine_info *m)
{
    free(m->hostname);
    free(m->cpu_model);
    free(m->gpu_name);
    free(m->gpu_cc);
    free(m->driver_version);
    free(m->cuda_runtime_version);
    free(m->cc_version);
    free(m->nvcc_version);
    free(m->cflags);
    free(m->nvccflags);
    free(m->gpu_status);
    free(m->calibration);
    free(m->blas_core);
}

void results_release(struct results *r)
{
    char **strs[] = {&r->lab_id,         &r->lab_title,    &r->course,     &r->lang,
                     &r->student_id,     &r->student_name, &r->submission, &r->submission_hash,
                     &r->grader_version, &r->date,         &r->mode,       &r->isolation,
                     &r->timing_mode,    &r->cgroup,       &r->unreadable};
    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++)
        free(*strs[i]);
    machine_release(&r->machine);
    for (size_t e = 0; e < r->n_exercises; e++) {
        struct exercise_result *ex = &r->exercises[e];
        for (size_t v = 0; v < ex->n_variants; v++) {
            struct variant_result *vr = &ex->variants[v];
            for (size_t c = 0; c < vr->n_cases; c++)
                case_release(&vr->cases[c]);
            free(vr->cases);
            for (size_t k = 0; k < vr->n_sanitizer; k++)
                sanitizer_run_release(&vr->sanitizer[k]);
            free(vr->sanitizer);
            variant_profile_free(vr->profile);
            free(vr->variant_id);
            free(vr->title);
            free(vr->function);
            free(vr->target);
            free(vr->memory);
            for (size_t i = 0; i < vr->n_arg_memory; i++)
                free(vr->arg_memory[i].arg);
            free(vr->arg_memory);
            free(vr->build_log);
        }
        free(ex->variants);
        free(ex->exercise_id);
        free(ex->title);
        free(ex->perf_variant);
        free(ex->tol_summary);
    }
    free(r->exercises);
    results_lms_release(&r->lms);
    results_init(r);
}

void results_free(struct results *r)
{
    if (!r)
        return;
    results_release(r);
    free(r);
}

double results_final_score(const struct results *r)
{
    if (r->score != r->score)
        return r->score; /* unknown stays unknown */
    double s = r->lms.late.zeroed ? 0 : r->score - r->lms.late.penalty;
    return s > 0 ? s : 0;
}

void case_result_add_param(struct case_result *c, const char *name, long value)
{
    c->params = xrealloc(c->params, (c->n_params + 1) * sizeof(*c->params));
    c->params[c->n_params].name = xstrdup(name ? name : "");
    c->params[c->n_params].value = value;
    c->n_params++;
}

void variant_result_add_arg_memory(struct variant_result *v, const char *arg, enum mem_space space)
{
    v->arg_memory = xrealloc(v->arg_memory, (v->n_arg_memory + 1) * sizeof(*v->arg_memory));
    v->arg_memory[v->n_arg_memory].arg = xstrdup(arg ? arg : "");
    v->arg_memory[v->n_arg_memory].space = space;
    v->n_arg_memory++;
}

bool case_not_timed(const struct case_result *c)
{
    return c->verdict == V_PASS && c->not_timed != NOT_TIMED_NO;
}

/* why NOT_TIMED_NO: every reason. */
static int count_not_timed(const struct results *r, enum not_timed why)
{
    int n = 0;
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            for (size_t c = 0; c < r->exercises[e].variants[v].n_cases; c++) {
                const struct case_result *cr = &r->exercises[e].variants[v].cases[c];
                n += case_not_timed(cr) && (why == NOT_TIMED_NO || cr->not_timed == why);
            }
    return n;
}

int results_count_not_timed(const struct results *r)
{
    return count_not_timed(r, NOT_TIMED_NO);
}

int results_count_not_timed_why(const struct results *r, enum not_timed why)
{
    return why == NOT_TIMED_NO ? 0 : count_not_timed(r, why);
}

void results_tally(struct results *r)
{
    r->score = r->max_score = 0;
    r->n_pass = r->n_fail = r->n_skipped = r->n_grader_errors = 0;
    for (size_t e = 0; e < r->n_exercises; e++) {
        struct exercise_result *ex = &r->exercises[e];
        ex->points = ex->perf_points;
        ex->max_points = ex->perf_max_points;
        for (size_t v = 0; v < ex->n_variants; v++) {
            for (size_t c = 0; c < ex->variants[v].n_cases; c++) {
                const struct case_result *cr = &ex->variants[v].cases[c];
                ex->points += cr->points;
                ex->max_points += cr->max_points;
                if (cr->verdict == V_PASS)
                    r->n_pass++;
                else if (cr->verdict == V_SKIPPED)
                    r->n_skipped++;
                else if (cr->verdict == V_GRADER)
                    r->n_grader_errors++;
                if (verdict_is_failure(cr->verdict))
                    r->n_fail++;
            }
        }
        r->score += ex->points;
        r->max_score += ex->max_points;
    }
    r->n_not_timed = results_count_not_timed(r);
}

/*
 * results.json written: every field of struct results, NaN and infinities as null, the file
 * replaced atomically so a reader never sees half of one.
 */
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

static void put_str(struct json_writer *w, const char *key, const char *v)
{
    json_writer_key(w, key);
    json_writer_string(w, v);
}

static void put_num(struct json_writer *w, const char *key, double v)
{
    json_writer_key(w, key);
    json_writer_number(w, v);
}

static void put_bool(struct json_writer *w, const char *key, bool v)
{
    json_writer_key(w, key);
    json_writer_bool(w, v);
}

/* Only for a case that ran: a case never run has no stages, not stages of 0 s. */
static void put_stages(struct json_writer *w, const double *stage_s)
{
    double total = 0;
    for (int k = 0; k < RUN_STAGE_COUNT; k++)
        total += stage_s[k];
    if (total <= 0)
        return;
    json_writer_key(w, "stages");
    json_writer_begin_object(w);
    for (int k = 0; k < RUN_STAGE_COUNT; k++)
        put_num(w, run_stage_names[k], stage_s[k]);
    json_writer_end_object(w);
}

static void put_timing(struct json_writer *w, const char *key, const struct timing *t)
{
    json_writer_key(w, key);
    json_writer_begin_object(w);
    put_bool(w, "valid", t->valid);
    put_num(w, "samples", t->samples);
    put_num(w, "median_ms", t->median_ms);
    put_num(w, "min_ms", t->min_ms);
    put_num(w, "q1_ms", t->q1_ms);
    put_num(w, "q3_ms", t->q3_ms);
    put_num(w, "mean_ms", t->mean_ms);
    put_num(w, "stddev_ms", t->stddev_ms);
    put_num(w, "rse", t->rse);
    json_writer_end_object(w);
}

/* Written only where a clock was read or a maximum known: CPU runs and machines without NVML
 * leave it out. */
static void put_gpu_clock(struct json_writer *w, const char *key, const struct gpu_clock *g)
{
    if (g->max_mhz <= 0 && g->limit_mhz <= 0)
        return;
    json_writer_key(w, key);
    json_writer_begin_object(w);
    put_num(w, "min_mhz", g->min_mhz);
    put_num(w, "max_mhz", g->max_mhz);
    put_num(w, "limit_mhz", g->limit_mhz);
    put_num(w, "dropped", g->dropped);
    put_bool(w, "throttled", g->throttled);
    json_writer_end_object(w);
}

/* n_first is not written: it is the length of "first". */
static void put_mismatch(struct json_writer *w, const struct mismatch *m)
{
    json_writer_begin_object(w);
    put_str(w, "arg", m->arg);
    put_num(w, "n_mismatch", (double)m->n_mismatch);
    put_num(w, "n_total", (double)m->n_total);
    put_num(w, "max_abs", m->max_abs);
    put_num(w, "max_rel", m->max_rel);
    json_writer_key(w, "first");
    json_writer_begin_array(w);
    for (int k = 0; k < m->n_first && k < (int)(sizeof(m->first) / sizeof(m->first[0])); k++) {
        json_writer_begin_object(w);
        put_str(w, "index", m->first[k].index);
        put_num(w, "actual", m->first[k].actual);
        put_num(w, "expected", m->first[k].expected);
        json_writer_end_object(w);
    }
    json_writer_end_array(w);
    json_writer_end_object(w);
}

/* The speedups, their interval and what the timed pairs cost; the rounds' times. */
static void put_speed(struct json_writer *w, const struct case_result *c)
{
    if (c->not_timed != NOT_TIMED_NO) {
        put_str(w, "not_timed", not_timed_name(c->not_timed));
        if (c->not_timed_detail)
            put_str(w, "not_timed_detail", c->not_timed_detail);
        if (c->not_timed_cpus > 0)
            put_num(w, "not_timed_cpus", c->not_timed_cpus);
        if (c->not_timed_irq_cpus > 0)
            put_num(w, "not_timed_irq_cpus", c->not_timed_irq_cpus);
        if (c->not_timed_steal_cpus > 0)
            put_num(w, "not_timed_steal_cpus", c->not_timed_steal_cpus);
        if (c->not_timed_cpu_pid > 0)
            put_num(w, "not_timed_cpu_pid", (double)c->not_timed_cpu_pid);
        if (c->not_timed_gpu_pid > 0) {
            put_num(w, "not_timed_gpu_pid", (double)c->not_timed_gpu_pid);
            put_num(w, "not_timed_gpu_util", c->not_timed_gpu_util);
        }
    }
    put_num(w, "baseline_ms", c->baseline_ms);
    put_num(w, "speedup_ref", c->speedup_ref);
    put_num(w, "speedup_baseline", c->speedup_baseline);
    if (c->pairs > 0) {
        put_num(w, "speedup_lo", c->speedup_lo);
        put_num(w, "speedup_hi", c->speedup_hi);
        put_num(w, "pairs", c->pairs);
        if (c->stopped[0])
            put_str(w, "stopped", c->stopped);
        put_num(w, "checks_s", c->checks_s);
        put_num(w, "draws_s", c->draws_s);
    }
    if (c->n_rounds) {
        json_writer_key(w, "rounds");
        json_writer_begin_array(w);
        for (size_t i = 0; i < c->n_rounds; i++) {
            json_writer_begin_object(w);
            put_num(w, "ms", c->round_ms[i]);
            put_num(w, "ref_ms", c->round_ref_ms[i]);
            json_writer_end_object(w);
        }
        json_writer_end_array(w);
    }
}

static void put_case(struct json_writer *w, const struct case_result *c)
{
    json_writer_begin_object(w);
    put_str(w, "case_id", c->case_id);
    put_str(w, "sizes", c->sizes);
    json_writer_key(w, "params");
    json_writer_begin_array(w);
    for (size_t i = 0; i < c->n_params; i++) {
        json_writer_begin_object(w);
        put_str(w, "name", c->params[i].name);
        put_num(w, "value", (double)c->params[i].value);
        json_writer_end_object(w);
    }
    json_writer_end_array(w);
    put_bool(w, "hidden", c->hidden);
    put_bool(w, "slow", c->slow);
    put_str(w, "verdict", verdict_code(c->verdict));
    put_str(w, "message", c->message);
    put_str(w, "detail", c->detail);
    put_num(w, "points", c->points);
    put_num(w, "max_points", c->max_points);
    put_timing(w, "time", &c->time);
    put_timing(w, "time_transfer", &c->time_transfer);
    put_timing(w, "ref_time", &c->ref_time);
    put_timing(w, "ref_time_transfer", &c->ref_time_transfer);
    put_gpu_clock(w, "gpu_clock", &c->clock);
    put_gpu_clock(w, "ref_gpu_clock", &c->ref_clock);
    put_speed(w, c);
    put_num(w, "gflops", c->gflops);
    put_num(w, "gbps", c->gbps);
    json_writer_key(w, "mismatches");
    json_writer_begin_array(w);
    for (size_t i = 0; i < c->n_mismatches; i++)
        put_mismatch(w, &c->mismatches[i]);
    json_writer_end_array(w);
    json_writer_key(w, "findings");
    json_writer_begin_array(w);
    for (size_t i = 0; i < c->n_findings; i++)
        json_writer_string(w, c->findings[i]);
    json_writer_end_array(w);
    put_num(w, "perf_finding", (double)c->perf_finding);
    put_num(w, "roofline_first", (double)c->roofline_first);
    put_num(w, "roofline_count", (double)c->roofline_count);
    put_num(w, "wall_s", c->wall_s);
    put_stages(w, c->stage_s);
    put_num(w, "cpu_s", c->cpu_s);
    put_num(w, "peak_rss_kb", (double)c->peak_rss_kb);
    json_writer_end_object(w);
}

static void put_sanitizer_run(struct json_writer *w, const struct sanitizer_run *run)
{
    const struct sanitizer_output *o = &run->out;
    json_writer_begin_object(w);
    put_str(w, "tool", run->tool);
    put_str(w, "case_id", run->case_id);
    put_str(w, "status", sanitizer_status_name(run->status));
    put_str(w, "reason", run->reason);
    put_num(w, "wall_s", run->wall_s);
    put_bool(w, "summary", o->summary);
    put_num(w, "errors", (double)o->errors);
    put_num(w, "warnings", (double)o->warnings);
    put_num(w, "not_printed", (double)o->not_printed);
    put_num(w, "other_reports", (double)o->other_reports);
    put_str(w, "tool_error", o->tool_error);
    json_writer_key(w, "reports");
    json_writer_begin_array(w);
    for (size_t i = 0; i < o->n_reports; i++) {
        const struct sanitizer_report *r = &o->reports[i];
        json_writer_begin_object(w);
        put_str(w, "kind", r->kind);
        put_str(w, "location", r->location);
        put_str(w, "thread", r->thread);
        put_str(w, "block", r->block);
        put_str(w, "access", r->access);
        put_num(w, "count", (double)r->count);
        json_writer_end_object(w);
    }
    json_writer_end_array(w);
    json_writer_end_object(w);
}

static void put_variant(struct json_writer *w, const struct variant_result *vr)
{
    json_writer_begin_object(w);
    put_str(w, "variant_id", vr->variant_id);
    put_str(w, "title", vr->title);
    put_str(w, "function", vr->function);
    put_str(w, "target", vr->target);
    put_str(w, "memory", vr->memory);
    json_writer_key(w, "arg_memory");
    json_writer_begin_array(w);
    for (size_t i = 0; i < vr->n_arg_memory; i++) {
        json_writer_begin_object(w);
        put_str(w, "arg", vr->arg_memory[i].arg);
        put_str(w, "space", mem_space_name(vr->arg_memory[i].space));
        json_writer_end_object(w);
    }
    json_writer_end_array(w);
    put_bool(w, "built", vr->built);
    put_str(w, "build_log", vr->build_log);
    put_num(w, "n_warnings", vr->n_warnings);
    json_writer_key(w, "cases");
    json_writer_begin_array(w);
    for (size_t c = 0; c < vr->n_cases; c++)
        put_case(w, &vr->cases[c]);
    json_writer_end_array(w);
    /* Only when the pass was asked for: results of labs without it stay as they were. */
    if (vr->n_sanitizer) {
        json_writer_key(w, "sanitizer");
        json_writer_begin_array(w);
        for (size_t k = 0; k < vr->n_sanitizer; k++)
            put_sanitizer_run(w, &vr->sanitizer[k]);
        json_writer_end_array(w);
    }
    if (vr->profile) {
        json_writer_key(w, "profile");
        variant_profile_to_json(w, vr->profile);
    }
    json_writer_end_object(w);
}

static void put_exercise(struct json_writer *w, const struct exercise_result *ex)
{
    json_writer_begin_object(w);
    put_str(w, "exercise_id", ex->exercise_id);
    put_str(w, "title", ex->title);
    put_num(w, "points", ex->points);
    put_num(w, "max_points", ex->max_points);
    put_num(w, "perf_points", ex->perf_points);
    put_num(w, "perf_max_points", ex->perf_max_points);
    if (ex->perf_variant)
        put_str(w, "perf_variant", ex->perf_variant);
    put_str(w, "tol_summary", ex->tol_summary);
    json_writer_key(w, "variants");
    json_writer_begin_array(w);
    for (size_t v = 0; v < ex->n_variants; v++)
        put_variant(w, &ex->variants[v]);
    json_writer_end_array(w);
    json_writer_end_object(w);
}

static void put_machine(struct json_writer *w, const struct machine_info *m)
{
    json_writer_key(w, "machine");
    json_writer_begin_object(w);
    put_str(w, "hostname", m->hostname);
    put_str(w, "cpu_model", m->cpu_model);
    put_num(w, "cpu_threads", m->cpu_threads);
    put_str(w, "gpu_name", m->gpu_name);
    put_str(w, "gpu_cc", m->gpu_cc);
    put_num(w, "gpu_memory_mib", (double)m->gpu_memory_mib);
    put_str(w, "driver_version", m->driver_version);
    put_str(w, "cuda_runtime_version", m->cuda_runtime_version);
    put_str(w, "cc_version", m->cc_version);
    put_str(w, "nvcc_version", m->nvcc_version);
    put_str(w, "cflags", m->cflags);
    put_str(w, "nvccflags", m->nvccflags);
    put_str(w, "gpu_status", m->gpu_status);
    put_str(w, "calibration", m->calibration);
    if (m->blas_core)
        put_str(w, "blas_core", m->blas_core);
    json_writer_end_object(w);
}

void results_to_json(const struct results *r, struct strbuf *out)
{
    struct json_writer w;
    json_writer_init(&w, out);
    json_writer_begin_object(&w);
    put_str(&w, "format", RESULTS_FORMAT);
    put_str(&w, "lab_id", r->lab_id);
    put_num(&w, "lab_number", (double)r->lab_number);
    put_str(&w, "lab_title", r->lab_title);
    put_str(&w, "course", r->course);
    put_str(&w, "lang", r->lang);
    put_str(&w, "student_id", r->student_id);
    put_str(&w, "student_name", r->student_name);
    put_str(&w, "submission", r->submission);
    put_str(&w, "submission_hash", r->submission_hash);
    put_str(&w, "grader_version", r->grader_version);
    put_str(&w, "date", r->date);
    put_str(&w, "mode", r->mode);
    put_str(&w, "isolation", r->isolation);
    put_str(&w, "timing_mode", r->timing_mode);
    put_bool(&w, "timing_blocking", r->timing_blocking);
    put_str(&w, "cgroup", r->cgroup);
    put_bool(&w, "memory_limit_enforced", r->memory_limit_enforced);
    put_bool(&w, "pids_limit_enforced", r->pids_limit_enforced);
    put_bool(&w, "full", r->full);
    put_bool(&w, "hidden", r->hidden);
    put_bool(&w, "show_hidden", r->show_hidden);
    put_machine(&w, &r->machine);
    put_num(&w, "score", r->score);
    put_num(&w, "max_score", r->max_score);
    put_num(&w, "n_pass", r->n_pass);
    put_num(&w, "n_fail", r->n_fail);
    put_num(&w, "n_skipped", r->n_skipped);
    put_num(&w, "n_grader_errors", r->n_grader_errors);
    put_num(&w, "n_not_timed", r->n_not_timed);
    json_writer_key(&w, "phases");
    json_writer_begin_object(&w);
    put_num(&w, "build", r->phase_build_s);
    put_num(&w, "references", r->phase_references_s);
    put_num(&w, "runs", r->phase_runs_s);
    put_num(&w, "reports", r->phase_reports_s);
    json_writer_end_object(&w);
    json_writer_key(&w, "exercises");
    json_writer_begin_array(&w);
    for (size_t e = 0; e < r->n_exercises; e++)
        put_exercise(&w, &r->exercises[e]);
    json_writer_end_array(&w);
    results_lms_to_json(&w, &r->lms);
    json_writer_end_object(&w);
    strbuf_addch(out, '\n');
}

int results_write(const struct results *r, const char *path, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    results_to_json(r, &sb);
    int rc = write_file_atomic(path, sb.buf, sb.len, err);
    strbuf_release(&sb);
    return rc;
}

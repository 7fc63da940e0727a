/* profile_json: a variant's profile in results.json ("profile") and back. Every metric is
 * written under its key (run/ncu.h's ncu_metric_key), null when not measured; the diagnosis
 * is written for readers of the file and recomputed from the kernels when read. */
#include "grade/profile.h"

#include "base/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void put_num(struct json_writer *w, const char *key, double v)
{
    json_writer_key(w, key);
    json_writer_number(w, v);
}

static void put_str(struct json_writer *w, const char *key, const char *v)
{
    json_writer_key(w, key);
    json_writer_string(w, v);
}

/* A kernel's source line (run/ncu.h); nothing when ncu named none. count_key: "samples" or
 * "sectors". */
static void put_line(struct json_writer *w, const char *key, const char *count_key,
                     const struct ncu_line *l)
{
    if (!l->file)
        return;
    json_writer_key(w, key);
    json_writer_begin_object(w);
    put_str(w, "file", l->file);
    put_num(w, "line", (double)l->line);
    put_str(w, "source", l->source);
    put_num(w, count_key, l->count);
    put_num(w, "share", l->share);
    if (!isnan(l->wasted))
        put_num(w, "wasted", l->wasted);
    json_writer_end_object(w);
}

static void put_kernel(struct json_writer *w, const struct ncu_kernel *k)
{
    json_writer_begin_object(w);
    put_str(w, "name", k->name);
    put_num(w, "launches", (double)k->launches);
    put_num(w, "total_ns", k->total_ns);
    for (int m = 0; m < NCU_METRIC_COUNT; m++)
        put_num(w, ncu_metric_key((enum ncu_metric)m), k->m[m]);
    json_writer_key(w, "stalls");
    json_writer_begin_array(w);
    for (size_t s = 0; s < k->n_stalls; s++) {
        json_writer_begin_object(w);
        put_str(w, "reason", k->stalls[s].reason);
        put_num(w, "cycles", k->stalls[s].cycles);
        json_writer_end_object(w);
    }
    json_writer_end_array(w);
    put_line(w, "hot_line", "samples", &k->hot_line);
    put_line(w, "excess_line", "sectors", &k->excess_line);
    json_writer_end_object(w);
}

static void put_side(struct json_writer *w, const char *key, const struct profile_side *s)
{
    json_writer_key(w, key);
    json_writer_begin_object(w);
    put_str(w, "status", profile_status_name(s->status));
    put_str(w, "reason", s->reason ? profile_reason_name(s->reason) : NULL);
    put_str(w, "detail", s->detail);
    put_num(w, "wall_s", s->wall_s);
    put_num(w, "skipped_launches", (double)s->prof.skipped);
    json_writer_key(w, "kernels");
    json_writer_begin_array(w);
    for (size_t i = 0; i < s->prof.n_kernels; i++)
        put_kernel(w, &s->prof.kernels[i]);
    json_writer_end_array(w);
    json_writer_end_object(w);
}

static void put_check(struct json_writer *w, const char *key, const struct profile_crosscheck *x)
{
    if (!x->done)
        return;
    json_writer_key(w, key);
    json_writer_begin_object(w);
    put_num(w, "ncu_ms", x->ncu_ms);
    put_num(w, "event_ms", x->event_ms);
    put_num(w, "launches", (double)x->launches);
    json_writer_key(w, "agree");
    json_writer_bool(w, x->agree);
    json_writer_end_object(w);
}

static void put_diagnosis(struct json_writer *w, const struct variant_profile *p)
{
    static const char *const causes[] = {"uncoalesced",  "low_occupancy", "low_achieved",
                                         "memory_bound", "compute_bound", "latency_bound"};
    struct profile_diagnosis d;
    profile_diagnose(&p->student.prof, &p->reference.prof, &d);
    json_writer_key(w, "diagnosis");
    json_writer_begin_object(w);
    json_writer_key(w, "causes");
    json_writer_begin_array(w);
    for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
        if (d.causes & (1u << i))
            json_writer_string(w, causes[i]);
    json_writer_end_array(w);
    put_str(w, "limiter", d.limiter >= 0 ? ncu_metric_key((enum ncu_metric)d.limiter) : NULL);
    put_num(w, "sectors_per_request", d.sectors_per_request);
    put_num(w, "reference_sectors_per_request", d.ref_sectors_per_request);
    put_str(w, "line",
            d.line == PROFILE_LINE_EXCESS ? "excess_line"
            : d.line == PROFILE_LINE_HOT  ? "hot_line"
                                          : NULL);
    json_writer_end_object(w);
}

void variant_profile_to_json(struct json_writer *w, const struct variant_profile *p)
{
    json_writer_begin_object(w);
    put_str(w, "case_id", p->case_id);
    put_side(w, "student", &p->student);
    put_side(w, "reference", &p->reference);
    put_check(w, "crosscheck", &p->check);
    put_check(w, "reference_crosscheck", &p->ref_check);
    put_diagnosis(w, p);
    json_writer_end_object(w);
}

/* ---- reading ---- */

static double num_or_nan(const struct json_value *o, const char *key)
{
    const struct json_value *v = json_get(o, key);
    return v && v->type == JSON_NUMBER ? v->number : NAN;
}

static char *str_or_null(const struct json_value *o, const char *key)
{
    const char *s = json_get_string(o, key);
    return s ? xstrdup(s) : NULL;
}

/* A source line as put_line wrote it; absent (older results.json) or malformed: none. */
static void read_line(const struct json_value *o, const char *count_key, struct ncu_line *l)
{
    const char *file = json_get_string(o, "file");
    double line = num_or_nan(o, "line");
    if (!o || o->type != JSON_OBJECT || !file || isnan(line) || line < 1 || line > 1e9)
        return;
    l->file = xstrdup(file);
    l->line = (long)line;
    l->source = xstrdup(json_get_string(o, "source") ? json_get_string(o, "source") : "");
    l->count = num_or_nan(o, count_key);
    l->share = num_or_nan(o, "share");
    l->wasted = num_or_nan(o, "wasted");
}

static void read_kernel(const struct json_value *o, struct ncu_kernel *k)
{
    k->name = xstrdup(json_get_string(o, "name") ? json_get_string(o, "name") : "?");
    double launches = num_or_nan(o, "launches");
    k->launches = isnan(launches) || launches < 0 || launches > 1e9 ? 0 : (long)launches;
    k->total_ns = num_or_nan(o, "total_ns");
    for (int m = 0; m < NCU_METRIC_COUNT; m++)
        k->m[m] = num_or_nan(o, ncu_metric_key((enum ncu_metric)m));
    const struct json_value *st = json_get(o, "stalls");
    for (size_t i = 0; st && st->type == JSON_ARRAY && i < st->n && k->n_stalls < NCU_MAX_STALLS;
         i++) {
        const char *reason = json_get_string(json_at(st, i), "reason");
        if (!reason)
            continue;
        k->stalls[k->n_stalls].reason = xstrdup(reason);
        k->stalls[k->n_stalls++].cycles = num_or_nan(json_at(st, i), "cycles");
    }
    read_line(json_get(o, "hot_line"), "samples", &k->hot_line);
    read_line(json_get(o, "excess_line"), "sectors", &k->excess_line);
}

static void read_side(const struct json_value *o, struct profile_side *s)
{
    if (!o || o->type != JSON_OBJECT) {
        s->status = PROFILE_FAILED;
        s->reason = PROFILE_TOOL_FAILED;
        return;
    }
    int st = profile_status_parse(json_get_string(o, "status"));
    s->status = st < 0 ? PROFILE_FAILED : (enum profile_status)st;
    const char *reason = json_get_string(o, "reason");
    int r = reason ? profile_reason_parse(reason) : PROFILE_REASON_NONE;
    s->reason = r < 0 ? PROFILE_TOOL_FAILED : (enum profile_reason)r;
    s->detail = str_or_null(o, "detail");
    s->wall_s = num_or_nan(o, "wall_s");
    const struct json_value *ks = json_get(o, "kernels");
    size_t n = ks && ks->type == JSON_ARRAY ? ks->n : 0;
    s->prof.kernels = n ? xcalloc(n, sizeof(*s->prof.kernels)) : NULL;
    for (size_t i = 0; i < n; i++)
        if (json_at(ks, i)->type == JSON_OBJECT)
            read_kernel(json_at(ks, i), &s->prof.kernels[s->prof.n_kernels++]);
}

static void read_check(const struct json_value *o, struct profile_crosscheck *x)
{
    if (!o || o->type != JSON_OBJECT)
        return;
    double launches = num_or_nan(o, "launches");
    profile_crosscheck(num_or_nan(o, "ncu_ms"), num_or_nan(o, "event_ms"),
                       isnan(launches) || launches < 0 || launches > 1e9 ? 1 : (long)launches, x);
}

struct variant_profile *variant_profile_from_json(const struct json_value *o)
{
    if (!o || o->type != JSON_OBJECT)
        return NULL;
    struct variant_profile *p = xmalloc(sizeof(*p));
    variant_profile_init(p);
    p->case_id = str_or_null(o, "case_id");
    read_side(json_get(o, "student"), &p->student);
    read_side(json_get(o, "reference"), &p->reference);
    read_check(json_get(o, "crosscheck"), &p->check);
    read_check(json_get(o, "reference_crosscheck"), &p->ref_check);
    return p;
}

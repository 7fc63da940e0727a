/*
 * profile_explain: the diagnosis rules of --profile (grade/profile.h) on the ncu fixtures
 * (tests/fixtures/ncu/), each shown to hold and, with the number it rests on changed, to fail;
 * the sentences in both languages (templates/<lang>/strings.txt) naming coalescing, occupancy
 * and its limiter, the stall, the source line (the H100's source page); the cross-check's rule;
 * the line when nothing was measured; the profile's round trip through results.json.
 */
#include "base/alloc.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/strbuf.h"
#include "grade/profile.h"
#include "report/phrases.h"
#include "report/profile.h"
#include "report/report.h"
#include "run/ncu.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURES "tests/fixtures/ncu"

static void load_side(const char *name, struct profile_side *s)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    char *path = xstrfmt("%s/%s", FIXTURES, name);
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(ncu_parse_csv(sb.buf, sb.len, &s->prof), 0);
    s->status = PROFILE_RAN;
    strbuf_release(&sb);
    free(path);
}

/* A profile of the fixture pair "<what>_student.csv" and "<what>_reference.csv". */
static struct variant_profile *fixture_profile(const char *what)
{
    struct variant_profile *p = xmalloc(sizeof(*p));
    variant_profile_init(p);
    p->case_id = xstrdup("n4096");
    char *stu = xstrfmt("%s_student.csv", what), *ref = xstrfmt("%s_reference.csv", what);
    load_side(stu, &p->student);
    load_side(ref, &p->reference);
    free(stu);
    free(ref);
    return p;
}

/* The reference's side as when its runner could not be built. */
static void side_release_for_test(struct profile_side *s)
{
    ncu_profile_release(&s->prof);
    s->status = PROFILE_SKIPPED;
    s->reason = PROFILE_NO_REFERENCE;
}

static void diagnose(const struct variant_profile *p, struct profile_diagnosis *d)
{
    profile_diagnose(&p->student.prof, &p->reference.prof, d);
}

static struct ncu_kernel *stu_kernel(struct variant_profile *p)
{
    return &p->student.prof.kernels[profile_main_kernel(&p->student.prof)];
}

static void load_strings(const char *lang, struct strings *s)
{
    struct error err;
    char *path = xstrfmt("templates/%s/strings.txt", lang);
    strings_init(s);
    ck_assert_msg(strings_load(s, path, &err) == 0, "%s", err.msg);
    free(path);
}

/* The H100's source page of the uncoalesced fixture (tests/fixtures/ncu/README.md) read into the
 * student's main kernel, renamed as the captured one. */
static void with_source(struct variant_profile *p)
{
    struct ncu_kernel *k = stu_kernel(p);
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    free(k->name);
    k->name = xstrdup("scale_strided(const float *, float *, int)");
    ck_assert_msg(read_file(FIXTURES "/h100_uncoalesced_source.csv", &sb, &err) == 0, "%s",
                  err.msg);
    ck_assert_int_ge(ncu_parse_source(sb.buf, sb.len, &p->student.prof), 1);
    strbuf_release(&sb);
}

/* Every sentence joined, to look for words in. */
static char *sentences_text(const char *lang, const struct variant_profile *p)
{
    struct strings s;
    size_t n;
    load_strings(lang, &s);
    char **list = profile_sentences(&s, false, p, &n);
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < n; i++)
        strbuf_addf(&sb, "%s\n", list[i]);
    ck_assert(n <= 5);
    profile_sentences_free(list);
    strings_release(&s);
    return strbuf_detach(&sb);
}

START_TEST(uncoalesced_found)
{
    struct variant_profile *p = fixture_profile("uncoalesced");
    struct profile_diagnosis d;
    diagnose(p, &d);
    ck_assert(d.causes & PROFILE_UNCOALESCED);
    ck_assert(!d.stores);
    ck_assert_double_eq_tol(d.sectors_per_request, 32, 1e-9);
    ck_assert_double_eq_tol(d.ref_sectors_per_request, 4, 1e-9);
    ck_assert(!(d.causes & PROFILE_LOW_OCCUPANCY));
    ck_assert(d.causes & PROFILE_LATENCY_BOUND); /* 14.8% DRAM, 6.1% SM */
    ck_assert(!(d.causes & (PROFILE_MEMORY_BOUND | PROFILE_COMPUTE_BOUND)));
    variant_profile_free(p);
}
END_TEST

/* The rule fails when the reference reads as scattered (the problem's own pattern), and when
 * the accesses are coalesced. */
START_TEST(uncoalesced_rule_can_fail)
{
    struct variant_profile *p = fixture_profile("uncoalesced");
    struct profile_diagnosis d;
    struct ncu_kernel *r = &p->reference.prof.kernels[0];
    r->m[NCU_LD_SECTORS] = 14e6; /* 26.7 per request: 32 is under 1.5 times that */
    diagnose(p, &d);
    ck_assert(!(d.causes & PROFILE_UNCOALESCED));
    r->m[NCU_LD_SECTORS] = 2097152;
    stu_kernel(p)->m[NCU_LD_SECTORS] = 2097152 * 2; /* 8 per request: 32 doubles */
    diagnose(p, &d);
    ck_assert(!(d.causes & PROFILE_UNCOALESCED));
    stu_kernel(p)->m[NCU_LD_REQUESTS] = NAN; /* not measured: no claim */
    diagnose(p, &d);
    ck_assert(!(d.causes & PROFILE_UNCOALESCED));
    ck_assert(isnan(d.sectors_per_request) || d.stores);
    /* Stores scattered instead: named as the stores. */
    stu_kernel(p)->m[NCU_ST_SECTORS] = 16777216;
    diagnose(p, &d);
    ck_assert(d.causes & PROFILE_UNCOALESCED);
    ck_assert(d.stores);
    variant_profile_free(p);
}
END_TEST

START_TEST(occupancy_found_with_limiter)
{
    struct variant_profile *p = fixture_profile("occupancy");
    struct profile_diagnosis d;
    diagnose(p, &d);
    ck_assert(d.causes & PROFILE_LOW_OCCUPANCY);
    ck_assert_int_eq(d.limiter, NCU_LIMIT_SMEM);
    ck_assert(!(d.causes & PROFILE_UNCOALESCED));
    struct ncu_kernel *k = stu_kernel(p);
    k->m[NCU_LIMIT_REGISTERS] = 2;
    diagnose(p, &d);
    ck_assert_int_eq(d.limiter, NCU_LIMIT_REGISTERS);
    k->m[NCU_LIMIT_REGISTERS] = 32;
    k->m[NCU_LIMIT_SMEM] = 32;
    k->m[NCU_LIMIT_BLOCKS] = 3;
    diagnose(p, &d);
    ck_assert_int_eq(d.limiter, NCU_LIMIT_BLOCKS);
    k->m[NCU_OCC_THEORETICAL] = 75; /* enough: the rule fails */
    diagnose(p, &d);
    ck_assert(!(d.causes & PROFILE_LOW_OCCUPANCY));
    ck_assert_int_eq(d.limiter, -1);
    ck_assert(d.causes & PROFILE_LOW_ACHIEVED); /* 12.1% achieved of 75% */
    k->m[NCU_OCC_ACHIEVED] = 70;
    diagnose(p, &d);
    ck_assert(!(d.causes & PROFILE_LOW_ACHIEVED));
    k->m[NCU_OCC_THEORETICAL] = NAN;
    diagnose(p, &d);
    ck_assert(!(d.causes & (PROFILE_LOW_OCCUPANCY | PROFILE_LOW_ACHIEVED)));
    variant_profile_free(p);
}
END_TEST

/* The H100's own capture of a kernel starved by 48 KiB of shared memory per 64-thread block. */
START_TEST(h100_capture_diagnosed)
{
    struct variant_profile *p = fixture_profile("h100_starved");
    struct profile_diagnosis d;
    diagnose(p, &d);
    ck_assert(d.causes & PROFILE_LOW_OCCUPANCY);
    ck_assert_int_eq(d.limiter, NCU_LIMIT_SMEM);
    ck_assert(!(d.causes & PROFILE_UNCOALESCED));
    variant_profile_free(p);
}
END_TEST

START_TEST(bound_rules)
{
    struct variant_profile *p = fixture_profile("occupancy");
    struct profile_diagnosis d;
    struct ncu_kernel *k = stu_kernel(p);
    k->m[NCU_DRAM_PCT] = 85;
    diagnose(p, &d);
    ck_assert(d.causes & PROFILE_MEMORY_BOUND);
    ck_assert(!(d.causes & (PROFILE_COMPUTE_BOUND | PROFILE_LATENCY_BOUND)));
    k->m[NCU_DRAM_PCT] = 20;
    k->m[NCU_SM_PCT] = 75;
    diagnose(p, &d);
    ck_assert(d.causes & PROFILE_COMPUTE_BOUND);
    ck_assert(!(d.causes & (PROFILE_MEMORY_BOUND | PROFILE_LATENCY_BOUND)));
    k->m[NCU_SM_PCT] = NAN; /* half measured: no latency claim */
    diagnose(p, &d);
    ck_assert(!(d.causes & (PROFILE_COMPUTE_BOUND | PROFILE_LATENCY_BOUND)));
    variant_profile_free(p);
}
END_TEST

START_TEST(no_kernel_no_diagnosis)
{
    struct variant_profile *p = xmalloc(sizeof(*p));
    struct profile_diagnosis d;
    variant_profile_init(p);
    diagnose(p, &d);
    ck_assert_int_eq(d.kernel, -1);
    ck_assert_int_eq(d.causes, 0);
    size_t n;
    struct strings s;
    load_strings("en", &s);
    char **list = profile_sentences(&s, false, p, &n);
    ck_assert_int_eq(n, 0);
    profile_sentences_free(list);
    strings_release(&s);
    variant_profile_free(p);
}
END_TEST

START_TEST(sentences_name_coalescing)
{
    struct variant_profile *p = fixture_profile("uncoalesced");
    char *en = sentences_text("en", p), *es = sentences_text("es", p);
    ck_assert_msg(strstr(en, "uncoalesced") && strstr(en, "32.0 sectors"), "%s", en);
    ck_assert_msg(strstr(en, "(the reference's: 4.0)"), "%s", en);
    ck_assert_msg(strstr(en, "transpose_naive") && strstr(en, "transpose_tiled"), "%s", en);
    ck_assert_msg(strstr(en, "latency-bound"), "%s", en);
    ck_assert_msg(strstr(en, "long scoreboard"), "%s", en);
    ck_assert_msg(!strstr(en, "profile."), "a key left unrendered: %s", en);
    ck_assert_msg(strstr(es, "no están coalescidas") && strstr(es, "32.0 sectores"), "%s", es);
    ck_assert_msg(!strstr(es, "profile."), "%s", es);
    free(en);
    free(es);
    variant_profile_free(p);
}
END_TEST

START_TEST(sentences_name_occupancy_limiter)
{
    struct variant_profile *p = fixture_profile("occupancy");
    char *en = sentences_text("en", p), *es = sentences_text("es", p);
    ck_assert_msg(strstr(en, "occupancy is at most 12%") && strstr(en, "limited by shared memory"),
                  "%s", en);
    ck_assert_msg(strstr(en, "48.0 KiB per block") && strstr(en, "only 4 blocks"), "%s", en);
    ck_assert_msg(!strstr(en, "uncoalesced"), "%s", en);
    ck_assert_msg(strstr(es, "ocupación es como mucho del 12%") &&
                      strstr(es, "limitada por la memoria compartida"),
                  "%s", es);
    free(en);
    free(es);
    stu_kernel(p)->m[NCU_LIMIT_REGISTERS] = 2;
    en = sentences_text("en", p);
    ck_assert_msg(strstr(en, "limited by registers: 22 per thread"), "%s", en);
    free(en);
    variant_profile_free(p);
}
END_TEST

START_TEST(crosscheck_rule)
{
    struct profile_crosscheck x;
    ck_assert_double_eq_tol(profile_tolerance_ms(1.0, 1), 0.055, 1e-12);
    ck_assert_double_eq_tol(profile_tolerance_ms(1.0, 3), 0.065, 1e-12);
    profile_crosscheck(1.70, 1.734, 1, &x);
    ck_assert(x.done && x.agree);
    profile_crosscheck(1.40, 1.734, 1, &x); /* 19% apart */
    ck_assert(x.done && !x.agree);
    profile_crosscheck(0.004, 0.008, 1, &x); /* tiny kernel: launch gaps dominate */
    ck_assert(x.done && x.agree);
    profile_crosscheck(NAN, 1.0, 1, &x);
    ck_assert(!x.done);
    profile_crosscheck(1.0, 0, 1, &x);
    ck_assert(!x.done);
    struct variant_profile *p = fixture_profile("uncoalesced");
    ck_assert_double_eq_tol(profile_kernel_ms(&p->student.prof), 1.734112, 1e-9);
    profile_crosscheck(profile_kernel_ms(&p->student.prof), 2.5, 1, &p->check);
    char *en = sentences_text("en", p);
    ck_assert_msg(strstr(en, "1.7341 ms of kernel time per call") && strstr(en, "2.5000 ms"), "%s",
                  en);
    free(en);
    variant_profile_free(p);
}
END_TEST

START_TEST(missing_lines)
{
    struct strings s;
    load_strings("en", &s);
    struct variant_profile *p = xmalloc(sizeof(*p));
    variant_profile_init(p);
    p->student.status = PROFILE_FAILED;
    p->student.reason = PROFILE_NO_PERMISSION;
    char *line = profile_missing_line(&s, false, p);
    ck_assert_msg(strstr(line, "ERR_NVGPUCTRPERM") &&
                      strstr(line, "NVreg_RestrictProfilingToAdminUsers=0"),
                  "%s", line);
    free(line);
    for (int r = PROFILE_NO_GPU; r < PROFILE_REASON_COUNT; r++) {
        p->student.reason = (enum profile_reason)r;
        line = profile_missing_line(&s, false, p);
        ck_assert_msg(!strncmp(line, "not profiled", 12), "%s: %s", profile_reason_name(r), line);
        free(line);
        ck_assert_int_eq(profile_reason_parse(profile_reason_name((enum profile_reason)r)), r);
    }
    p->student.status = PROFILE_RAN;
    ck_assert_ptr_null(profile_missing_line(&s, false, p));
    strings_release(&s);
    variant_profile_free(p);
}
END_TEST

/* Uncoalesced: the sentence names the line the excess sectors come from. */
START_TEST(sentences_name_excess_line)
{
    struct variant_profile *p = fixture_profile("uncoalesced");
    with_source(p);
    struct profile_diagnosis d;
    diagnose(p, &d);
    ck_assert_int_eq(d.line, PROFILE_LINE_EXCESS);
    char *en = sentences_text("en", p), *es = sentences_text("es", p);
    ck_assert_msg(strstr(en, "100% of these excess sectors is scale_gpu.cu:12: "
                             "“out[i] = 2.0f * x[i];” (88% of the sectors it reads or writes"),
                  "%s", en);
    ck_assert_msg(!strstr(en, "wait most at"), "%s", en); /* one line named, not two */
    ck_assert_msg(strstr(es, "scale_gpu.cu:12: «out[i] = 2.0f * x[i];»") && !strstr(es, "profile."),
                  "%s", es);
    free(en);
    free(es);
    /* The line's text not printed (source file not found): the place alone. */
    free(stu_kernel(p)->excess_line.source);
    stu_kernel(p)->excess_line.source = xstrdup("");
    stu_kernel(p)->excess_line.wasted = NAN;
    en = sentences_text("en", p);
    ck_assert_msg(strstr(en, "excess sectors is scale_gpu.cu:12.") && !strstr(en, "“"), "%s", en);
    free(en);
    variant_profile_free(p);
}
END_TEST

/* Not uncoalesced: the line holding most stall samples, when it holds a clear share. */
START_TEST(sentences_name_hot_line)
{
    struct variant_profile *p = fixture_profile("occupancy");
    with_source(p);
    struct profile_diagnosis d;
    diagnose(p, &d);
    ck_assert(!(d.causes & PROFILE_UNCOALESCED));
    ck_assert_int_eq(d.line, PROFILE_LINE_HOT);
    char *en = sentences_text("en", p), *es = sentences_text("es", p);
    ck_assert_msg(strstr(en, "wait most at scale_gpu.cu:12: “out[i] = 2.0f * x[i];” (86% of the "
                             "stall samples)"),
                  "%s", en);
    ck_assert_msg(strstr(es, "esperan sobre todo en scale_gpu.cu:12") && !strstr(es, "profile."),
                  "%s", es);
    free(en);
    free(es);
    stu_kernel(p)->hot_line.share = 0.25; /* no line stands out: none named */
    diagnose(p, &d);
    ck_assert_int_eq(d.line, PROFILE_LINE_NONE);
    en = sentences_text("en", p);
    ck_assert_msg(!strstr(en, "scale_gpu.cu"), "%s", en);
    free(en);
    variant_profile_free(p);
    /* Uncoalesced without an excess line (not measured): the hot line instead. */
    p = fixture_profile("uncoalesced");
    with_source(p);
    free(stu_kernel(p)->excess_line.file);
    stu_kernel(p)->excess_line.file = NULL;
    diagnose(p, &d);
    ck_assert_int_eq(d.line, PROFILE_LINE_HOT);
    variant_profile_free(p);
}
END_TEST

/* The lines through results.json, and a results.json written before them (no line) read. */
START_TEST(json_round_trip_lines)
{
    struct variant_profile *p = fixture_profile("uncoalesced");
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            with_source(p);
        struct strbuf sb = STRBUF_INIT;
        struct json_writer w;
        json_writer_init(&w, &sb);
        variant_profile_to_json(&w, p);
        ck_assert((strstr(sb.buf, "\"excess_line\"") != NULL) == (pass == 1));
        struct json_value *v = NULL;
        ck_assert(json_parse(sb.buf, sb.len, &v, NULL) == 0);
        struct variant_profile *q = variant_profile_from_json(v);
        const struct ncu_kernel *a = stu_kernel(p), *b = &q->student.prof.kernels[0];
        const struct ncu_line *la[] = {&a->excess_line, &a->hot_line};
        const struct ncu_line *lb[] = {&b->excess_line, &b->hot_line};
        for (int i = 0; i < 2; i++) {
            ck_assert_int_eq(la[i]->file == NULL, lb[i]->file == NULL);
            if (!la[i]->file)
                continue;
            ck_assert_str_eq(lb[i]->file, la[i]->file);
            ck_assert_int_eq(lb[i]->line, la[i]->line);
            ck_assert_str_eq(lb[i]->source, la[i]->source);
            ck_assert_double_eq_tol(lb[i]->count, la[i]->count, 1e-6);
            ck_assert_double_eq_tol(lb[i]->share, la[i]->share, 1e-9);
            ck_assert(isnan(la[i]->wasted) ? isnan(lb[i]->wasted)
                                           : fabs(la[i]->wasted - lb[i]->wasted) < 1e-9);
        }
        struct profile_diagnosis d;
        profile_diagnose(&q->student.prof, &q->reference.prof, &d);
        ck_assert_int_eq(d.line, pass == 0 ? PROFILE_LINE_NONE : PROFILE_LINE_EXCESS);
        variant_profile_free(q);
        json_value_free(v);
        strbuf_release(&sb);
    }
    variant_profile_free(p);
}
END_TEST

START_TEST(json_round_trip)
{
    struct variant_profile *p = fixture_profile("uncoalesced");
    p->reference.status = PROFILE_FAILED;
    p->reference.reason = PROFILE_TOOL_FAILED;
    p->reference.detail = xstrdup("boom");
    stu_kernel(p)->m[NCU_SM_PCT] = NAN;
    profile_crosscheck(1.7, 1.75, 1, &p->check);
    struct strbuf sb = STRBUF_INIT;
    struct json_writer w;
    json_writer_init(&w, &sb);
    variant_profile_to_json(&w, p);
    ck_assert(strstr(sb.buf, "\"uncoalesced\"") != NULL); /* the diagnosis, for readers */
    struct json_value *v = NULL;
    struct error err;
    ck_assert_msg(json_parse(sb.buf, sb.len, &v, &err) == 0, "%s", err.msg);
    struct variant_profile *q = variant_profile_from_json(v);
    ck_assert_ptr_nonnull(q);
    ck_assert_str_eq(q->case_id, "n4096");
    ck_assert_int_eq(q->student.status, PROFILE_RAN);
    ck_assert_int_eq(q->reference.status, PROFILE_FAILED);
    ck_assert_int_eq(q->reference.reason, PROFILE_TOOL_FAILED);
    ck_assert_str_eq(q->reference.detail, "boom");
    ck_assert_int_eq(q->student.prof.n_kernels, 1);
    const struct ncu_kernel *a = stu_kernel(p), *b = &q->student.prof.kernels[0];
    ck_assert_str_eq(a->name, b->name);
    for (int m = 0; m < NCU_METRIC_COUNT; m++)
        ck_assert(isnan(a->m[m]) ? isnan(b->m[m]) : fabs(a->m[m] - b->m[m]) < 1e-9);
    ck_assert_int_eq(b->n_stalls, a->n_stalls);
    ck_assert_str_eq(b->stalls[0].reason, "long_scoreboard");
    ck_assert(q->check.done && q->check.agree);
    ck_assert(!q->ref_check.done);
    variant_profile_free(q);
    json_value_free(v);
    ck_assert_ptr_null(variant_profile_from_json(NULL));
    strbuf_release(&sb);
    variant_profile_free(p);
}
END_TEST

/* The report: a results with one GPU variant profiled, rendered in English. */
static char *render_report(struct variant_profile *p, const char *lang)
{
    struct results r;
    results_init(&r);
    r.lab_id = xstrdup("lab96");
    r.lab_title = xstrdup("Profile test lab");
    r.student_id = xstrdup("alu01");
    r.lang = xstrdup(lang);
    r.mode = xstrdup("check");
    r.n_exercises = 1;
    r.exercises = xcalloc(1, sizeof(*r.exercises));
    struct exercise_result *ex = &r.exercises[0];
    ex->exercise_id = xstrdup("scale");
    ex->n_variants = 1;
    ex->variants = xcalloc(1, sizeof(*ex->variants));
    struct variant_result *vr = &ex->variants[0];
    vr->variant_id = xstrdup("gpu");
    vr->target = xstrdup("gpu");
    vr->built = true;
    vr->n_cases = 1;
    vr->cases = xcalloc(1, sizeof(*vr->cases));
    vr->cases[0].case_id = xstrdup("n4096");
    vr->cases[0].verdict = V_PASS;
    vr->profile = p;
    char tmpl[] = "/tmp/lg_profile_report_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    struct report_opts o;
    struct report_outcome out;
    struct error err;
    report_opts_init(&o);
    o.templates_dir = "templates";
    error_init(&err);
    ck_assert_msg(report_student(&r, tmpl, &o, &out, &err) == 0, "%s", err.msg);
    struct strbuf sb = STRBUF_INIT;
    ck_assert(read_file(out.md_path, &sb, &err) == 0);
    remove_tree(tmpl, NULL);
    results_release(&r); /* frees the profile too */
    /* Markdown's escapes dropped, to look for the words. */
    char *md = strbuf_detach(&sb), *w = md;
    for (const char *c = md; *c; c++)
        if (*c != '\\')
            *w++ = *c;
    *w = '\0';
    return md;
}

START_TEST(report_section)
{
    char *md = render_report(fixture_profile("uncoalesced"), "en");
    ck_assert_msg(strstr(md, "**Nsight Compute profile** of case n4096"), "%s", md);
    ck_assert_msg(strstr(md, "| Yours (transpose_naive) | Reference (transpose_tiled) |"), "%s",
                  md);
    ck_assert_msg(strstr(md, "| 32-byte sectors per request (loads / stores) | 32.0 / 4.0 | "
                             "4.0 / 4.0 |"),
                  "%s", md);
    ck_assert_msg(strstr(md, "Its global memory loads are uncoalesced"), "%s", md);
    ck_assert_msg(!strstr(md, "profile."), "a key left unrendered: %s", md);
    free(md);
    struct variant_profile *p = fixture_profile("occupancy");
    side_release_for_test(&p->reference);
    md = render_report(p, "es");
    ck_assert_msg(strstr(md, "limitada por la memoria compartida"), "%s", md);
    ck_assert_msg(strstr(md, "Referencia: sin perfil: la referencia no se ha podido compilar"),
                  "%s", md);
    free(md);
    p = xmalloc(sizeof(*p));
    variant_profile_init(p);
    p->student.status = p->reference.status = PROFILE_FAILED;
    p->student.reason = p->reference.reason = PROFILE_NO_PERMISSION;
    md = render_report(p, "en");
    ck_assert_msg(strstr(md, "ERR_NVGPUCTRPERM"), "%s", md);
    ck_assert_msg(!strstr(md, "| Yours"), "a table without measurements: %s", md);
    free(md);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("profile_explain");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, uncoalesced_found);
    tcase_add_test(tc, uncoalesced_rule_can_fail);
    tcase_add_test(tc, occupancy_found_with_limiter);
    tcase_add_test(tc, h100_capture_diagnosed);
    tcase_add_test(tc, bound_rules);
    tcase_add_test(tc, no_kernel_no_diagnosis);
    tcase_add_test(tc, sentences_name_coalescing);
    tcase_add_test(tc, sentences_name_occupancy_limiter);
    tcase_add_test(tc, crosscheck_rule);
    tcase_add_test(tc, missing_lines);
    tcase_add_test(tc, json_round_trip);
    tcase_add_test(tc, sentences_name_excess_line);
    tcase_add_test(tc, sentences_name_hot_line);
    tcase_add_test(tc, json_round_trip_lines);
    tcase_add_test(tc, report_section);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

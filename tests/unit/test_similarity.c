/*
 * similarity: normalization, winnowing, shared fragments, and the fixture class of
 * tests/fixtures/similarity (copies renamed, reordered and re-commented of one submission, the
 * skeleton as handed out, two independent solutions written differently).
 */
#include "analyze/fingerprint.h"
#include "analyze/match.h"
#include "analyze/normalize.h"
#include "analyze/similarity.h"
#include "analyze/simreport.h"
#include "analyze/tokens.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "spec/spec.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

static void normalized(const char *text, enum src_lang lang, struct norm_stream *s)
{
    struct token_list l;
    struct error err;
    token_list_init(&l);
    ck_assert_msg(tokens_lex("t", text, strlen(text), lang, &l, &err) == 0, "%s", err.msg);
    norm_stream_init(s);
    norm_append(s, &l, 0);
    token_list_release(&l);
}

static bool same_syms(const struct norm_stream *a, const struct norm_stream *b)
{
    if (a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++)
        if (a->t[i].sym != b->t[i].sym)
            return false;
    return true;
}

/* Names, literals, comments, layout and launch configurations do not matter; CUDA's own
 * names and the code's structure do. */
START_TEST(test_normalization)
{
    struct norm_stream a, b, c;
    normalized("__global__ void k(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] = 2; }\n"
               "void h(float *x, int n) { k<<<(n + 127) / 128, 128>>>(x, n); }",
               SRC_CUDA, &a);
    normalized("/* renamed */ __global__ void kern(float *v,\n int len) {\n"
               "  int j = threadIdx.x; // me\n  if (j < len)\n v[j] = 5.5; }\n"
               "void host(float *v, int len) { kern<<<64, 256, 0, s>>>(v, len); }",
               SRC_CUDA, &b);
    ck_assert(same_syms(&a, &b));
    normalized("__global__ void k(float *x, int n) { int i = threadIdx.y; if (i < n) x[i] = 2; }\n"
               "void h(float *x, int n) { k<<<(n + 127) / 128, 128>>>(x, n); }",
               SRC_CUDA, &c);
    ck_assert(!same_syms(&a, &c));
    ck_assert_uint_eq(a.t[0].sym, b.t[0].sym); /* __global__ kept */
    ck_assert_uint_eq(a.t[2].sym, NORM_ID);
    norm_stream_release(&a);
    norm_stream_release(&b);
    norm_stream_release(&c);
}
END_TEST

/* Error-check macros, their calls and the runtime's allocation, copy and synchronize calls are
 * boilerplate: left out whatever their spelling. */
START_TEST(test_boilerplate_is_neutral)
{
    struct norm_stream a, b;
    normalized("#define CK(x) do { cudaError_t e = (x); if (e) puts(cudaGetErrorString(e)); } "
               "while (0)\n"
               "void f(float *d, const float *h, size_t n) {\n"
               "  CK(cudaMalloc(&d, n));\n  CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));\n"
               "  g(d, n);\n  cudaDeviceSynchronize();\n  CK(cudaFree(d));\n}\n",
               SRC_CUDA, &a);
    normalized("void f(float *d, const float *h, size_t n) {\n  g(d, n);\n}\n", SRC_CUDA, &b);
    ck_assert(same_syms(&a, &b));
    norm_stream_release(&a);
    norm_stream_release(&b);
}
END_TEST

/* A stream of n symbols: a run shared with another stream, then filler of its own. */
static void synthetic(struct norm_stream *s, uint32_t seed, size_t shared_from, size_t shared,
                      size_t n)
{
    norm_stream_init(s);
    for (size_t i = 0; i < n; i++) {
        ALLOC_GROW(s->t, s->n + 1, s->alloc);
        bool common = i >= shared_from && i < shared_from + shared;
        uint32_t v = common ? (uint32_t)(i - shared_from) * 7919u + 17u
                            : (uint32_t)(seed * 1000003u + i * 104729u);
        s->t[s->n++] = (struct norm_token){v | 0x80000000u, 0, 0, (unsigned)i + 1, (unsigned)i, 1};
    }
}

/* Winnowing's guarantee: a shared run of w + k - 1 tokens gives a fingerprint in common; the
 * fragment found is the whole run, and shorter runs than min_match do not count. */
START_TEST(test_winnowing_and_fragments)
{
    int k = 12, w = 8;
    struct norm_stream a, b;
    struct fp_set fa, fb;
    synthetic(&a, 1, 30, (size_t)(w + k - 1), 120);
    synthetic(&b, 2, 70, (size_t)(w + k - 1), 150);
    fp_set_init(&fa);
    fp_set_init(&fb);
    fp_build(&fa, &a, k, w);
    fp_build(&fb, &b, k, w);
    bool shared = false;
    for (size_t i = 0; i < fa.n_win; i++)
        shared |= fp_contains(fb.win, fb.n_win, fa.win[i]);
    ck_assert(shared);
    struct match_params mp = {k, 15};
    struct match_result m;
    match_result_init(&m);
    match_pair(&a, &fa, &b, &fb, &mp, &m);
    ck_assert_uint_eq(m.n, 1);
    ck_assert_uint_eq(m.frags[0].a, 30);
    ck_assert_uint_eq(m.frags[0].b, 70);
    ck_assert_uint_eq(m.frags[0].len, (unsigned)(w + k - 1));
    ck_assert_uint_eq(m.covered_a, (size_t)(w + k - 1));
    mp.min_match = w + k;
    match_pair(&a, &fa, &b, &fb, &mp, &m);
    ck_assert_uint_eq(m.n, 0);
    /* A skeleton covering the run: nothing left to share. */
    size_t n_skel;
    uint64_t *skel = fp_hash_set(&a, k, &n_skel);
    ck_assert_uint_eq(fp_mark_skeleton(&b, k, skel, n_skel), (size_t)(w + k - 1));
    fp_build(&fb, &b, k, w);
    mp.min_match = 1;
    match_pair(&a, &fa, &b, &fb, &mp, &m);
    ck_assert_uint_eq(m.n, 0);
    ck_assert_uint_eq(match_countable(&b), 150 - (size_t)(w + k - 1));
    free(skel);
    match_result_release(&m);
    fp_set_release(&fa);
    fp_set_release(&fb);
    norm_stream_release(&a);
    norm_stream_release(&b);
}
END_TEST

static const struct sim_pair *pair_of(const struct sim_result *r, const char *a, const char *b)
{
    for (size_t i = 0; i < r->n_pairs; i++) {
        const char *x = r->subs[r->pairs[i].a].id, *y = r->subs[r->pairs[i].b].id;
        if ((!strcmp(x, a) && !strcmp(y, b)) || (!strcmp(x, b) && !strcmp(y, a)))
            return &r->pairs[i];
    }
    return NULL;
}

static void run_fixture(struct lab *lab, struct sim_result *r, char **work)
{
    struct sim_opts o;
    struct error err;
    lab_init(lab);
    ck_assert_msg(spec_load(lab, "labs/lab6/lab.yaml", NULL, &err) == 0, "%s", err.msg);
    *work = xstrdup("/tmp/lg-unit-sim-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(*work));
    sim_opts_init(&o);
    o.submissions = "tests/fixtures/similarity/class";
    o.work_dir = *work;
    sim_result_init(r);
    ck_assert_msg(sim_run(lab, &o, r, &err) == 0, "%s", err.msg);
}

/* The copies are found, pairwise and as one group of four; the skeleton as handed out and the
 * two independent solutions pair with nobody. */
START_TEST(test_fixture_class)
{
    static const char *const copies[] = {"orig", "renamed", "reordered", "commented"};
    struct lab lab;
    struct sim_result r;
    char *work;
    run_fixture(&lab, &r, &work);
    ck_assert_uint_eq(r.n_subs, 7);
    ck_assert_uint_eq(r.n_reported, 6);
    for (size_t i = 0; i < 4; i++)
        for (size_t j = i + 1; j < 4; j++) {
            const struct sim_pair *p = pair_of(&r, copies[i], copies[j]);
            ck_assert_msg(p && p->similarity >= 0.9, "%s %s: %.2f", copies[i], copies[j],
                          p ? p->similarity : 0.0);
            ck_assert_uint_ge(p->frags[0].tokens, 100);
        }
    for (size_t i = 0; i < r.n_pairs; i++) {
        const char *a = r.subs[r.pairs[i].a].id, *b = r.subs[r.pairs[i].b].id;
        ck_assert_str_ne(a, "skeleton_only");
        ck_assert_str_ne(b, "skeleton_only");
        if (!strncmp(a, "indep", 5) || !strncmp(b, "indep", 5))
            ck_assert_msg(r.pairs[i].similarity < 0.25, "%s %s: %.2f", a, b, r.pairs[i].similarity);
    }
    for (size_t i = 0; i < r.n_subs; i++)
        if (!strcmp(r.subs[i].id, "skeleton_only"))
            ck_assert_uint_eq(r.subs[i].countable, 0);
    ck_assert_uint_eq(r.n_groups, 1);
    ck_assert_uint_eq(r.groups[0].n, 4);
    sim_result_release(&r);
    lab_release(&lab);
    remove_tree(work, NULL);
    free(work);
}
END_TEST

/* One row per pair (21 for 7), most similar first, the copies on top. */
START_TEST(test_csv)
{
    struct lab lab;
    struct sim_result r;
    struct strbuf csv = STRBUF_INIT;
    char *work;
    run_fixture(&lab, &r, &work);
    sim_report_csv(&r, &csv);
    const char *s = strbuf_str(&csv);
    static const char header[] = "a,b,similarity,a_in_b,b_in_a,longest_tokens,longest_a,"
                                 "longest_b,fragments,a_name,b_name\r\n";
    ck_assert(!strncmp(s, header, strlen(header)));
    size_t rows = 0;
    double last = 2;
    for (const char *p = strstr(s, "\r\n") + 2; *p; p = strstr(p, "\r\n") + 2) {
        const char *c = strchr(strchr(p, ',') + 1, ',') + 1;
        double v = strtod(c, NULL);
        ck_assert(v <= last);
        last = v;
        rows++;
    }
    ck_assert_uint_eq(rows, 21);
    ck_assert_ptr_nonnull(strstr(s, "commented,orig,0.9"));
    strbuf_release(&csv);
    sim_result_release(&r);
    lab_release(&lab);
    remove_tree(work, NULL);
    free(work);
}
END_TEST

static Suite *similarity_suite(void)
{
    Suite *s = suite_create("similarity");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_normalization);
    tcase_add_test(tc, test_boilerplate_is_neutral);
    tcase_add_test(tc, test_winnowing_and_fragments);
    tcase_add_test(tc, test_fixture_class);
    tcase_add_test(tc, test_csv);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(similarity_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

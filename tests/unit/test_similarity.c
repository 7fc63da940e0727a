/*
 * similarity: normalization, winnowing, shared fragments, and the fixture class of
 * tests/fixtures/similarity (copies renamed, reordered and re-commented of one submission, the
 * skeleton as handed out, two independent solutions written differently); then classes
 * generated at test time (simclass.h) for issue 41: 40 honest students from genuinely
 * different implementations beside 20 copies of the lab's solution (one group, the 20 matching
 * the solution, no pair holding a copier), or of one student's work (one group of 21, no
 * solution match), or with the solution published (no group, no match); 500 copies of the
 * solution (one group of 500); the code in the skeleton's comments counted as handed out;
 * similarity.json's schema. Issue 48: byte-identical copies of every lab's solution score
 * 100%; 120 copies of one solution, differently disguised, are one group.
 * 20 to 40 s on two loaded cores (6 to 11 s of CPU), most of it the 500 copies.
 */
#include "analyze/fingerprint.h"
#include "analyze/match.h"
#include "analyze/normalize.h"
#include "analyze/similarity.h"
#include "analyze/simreport.h"
#include "analyze/tokens.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "simclass.h"
#include "spec/spec.h"

#include <check.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/*
 * Under ASan (make test-asan): GCC 12's LeakSanitizer, with glibc 2.36, crashes in its own
 * bookkeeping of dynamic TLS ("Tracer caught signal 11", a DTLS range starting at 0x361) when
 * the main thread reaches libclang's thread-local storage, in some forked tests and not others
 * as the heap's layout goes. It need not follow __tls_get_addr here: nothing of ours lives in
 * libclang's TLS. Read by ASan at start-up; unused otherwise.
 */
const char *__asan_default_options(void);
__attribute__((used)) const char *__asan_default_options(void)
{
    return "intercept_tls_get_addr=0";
}

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
    /* __global__ is kept (offset 0), the kernel's name is a name like any other (offset 16). */
    for (size_t i = 0; i < a.n; i++) {
        if (a.t[i].offset == 0)
            ck_assert_uint_ne(a.t[i].sym, NORM_ID);
        if (a.t[i].offset == 16)
            ck_assert_uint_eq(a.t[i].sym, NORM_ID);
    }
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
        s->t[s->n++] = (struct norm_token){
            .sym = v | 0x80000000u, .line = (unsigned)i + 1, .offset = (unsigned)i, .len = 1};
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
    struct match_params mp = {k, 15, k};
    struct match_result m;
    match_result_init(&m);
    match_pair(&a, &fa, &b, &fb, &mp, &m, NULL);
    ck_assert_uint_eq(m.n, 1);
    ck_assert_uint_eq(m.frags[0].a, 30);
    ck_assert_uint_eq(m.frags[0].b, 70);
    ck_assert_uint_eq(m.frags[0].len, (unsigned)(w + k - 1));
    ck_assert_uint_eq(m.covered_a, (size_t)(w + k - 1));
    mp.min_match = w + k;
    match_pair(&a, &fa, &b, &fb, &mp, &m, NULL);
    ck_assert_uint_eq(m.n, 0);
    /* A skeleton covering the run: nothing left to share. */
    size_t n_skel;
    uint64_t *skel = fp_hash_set(&a, k, &n_skel);
    ck_assert_uint_eq(fp_mark_skeleton(&b, k, skel, n_skel), (size_t)(w + k - 1));
    fp_build(&fb, &b, k, w);
    mp.min_match = 1;
    match_pair(&a, &fa, &b, &fb, &mp, &m, NULL);
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
    static const char header[] =
        "a,b,similarity,a_in_b,b_in_a,a_own_tokens,b_own_tokens,"
        "a_shared_tokens,b_shared_tokens,longest_fragment,"
        "longest_fragment_a,longest_fragment_b,fragments,a_name,b_name\r\n";
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
    ck_assert_ptr_nonnull(strstr(s, "commented,orig,1.0000,1.0000,1.0000,"));
    strbuf_release(&csv);
    sim_result_release(&r);
    lab_release(&lab);
    remove_tree(work, NULL);
    free(work);
}
END_TEST

/* The classes of issue 41, made once in the parent process (the tests fork from it). */
static char *gen_dir;

static void gen_setup(void)
{
    gen_dir = xstrdup("/tmp/lg-unit-simclass-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(gen_dir));
    char *c60 = path_join(gen_dir, "c60"), *leak = path_join(gen_dir, "leak");
    struct simclass sol = {c60, 40, 20, "labs/lab6/solution", 4, true, 41};
    struct simclass student = {leak, 40, 20, NULL, 4, true, 41};
    simclass_make(&sol);
    simclass_make(&student);
    free(c60);
    free(leak);
}

static void gen_teardown(void)
{
    if (gen_dir)
        remove_tree(gen_dir, NULL);
    free(gen_dir);
    gen_dir = NULL;
}

/* Lab 6 loaded; published: lab.yaml as if it said solution_published: true. */
static void run_class(const char *class_name, bool published, struct lab *lab, struct sim_result *r)
{
    struct sim_opts o;
    struct error err;
    char *dir = path_join(gen_dir, class_name), *work = path_join(gen_dir, "work");
    lab_init(lab);
    ck_assert_msg(spec_load(lab, "labs/lab6/lab.yaml", NULL, &err) == 0, "%s", err.msg);
    lab->solution_published = published;
    sim_opts_init(&o);
    o.submissions = dir;
    o.work_dir = work;
    sim_result_init(r);
    ck_assert_msg(sim_run(lab, &o, r, &err) == 0, "%s", err.msg);
    free(dir);
    free(work);
}

static bool is_copier(const struct sim_result *r, size_t sub)
{
    return r->subs[sub].id[0] == 'k';
}

/* Exactly the 20 copiers in group members (sorted by id check, any order). */
static void assert_members(const struct sim_result *r, const struct sim_group *g, size_t n,
                           bool with_h00)
{
    ck_assert_uint_eq(g->n, n);
    for (size_t j = 0; j < g->n; j++) {
        const char *id = r->subs[g->members[j]].id;
        ck_assert_msg(is_copier(r, g->members[j]) || (with_h00 && !strcmp(id, "h00")),
                      "%s is in the group", id);
    }
}

/*
 * No reported pair holds a copier (and, with_h00, the student they copied): the copies' code
 * is common in the class, the group's, not a pair's evidence. Honest students who took the same
 * approach from the same implementation may pair (simclass makes them from a few templates:
 * 37% to 57% for the most similar two of a class of 40, docs/similarity.md).
 */
static void assert_no_copier_pair(const struct sim_result *r, bool with_h00)
{
    for (size_t i = 0; i < r->n_reported; i++) {
        size_t x = r->pairs[i].a, y = r->pairs[i].b;
        bool copier =
            is_copier(r, x) || is_copier(r, y) ||
            (with_h00 && (!strcmp(r->subs[x].id, "h00") || !strcmp(r->subs[y].id, "h00")));
        ck_assert_msg(!copier, "%s and %s reported (%.2f)", r->subs[x].id, r->subs[y].id,
                      r->pairs[i].similarity);
    }
}

/* 40 honest students and 20 copies of the lab's solution (renamed, reordered, re-commented,
 * some with a helper of their own): one group of 20 whose code is the solution's, the 20
 * (and only they) matching the solution, no other group, no pair holding a copier. */
START_TEST(test_class_of_60)
{
    struct lab lab;
    struct sim_result r;
    run_class("c60", false, &lab, &r);
    ck_assert_uint_eq(r.n_subs, 60);
    ck_assert_int_eq(r.max_common, 10);
    ck_assert_uint_eq(r.n_groups, 1);
    ck_assert_int_eq(r.groups[0].kind, SIM_GROUP_SHARED);
    assert_members(&r, &r.groups[0], 20, false);
    ck_assert(r.groups[0].matches_solution);
    ck_assert_uint_ge(r.groups[0].shared_tokens, (unsigned)r.group_tokens);
    ck_assert_uint_ge(r.groups[0].n_frags, 2);
    assert_no_copier_pair(&r, false);
    ck_assert(r.solution_checked);
    ck_assert_uint_eq(r.n_solmatches, 20);
    for (size_t i = 0; i < r.n_solmatches; i++) {
        ck_assert(is_copier(&r, r.solmatches[i].sub));
        ck_assert_uint_ge(r.solmatches[i].held, (unsigned)r.solution_tokens);
    }
    sim_result_release(&r);
    lab_release(&lab);
}
END_TEST

/* A leak that is not the lab's: 20 copies of one honest student's work make one group with
 * that student, and nobody matches the instructor's solution. */
START_TEST(test_leak_from_a_student)
{
    struct lab lab;
    struct sim_result r;
    run_class("leak", false, &lab, &r);
    ck_assert_uint_eq(r.n_groups, 1);
    ck_assert_int_eq(r.groups[0].kind, SIM_GROUP_SHARED);
    assert_members(&r, &r.groups[0], 21, true);
    ck_assert(!r.groups[0].matches_solution);
    ck_assert_uint_eq(r.n_solmatches, 0);
    assert_no_copier_pair(&r, true);
    sim_result_release(&r);
    lab_release(&lab);
}
END_TEST

/* A published solution is handed-out code: copying it is no finding, and nothing is matched
 * with it. */
START_TEST(test_published_solution)
{
    struct lab lab;
    struct sim_result r;
    run_class("c60", true, &lab, &r);
    ck_assert(!r.solution_checked);
    ck_assert_uint_eq(r.n_solmatches, 0);
    ck_assert_uint_eq(r.n_groups, 0);
    assert_no_copier_pair(&r, false);
    sim_result_release(&r);
    lab_release(&lab);
}
END_TEST

/* similarity.json as the dashboard reads it: the group, its members, its code. */
START_TEST(test_json)
{
    struct lab lab;
    struct sim_result r;
    struct strbuf out = STRBUF_INIT;
    struct json_value *v;
    struct error err;
    run_class("c60", false, &lab, &r);
    sim_report_json(&r, &lab, &out);
    ck_assert_msg(json_parse(out.buf, out.len, &v, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(json_get_string(v, "lab"), "lab6");
    ck_assert(json_get_number(v, "threshold", 0) == 0.8);
    const struct json_value *groups = json_get(v, "groups"), *g = json_at(groups, 0);
    ck_assert_uint_eq(groups->n, 1);
    ck_assert(json_get_number(g, "size", 0) == 20);
    ck_assert(json_get_number(g, "shared_tokens", 0) == r.groups[0].shared_tokens);
    ck_assert(json_get_bool(g, "matches_solution", false));
    ck_assert_uint_eq(json_get(g, "members")->n, 20);
    ck_assert_str_eq(json_at(json_get(g, "members"), 0)->string, r.subs[r.groups[0].members[0]].id);
    /* The solution's own cuBLAS handle, renamed, is part of what they share. */
    ck_assert_ptr_nonnull(strstr(json_get_string(g, "fragment"), "cublasStatus_t"));
    ck_assert_uint_eq(json_get(v, "pairs")->n, 0);
    const struct json_value *sm = json_get(v, "solution_matches");
    ck_assert_uint_eq(sm->n, 20);
    ck_assert(json_get_number(json_at(sm, 0), "matched_tokens", 0) >= 100);
    ck_assert(json_get_number(json_at(sm, 0), "fragments", 0) >= 2);
    json_value_free(v);
    strbuf_release(&out);
    sim_result_release(&r);
    lab_release(&lab);
}
END_TEST

/* n copies of the solution made with seed (every name changed, functions reordered, comments
 * removed, half with a helper of their own): one group of all n that matches the solution,
 * every one matching it, no pair reported. */
static void assert_one_leak(const char *name, int n, uint64_t seed)
{
    struct lab lab;
    struct sim_result r;
    char *dir = path_join(gen_dir, name);
    struct simclass c = {dir, 0, n, "labs/lab6/solution", 2, false, seed};
    simclass_make(&c);
    run_class(name, false, &lab, &r);
    ck_assert_uint_eq(r.n_subs, (size_t)n);
    ck_assert_uint_eq(r.n_reported, 0);
    ck_assert_uint_eq(r.n_groups, 1);
    ck_assert_uint_eq(r.groups[0].n, (size_t)n);
    ck_assert(r.groups[0].matches_solution);
    ck_assert_uint_eq(r.n_solmatches, (size_t)n);
    sim_result_release(&r);
    lab_release(&lab);
    free(dir);
}

/* 500 copies: every k-gram is common, so no pair is reported, and they are one group of 500
 * (before issue 41: "0 pairs, 0 groups"). */
START_TEST(test_500_copies)
{
    assert_one_leak("c500", 500, 500);
}
END_TEST

/* The hints in the skeleton's comments are handed out: two students who type in the hinted
 * grid-stride kernel and the commented cblas_sgemm call share nothing that counts. */
START_TEST(test_hints_are_handed_out)
{
    struct lab lab;
    struct sim_result r;
    static const char *const ids[] = {"ana", "eva", NULL};
    const char *gpu = "#include \"lab6.h\"\n"
                      "__global__ void grade2_kernel(const double *x, const double *y, double *z,\n"
                      "                              double a, double b, double c, int n)\n{\n"
                      "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += "
                      "gridDim.x * blockDim.x)\n"
                      "        z[i] = a*x[i]*x[i] + b*y[i] + c;\n}\n";
    const char *cpu = "#include \"lab6.h\"\n#include <cblas.h>\n"
                      "void matmul_cpu(const float *A, const float *B, float *C, int32_t n)\n{\n"
                      "    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n,\n"
                      "                1.0f, A, n, B, n, 0.0f, C, n);\n}\n";
    for (size_t i = 0; ids[i]; i++) {
        char *d = xstrfmt("%s/hints/%s", gen_dir, ids[i]);
        sc_write(d, "grade2_gpu.cu", gpu);
        sc_write(d, "matmul_cpu.c", cpu);
        free(d);
    }
    run_class("hints", false, &lab, &r);
    ck_assert_uint_eq(r.n_subs, 2);
    for (size_t i = 0; i < r.n_subs; i++)
        ck_assert_msg(r.subs[i].countable < (size_t)r.opts.min_match, "%s: %zu tokens count",
                      r.subs[i].id, r.subs[i].countable);
    ck_assert_uint_eq(r.n_pairs, 0);
    sim_result_release(&r);
    lab_release(&lab);
}
END_TEST

/* A class of two byte-identical copies of labs/labN/solution's files. */
static void identical_class(const char *lab, const char *dir)
{
    char *sol = xstrfmt("labs/%s/solution", lab);
    DIR *d = opendir(sol);
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.' || !strchr(e->d_name, '.'))
            continue;
        char *path = path_join(sol, e->d_name), *text = sc_read(path);
        for (int copy = 0; copy < 2; copy++) {
            char *sub = xstrfmt("%s/copy%d", dir, copy);
            sc_write(sub, e->d_name, text);
            free(sub);
        }
        free(text);
        free(path);
    }
    closedir(d);
    free(sol);
}

/* Issue 48: two byte-identical submissions share all of their own code, whatever the
 * handed-out code cuts it into and however small a file's own part is (lab 6: 78% before). */
START_TEST(test_identical_is_whole)
{
    static const char *const labs[] = {"lab3", "lab4", "lab6", "lab7", "lab8", "lab9", NULL};
    for (size_t i = 0; labs[i]; i++) {
        struct lab lab;
        struct sim_result r;
        struct sim_opts o;
        struct error err;
        char *yaml = xstrfmt("labs/%s/lab.yaml", labs[i]);
        char *dir = xstrfmt("%s/identical-%s", gen_dir, labs[i]),
             *work = path_join(gen_dir, "work");
        identical_class(labs[i], dir);
        lab_init(&lab);
        ck_assert_msg(spec_load(&lab, yaml, NULL, &err) == 0, "%s", err.msg);
        sim_opts_init(&o);
        o.submissions = dir;
        o.work_dir = work;
        sim_result_init(&r);
        ck_assert_msg(sim_run(&lab, &o, &r, &err) == 0, "%s", err.msg);
        ck_assert_msg(r.n_pairs == 1 && r.pairs[0].similarity == 1.0, "%s: %.4f", labs[i],
                      r.n_pairs ? r.pairs[0].similarity : 0.0);
        ck_assert_uint_eq(r.pairs[0].held_a, r.pairs[0].own_a);
        ck_assert_uint_gt(r.pairs[0].own_a, 0);
        sim_result_release(&r);
        lab_release(&lab);
        free(yaml);
        free(dir);
        free(work);
    }
}
END_TEST

/* Issue 48: 120 copies made with seed 6 are one group (2 groups of 64 and 56 before: the
 * function order decided where the copies' short pieces of code met). */
START_TEST(test_disguised_leak_is_one_group)
{
    assert_one_leak("c120", 120, 6);
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
    TCase *gen = tcase_create("generated");
    tcase_set_timeout(gen, 300);
    tcase_add_unchecked_fixture(gen, gen_setup, gen_teardown);
    tcase_add_test(gen, test_class_of_60);
    tcase_add_test(gen, test_leak_from_a_student);
    tcase_add_test(gen, test_published_solution);
    tcase_add_test(gen, test_json);
    tcase_add_test(gen, test_hints_are_handed_out);
    tcase_add_test(gen, test_500_copies);
    tcase_add_test(gen, test_identical_is_whole);
    tcase_add_test(gen, test_disguised_leak_is_one_group);
    suite_add_tcase(s, gen);
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

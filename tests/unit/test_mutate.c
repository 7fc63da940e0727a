/*
 * mutate: every mutation operator on small C and CUDA files (the exact mutated text), the
 * constant-answer mutants built from a spec, the diff, the extra sizes, and the equivalence
 * file.
 */
#include "analyze/mutconst.h"
#include "analyze/mutcases.h"
#include "analyze/mutequiv.h"
#include "analyze/mutop.h"
#include "analyze/mutplan.h"
#include "analyze/mutresult.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "spec/spec.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

struct gen {
    struct token_list l;
    struct syntax s;
    struct mutant_list ml;
};

static void generate(struct gen *g, const char *text, enum src_lang lang)
{
    struct error err;
    token_list_init(&g->l);
    syntax_init(&g->s);
    mutant_list_init(&g->ml);
    ck_assert_msg(tokens_lex("t", text, strlen(text), lang, &g->l, &err) == 0, "%s", err.msg);
    syntax_scan(&g->s, &g->l);
    mutop_generate(&g->l, &g->s, lang, &g->ml);
}

static void gen_release(struct gen *g)
{
    mutant_list_release(&g->ml);
    syntax_release(&g->s);
    token_list_release(&g->l);
}

/* The mutated texts of operator op, in order, each followed by "\n--\n". */
static char *mutants_of(const struct gen *g, enum mut_op op)
{
    struct strbuf out = STRBUF_INIT;
    for (size_t i = 0; i < g->ml.n; i++) {
        if (g->ml.items[i].op != op)
            continue;
        char *t = mutant_apply(g->l.source, g->l.source_len, &g->ml.items[i], NULL);
        strbuf_addf(&out, "%s\n--\n", t);
        free(t);
    }
    return strbuf_detach(&out);
}

#define EXPECT(text, lang, op, expected)                                                           \
    do {                                                                                           \
        struct gen g_;                                                                             \
        generate(&g_, text, lang);                                                                 \
        char *got_ = mutants_of(&g_, op);                                                          \
        ck_assert_str_eq(got_, expected);                                                          \
        free(got_);                                                                                \
        gen_release(&g_);                                                                          \
    } while (0)

static const char loop_c[] = "void f(const float *x, float *z, int n) {\n"
                             "    if (n <= 0) return;\n"
                             "    for (int i = 0; i < n; i++) z[i] += x[i];\n"
                             "}";

START_TEST(test_bounds)
{
    /* `n <= 0` guards sizes the spec never gives: left alone. */
    EXPECT(loop_c, SRC_C, MUT_REL_BOUND,
           "void f(const float *x, float *z, int n) {\n    if (n <= 0) return;\n"
           "    for (int i = 0; i <= n; i++) z[i] += x[i];\n}\n--\n");
    EXPECT(loop_c, SRC_C, MUT_BOUND_MINUS_ONE,
           "void f(const float *x, float *z, int n) {\n    if (n <= 0) return;\n"
           "    for (int i = 0; i < (n) - 1; i++) z[i] += x[i];\n}\n--\n");
    EXPECT(loop_c, SRC_C, MUT_DROP_GUARD, "");
    EXPECT("__global__ void k(float *y, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    if (i < n) y[i] = 0;\n"
           "    if (i >= n) return;\n"
           "    if (i > 2) y[i] = 1; else y[i] = 2;\n"
           "}",
           SRC_CUDA, MUT_DROP_GUARD,
           "__global__ void k(float *y, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (1) y[i] = 0;\n"
           "    if (i >= n) return;\n    if (i > 2) y[i] = 1; else y[i] = 2;\n}\n--\n"
           "__global__ void k(float *y, int n) {\n"
           "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) y[i] = 0;\n"
           "    if (0) return;\n    if (i > 2) y[i] = 1; else y[i] = 2;\n}\n--\n");
    /* Nor does code that runs only for such sizes. */
    EXPECT("void g(float *u, int n, int m) {\n"
           "    if (m <= 0) { for (int i = 0; i < n; i++) u[i] = 0; return; }\n"
           "    for (int i = 0; i < n; i++) u[i] = m;\n}",
           SRC_C, MUT_REL_BOUND,
           "void g(float *u, int n, int m) {\n"
           "    if (m <= 0) { for (int i = 0; i < n; i++) u[i] = 0; return; }\n"
           "    for (int i = 0; i <= n; i++) u[i] = m;\n}\n--\n");
    /* Outside functions and macros nothing changes: a global initializer, a comment. */
    EXPECT("int a[3 < 4 ? 1 : 2]; /* i < n */", SRC_C, MUT_REL_BOUND, "");
}
END_TEST

/* Which survivors may only read past the end (issue 47): those whose loop or index reaches
 * further than the solution's; their report says that no output can show such a read. */
START_TEST(test_reaches_further)
{
    struct gen g;
    generate(&g,
             "__global__ void k(const float *x, float *y, int n) {\n"
             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
             "    for (int j = 0; j < n; j++) y[j] = x[j];\n"
             "    for (int j = n; j > 0; j--) y[j - 1] = x[j - 1];\n"
             "    for (int j = 0; j <= n - 1; j++) y[j] = x[j];\n"
             "    if (i < n) y[i] = 0;\n"
             "    if (i >= n) return;\n"
             "}",
             SRC_CUDA);
    size_t further = 0, not_further = 0;
    for (size_t i = 0; i < g.ml.n; i++) {
        const struct mutant *m = &g.ml.items[i];
        const char *to = m->n_edits ? m->edits[0].text : "";
        bool want = (m->op == MUT_REL_BOUND && (!strcmp(to, "<=") || !strcmp(to, ">="))) ||
                    (m->op == MUT_DROP_GUARD && !strcmp(to, "1"));
        ck_assert_msg(mutant_reaches_further(m) == want, "%s to '%s'", mut_op_id(m->op), to);
        further += want;
        not_further += !want;
    }
    /* j < n, j > 0 and i < n widened, and i < n's check dropped; j <= n - 1 and i >= n
     * narrowed, the early return never taken, and the other operators, do not reach
     * further. */
    ck_assert_uint_eq(further, 4);
    ck_assert_uint_ge(not_further, 3);
    gen_release(&g);
}
END_TEST

START_TEST(test_loops_and_accumulation)
{
    EXPECT(loop_c, SRC_C, MUT_LOOP_START,
           "void f(const float *x, float *z, int n) {\n    if (n <= 0) return;\n"
           "    for (int i = (0) + 1; i < n; i++) z[i] += x[i];\n}\n--\n");
    EXPECT(loop_c, SRC_C, MUT_ACCUM_ASSIGN,
           "void f(const float *x, float *z, int n) {\n    if (n <= 0) return;\n"
           "    for (int i = 0; i < n; i++) z[i] = x[i];\n}\n--\n");
    EXPECT("void f(float *z, int n) { for (int j = 3; j < n; j += 32) z[j] = 0; }", SRC_C,
           MUT_WRONG_STRIDE,
           "void f(float *z, int n) { for (int j = 3; j < n; j += 2 * (32)) z[j] = 0; }\n--\n");
    EXPECT("double f(const double *x, int n) { double s = 0; for (int i = 0; i < n; i++) "
           "s += x[i]; return s; }",
           SRC_C, MUT_HALF_ACCUM,
           "double f(const double *x, int n) { float s = 0; for (int i = 0; i < n; i++) "
           "s += x[i]; return s; }\n--\n");
    EXPECT("__global__ void k(const float *x, float *y, int n) { float s = 0.0f; "
           "for (int j = 0; j < n; j++) s += x[j]; y[0] = s; }",
           SRC_CUDA, MUT_HALF_ACCUM,
           "#include <cuda_fp16.h>\n__global__ void k(const float *x, float *y, int n) { "
           "__half s = 0.0f; for (int j = 0; j < n; j++) s += x[j]; y[0] = s; }\n--\n");
}
END_TEST

START_TEST(test_cuda_operators)
{
    static const char src[] =
        "#define T 256\n"
        "__global__ void k(const float *x, float *y, int n) {\n"
        "    size_t step = (size_t)gridDim.x * blockDim.x;\n"
        "    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {\n"
        "        y[i] = x[i];\n"
        "        __syncthreads();\n"
        "    }\n"
        "}\n"
        "void h(const float *x, float *y, int n) {\n"
        "    k<<<(n + T - 1) / T, T>>>(x, y, n);\n"
        "    cudaDeviceSynchronize();\n"
        "}";
    struct gen g;
    generate(&g, src, SRC_CUDA);
    char *s = mutants_of(&g, MUT_SINGLE_PASS);
    ck_assert_ptr_nonnull(strstr(s, "i < n; i = (n)) {"));
    free(s);
    s = mutants_of(&g, MUT_BLOCKS_DOWN);
    ck_assert_ptr_nonnull(strstr(s, "k<<<(n) / T, T>>>(x, y, n);"));
    free(s);
    s = mutants_of(&g, MUT_DROP_SYNCTHREADS);
    ck_assert_ptr_nonnull(strstr(s, "        (void)0;\n"));
    free(s);
    s = mutants_of(&g, MUT_DROP_SYNC);
    ck_assert_ptr_nonnull(strstr(s, "    cudaSuccess;\n"));
    free(s);
    s = mutants_of(&g, MUT_WRONG_STRIDE);
    ck_assert_ptr_nonnull(strstr(s, "i += 2 * (step)"));
    free(s);
    gen_release(&g);
    /* A literal one short of the divisor rounds up too. */
    EXPECT("int b(int n) { return (n + 255) / 256; }", SRC_C, MUT_BLOCKS_DOWN,
           "int b(int n) { return (n) / 256; }\n--\n");
    EXPECT("int b(int n) { return (n + 254) / 256; }", SRC_C, MUT_BLOCKS_DOWN, "");
}
END_TEST

START_TEST(test_swaps)
{
    /* Row and column: inside [ ], and .x/.y of the built-ins, one statement at a time. */
    EXPECT("__global__ void mm(const float *A, float *C, int n) {\n"
           "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
           "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    C[r * n + c] = A[c];\n"
           "}",
           SRC_CUDA, MUT_SWAP_INDEX,
           "__global__ void mm(const float *A, float *C, int n) {\n"
           "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
           "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n    C[c * n + r] = A[c];\n}\n--\n"
           "__global__ void mm(const float *A, float *C, int n) {\n"
           "    int r = blockIdx.x * blockDim.x + threadIdx.x;\n"
           "    int c = blockIdx.x * blockDim.x + threadIdx.x;\n    C[r * n + c] = A[c];\n}\n--\n"
           "__global__ void mm(const float *A, float *C, int n) {\n"
           "    int r = blockIdx.y * blockDim.y + threadIdx.y;\n"
           "    int c = blockIdx.y * blockDim.y + threadIdx.y;\n    C[r * n + c] = A[c];\n}\n--\n");
    /* BLAS operands of one type exchange; other calls and other types do not. */
    EXPECT("void mm(const float *A, const float *B, float *C, int n) {\n"
           "    cblas_sgemm(R, N, N, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);\n"
           "    add(A, B);\n"
           "}",
           SRC_C, MUT_SWAP_ARGS,
           "void mm(const float *A, const float *B, float *C, int n) {\n"
           "    cblas_sgemm(R, N, N, n, n, n, 1.0f, B, n, A, n, 0.0f, C, n);\n"
           "    add(A, B);\n}\n--\n");
}
END_TEST

/* zero_result and echo_input from the spec: outputs by position, sizes from the scalars. */
START_TEST(test_constant_answers)
{
    static const char yaml[] =
        "lab: 9\ntitle: t\nexercises:\n"
        "  - id: add\n    title: t\n    points: 1\n    params: [n]\n"
        "    args:\n"
        "      - {name: x, kind: in, dtype: f32, shape: [n]}\n"
        "      - {name: z, kind: out, dtype: f32, shape: [n]}\n"
        "      - {name: n, kind: scalar, dtype: i32, value: n}\n"
        "    variants:\n"
        "      - {id: cpu, target: cpu, function: add_cpu, sources: [a.c],\n"
        "         reference: {function: ref_add, sources: [ref.c]}}\n"
        "      - {id: gpu_dev, target: gpu, memory: device, function: add_dev, sources: [a.cu]}\n"
        "    cases:\n      - {id: n1, sizes: {n: 10}}\n";
    char dir[] = "/tmp/lg-unit-mut-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *path = path_join(dir, "lab.yaml");
    struct error err;
    struct lab lab;
    ck_assert_int_eq(write_file_atomic(path, yaml, strlen(yaml), &err), 0);
    char *ref = path_join(dir, "ref.c");
    ck_assert_int_eq(write_file_atomic(ref, "", 0, &err), 0);
    free(ref);
    lab_init(&lab);
    ck_assert_msg(spec_load(&lab, path, NULL, &err) == 0, "%s", err.msg);
    struct gen g;
    generate(&g,
             "#include \"a.h\"\nvoid add_cpu(const float *in, float *out, int32_t len) {\n"
             "    for (int i = 0; i < len; i++) out[i] = in[i] + 1;\n}\n",
             SRC_C);
    mutant_list_release(&g.ml);
    mutconst_generate(&g.l, &g.s, &g.s.funcs[0], &lab.exercises[0], &lab.exercises[0].variants[0],
                      SRC_C, &g.ml);
    ck_assert_uint_eq(g.ml.n, 2);
    char *zero = mutants_of(&g, MUT_ZERO_RESULT), *echo = mutants_of(&g, MUT_ECHO_INPUT);
    ck_assert_str_eq(zero, "#include <string.h>\n#include \"a.h\"\n"
                           "void add_cpu(const float *in, float *out, int32_t len) {\n"
                           "    memset(out, 0, ((size_t)len) * sizeof(*out));\n"
                           "    (void)in;\n    (void)out;\n    (void)len;\n}\n\n--\n");
    ck_assert_ptr_nonnull(strstr(echo, "    memcpy(out, in, ((size_t)len) * sizeof(*out));\n"));
    free(zero);
    free(echo);
    gen_release(&g);
    generate(&g, "void add_dev(const float *a, float *b, int32_t m) { }\n", SRC_CUDA);
    mutant_list_release(&g.ml);
    mutconst_generate(&g.l, &g.s, &g.s.funcs[0], &lab.exercises[0], &lab.exercises[0].variants[1],
                      SRC_CUDA, &g.ml);
    zero = mutants_of(&g, MUT_ZERO_RESULT);
    echo = mutants_of(&g, MUT_ECHO_INPUT);
    ck_assert_ptr_nonnull(strstr(zero, "    cudaMemset(b, 0, ((size_t)m) * sizeof(*b));\n"));
    ck_assert_ptr_nonnull(
        strstr(echo, "    cudaMemcpy(b, a, ((size_t)m) * sizeof(*b), cudaMemcpyDefault);\n"));
    free(zero);
    free(echo);
    gen_release(&g);
    lab_release(&lab);
    free(path);
    remove_tree(dir, NULL);
}
END_TEST

START_TEST(test_diff)
{
    struct gen g;
    generate(&g, loop_c, SRC_C);
    for (size_t i = 0; i < g.ml.n; i++) {
        if (g.ml.items[i].op != MUT_REL_BOUND)
            continue;
        char *d = mutplan_diff(g.l.source, g.l.source_len, &g.ml.items[i]);
        ck_assert_str_eq(d, "-    3 |     for (int i = 0; i < n; i++) z[i] += x[i];\n"
                            "+    3 |     for (int i = 0; i <= n; i++) z[i] += x[i];\n");
        free(d);
    }
    gen_release(&g);
}
END_TEST

/* Sizes one off each case, 1 and 3, the largest doubled; never a case's own, never more than
 * 2.5 times the largest case's bytes. */
START_TEST(test_extra_sizes)
{
    struct lab lab;
    struct error err;
    lab_init(&lab);
    ck_assert_msg(spec_load(&lab, "labs/lab4/lab.yaml", NULL, &err) == 0, "%s", err.msg);
    char **ids, **sizes;
    size_t n;
    mutcases_derive(lab_exercise(&lab, "vadd"), &ids, &sizes, &n);
    /* 2 * 16M + 1 (twice the bytes: allowed), 1 and 3, 4 cases one off either way. */
    ck_assert_uint_eq(n, 11);
    ck_assert_str_eq(ids[0], "x_n33554433");
    ck_assert_str_eq(sizes[0], "n=33554433");
    ck_assert_str_eq(sizes[1], "n=1");
    ck_assert_str_eq(sizes[2], "n=3");
    ck_assert_str_eq(sizes[3], "n=5465");
    ck_assert_str_eq(sizes[4], "n=5467");
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_ne(sizes[i], "n=100000");
        free(ids[i]);
        free(sizes[i]);
    }
    free(ids);
    free(sizes);
    mutcases_derive(lab_exercise(&lab, "matvec"), &ids, &sizes, &n);
    /* n doubled: 2x the largest case's bytes; m doubled: the same. */
    ck_assert_str_eq(sizes[0], "n=2000001, m=100");
    ck_assert_str_eq(sizes[1], "n=1000000, m=201");
    ck_assert_str_eq(sizes[2], "n=1, m=100");
    for (size_t i = 0; i < n; i++) {
        ck_assert_str_ne(sizes[i], "n=1000, m=100");
        free(ids[i]);
        free(sizes[i]);
    }
    free(ids);
    free(sizes);
    lab_release(&lab);
}
END_TEST

START_TEST(test_equivalence_file)
{
    char dir[] = "/tmp/lg-unit-eq-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    struct mutate_result r;
    struct error err;
    mutate_result_init(&r);
    r.n_files = 1;
    r.files = xcalloc(1, sizeof(char *));
    r.texts = xcalloc(1, sizeof(char *));
    r.files[0] = xstrdup("a.c");
    r.texts[0] = xstrdup("");
    r.n_recs = 2;
    r.recs = xcalloc(2, sizeof(*r.recs));
    r.recs[0].m = (struct mutant){MUT_REL_BOUND, 0, 7, 20, NULL, 0};
    r.recs[0].status = MUT_SURVIVED;
    r.recs[1].m = (struct mutant){MUT_LOOP_START, 0, 9, 3, NULL, 0};
    r.recs[1].status = MUT_SURVIVED;
    char *sol = path_join(dir, "solution");
    ck_assert_int_eq(mkdir_p(sol, &err), 0);
    char *path = path_join(sol, MUTEQUIV_FILE);
    free(sol);
    /* b.cu was not mutated in this run (a GPU file without a GPU): its line is skipped. */
    const char *text = "# known\na.c:7:20 rel_bound  clamps 127 to itself\n"
                       "a.c:99:1 loop_start gone\nb.cu:3:4 rel_bound  not mutated here\n";
    ck_assert_int_eq(write_file_atomic(path, text, strlen(text), &err), 0);
    ck_assert_int_eq(mutequiv_apply(&r, dir, &err), 0);
    ck_assert_int_eq(r.recs[0].status, MUT_EQUIVALENT);
    ck_assert_str_eq(r.recs[0].note, "clamps 127 to itself");
    ck_assert_int_eq(r.recs[1].status, MUT_SURVIVED);
    ck_assert_uint_eq(r.n_warnings, 1);
    ck_assert_ptr_nonnull(strstr(r.warnings[0], ":3: no mutant a.c:99:1 loop_start"));
    text = "a.c:7 rel_bound\n";
    ck_assert_int_eq(write_file_atomic(path, text, strlen(text), &err), 0);
    ck_assert_int_eq(mutequiv_apply(&r, dir, &err), -1);
    ck_assert_int_eq(err.line, 1);
    mutate_result_release(&r);
    free(path);
    remove_tree(dir, NULL);
}
END_TEST

static Suite *mutate_suite(void)
{
    Suite *s = suite_create("mutate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_bounds);
    tcase_add_test(tc, test_reaches_further);
    tcase_add_test(tc, test_loops_and_accumulation);
    tcase_add_test(tc, test_cuda_operators);
    tcase_add_test(tc, test_swaps);
    tcase_add_test(tc, test_constant_answers);
    tcase_add_test(tc, test_diff);
    tcase_add_test(tc, test_extra_sizes);
    tcase_add_test(tc, test_equivalence_file);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(mutate_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

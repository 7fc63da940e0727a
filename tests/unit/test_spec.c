#include "base/expr.h"
#include "run/runner.h"
#include "spec/spec.h"
#include "spec/plan.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Paths are relative to the repository root, where `make` runs the tests. */
#define FIXTURES "tests/fixtures/specs"
#define LAB6 "labs/lab6/lab.yaml"

static void load_ok(struct lab *lab, const char *path, const char *root)
{
    struct error err;
    char buf[4096];
    error_init(&err);
    lab_init(lab);
    int rc = spec_load(lab, path, root, &err);
    error_format(&err, buf, sizeof(buf));
    ck_assert_msg(rc == 0, "%s should load: %s", path, buf);
}

/* Loads path, which must fail; the full "file:line:col: message" goes into buf. */
static void load_fails(const char *path, const char *root, char *buf, size_t size)
{
    struct lab lab;
    struct error err;
    error_init(&err);
    lab_init(&lab);
    ck_assert_msg(spec_load(&lab, path, root, &err) == -1, "%s should not load", path);
    error_format(&err, buf, size);
    /* A failed load leaves nothing behind, and releasing again is harmless. */
    ck_assert_ptr_null(lab.path);
    ck_assert_ptr_null(lab.exercises);
    ck_assert_uint_eq(lab.n_exercises, 0);
    lab_release(&lab);
}

static bool near(double a, double b)
{
    return fabs(a - b) <= 1e-12 * fmax(1, fabs(b));
}

/* ---- lab6, in a throwaway root so that the real kernels/ need not exist yet ---- */

static char tmp_root[64];
static char *real_root;

static void write_empty(const char *dir, const char *name)
{
    char *path = path_join(dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_msg(f != NULL, "cannot create %s", path);
    fclose(f);
    free(path);
}

static void lab6_setup(void)
{
    struct error err;
    error_init(&err);
    snprintf(tmp_root, sizeof(tmp_root), "/tmp/lg-test-spec.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_root));
    real_root = path_abs(tmp_root, &err);
    ck_assert_ptr_nonnull(real_root);
    char *labdir = xstrfmt("%s/labs/lab6", tmp_root);
    char *kernels = xstrfmt("%s/kernels", tmp_root);
    char *copy = xstrfmt("%s/lab.yaml", labdir);
    ck_assert_int_eq(mkdir_p(labdir, &err), 0);
    ck_assert_int_eq(mkdir_p(kernels, &err), 0);
    ck_assert_msg(copy_file(LAB6, copy, &err) == 0, "%s", err.msg);
    write_empty(kernels, "matmul_openblas.c");
    write_empty(kernels, "matmul_cublas.cu");
    write_empty(kernels, "grade2.c");
    write_empty(kernels, "grade2.cu");
    free(labdir);
    free(kernels);
    free(copy);
}

static void lab6_teardown(void)
{
    struct error err;
    remove_tree(tmp_root, &err);
    free(real_root);
    real_root = NULL;
}

static char *lab6_path(void)
{
    return xstrfmt("%s/labs/lab6/lab.yaml", tmp_root);
}

START_TEST(test_lab6_loads)
{
    struct lab lab;
    char *path = lab6_path();
    load_ok(&lab, path, NULL);

    ck_assert_str_eq(lab.path, path);
    char *dir = xstrfmt("%s/labs/lab6", real_root);
    ck_assert_str_eq(lab.dir, dir);
    ck_assert_str_eq(lab.root, real_root);
    ck_assert_int_eq(lab.number, 6);
    ck_assert_str_eq(lab.id, "lab6");
    ck_assert_str_eq(lab.lang, "es");
    ck_assert_str_eq(lab.course, "HPC con GPU");
    ck_assert_str_eq(lab.title, "GPUs con C y CUDA: producto de matrices y función vectorial");
    ck_assert(!lab.show_hidden);
    /* Lab 6's solution is not handed out: grader similarity matches submissions with it. */
    ck_assert(!lab.solution_published);
    ck_assert_uint_eq(lab.n_exercises, 2);
    ck_assert_str_eq(lab.exercises[0].id, "matmul");
    ck_assert_str_eq(lab.exercises[1].id, "grade2");

    const struct exercise_spec *mm = lab_exercise(&lab, "matmul");
    ck_assert_ptr_eq(mm, &lab.exercises[0]);
    ck_assert_ptr_null(lab_exercise(&lab, "nope"));
    ck_assert(mm->points == 6);
    ck_assert_uint_eq(mm->n_params, 1);
    ck_assert_str_eq(mm->params[0], "n");
    ck_assert_uint_eq(mm->n_args, 4);
    ck_assert_str_eq(mm->args[0].name, "A");
    ck_assert_int_eq(mm->args[0].kind, ARG_IN);
    ck_assert_int_eq(mm->args[0].dtype, LG_F32);
    ck_assert_uint_eq(mm->args[0].n_shape, 2);
    ck_assert_str_eq(mm->args[0].shape[1], "n");
    ck_assert_int_eq(mm->args[0].init.dist, DIST_UNIFORM);
    ck_assert(mm->args[0].init.low == 0 && mm->args[0].init.high == 1);
    ck_assert_int_eq(mm->args[3].kind, ARG_SCALAR);
    ck_assert_int_eq(mm->args[3].dtype, LG_I32);
    ck_assert_str_eq(mm->args[3].value, "n");
    ck_assert_uint_eq(mm->args[3].n_shape, 0);
    ck_assert(mm->tol.has_rtol && mm->tol.has_atol && !mm->tol.equal_nan);
    ck_assert(near(mm->tol.rtol, 2e-3) && near(mm->tol.atol, 1e-3));
    ck_assert_str_eq(mm->tol_note, "TF32 aceptado (rtol 2e-3): ver el README del laboratorio");
    ck_assert(mm->allow_tf32);
    ck_assert_str_eq(mm->flops, "2*n^3");
    ck_assert_str_eq(mm->bytes, "3*4*n^2");
    ck_assert_str_eq(mm->baseline, "cpu");
    ck_assert_str_eq(mm->oracle, "cpu");
    ck_assert(mm->timeout_s == 60);
    ck_assert_int_eq(mm->timing.warmup, 2);
    ck_assert_int_eq(mm->timing.min_samples, 10);
    ck_assert_int_eq(mm->timing.max_samples, 200);
    ck_assert(near(mm->timing.target_rse, 0.01) && near(mm->timing.budget_s, 0.4));
    ck_assert_int_eq(mm->timing.checks, 2); /* default */
    ck_assert(!mm->timing.flush_l2);
    ck_assert(mm->timing.blocking); /* lab 6 times its device-pointer calls behind a blocker */
    ck_assert(mm->has_perf);
    ck_assert(mm->perf.points == 2 && near(mm->perf.full_at, 1.2) && mm->perf.zero_at == 10);
    ck_assert_str_eq(mm->perf.variant, "gpu_dev");

    ck_assert_uint_eq(mm->n_variants, 3);
    const struct variant_spec *cpu = exercise_variant(mm, "cpu");
    const struct variant_spec *gpu = exercise_variant(mm, "gpu");
    const struct variant_spec *dev = exercise_variant(mm, "gpu_dev");
    ck_assert_ptr_nonnull(cpu);
    ck_assert_ptr_nonnull(gpu);
    ck_assert_ptr_nonnull(dev);
    ck_assert_ptr_null(exercise_variant(mm, "tpu"));
    ck_assert_int_eq(cpu->target, TARGET_CPU);
    ck_assert_int_eq(dev->target, TARGET_GPU);
    ck_assert_int_eq(cpu->memory, MEM_HOST);
    ck_assert_int_eq(gpu->memory, MEM_HOST);
    ck_assert_int_eq(dev->memory, MEM_DEVICE);
    ck_assert_int_eq(dev->transfer_from, MEM_HOST);
    ck_assert(dev->weight == 1);
    ck_assert_str_eq(dev->title, "GPU sin transferencia (punteros de dispositivo)");
    ck_assert_str_eq(dev->student.function, "matmul_gpu_dev");
    ck_assert_uint_eq(dev->student.n_sources, 1);
    ck_assert_str_eq(dev->student.sources[0], "matmul_gpu.cu"); /* as written */
    ck_assert_uint_eq(dev->student.n_libs, 1);
    ck_assert_str_eq(dev->student.libs[0], "cublas");
    ck_assert(cpu->has_reference && gpu->has_reference && dev->has_reference);
    ck_assert_str_eq(cpu->reference.function, "ref_matmul_cpu");
    char *blas = xstrfmt("%s/kernels/matmul_openblas.c", real_root);
    char *cublas = xstrfmt("%s/kernels/matmul_cublas.cu", real_root);
    ck_assert_uint_eq(cpu->reference.n_sources, 1);
    ck_assert_str_eq(cpu->reference.sources[0], blas);
    ck_assert_str_eq(dev->reference.sources[0], cublas);
    ck_assert(dev->reference.sources[0][0] == '/');
    ck_assert(file_exists(dev->reference.sources[0]));
    ck_assert_str_eq(cpu->reference.libs[0], "openblas");

    int a = exercise_arg_index(mm, "A"), c = exercise_arg_index(mm, "C");
    int n = exercise_arg_index(mm, "n");
    ck_assert_int_eq(a, 0);
    ck_assert_int_eq(c, 2);
    ck_assert_int_eq(exercise_arg_index(mm, "Z"), -1);
    ck_assert_int_eq(variant_arg_memory(dev, mm, (size_t)a), MEM_DEVICE);
    ck_assert_int_eq(variant_arg_memory(dev, mm, (size_t)n), MEM_HOST); /* scalars */
    ck_assert_int_eq(variant_arg_memory(gpu, mm, (size_t)c), MEM_HOST);
    struct tolerance t = mm->cases[0].args[c].tol;
    ck_assert(near(t.rtol, 2e-3) && near(t.atol, 1e-3) && t.has_rtol && t.has_atol);

    ck_assert_uint_eq(mm->n_cases, 4);
    const struct case_spec *n256 = &mm->cases[0], *n7000 = &mm->cases[2], *n1500 = &mm->cases[3];
    ck_assert_str_eq(n7000->id, "n7000");
    ck_assert(n7000->slow && !n7000->hidden);
    ck_assert(n7000->timeout_s == 300);
    ck_assert_str_eq(n1500->id, "n1500");
    ck_assert(n1500->hidden && !n1500->slow);
    ck_assert(!n256->hidden && !n256->slow);
    ck_assert(n256->timeout_s == 60); /* the exercise's */
    ck_assert(n256->points < 0);
    ck_assert_uint_eq(n7000->n_sizes, 1);
    ck_assert_str_eq(n7000->sizes[0].name, "n");
    ck_assert_int_eq(n7000->sizes[0].value, 7000);
    ck_assert(exercise_case_points(mm, 2) == 1.5);

    struct error err;
    error_init(&err);
    /* Resolved when the spec loads (spec/plan.c). */
    ck_assert_int_eq(n7000->args[a].count, 49000000);
    ck_assert_uint_eq(n7000->args[a].n_dims, 2);
    ck_assert_int_eq(n7000->args[a].dims[0], 7000);
    ck_assert_int_eq(n7000->args[n].count, 1);
    ck_assert(n7000->args[n].value == 7000);
    ck_assert(n256->flops == 2.0 * 256 * 256 * 256);
    ck_assert(n256->bytes == 3.0 * 4 * 256 * 256);

    const struct exercise_spec *g2 = &lab.exercises[1];
    ck_assert(g2->points == 4);
    ck_assert(g2->timeout_s == 30); /* default */
    ck_assert(near(g2->tol.rtol, 1e-12));
    ck_assert_str_eq(g2->args[3].name, "a");
    ck_assert_str_eq(g2->args[3].value, "3.5");
    ck_assert_int_eq(g2->args[3].dtype, LG_F64);
    ck_assert_uint_eq(g2->n_cases, 5);
    ck_assert_str_eq(g2->cases[1].id, "n5M");
    ck_assert_int_eq(g2->cases[1].sizes[0].value, 5000000);
    ck_assert(g2->cases[2].hidden);
    /* n = 1 and past 65535 blocks of 256 threads (grader mutate's survivors, labs/README.md). */
    ck_assert(g2->cases[3].hidden && !g2->cases[3].slow && g2->cases[3].sizes[0].value == 1);
    ck_assert(g2->cases[4].hidden && g2->cases[4].slow);
    ck_assert_int_eq(g2->cases[4].sizes[0].value, 20000001);
    ck_assert_int_eq(g2->timing.max_samples, 100);
    ck_assert(g2->timing.min_samples == 12 && g2->timing.budget_s == 0.5);
    ck_assert_uint_eq(g2->variants[0].student.n_libs, 0);
    char *grade2 = xstrfmt("%s/kernels/grade2.cu", real_root);
    ck_assert_str_eq(g2->variants[2].reference.sources[0], grade2);

    free(grade2);
    free(blas);
    free(cublas);
    free(dir);
    free(path);
    lab_release(&lab);
    ck_assert_ptr_null(lab.exercises);
    lab_release(&lab); /* twice is harmless */
}
END_TEST

START_TEST(test_lab6_explicit_root)
{
    /* The lab somewhere else entirely: kernels/ still resolves against the given root. */
    struct error err;
    error_init(&err);
    char *elsewhere = xstrfmt("%s/elsewhere/deeper", tmp_root);
    char *copy = xstrfmt("%s/lab.yaml", elsewhere);
    ck_assert_int_eq(mkdir_p(elsewhere, &err), 0);
    ck_assert_int_eq(copy_file(LAB6, copy, &err), 0);
    struct lab lab;
    load_ok(&lab, copy, tmp_root);
    ck_assert_str_eq(lab.root, real_root);
    char *grade2 = xstrfmt("%s/kernels/grade2.c", real_root);
    ck_assert_str_eq(lab.exercises[1].variants[0].reference.sources[0], grade2);
    lab_release(&lab);

    char buf[4096];
    char *missing = xstrfmt("%s/no-such-root", tmp_root);
    load_fails(copy, missing, buf, sizeof(buf));
    char *expected = xstrfmt("%s: labgrader root: No such file or directory", missing);
    ck_assert_str_eq(buf, expected);
    free(expected);
    free(missing);
    free(grade2);
    free(copy);
    free(elsewhere);
}
END_TEST

START_TEST(test_lab6_missing_kernel)
{
    char *kernel = xstrfmt("%s/kernels/matmul_openblas.c", tmp_root);
    ck_assert_int_eq(unlink(kernel), 0);
    struct lab lab;
    struct error err;
    error_init(&err);
    lab_init(&lab);
    char *path = lab6_path();
    ck_assert_int_eq(spec_load(&lab, path, NULL, &err), -1);
    char *msg = xstrfmt("reference source 'kernels/matmul_openblas.c' not found: "
                        "%s/kernels/matmul_openblas.c does not exist",
                        real_root);
    ck_assert_str_eq(err.msg, msg);
    ck_assert_str_eq(err.file, path);
    ck_assert_int_gt(err.line, 0);
    ck_assert_int_gt(err.col, 0);
    lab_release(&lab);
    free(msg);
    free(path);
    free(kernel);
}
END_TEST

/* ---- small fixtures ---- */

START_TEST(test_good_min_defaults)
{
    struct lab lab;
    load_ok(&lab, FIXTURES "/good_min.yaml", NULL);
    ck_assert_int_eq(lab.number, 0);
    ck_assert_str_eq(lab.id, "lab0");
    ck_assert_str_eq(lab.course, "");
    ck_assert_str_eq(lab.lang, "en");
    ck_assert(!lab.show_hidden && !lab.solution_published);
    ck_assert(!lab.kit_reference_sources);
    ck_assert_ptr_null(lab.cflags);
    ck_assert_ptr_null(lab.nvccflags);
    ck_assert_ptr_null(lab.ldflags);
    /* tests/ holds no kernels/ and none is referenced: no root. */
    ck_assert_ptr_null(lab.root);
    ck_assert_uint_eq(lab.n_exercises, 1);
    const struct exercise_spec *ex = &lab.exercises[0];
    ck_assert(ex->timeout_s == 30);
    ck_assert(lab.seed == 0 && ex->seed == 0);
    ck_assert_int_eq(ex->timing.warmup, 2);
    ck_assert_int_eq(ex->timing.min_samples, 5);
    ck_assert_int_eq(ex->timing.max_samples, 50);
    ck_assert(ex->timing.target_rse == 0.01 && ex->timing.budget_s == 2);
    ck_assert(!ex->timing.flush_l2);
    ck_assert(!ex->timing.blocking); /* default */
    ck_assert_int_eq(ex->timing.checks, 2);
    ck_assert_int_eq(ex->timing.rounds, 1); /* default: timed once each */
    ck_assert(!ex->has_perf && !ex->tol.has_rtol && !ex->tol.has_atol);
    ck_assert_ptr_null(ex->baseline);
    ck_assert_str_eq(ex->oracle, "cpu");
    ck_assert_ptr_null(ex->flops);
    ck_assert_ptr_null(ex->tol_note);
    /* Default inits: [0, 1) for floats, [-100, 100) for integers. */
    ck_assert_int_eq(ex->args[0].init.dist, DIST_UNIFORM);
    ck_assert(ex->args[0].init.low == 0 && ex->args[0].init.high == 1);
    ck_assert_int_eq(ex->args[1].dtype, LG_I32);
    ck_assert(ex->args[1].init.low == -100 && ex->args[1].init.high == 100);
    ck_assert_str_eq(ex->args[2].value, "2.5");
    const struct variant_spec *v = &ex->variants[0];
    ck_assert_str_eq(v->title, "cpu");
    ck_assert_int_eq(v->memory, MEM_HOST);
    ck_assert_uint_eq(v->n_mem, 0);
    ck_assert(v->weight == 1);
    ck_assert_uint_eq(v->student.n_libs, 0);
    char *ref = path_abs(FIXTURES "/ref_min.c", NULL);
    ck_assert_str_eq(v->reference.sources[0], ref);
    free(ref);
    ck_assert_str_eq(ex->cases[2].id, "big.2-x_y");
    for (size_t i = 0; i < ex->n_cases; i++) {
        ck_assert(ex->cases[i].points < 0);
        ck_assert(ex->cases[i].timeout_s == 30);
        ck_assert(!ex->cases[i].hidden && !ex->cases[i].slow);
        ck_assert(fabs(exercise_case_points(ex, i) - 2.0 / 3) < 1e-15);
    }
    /* No tolerance anywhere: the dtype's defaults, flagged as such. */
    struct tolerance t = ex->cases[0].args[1].tol;
    double rtol, atol;
    lg_dtype_default_tolerance(LG_I32, &rtol, &atol);
    ck_assert(t.rtol == rtol && t.atol == atol && !t.has_rtol && !t.has_atol && !t.equal_nan);
    lab_release(&lab);
}
END_TEST

START_TEST(test_good_full)
{
    struct lab lab;
    load_ok(&lab, FIXTURES "/good_full.yaml", NULL);
    ck_assert_str_eq(lab.id, "lab3");
    ck_assert(lab.show_hidden);
    ck_assert_str_eq(lab.course, "HPC");
    /* The lab's seed is every exercise's default. */
    ck_assert(lab.seed == 7 && lab.exercises[0].seed == 7);
    /* The kit carries the references' sources, as asked (objects by default). */
    ck_assert(lab.kit_reference_sources);
    /* A public solution: handed-out code for grader similarity (false by default). */
    ck_assert(lab.solution_published);
    ck_assert_str_eq(lab.cflags, "-O3 -march=native");
    ck_assert_str_eq(lab.nvccflags, "-O3");
    ck_assert_str_eq(lab.ldflags, "-lm");
    const struct exercise_spec *ex = &lab.exercises[0];
    ck_assert_uint_eq(ex->n_params, 2);
    ck_assert_str_eq(ex->params[1], "cols");
    ck_assert(ex->timeout_s == 12.5);
    ck_assert_int_eq(ex->timing.warmup, 0);
    ck_assert_int_eq(ex->timing.min_samples, 3);
    ck_assert_int_eq(ex->timing.max_samples, 3);
    ck_assert(ex->timing.flush_l2);
    ck_assert(ex->timing.blocking);
    ck_assert_int_eq(ex->timing.checks, 8);
    ck_assert_int_eq(ex->timing.rounds, 3);
    ck_assert(ex->has_perf);
    ck_assert(ex->perf.points == 1 && ex->perf.full_at == 1.5 && ex->perf.zero_at == 4);
    ck_assert_str_eq(ex->perf.variant, "gpu");
    ck_assert_str_eq(ex->bytes, "8*(rows+2)*(cols+2)");
    ck_assert_str_eq(ex->baseline, "cpu");
    ck_assert_str_eq(ex->oracle, "cpu"); /* the first cpu variant with a reference */

    const struct arg_spec *grid = &ex->args[0], *idx = &ex->args[1], *mask = &ex->args[2];
    ck_assert_int_eq(grid->init.dist, DIST_NORMAL);
    ck_assert(grid->init.mean == 1 && grid->init.std == 0.5);
    ck_assert_int_eq(idx->init.dist, DIST_ARANGE);
    ck_assert(idx->init.low == 5 && idx->init.high == 2); /* start, step */
    ck_assert_int_eq(mask->init.dist, DIST_CONSTANT);
    ck_assert(mask->init.value == 1);
    ck_assert_str_eq(ex->args[5].ctype, "size_t");
    ck_assert_ptr_null(ex->args[6].ctype);

    /* Tolerance per field: the argument's atol and equal_nan, the exercise's rtol. */
    struct tolerance t = ex->cases[0].args[3].tol;
    ck_assert(near(t.rtol, 1e-4) && near(t.atol, 1e-3) && t.equal_nan);
    /* acc has none of its own: exercise rtol, bf16 default atol. */
    double rtol, atol;
    lg_dtype_default_tolerance(LG_BF16, &rtol, &atol);
    t = ex->cases[0].args[4].tol;
    ck_assert(near(t.rtol, 1e-4) && t.atol == atol && t.has_rtol && !t.has_atol);

    const struct variant_spec *gpu = &ex->variants[0];
    ck_assert_int_eq(gpu->memory, MEM_HOST);
    ck_assert_uint_eq(gpu->n_mem, 2);
    ck_assert_int_eq(variant_arg_memory(gpu, ex, 0), MEM_DEVICE);
    ck_assert_int_eq(variant_arg_memory(gpu, ex, 3), MEM_PINNED);
    ck_assert_int_eq(variant_arg_memory(gpu, ex, 4), MEM_HOST);
    ck_assert_int_eq(gpu->transfer_from, MEM_PINNED);
    ck_assert(gpu->weight == 2);
    ck_assert_uint_eq(gpu->student.n_sources, 2);
    ck_assert_str_eq(gpu->student.sources[1], "sub/helpers.cu");
    ck_assert_str_eq(gpu->student.libs[1], "c++");
    /* cpu2 shares cpu's reference code, which is allowed. */
    ck_assert_str_eq(ex->variants[2].reference.function, "ref_stencil_cpu");

    const struct case_spec *b = &ex->cases[1];
    ck_assert(ex->cases[0].hidden && b->slow);
    ck_assert(b->timeout_s == 99 && ex->cases[0].timeout_s == 12.5);
    ck_assert(exercise_case_points(ex, 0) == 1 && exercise_case_points(ex, 1) == 2);
    /* Sizes are stored in params order whatever order the case wrote them in. */
    ck_assert_str_eq(b->sizes[0].name, "rows");
    ck_assert_int_eq(b->sizes[0].value, 2);
    ck_assert_int_eq(b->sizes[1].value, 7);
    struct error err;
    error_init(&err);
    ck_assert_int_eq(b->args[0].count, 4 * 9);
    ck_assert_int_eq(b->args[4].count, 7);
    lab_release(&lab);
}
END_TEST

struct bad_spec {
    const char *file;
    const char *message; /* after "tests/fixtures/specs/<file>" */
};

static const struct bad_spec bad_specs[] = {
    {"bad_no_sizes.yaml",
     ":13:9: missing required key 'sizes' in case 'one' (expected sizes for: n)"},
    {"bad_perf_zero_at.yaml", ":25:39: 'zero_at' (10) must be greater than 'full_at' (12)"},
    {"bad_timing_checks.yaml", ":24:110: 'checks' must be between 1 and 8, got 9"},
    {"bad_timing_rounds.yaml", ":24:121: 'rounds' must be between 1 and 20, got 21"},
    {"bad_timing_samples.yaml", ":24:38: 'max_samples' (50) must be >= 'min_samples' (60)"},
    {"bad_build_key.yaml", ":3:22: unknown key 'ldflag' in build (expected one of: cflags, "
                           "nvccflags, ldflags, allow_symbols)"},
    {"bad_complex_key.yaml", ":3:3: expected a plain key at top level, got a sequence"},
    {"bad_dup_memory.yaml", ":14:29: duplicate key 'y' in memory (first at line 14)"},
    {"bad_abs_source.yaml",
     ":18:19: source path '/etc/passwd' must be relative to the submission folder"},
    {"bad_arg_key.yaml", ":10:29: unknown key 'dtyp' in argument (expected one of: name, kind, "
                         "dtype, ctype, shape, value, init, tolerance)"},
    {"bad_baseline_gpu.yaml",
     ":8:15: baseline 'gpu' must be a variant with target cpu, but it has target gpu"},
    {"bad_case_key.yaml", ":22:19: unknown key 'size' in case (expected one of: id, sizes, hidden, "
                          "withheld, slow, points, timeout, tolerance, init)"},
    {"bad_withheld_not_hidden.yaml",
     ":23:35: case 'big.2-x_y' is withheld but not hidden: grader kit writes 'withheld: true' in "
     "place of a hidden case; in your own lab.yaml leave 'withheld' out"},
    {"bad_withheld_sizes.yaml", ":23:55: unknown key 'sizes' in a withheld case (expected one of: "
                                "id, hidden, withheld, points)"},
    {"bad_case_points_mixed.yaml", ":21:9: case 'small' has no points but case 'big' has: give "
                                   "points to every case of exercise 'saxpy' or to none"},
    {"bad_case_points_sum.yaml",
     ":21:7: case points of exercise 'saxpy' add up to 1.75, but the exercise has 2 points"},
    {"bad_cpu_device.yaml",
     ":17:17: memory 'device' needs target gpu (variant 'cpu' has target cpu)"},
    {"bad_div_zero.yaml",
     ":21:9: case 'small': value 'n/(n-10)' of argument 'a': at column 2: division by zero"},
    {"bad_dotdot.yaml", ":18:19: source path 'src/../../saxpy.c' must not contain '..'"},
    {"bad_dtype.yaml",
     ":10:36: dtype 'f33' is not one of f64, f32, f16, bf16, i64, i32, i16, i8, u8"},
    {"bad_dup_arg.yaml",
     ":11:16: duplicate argument name 'x' in exercise 'saxpy' (first at line 10)"},
    {"bad_dup_case.yaml",
     ":23:14: duplicate case id 'small' in exercise 'saxpy' (first at line 21)"},
    {"bad_dup_function.yaml", ":20:19: function 'copy_cpu' is already used at line 15 (function "
                              "names must be unique in the lab)"},
    {"bad_dup_key.yaml", ":8:5: duplicate key 'points' in exercise (first at line 7)"},
    {"bad_dup_ref_function.yaml", ":22:31: function 'ref_copy_cpu' is already used at line 17 "
                                  "(function names must be unique in the lab)"},
    {"bad_empty.yaml", ": empty file: expected a mapping with lab, title and exercises"},
    {"bad_empty_exercises.yaml", ":4:12: 'exercises' must not be empty"},
    {"bad_exercise_id.yaml", ":4:9: exercise id 'Copy' must match [a-z][a-z0-9_]*"},
    {"bad_exercise_key.yaml", ":8:5: unknown key 'weight' in exercise (expected one of: id, title, "
                              "points, params, args, variants, cases, tolerance, tolerance_note, "
                              "work, baseline, oracle, timeout, timing, performance, seed, "
                              "sanitizer, returns, profile, allow_tf32, precision_check)"},
    {"bad_precision_check.yaml", ":17:7: precision_check: 'z' is not an input of exercise "
                                 "'saxpy' (inputs: x, y)"},
    {"bad_expr.yaml",
     ":10:49: bad expression '2*(n+1' in shape of argument 'x': at column 7: expected ')'"},
    {"bad_expr_name.yaml",
     ":10:49: bad expression 'n*m' in shape of argument 'x': at column 3: unknown name 'm'"},
    {"bad_extra_size.yaml", ":22:36: unknown parameter 'm' in sizes (expected one of: n)"},
    {"bad_half_scalar.yaml",
     ":12:40: half-precision scalars cannot be passed by value portably; use f32"},
    {"bad_init_key.yaml", ":10:74: key 'low' does not apply to dist normal (expected: mean, std)"},
    {"bad_init_out.yaml",
     ":10:64: 'tolerance' is only for out and inout arguments ('x' has kind in)"},
    {"bad_kind.yaml", ":11:25: kind 'output' is not one of in, out, inout, scalar"},
    {"bad_lang.yaml", ":4:7: lang 'fr' is not one of es, en"},
    {"bad_missing_dtype.yaml", ":10:9: missing required key 'dtype' in argument"},
    {"bad_missing_title.yaml", ":5:5: missing required key 'title' in exercise"},
    {"bad_no_output.yaml",
     ":10:7: exercise 'saxpy' has no out or inout argument and no 'returns', so nothing can be "
     "checked"},
    {"bad_no_reference.yaml", ":5:5: no variant of exercise 'saxpy' has a reference, so nothing "
                              "can produce the expected outputs"},
    {"bad_points_quoted.yaml",
     ":7:13: expected a number for 'points', got '2' (quoted, so a string)"},
    {"bad_points_type.yaml", ":7:13: expected a number for 'points', got 'six'"},
    {"bad_scalar_range.yaml",
     ":22:9: case 'big': value 'n' of argument 'n' is 1000, not a whole number in the range of i8 "
     "[-128, 127]"},
    {"bad_scalar_shape.yaml", ":12:64: scalar argument 'a' cannot have a shape (use 'value')"},
    {"bad_seed.yaml", ":8:11: 'seed' must be >= 0, got -3"},
    {"bad_shape_zero.yaml", ":23:9: case 'big.2-x_y': dimension 1 ('n - 3') of argument 'x' is 0, "
                            "expected a positive whole number"},
    {"bad_size_zero.yaml", ":22:30: size 'n' must be > 0, got 0"},
    {"bad_source_type.yaml", ":18:18: expected a sequence for 'sources', got 'saxpy.c'"},
    {"bad_syntax.yaml",
     ":13:9: did not find expected ',' or '}' (while parsing a flow mapping at line 12, column 9)"},
    {"bad_top_key.yaml", ":4:1: unknown key 'author' at top level (expected one of: lab, title, "
                         "course, lang, show_hidden, build, seed, sanitizer, kit, exercises, late, "
                         "gradescope, solution_published)"},
    {"bad_solution_published.yaml",
     ":5:21: expected true or false for 'solution_published', got 'yes please'"},
    {"bad_kit.yaml", ":5:19: references 'binaries' is not one of objects, sources"},
    {"bad_late_deadline.yaml", ":4:18: 'late.deadline' must be a date and time like "
                               "2026-03-02T23:59:00+01:00, got 'next friday'"},
    {"bad_late_percent.yaml", ":4:7: 'late.per_day' and 'late.cap' are percentages: at most 100"},
    {"bad_gradescope_visibility.yaml", ":4:33: hidden_visibility 'later' is not one of "
                                       "after_due_date, after_published, hidden, visible"},
    {"bad_top_sequence.yaml", ":1:1: expected a mapping for the lab file, got a sequence"},
    {"bad_two_docs.yaml", ":5:1: a second YAML document: expected a single document"},
    {"bad_unbound_param.yaml", ":21:28: case 'small' does not bind parameter 'm'"},
    {"bad_utf8.yaml", ":2:8: invalid leading UTF-8 octet"},
    {"bad_sanitizer_case.yaml", ":27:23: sanitizer case 'huge' is not a case of exercise "
                                "'saxpy' (expected one of: small, big, odd)"},
    {"bad_sanitizer_cpu.yaml", ":23:16: exercise 'saxpy' has no GPU variant, and "
                               "compute-sanitizer checks GPU code only"},
    {"bad_sanitizer_dup_tool.yaml", ":27:36: duplicate tool 'racecheck' in sanitizer"},
    {"bad_sanitizer_empty.yaml", ":27:24: 'tools' must not be empty"},
    {"bad_sanitizer_hidden.yaml", ":27:23: sanitizer case 'odd' is hidden: its findings go into "
                                  "student reports, so name a visible case"},
    {"bad_sanitizer_key.yaml",
     ":27:17: unknown key 'tool' in sanitizer (expected one of: tools, case)"},
    {"bad_sanitizer_lab_case.yaml", ":4:38: 'case' belongs in an exercise's sanitizer (case ids "
                                    "are per exercise), not in the lab's"},
    {"bad_profile_case.yaml", ":27:21: profile case 'huge' is not a case of exercise 'saxpy'"},
    {"bad_profile_hidden.yaml", ":27:21: profile case 'odd' is hidden: its numbers go into "
                                "student reports, so name a visible case"},
    {"bad_profile_key.yaml", ":27:15: unknown key 'cases' in profile (expected one of: case)"},
    {"bad_profile_type.yaml", ":27:14: expected a mapping {case} for 'profile', got 'small'"},
    {"bad_profile_cpu.yaml", ":23:14: exercise 'saxpy' has no GPU variant, and --profile "
                             "profiles GPU kernels only"},
    {"bad_sanitizer_tool.yaml", ":27:35: compute-sanitizer tool 'memchek' is not one of "
                                "memcheck, racecheck, initcheck, synccheck"},
    {"bad_sanitizer_type.yaml", ":27:16: expected true, false or a mapping {tools, case} for "
                                "'sanitizer', got 'yes'"},
    {"bad_variant_key.yaml",
     ":17:9: unknown key 'flags' in variant (expected one of: id, title, target, function, "
     "sources, libs, memory, transfer_from, weight, reference)"},
};

/* compute-sanitizer: the lab's default, an exercise's own, off, and which case it runs on. */
START_TEST(test_good_sanitizer)
{
    struct lab lab;
    load_ok(&lab, FIXTURES "/good_sanitizer.yaml", NULL);
    ck_assert(lab.sanitizer.enabled);
    ck_assert_uint_eq(lab.sanitizer.n_tools, 2);
    ck_assert_ptr_null(lab.sanitizer.case_id);
    ck_assert_int_eq(lab.sanitizer.loc.line, 4);

    /* The lab's tools, in their order; the smallest visible quick case (not the hidden n=2,
     * nor the slow n=10). */
    const struct exercise_spec *ex = lab_exercise(&lab, "inherits");
    ck_assert(ex->sanitizer.enabled);
    ck_assert_uint_eq(ex->sanitizer.n_tools, 2);
    ck_assert_str_eq(ex->sanitizer.tools[0], "racecheck");
    ck_assert_str_eq(ex->sanitizer.tools[1], "memcheck");
    ck_assert_ptr_ne(ex->sanitizer.tools, lab.sanitizer.tools); /* a copy of its own */
    ck_assert_str_eq(exercise_sanitizer_case(ex)->id, "quick");
    ck_assert(exercise_has_gpu(ex));

    /* Its own: the case named, its tools. */
    ex = lab_exercise(&lab, "own");
    ck_assert(ex->sanitizer.enabled);
    ck_assert_uint_eq(ex->sanitizer.n_tools, 1);
    ck_assert_str_eq(ex->sanitizer.tools[0], "initcheck");
    ck_assert_str_eq(ex->sanitizer.case_id, "big");
    ck_assert_str_eq(exercise_sanitizer_case(ex)->id, "big");

    ex = lab_exercise(&lab, "off");
    ck_assert(!ex->sanitizer.enabled);
    /* No GPU code: the lab's default does not apply. */
    ex = lab_exercise(&lab, "cpu_only");
    ck_assert(!ex->sanitizer.enabled);
    ck_assert(!exercise_has_gpu(ex));
    /* true: memcheck alone (no tools listed); every visible case slow: the smallest of them. */
    ex = lab_exercise(&lab, "plain");
    ck_assert(ex->sanitizer.enabled);
    ck_assert_uint_eq(ex->sanitizer.n_tools, 0);
    ck_assert_str_eq(exercise_sanitizer_case(ex)->id, "s20");
    lab_release(&lab);

    /* Nothing asked: off everywhere; the default case of lab 0's saxpy is its smallest. */
    load_ok(&lab, FIXTURES "/good_min.yaml", NULL);
    ck_assert(!lab.sanitizer.enabled);
    ck_assert(!lab.exercises[0].sanitizer.enabled);
    ck_assert_str_eq(exercise_sanitizer_case(&lab.exercises[0])->id, "big.2-x_y");
    lab_release(&lab);
}
END_TEST

/* allow_tf32 and the precision check's distributions, over the arguments' own. */
START_TEST(test_precision_keys)
{
    struct lab lab;
    load_ok(&lab, "tests/fixtures/labexploit/lab.yaml", NULL);
    const struct exercise_spec *ex = lab_exercise(&lab, "sgemm6");
    ck_assert(!ex->allow_tf32);
    ck_assert_uint_eq(ex->n_precision_check, 2);
    ck_assert_str_eq(ex->precision_check[1].arg, "B");
    ck_assert_int_eq(ex->precision_check[1].init.dist, DIST_UNIFORM);
    ck_assert(ex->precision_check[1].init.low == -4 && ex->precision_check[1].init.high == 4);
    ck_assert(ex->args[1].init.low == 0 && ex->args[1].init.high == 1);
    ck_assert_uint_eq(lab_exercise(&lab, "poly")->n_precision_check, 0);
    lab_release(&lab);
}
END_TEST

/* A seed draws other inputs; seed 0 keeps the ids-only derivation (and so every cache). */
START_TEST(test_seed_changes_inputs)
{
    struct lab lab;
    uint64_t plain[2], again[2], seeded[2];
    struct sha256 h;
    char hex[65];
    load_ok(&lab, FIXTURES "/good_min.yaml", NULL);
    struct exercise_spec *ex = &lab.exercises[0];
    plan_seeds(&lab, ex, &ex->cases[0], 2, plain);
    plan_seeds(&lab, ex, &ex->cases[0], 2, again);
    ck_assert(plain[0] == again[0] && plain[1] == again[1] && plain[0] != plain[1]);
    sha256_init(&h);
    sha256_update(&h, "lab0/saxpy/small/0", strlen("lab0/saxpy/small/0"));
    sha256_final_hex(&h, hex);
    hex[16] = '\0';
    ck_assert(plain[0] == strtoull(hex, NULL, 16));
    ex->seed = 5;
    plan_seeds(&lab, ex, &ex->cases[0], 2, seeded);
    ck_assert(seeded[0] != plain[0] && seeded[1] != plain[1]);
    lab_release(&lab);
}
END_TEST

START_TEST(test_bad_spec)
{
    const struct bad_spec *b = &bad_specs[_i];
    char *path = xstrfmt("%s/%s", FIXTURES, b->file);
    char *expected = xstrfmt("%s%s", path, b->message);
    char buf[4096];
    load_fails(path, NULL, buf, sizeof(buf));
    ck_assert_str_eq(buf, expected);
    free(expected);
    free(path);
}
END_TEST

START_TEST(test_bad_missing_reference)
{
    /* Resolved paths are absolute, so these messages depend on where the tree lives. */
    struct error err;
    char buf[4096];
    char *tests = path_abs("tests", &err);
    ck_assert_ptr_nonnull(tests);
    load_fails(FIXTURES "/bad_missing_ref.yaml", NULL, buf, sizeof(buf));
    char *expected =
        xstrfmt(FIXTURES "/bad_missing_ref.yaml:19:63: reference source "
                         "'kernels/nope.c' not found: %s/kernels/nope.c does not exist",
                tests);
    ck_assert_str_eq(buf, expected);
    free(expected);

    load_fails(FIXTURES "/bad_missing_ref_local.yaml", NULL, buf, sizeof(buf));
    expected = xstrfmt(FIXTURES "/bad_missing_ref_local.yaml:19:52: reference source 'nope/ref.c' "
                                "not found: %s/fixtures/specs/nope/ref.c does not exist",
                       tests);
    ck_assert_str_eq(buf, expected);
    free(expected);
    free(tests);
}
END_TEST

START_TEST(test_missing_file)
{
    char buf[4096];
    load_fails(FIXTURES "/no_such_lab.yaml", NULL, buf, sizeof(buf));
    ck_assert_str_eq(buf, FIXTURES "/no_such_lab.yaml: cannot open: No such file or directory");
}
END_TEST

START_TEST(test_release_half_filled)
{
    /* What a parser leaves mid-way: arrays sized, some entries still empty. */
    struct lab lab;
    lab_init(&lab);
    lab.title = xstrdup("t");
    lab.n_exercises = 2;
    lab.exercises = xcalloc(2, sizeof(*lab.exercises));
    struct exercise_spec *ex = &lab.exercises[0];
    ex->id = xstrdup("e");
    ex->n_args = 3;
    ex->args = xcalloc(3, sizeof(*ex->args));
    ex->args[0].name = xstrdup("A");
    ex->args[0].n_shape = 2;
    ex->args[0].shape = xcalloc(2, sizeof(char *));
    ex->args[0].shape[0] = xstrdup("n");
    ex->n_variants = 1;
    ex->variants = xcalloc(1, sizeof(*ex->variants));
    ex->variants[0].n_mem = 1;
    ex->variants[0].mem = xcalloc(1, sizeof(*ex->variants[0].mem));
    ex->variants[0].reference.n_sources = 2;
    ex->variants[0].reference.sources = xcalloc(2, sizeof(char *));
    ex->n_cases = 1;
    ex->cases = xcalloc(1, sizeof(*ex->cases));
    ex->cases[0].n_sizes = 1;
    ex->cases[0].sizes = xcalloc(1, sizeof(*ex->cases[0].sizes));
    lab_release(&lab);
    ck_assert_ptr_null(lab.exercises);
    ck_assert_ptr_null(lab.title);
}
END_TEST

START_TEST(test_names)
{
    ck_assert_str_eq(arg_kind_name(ARG_INOUT), "inout");
    ck_assert_str_eq(arg_kind_name(ARG_SCALAR), "scalar");
    ck_assert_str_eq(mem_space_name(MEM_PINNED), "pinned");
    ck_assert_str_eq(mem_space_name(MEM_DEVICE), "device");
    ck_assert_str_eq(target_name(TARGET_GPU), "gpu");
    ck_assert_str_eq(dist_name(DIST_ARANGE), "arange");
    ck_assert_str_eq(dist_name(DIST_CONSTANT), "constant");
}
END_TEST

static Suite *spec_suite(void)
{
    Suite *s = suite_create("spec");
    TCase *lab6 = tcase_create("lab6");
    tcase_add_checked_fixture(lab6, lab6_setup, lab6_teardown);
    tcase_add_test(lab6, test_lab6_loads);
    tcase_add_test(lab6, test_lab6_explicit_root);
    tcase_add_test(lab6, test_lab6_missing_kernel);
    suite_add_tcase(s, lab6);

    TCase *good = tcase_create("good");
    tcase_add_test(good, test_good_min_defaults);
    tcase_add_test(good, test_good_full);
    tcase_add_test(good, test_seed_changes_inputs);
    tcase_add_test(good, test_good_sanitizer);
    tcase_add_test(good, test_precision_keys);
    tcase_add_test(good, test_release_half_filled);
    tcase_add_test(good, test_names);
    suite_add_tcase(s, good);

    TCase *bad = tcase_create("bad");
    tcase_add_loop_test(bad, test_bad_spec, 0, (int)(sizeof(bad_specs) / sizeof(bad_specs[0])));
    tcase_add_test(bad, test_bad_missing_reference);
    tcase_add_test(bad, test_missing_file);
    suite_add_tcase(s, bad);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(spec_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* plan: every case resolved once when the spec loads (grader/spec/plan.h). */
#include "base/alloc.h"
#include "base/sha256.h"
#include "spec/plan.h"
#include "spec/spec.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>

static void load(struct lab *lab, const char *path)
{
    struct error err;
    error_init(&err);
    ck_assert_msg(spec_load(lab, path, NULL, &err) == 0, "%s:%d:%d: %s", err.file, err.line,
                  err.col, err.msg);
}

/* The expected-output cache keys of labs 3, 4 and 6, hashed before the plan existed
 * (tests/fixtures/plan/cache_keys.txt): the plan must produce them byte for byte, or every
 * cached expected output of every course would be computed again, or worse, mismatch. */
START_TEST(test_cache_keys_unchanged)
{
    FILE *f = fopen("tests/fixtures/plan/cache_keys.txt", "r");
    char labid[32], exid[64], caseid[64], want[65];
    int checked = 0;
    ck_assert_ptr_nonnull(f);
    const char *paths[] = {"labs/lab3/lab.yaml", "labs/lab4/lab.yaml", "labs/lab6/lab.yaml"};
    struct lab labs[3];
    for (int i = 0; i < 3; i++)
        load(&labs[i], paths[i]);
    while (fscanf(f, "%31s %63s %63s %64s", labid, exid, caseid, want) == 4) {
        const struct lab *lab = NULL;
        for (int i = 0; i < 3; i++)
            if (!strcmp(labs[i].id, labid))
                lab = &labs[i];
        ck_assert_ptr_nonnull(lab);
        const struct exercise_spec *ex = lab_exercise(lab, exid);
        ck_assert_ptr_nonnull(ex);
        const struct case_spec *c = NULL;
        for (size_t k = 0; k < ex->n_cases; k++)
            if (!strcmp(ex->cases[k].id, caseid))
                c = &ex->cases[k];
        ck_assert_ptr_nonnull(c);
        const struct variant_spec *oracle = exercise_variant(ex, ex->oracle);
        struct strbuf key = STRBUF_INIT;
        plan_key_text(ex, oracle, c, oracle->reference.function, ex->timing.checks, &key);
        struct sha256 h;
        char hex[65];
        sha256_init(&h);
        sha256_update(&h, key.buf, key.len);
        sha256_final_hex(&h, hex);
        ck_assert_msg(!strcmp(hex, want), "%s %s %s: key changed:\n%s", labid, exid, caseid,
                      key.buf);
        strbuf_release(&key);
        checked++;
    }
    fclose(f);
    ck_assert_int_eq(checked, 63);
    for (int i = 0; i < 3; i++)
        lab_release(&labs[i]);
}
END_TEST

START_TEST(test_per_case_tolerance_and_expressions)
{
    struct lab lab;
    load(&lab, "tests/fixtures/plan/features.yaml");
    const struct exercise_spec *ex = &lab.exercises[0];
    int s = exercise_arg_index(ex, "s");
    /* rtol "2.4e-7*log2(n) + 1e-6" at n = 1000 and the exercise's atol. */
    const struct tolerance *t = &ex->cases[0].args[s].tol;
    ck_assert(fabs(t->rtol - (2.4e-7 * log2(1000.0) + 1e-6)) < 1e-18);
    ck_assert(t->atol == 1e-6 && t->has_rtol && t->has_atol);
    /* The case's own rtol wins; its atol is still the exercise's. */
    t = &ex->cases[1].args[s].tol;
    ck_assert(t->rtol == 1e-3 && t->atol == 1e-6);
    /* The third case has no tolerance: the expression at n = 4096 (12 * 2.4e-7 + 1e-6). */
    t = &ex->cases[2].args[s].tol;
    ck_assert(fabs(t->rtol - (2.4e-7 * 12 + 1e-6)) < 1e-18);
    lab_release(&lab);
}
END_TEST

START_TEST(test_per_case_inputs_scalars_and_returns)
{
    struct lab lab;
    load(&lab, "tests/fixtures/plan/features.yaml");
    const struct exercise_spec *ex = &lab.exercises[0];
    int x = exercise_arg_index(ex, "x"), s = exercise_arg_index(ex, "s");
    int count = exercise_arg_index(ex, "count");
    /* Case "exact" draws whole numbers in [-8, 8]; the others the argument's uniform [0, 1). */
    ck_assert_int_eq(ex->cases[2].args[x].init.dist, DIST_INTEGERS);
    ck_assert(ex->cases[2].args[x].init.low == -8 && ex->cases[2].args[x].init.high == 8);
    /* ...and says so to the harness: job.txt and the cache key name the distribution. */
    ck_assert_str_eq(dist_name(DIST_INTEGERS), "integers");
    struct strbuf key = STRBUF_INIT;
    plan_key_text(ex, &ex->variants[0], &ex->cases[2], "ref_sum_cpu", 2, &key);
    ck_assert_msg(strstr(key.buf, "arg x in f32 4096 host integers -8 8\n") != NULL, "%s", key.buf);
    strbuf_release(&key);
    ck_assert_int_eq(ex->cases[0].args[x].init.dist, DIST_UNIFORM);
    /* shape []: one element, no dimension. */
    ck_assert_int_eq(ex->cases[1].args[s].count, 1);
    ck_assert_uint_eq(ex->cases[1].args[s].n_dims, 0);
    ck_assert_int_eq(ex->cases[1].args[x].count, 1048576);
    /* returns: an output after the arguments, in host memory, not a parameter. */
    ck_assert_int_eq(count, (int)ex->n_args - 1);
    ck_assert(ex->args[count].is_return && ex->args[count].kind == ARG_OUT);
    ck_assert_int_eq(ex->args[count].dtype, LG_I64);
    ck_assert_int_eq(ex->cases[0].args[count].count, 1);
    ck_assert_int_eq(variant_arg_memory(&ex->variants[0], ex, (size_t)count), MEM_HOST);
    /* Seeds: drawn once, distinct per checked call and per case. */
    ck_assert(ex->cases[0].seeds[0] != ex->cases[0].seeds[1]);
    ck_assert(ex->cases[0].seeds[0] != ex->cases[1].seeds[0]);
    lab_release(&lab);
}
END_TEST

/* A spec with one line replaced must fail at that line with that message. */
static void bad_variant(const char *from, const char *to, const char *want)
{
    struct strbuf text = STRBUF_INIT;
    FILE *f = fopen("tests/fixtures/plan/features.yaml", "r");
    char line[512];
    ck_assert_ptr_nonnull(f);
    while (fgets(line, sizeof(line), f)) {
        char *at = strstr(line, from);
        if (at) {
            strbuf_add(&text, line, (size_t)(at - line));
            strbuf_addstr(&text, to);
            strbuf_addstr(&text, at + strlen(from));
        } else {
            strbuf_addstr(&text, line);
        }
    }
    fclose(f);
    char path[] = "tests/fixtures/plan/.bad-XXXXXX.yaml";
    int fd = mkstemps(path, 5);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text.buf, text.len), (ssize_t)text.len);
    close(fd);
    struct lab lab;
    struct error err;
    error_init(&err);
    ck_assert_int_eq(spec_load(&lab, path, NULL, &err), -1);
    char buf[2048];
    error_format(&err, buf, sizeof(buf));
    unlink(path);
    const char *msg = strchr(buf, ':');
    if (!(msg && !strcmp(msg, want)))
        fprintf(stderr, "got: %s\nwant: %s\n", buf, want);
    ck_assert(msg && !strcmp(msg, want));
    strbuf_release(&text);
}

START_TEST(test_errors_at_the_case)
{
    bad_variant("rtol: 1.0e-3}", "rtol: \"1e-3 - 1e-2\"}",
                ":23:9: case 'n2p20': tolerance rtol '1e-3 - 1e-2' is -0.009, expected >= 0");
    bad_variant("rtol: 1.0e-3}", "rtol: \"log2(m)\"}",
                ":23:60: bad expression 'log2(m)' in tolerance 'rtol': at column 6: unknown name "
                "'m'");
    bad_variant("init: {x: {dist: integers, low: -8, high: 8}}",
                "init: {y: {dist: integers, low: -8, high: 8}}",
                ":24:46: case 'exact': 'y' is not an input of exercise 'sum' (inputs: x)");
    bad_variant("low: -8, high: 8}", "low: -8.5, high: 8}",
                ":24:71: 'low' and 'high' of dist integers must be whole numbers (got -8.5 and "
                "8)");
    bad_variant("returns: {name: count, dtype: i64}", "returns: {name: x, dtype: i64}",
                ":14:14: the return value's name 'x' is also an argument's: name it with 'name'");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("plan");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_cache_keys_unchanged);
    tcase_add_test(tc, test_per_case_tolerance_and_expressions);
    tcase_add_test(tc, test_per_case_inputs_scalars_and_returns);
    tcase_add_test(tc, test_errors_at_the_case);
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

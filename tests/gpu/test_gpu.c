/*
 * End to end on a GPU machine (make test-gpu): every lab 6 fixture's GPU
 * variants against the gpu column of tests/fixtures/lab6/EXPECTED, the
 * solution with timing and sane times, and the GPU still usable after a
 * kernel that never ends was killed.
 */
#include "../e2e/e2e.h"

#include <dlfcn.h>

static char *out_dir;

static void setup(void)
{
    if (!out_dir)
        out_dir = e2e_tmpdir("gpu");
}

#define FIXTURE_TEST(name)                                                                         \
    START_TEST(test_##name)                                                                        \
    {                                                                                              \
        e2e_check_fixture(#name, true, out_dir, 0);                                                \
    }                                                                                              \
    END_TEST

FIXTURE_TEST(correct)
FIXTURE_TEST(wrong_values)
FIXTURE_TEST(unwritten_element)
FIXTURE_TEST(nan_output)
FIXTURE_TEST(segfault)
FIXTURE_TEST(endless_loop)
FIXTURE_TEST(compile_error)
FIXTURE_TEST(missing_function)
FIXTURE_TEST(signature_mismatch)

/* The full solution, slow case included: every variant passes, and cuBLAS at n=7000
 * without transfer lands in a sane range (about 15 ms on an H100). */
START_TEST(test_solution_full)
{
    char *log = xstrfmt("%s/solution.log", out_dir);
    const char *argv[] = {e2e_bin(),  "check", "labs/lab6", "--full",
                          "--no-pdf", "--out", out_dir,     NULL};
    int status = e2e_run(argv, log);
    struct results r;
    struct error err;
    char *json = xstrfmt("%s/lab6/solution/results.json", out_dir);
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s", err.msg);
    ck_assert_msg(status == 0, "exit %d (log %s)", status, log);
    ck_assert_int_eq(r.n_fail, 0);
    ck_assert_int_eq(r.n_grader_errors, 0);
    ck_assert_msg(r.machine.gpu_name != NULL, "no GPU seen: %s", r.machine.gpu_status);
    /* NVML's SM clock, read inside the sandbox after every kept sample, is recorded for the
     * function's and the reference's timed runs of every GPU case: without it no throttled
     * sample could ever be dropped. */
    void *nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    int clocked = 0;
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[e].variants[v];
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (strcmp(vr->target, "gpu") || cr->verdict != V_PASS || !cr->time.valid)
                    continue;
                const struct gpu_clock *k[2] = {&cr->clock, &cr->ref_clock};
                for (int i = 0; i < 2; i++) {
                    if (!nvml) {
                        ck_assert_int_eq(k[i]->max_mhz, 0);
                        continue;
                    }
                    ck_assert_msg(
                        k[i]->limit_mhz > 0 && k[i]->min_mhz > 0 &&
                            k[i]->min_mhz <= k[i]->max_mhz && k[i]->max_mhz <= k[i]->limit_mhz,
                        "%s/%s %s %s: SM clock %d-%d MHz, maximum %d", r.exercises[e].exercise_id,
                        vr->variant_id, cr->case_id, i ? "reference" : "function", k[i]->min_mhz,
                        k[i]->max_mhz, k[i]->limit_mhz);
                    clocked++;
                }
            }
        }
    if (nvml) {
        ck_assert_int_gt(clocked, 0);
        dlclose(nvml);
    }
    const struct variant_result *dev = e2e_variant(&r, "matmul", "gpu_dev");
    ck_assert(dev != NULL);
    for (size_t c = 0; c < dev->n_cases; c++) {
        const struct case_result *cr = &dev->cases[c];
        if (strcmp(cr->case_id, "n7000"))
            continue;
        ck_assert_int_eq(cr->verdict, V_PASS);
        ck_assert(cr->time.valid && cr->ref_time.valid && cr->time_transfer.valid);
        /* Sanity, not speed: 2*7000^3 flops between 1 and 1000 TFLOP/s. */
        ck_assert_msg(cr->ref_time.median_ms > 0.686 && cr->ref_time.median_ms < 686,
                      "cuBLAS n=7000: %.3f ms", cr->ref_time.median_ms);
        ck_assert(cr->time_transfer.median_ms > cr->time.median_ms);
    }
    results_release(&r);
    free(json);
    free(log);
}
END_TEST

/* The GPU probe's answer is remembered for the boot (grade/bootmemo.h): a second check, with
 * the same cache, creates no CUDA context before its runs, and still sees the GPU. */
START_TEST(test_probe_remembered)
{
    char *cache = e2e_tmpdir("probe-cache"), *out = xstrfmt("%s/probe", out_dir);
    setenv("LABGRADER_CACHE", cache, 1);
    setenv("LABGRADER_TRACE", "1", 1);
    const char *argv[] = {e2e_bin(), "check", "labs/lab6", "--no-timing", "--only", "grade2",
                          "--case",  "n1000", "--no-pdf",  "--out",       out,      NULL};
    for (int round = 0; round < 2; round++) {
        char *log = xstrfmt("%s/probe-%d.log", out_dir, round);
        ck_assert_msg(e2e_run(argv, log) == 0, "check exited non-zero (log %s)", log);
        struct strbuf sb = STRBUF_INIT;
        ck_assert_int_eq(read_file(log, &sb, NULL), 0);
        bool remembered = strstr(sb.buf, "GPU probed: available (remembered)") != NULL;
        ck_assert_msg(strstr(sb.buf, "GPU probed: available") != NULL, "no GPU (log %s)", log);
        ck_assert_msg(remembered == (round == 1), "round %d: remembered %d (log %s)", round,
                      remembered, log);
        strbuf_release(&sb);
        free(log);
    }
    char *json = xstrfmt("%s/lab6/solution/results.json", out);
    struct results r;
    struct error err;
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.n_fail, 0);
    ck_assert(r.machine.gpu_name != NULL);
    results_release(&r);
    remove_tree(cache, NULL);
    free(json);
    free(out);
    free(cache);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("lab6-gpu");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_correct);
    tcase_add_test(tc, test_wrong_values);
    tcase_add_test(tc, test_unwritten_element);
    tcase_add_test(tc, test_nan_output);
    tcase_add_test(tc, test_segfault);
    tcase_add_test(tc, test_endless_loop);
    /* After the endless kernel was killed, the GPU must still work for the next student. */
    tcase_add_test(tc, test_compile_error);
    tcase_add_test(tc, test_missing_function);
    tcase_add_test(tc, test_signature_mismatch);
    tcase_add_test(tc, test_solution_full);
    tcase_add_test(tc, test_probe_remembered);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

/*
 * Workers sharing one GPU (make test-gpu): `grader grade --gpus 3` on a class of four copies
 * of lab 6's solution, grade2 only (no slow case), timed. Three workers on one GPU take turns for
 * their timed series through the GPU's lock, each case's series asked for and granted on the
 * control pipe (docs/timing.md, "Timing locks"), while their start-up, checked calls and freeing
 * overlap. Every case must pass, timed, with no tampering seen (a series outside the lock is CH)
 * and no time limit hit while waiting (the wait is the case's `queue` stage, not counted against
 * its limit). How long the series waited is printed, not asserted: it depends on how the workers
 * happened to meet. The hang and the throughput are make bench's class row.
 */
#include "../e2e/e2e.h"

#include "base/fs.h"
#include "run/runner.h"

#define STUDENTS 4

START_TEST(test_three_workers_one_gpu)
{
    char *root = e2e_tmpdir("workers-gpu");
    char *class = path_join(root, "class"), *out = path_join(root, "out");
    char *log = path_join(root, "grade.log");
    for (int i = 1; i <= STUDENTS; i++) {
        /* Distinct copies: nothing shared through the object cache. */
        char *cmd = xstrfmt("mkdir -p '%s/s%d' && cp labs/lab6/solution/* '%s/s%d/' && "
                            "printf '\\n/* s%d */\\n' >> '%s/s%d/grade2_gpu.cu'",
                            class, i, class, i, i, class, i);
        const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
        ck_assert_int_eq(e2e_run(argv, NULL), 0);
        free(cmd);
    }
    const char *argv[] = {
        e2e_bin(),  "grade",  "labs/lab6", "--submissions", class,    "--out", out,
        "--no-pdf", "--only", "grade2",    "--no-slow",     "--gpus", "3",     NULL};
    int rc = e2e_run(argv, log);
    ck_assert_msg(rc == 0, "grade --gpus 3 exited %d (see %s)", rc, log);
    double queued = 0;
    for (int i = 1; i <= STUDENTS; i++) {
        char *json = xstrfmt("%s/lab6/s%d/results.json", out, i);
        struct results r;
        struct error err;
        results_init(&r);
        ck_assert_msg(results_read(&r, json, &err) == 0, "%s: %s", json, err.msg);
        ck_assert_msg(r.machine.gpu_name != NULL, "no GPU seen (see %s)", log);
        for (size_t v = 0; v < r.exercises[0].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[0].variants[v];
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (cr->verdict == V_SKIPPED && cr->slow)
                    continue;
                ck_assert_msg(cr->verdict == V_PASS && cr->time.valid, "s%d %s %s: %s (%s)", i,
                              vr->variant_id, cr->case_id, verdict_code(cr->verdict),
                              cr->message ? cr->message : "");
                queued += cr->stage_s[RUN_STAGE_QUEUE];
            }
        }
        results_release(&r);
        free(json);
    }
    printf("workers-gpu: the series waited %.2f s for their turn in all\n", queued);
    remove_tree(root, NULL);
    free(log);
    free(out);
    free(class);
    free(root);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("workers gpu");
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_three_workers_one_gpu);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

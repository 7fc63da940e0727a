/*
 * Workers sharing one GPU (make test-gpu): `grader grade --gpus 3` on a class of four copies
 * of lab 6's solution, grade2 only (no slow case), timed. Three workers on one GPU take turns for
 * their timed series through the GPU's lock, each case's series asked for and granted on the
 * control pipe (docs/timing.md, "Timing locks"), while their start-up, checked calls and freeing
 * overlap. Every case must pass, timed, with no tampering seen (a series outside the lock is CH)
 * and no time limit hit while waiting (the wait is the case's `queue` stage, not counted against
 * its limit). How long the series waited is printed, not asserted: it depends on how the workers
 * happened to meet. The hang and the throughput are make bench's class row.
 *
 * Then the machine's timing coordinator as a course meets it (docs/coordinator.md): four checks
 * at once, each with an output folder of its own; `grade --gpus 4` on every GPU three times, a
 * class of copies getting the same points each time. Verdicts are asserted (no CH, no XX),
 * never times; the figures are make bench's concurrency rows.
 */
#include "../e2e/e2e.h"

#include "base/fs.h"
#include "run/runner.h"

#include <sys/wait.h>

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

/* ---- the machine's timing coordinator on a GPU machine (docs/coordinator.md) ---- */

/* A class of n distinct copies of lab 6's solution (a comment each: nothing shared through the
 * object cache, and the same code for decisions.h). */
static char *copies(const char *root, int n)
{
    char *class = path_join(root, "class");
    for (int i = 1; i <= n; i++) {
        char *cmd = xstrfmt("mkdir -p '%s/s%d' && cp labs/lab6/solution/* '%s/s%d/' && "
                            "printf '\\n/* s%d */\\n' >> '%s/s%d/matmul_gpu.cu'",
                            class, i, class, i, i, class, i);
        const char *argv[] = {"/bin/sh", "-c", cmd, NULL};
        ck_assert_int_eq(e2e_run(argv, NULL), 0);
        free(cmd);
    }
    return class;
}

/* Every case of the results passed (or, on a machine someone else loads, was not timed, with
 * the reason): never CH, never XX. Its score in *score; whether every case was timed. */
static bool assert_honest(const char *json, const char *what, double *score)
{
    struct results r;
    struct error err;
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s: %s", json, err.msg);
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[e].variants[v];
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (cr->verdict == V_SKIPPED)
                    continue;
                ck_assert_msg(cr->verdict == V_PASS, "%s %s/%s %s: %s (%s)", what,
                              r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                              verdict_code(cr->verdict), cr->message ? cr->message : "");
                char *label = xstrfmt("%s %s/%s %s", what, r.exercises[e].exercise_id,
                                      vr->variant_id, cr->case_id);
                e2e_timed(label, cr);
                free(label);
            }
        }
    if (score)
        *score = r.score;
    ck_assert_int_eq(r.n_grader_errors, 0);
    bool complete = r.n_not_timed == 0;
    results_release(&r);
    return complete;
}

/* Four students check lab 6 at once on one machine, each in a folder of their own (a course's
 * shared GPU server): every case of every check passes, none is CH. */
START_TEST(test_checks_at_once)
{
    char *root = e2e_tmpdir("checks-at-once");
    pid_t pids[4];
    for (int k = 0; k < 4; k++) {
        pids[k] = fork();
        ck_assert_int_ge(pids[k], 0);
        if (pids[k] == 0) {
            char *out = xstrfmt("%s/out%d", root, k), *log = xstrfmt("%s/check%d.log", root, k);
            const char *argv[] = {e2e_bin(), "check", "labs/lab6", "--out",     out,
                                  "--lang",  "en",    "--no-pdf",  "--no-html", NULL};
            _exit(e2e_run(argv, log));
        }
    }
    for (int k = 0; k < 4; k++) {
        int st;
        ck_assert_int_eq(waitpid(pids[k], &st, 0), pids[k]);
        char *json = xstrfmt("%s/out%d/lab6/solution/results.json", root, k);
        char *what = xstrfmt("check %d", k);
        ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s exited %#x (%s/check%d.log)", what,
                      st, root, k);
        assert_honest(json, what, NULL);
        free(what);
        free(json);
    }
    remove_tree(root, NULL);
    free(root);
}
END_TEST

/* `grade --gpus 4` on every GPU of the machine (two workers per GPU on two), three times: every
 * case passes each time (the issue measured five CH on honest code in the second run), and the
 * copies, the same code, get the same points. */
START_TEST(test_four_workers_three_times)
{
    char *root = e2e_tmpdir("four-workers");
    char *class = copies(root, 6), *out = path_join(root, "out");
    /* Every GPU of the machine, whichever one run-suites.sh gave this suite. */
    unsetenv("CUDA_VISIBLE_DEVICES");
    for (int run = 0; run < 3; run++) {
        char *log = xstrfmt("%s/grade%d.log", root, run);
        const char *argv[] = {
            e2e_bin(),  "grade",     "labs/lab6", "--submissions", class, "--out",   out,
            "--no-pdf", "--no-html", "--no-slow", "--gpus",        "4",   "--force", NULL};
        int rc = e2e_run(argv, log);
        /* 3 only for students left ungraded because another program shared the machine
         * (assert_honest: no XX, every untimed case with its reason). */
        ck_assert_msg(rc == 0 || rc == 3, "run %d: grade --gpus 4 exited %d (see %s)", run, rc,
                      log);
        double first = -1;
        for (int i = 1; i <= 6; i++) {
            char *json = xstrfmt("%s/lab6/s%d/results.json", out, i);
            char *what = xstrfmt("run %d s%d", run, i);
            double score;
            if (!assert_honest(json, what, &score)) {
                free(what);
                free(json);
                continue; /* its grade is not complete: nothing to compare */
            }
            ck_assert_msg(first < 0 || score == first, "%s: %.2f points, s1 %.2f", what, score,
                          first);
            first = first < 0 ? score : first;
            free(what);
            free(json);
        }
        free(log);
    }
    remove_tree(root, NULL);
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
    tcase_add_test(tc, test_checks_at_once);
    tcase_add_test(tc, test_four_workers_three_times);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

/*
 * `grader slurm` against a real Slurm: tests/slurm/run.sh starts a private munged,
 * slurmctld and slurmd, grades the CPU fixture class in 3 shards and compares the
 * gradebook with a single-machine `grader grade`, then re-runs one shard alone. Where
 * Slurm or munge is not installed (or the test does not run as root) the script exits
 * 77 and this test passes with a "skipped: <reason>" line. Run from the repository root.
 */
#include "e2e.h"

START_TEST(test_slurm_cluster)
{
    char *dir = e2e_tmpdir("slurm");
    ck_assert_ptr_nonnull(dir);
    char *log = path_join(dir, "run.log");
    const char *argv[] = {"/bin/bash", "tests/slurm/run.sh", e2e_bin(), NULL};
    int status = e2e_run(argv, log);
    struct strbuf out = STRBUF_INIT;
    read_file(log, &out, NULL);
    const char *text = strbuf_str(&out);
    if (status == 77) {
        const char *why = strstr(text, "skipped: ");
        printf("%s", why ? why : "skipped: tests/slurm/run.sh gave no reason\n");
    } else {
        /* The log on stdout (what failed, the daemons' and jobs' last lines): Check's own
         * messages are too short for it. */
        printf("%s", text);
        fflush(stdout);
        ck_assert_msg(status == 0, "tests/slurm/run.sh exited with status %d (its log is above)",
                      status);
        ck_assert_msg(strstr(text, "\npassed\n") != NULL, "tests/slurm/run.sh printed no 'passed'");
    }
    remove_tree(dir, NULL);
    strbuf_release(&out);
    free(log);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("slurm-cluster");
    TCase *tc = tcase_create("slurm");
    /* Daemons start in seconds; the class grades twice (one machine, then Slurm). */
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_slurm_cluster);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

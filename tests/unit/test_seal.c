#include "base/seal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* The grader reseals samples it parsed from result.txt: the seal of the text read back must
 * be the harness's seal of the doubles it measured. */
START_TEST(test_seal_survives_the_result_file)
{
    const double measured[] = {0.0123456789, 1.5, 1234.5678901, 0.0000004, 98765.4321};
    size_t n = sizeof(measured) / sizeof(measured[0]);
    double read_back[5];
    for (size_t i = 0; i < n; i++) {
        char text[64];
        snprintf(text, sizeof(text), LG_SEAL_SAMPLE_FORMAT, measured[i]);
        read_back[i] = strtod(text, NULL);
    }
    ck_assert_uint_eq(lg_seal_samples(LG_SEAL_START, measured, n),
                      lg_seal_samples(LG_SEAL_START, read_back, n));
}
END_TEST

/* A sample divided, two samples swapped, a sample dropped: each changes the seal. */
START_TEST(test_seal_sees_every_change)
{
    double x[] = {0.25, 0.5, 0.75, 1.0};
    uint64_t h = lg_seal_samples(LG_SEAL_START, x, 4);
    double scaled[] = {0.025, 0.5, 0.75, 1.0}, swapped[] = {0.5, 0.25, 0.75, 1.0};
    ck_assert_uint_ne(h, lg_seal_samples(LG_SEAL_START, scaled, 4));
    ck_assert_uint_ne(h, lg_seal_samples(LG_SEAL_START, swapped, 4));
    ck_assert_uint_ne(h, lg_seal_samples(LG_SEAL_START, x, 3));
    /* Sealing in pieces is sealing the whole (the reader checks each array's own count). */
    uint64_t split = lg_seal_samples(lg_seal_samples(LG_SEAL_START, x, 2), x + 2, 2);
    ck_assert_uint_eq(h, split);
    ck_assert_uint_eq(lg_seal_samples(LG_SEAL_START, x, 0), LG_SEAL_START);
}
END_TEST

/* The supervisor compares a child's vDSO digest with its own: they must agree for an
 * untouched child (the kernel maps one image into every process). */
START_TEST(test_vdso_digest_is_the_same_in_a_child)
{
    uint64_t own = lg_seal_vdso();
    int fd[2];
    ck_assert_int_eq(pipe(fd), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        uint64_t child = lg_seal_vdso();
        ssize_t w = write(fd[1], &child, sizeof(child));
        _exit(w == (ssize_t)sizeof(child) ? 0 : 1);
    }
    uint64_t child = 0;
    ck_assert_int_eq(read(fd[0], &child, sizeof(child)), (ssize_t)sizeof(child));
    waitpid(pid, NULL, 0);
    close(fd[0]);
    close(fd[1]);
    ck_assert_uint_eq(own, child);
    ck_assert_uint_eq(own, lg_seal_vdso());
}
END_TEST

int main(void)
{
    Suite *s = suite_create("seal");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_seal_survives_the_result_file);
    tcase_add_test(tc, test_seal_sees_every_change);
    tcase_add_test(tc, test_vdso_digest_is_the_same_in_a_child);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

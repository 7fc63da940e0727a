/* bootmemo (grader/grade/bootmemo.h): a probe's answer is remembered for the boot, under a key
 * that changes with the program and whatever the caller names; a damaged or old entry is never
 * read back. */
#include "grade/bootmemo.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "grade/cache.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static char *dir, *prog;

static void setup(void)
{
    dir = xstrdup("/tmp/lg-test-bootmemo-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    prog = path_join(dir, "probe");
    ck_assert_int_eq(write_file_atomic(prog, "v1", 2, NULL), 0);
    cache_forget();
}

static void teardown(void)
{
    remove_tree(dir, NULL);
    free(prog);
    free(dir);
}

START_TEST(test_key_follows_program_and_extra)
{
    const char *a[] = {"driver 580", NULL}, *b[] = {"driver 580", "0"}, *c[] = {"driver 590", NULL};
    char *pa = bootmemo_path(dir, "gpuprobe", prog, a, 2);
    char *pa2 = bootmemo_path(dir, "gpuprobe", prog, a, 2);
    char *pb = bootmemo_path(dir, "gpuprobe", prog, b, 2); /* CUDA_VISIBLE_DEVICES=0 */
    char *pc = bootmemo_path(dir, "gpuprobe", prog, c, 2); /* a new driver */
    char *other = bootmemo_path(dir, "blascore", prog, a, 2);
    ck_assert_ptr_nonnull(pa);
    ck_assert_str_eq(pa, pa2);
    ck_assert_str_ne(pa, pb);
    ck_assert_str_ne(pa, pc);
    ck_assert_str_ne(pa, other);
    ck_assert_ptr_nonnull(strstr(pa, "/machine/gpuprobe-"));
    /* A rebuilt program is another program. */
    ck_assert_int_eq(write_file_atomic(prog, "v2 longer", 9, NULL), 0);
    char *rebuilt = bootmemo_path(dir, "gpuprobe", prog, a, 2);
    ck_assert_str_ne(pa, rebuilt);
    char *missing = path_join(dir, "no-such-probe");
    ck_assert_ptr_null(bootmemo_path(dir, "gpuprobe", missing, a, 2));
    free(missing);
    free(rebuilt);
    free(other);
    free(pc);
    free(pb);
    free(pa2);
    free(pa);
}
END_TEST

START_TEST(test_round_trip)
{
    char *p = bootmemo_path(dir, "gpuprobe", prog, NULL, 0);
    ck_assert_ptr_null(bootmemo_read(p));
    struct error err;
    error_init(&err);
    ck_assert_int_eq(bootmemo_write(p, "count 1\ndevice 0\nname H100\n", &err), 0);
    char *back = bootmemo_read(p);
    ck_assert_str_eq(back, "count 1\ndevice 0\nname H100\n");
    free(back);
    free(p);
}
END_TEST

START_TEST(test_damaged_entry_not_read)
{
    char *p = bootmemo_path(dir, "blascore", prog, NULL, 0);
    ck_assert_int_eq(bootmemo_write(p, "openblas_core Haswell\n", NULL), 0);
    FILE *f = fopen(p, "w");
    ck_assert_ptr_nonnull(f);
    fputs("openblas_core Prescott\n", f); /* edited: its seal no longer matches */
    fclose(f);
    cache_forget();
    ck_assert_ptr_null(bootmemo_read(p));
    ck_assert(!file_exists(p)); /* discarded, so the next check probes again */
    free(p);
}
END_TEST

START_TEST(test_old_entry_not_read)
{
    char *p = bootmemo_path(dir, "gpuprobe", prog, NULL, 0);
    ck_assert_int_eq(bootmemo_write(p, "name H100\n", NULL), 0);
    struct timeval old[2];
    gettimeofday(&old[0], NULL);
    old[0].tv_sec -= BOOTMEMO_MAX_AGE_S + 60;
    old[1] = old[0];
    ck_assert_int_eq(utimes(p, old), 0);
    ck_assert_ptr_null(bootmemo_read(p));
    free(p);
}
END_TEST

START_TEST(test_forgotten_entry_gone)
{
    char *p = bootmemo_path(dir, "gpuprobe", prog, NULL, 0), *seal = xstrfmt("%s.sha256", p);
    ck_assert_int_eq(bootmemo_write(p, "name H100\n", NULL), 0);
    ck_assert(file_exists(seal));
    bootmemo_forget(p);
    ck_assert(!file_exists(p) && !file_exists(seal));
    ck_assert_ptr_null(bootmemo_read(p));
    bootmemo_forget(p); /* twice: nothing to do, no complaint */
    free(seal);
    free(p);
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("bootmemo");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_key_follows_program_and_extra);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_damaged_entry_not_read);
    tcase_add_test(tc, test_old_entry_not_read);
    tcase_add_test(tc, test_forgotten_entry_gone);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

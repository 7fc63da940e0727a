/* space: the probe that tells a full grader disk from a student's failure. A real full disk
 * is a tmpfs of a few pages (root only; skipped with the reason elsewhere). */
#include "base/space.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "unit.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

START_TEST(test_probe_fits_and_leaves_nothing)
{
    char *d = unit_tmpdir("test-space");
    struct error err;
    error_init(&err);
    ck_assert_int_eq(space_probe(d, 3 << 20, &err), SPACE_OK);
    /* The probe's file is gone: the folder is as empty as before. */
    ck_assert_int_eq(space_tree_bytes(d), 0);
    ck_assert(space_available(d) > 0);
    ck_assert(space_device(d) == space_device("/tmp"));
    ck_assert_int_eq(space_device("/no/such/folder"), -1);
    ck_assert_int_eq(space_available("/no/such/folder"), -1);
    /* A folder that is not there is not a full disk. */
    char *gone = path_join(d, "gone");
    ck_assert_int_eq(space_probe(gone, 1, &err), SPACE_ERROR);
    ck_assert_msg(strstr(err.msg, gone) && strstr(err.msg, "No such file"), "%s", err.msg);
    ck_assert(space_errno_full(ENOSPC) && space_errno_full(EDQUOT) && !space_errno_full(EACCES));
    free(gone);
    rmdir(d);
    free(d);
}
END_TEST

START_TEST(test_full_tmpfs)
{
    char *d = unit_tmpdir("test-space");
    struct error err;
    error_init(&err);
    if (mount("tmpfs", d, "tmpfs", 0, "size=256k") != 0) {
        printf("skipped: cannot mount a tmpfs here (%s): the full-disk probe is tested by "
               "statvfs alone\n",
               strerror(errno));
        ck_assert_int_eq(space_probe(d, 1LL << 60, &err), SPACE_FULL);
        rmdir(d);
        free(d);
        return;
    }
    ck_assert_int_eq(space_probe(d, 64 << 10, &err), SPACE_OK);
    ck_assert_int_eq(space_probe(d, 1 << 20, &err), SPACE_FULL);
    ck_assert_msg(strstr(err.msg, "no space left on the grader's disk") && strstr(err.msg, d) &&
                      strstr(err.msg, "1.0 MiB"),
                  "%s", err.msg);
    /* Fill it: statvfs then says there is room for nothing, and a write confirms it. */
    char *fill = path_join(d, "fill");
    int fd = open(fill, O_WRONLY | O_CREAT, 0600);
    char buf[4096] = {0};
    while (write(fd, buf, sizeof(buf)) > 0)
        ;
    close(fd);
    ck_assert_int_eq(space_probe(d, 1, &err), SPACE_FULL);
    ck_assert(space_tree_bytes(d) >= 200 << 10);
    unlink(fill);
    ck_assert_int_eq(space_probe(d, 64 << 10, &err), SPACE_OK);
    umount2(d, MNT_DETACH);
    rmdir(d);
    free(fill);
    free(d);
}
END_TEST

START_TEST(test_format)
{
    char buf[32];
    space_format(512, buf, sizeof(buf));
    ck_assert_str_eq(buf, "512 bytes");
    space_format(1536 << 10, buf, sizeof(buf));
    ck_assert_str_eq(buf, "1.5 MiB");
    space_format(3LL << 30, buf, sizeof(buf));
    ck_assert_str_eq(buf, "3.0 GiB");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("space");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_probe_fits_and_leaves_nothing);
    tcase_add_test(tc, test_full_tmpfs);
    tcase_add_test(tc, test_format);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

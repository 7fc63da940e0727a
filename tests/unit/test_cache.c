/* cache: sealed files and folders read back as stored, or refused with the reason; a file
 * changed in place is caught even with its modification time put back; a discarded entry
 * is said once. */
#include "grade/cache.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "unit.h"

#include <check.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void put(const char *path, const char *text)
{
    ck_assert_int_eq(write_file_atomic(path, text, strlen(text), NULL), 0);
}

/* Overwrite one byte in place (same inode, same size), then put the modification time back. */
static void flip_byte(const char *path, off_t at)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    int fd = open(path, O_RDWR);
    char c;
    ck_assert_int_eq(pread(fd, &c, 1, at), 1);
    c ^= 0x20;
    ck_assert_int_eq(pwrite(fd, &c, 1, at), 1);
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    ck_assert_int_eq(futimens(fd, times), 0);
    close(fd);
}

START_TEST(test_sealed_file)
{
    char *d = unit_tmpdir("test-cache");
    char *f = path_join(d, "runner"), why[512];
    put(f, "#!/bin/true\nthe reference runner\n");
    ck_assert_int_eq(cache_check_file(f, why, sizeof(why)), CACHE_BAD);
    ck_assert_msg(strstr(why, "no checksum"), "%s", why);
    ck_assert_int_eq(cache_seal_file(f, NULL), 0);
    ck_assert_int_eq(cache_check_file(f, why, sizeof(why)), CACHE_OK);
    ck_assert_int_eq(cache_check_file(f, why, sizeof(why)), CACHE_OK); /* remembered */
    flip_byte(f, 3);
    ck_assert_int_eq(cache_check_file(f, why, sizeof(why)), CACHE_BAD);
    ck_assert_msg(strstr(why, "does not match its checksum"), "%s", why);
    /* Truncated: the size says so. */
    put(f, "#!/bin/true\n");
    ck_assert_int_eq(cache_check_file(f, why, sizeof(why)), CACHE_BAD);
    ck_assert_msg(strstr(why, "12 bytes"), "%s", why);
    cache_discard(f, why);
    ck_assert(!file_exists(f));
    char *seal = xstrfmt("%s.sha256", f);
    ck_assert(!file_exists(seal));
    ck_assert_int_eq(cache_check_file(f, why, sizeof(why)), CACHE_MISSING);
    free(seal);
    free(f);
    remove_tree(d, NULL);
    free(d);
}
END_TEST

START_TEST(test_sealed_folder)
{
    char *d = unit_tmpdir("test-cache");
    char *e = path_join(d, "entry"), why[512];
    const char *names[] = {"out_c_0.bin", "out_c_1.bin"};
    ck_assert_int_eq(mkdir_p(e, NULL), 0);
    for (size_t i = 0; i < 2; i++) {
        char *p = path_join(e, names[i]);
        put(p, i ? "second output, 28 bytes long" : "first output");
        free(p);
    }
    ck_assert_int_eq(cache_check_dir(e, why, sizeof(why)), CACHE_MISSING);
    ck_assert_int_eq(cache_seal_dir(e, names, 2, NULL), 0);
    cache_forget();
    ck_assert_int_eq(cache_check_dir(e, why, sizeof(why)), CACHE_OK);
    char *second = path_join(e, names[1]);
    flip_byte(second, 7);
    ck_assert_int_eq(cache_check_dir(e, why, sizeof(why)), CACHE_BAD);
    ck_assert_msg(strstr(why, "out_c_1.bin does not match its checksum"), "%s", why);
    unlink(second);
    ck_assert_int_eq(cache_check_dir(e, why, sizeof(why)), CACHE_BAD);
    ck_assert_msg(strstr(why, "out_c_1.bin"), "%s", why);
    /* An older grader's marker, without checksums. */
    char *done = path_join(e, "done");
    put(done, "ok\n");
    ck_assert_int_eq(cache_check_dir(e, why, sizeof(why)), CACHE_BAD);
    ck_assert_msg(strstr(why, "without checksums"), "%s", why);
    /* A manifest naming a file outside the entry is damaged, not followed. */
    put(done, "labgrader-expected 2\n"
              "0000000000000000000000000000000000000000000000000000000000000000 1 ../x\n");
    ck_assert_int_eq(cache_check_dir(e, why, sizeof(why)), CACHE_BAD);
    ck_assert_msg(strstr(why, "damaged"), "%s", why);
    cache_discard(e, why);
    ck_assert(!dir_exists(e));
    free(done);
    free(second);
    free(e);
    remove_tree(d, NULL);
    free(d);
}
END_TEST

START_TEST(test_discard_said_once)
{
    char *d = unit_tmpdir("test-cache");
    char *f = path_join(d, "runner"), *log = path_join(d, "stderr.txt");
    int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    for (int i = 0; i < 3; i++) {
        put(f, "x");
        cache_discard(f, "does not match its checksum");
    }
    dup2(saved, 2);
    close(saved);
    struct strbuf sb = STRBUF_INIT;
    ck_assert_int_eq(read_file(log, &sb, NULL), 0);
    char *want =
        xstrfmt("grader: cache: %s: does not match its checksum: discarded, built again\n", f);
    ck_assert_str_eq(sb.buf, want);
    free(want);
    strbuf_release(&sb);
    free(f);
    free(log);
    remove_tree(d, NULL);
    free(d);
}
END_TEST

/* Another process of the boot verified the file (its ".ok" beside it): its hash is read, not
 * taken again; a memo over an hour old is not trusted. A forged memo with a wrong hash shows
 * which way the check went. */
START_TEST(test_verified_by_another_process)
{
    char *d = unit_tmpdir("test-cache");
    char *f = path_join(d, "runner"), *memo = xstrfmt("%s.ok", f), why[512];
    struct strbuf text = STRBUF_INIT;
    put(f, "#!/bin/true\nthe reference runner\n");
    ck_assert_int_eq(cache_seal_file(f, NULL), 0);
    ck_assert_int_eq(read_file(memo, &text, NULL), 0);
    ck_assert_msg(!strncmp(text.buf, "labgrader-verified 1 at ", 24), "%s", text.buf);
    char *real = xstrdup(strstr(text.buf, " sha256 "));
    /* The same identity, a hash of another file: trusted, so the file reads as changed. */
    char *forged = xstrdup(text.buf);
    memset(strstr(forged, " sha256 ") + 8, '0', 64);
    put(memo, forged);
    cache_forget();
    ck_assert_int_eq(cache_check_file(f, why, sizeof(why)), CACHE_BAD);
    /* Over an hour old: hashed again, the file is as stored, and the memo written anew. */
    char *old = xstrfmt("labgrader-verified 1 at %lld%s", (long long)time(NULL) - 3700,
                        strstr(forged, " boot "));
    put(memo, old);
    cache_forget();
    ck_assert_int_eq(cache_check_file(f, why, sizeof(why)), CACHE_OK);
    strbuf_reset(&text);
    ck_assert_int_eq(read_file(memo, &text, NULL), 0);
    ck_assert_ptr_nonnull(strstr(text.buf, real));
    free(real);
    free(old);
    free(forged);
    strbuf_release(&text);
    remove_tree(d, NULL);
    free(memo);
    free(f);
    free(d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_sealed_file);
    tcase_add_test(tc, test_sealed_folder);
    tcase_add_test(tc, test_discard_said_once);
    tcase_add_test(tc, test_verified_by_another_process);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* util and strbuf: SHA-256 vectors, checked parsing, atomic writes, paths. */
#include "strbuf.h"
#include "util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(test_sha256_vectors)
{
    struct sha256 s;
    char hex[65];
    sha256_init(&s);
    sha256_final_hex(&s, hex);
    ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sha256_init(&s);
    sha256_update(&s, "abc", 3);
    sha256_final_hex(&s, hex);
    ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    /* Two blocks, fed in odd pieces. */
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    sha256_init(&s);
    for (size_t i = 0; i < strlen(m); i += 7)
        sha256_update(&s, m + i, strlen(m) - i < 7 ? strlen(m) - i : 7);
    sha256_final_hex(&s, hex);
    ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

START_TEST(test_parse_numbers)
{
    long l;
    double d;
    ck_assert(parse_long("42", &l) && l == 42);
    ck_assert(!parse_long("42x", &l));
    ck_assert(!parse_long("", &l));
    ck_assert(!parse_long("99999999999999999999999", &l));
    ck_assert(parse_double("1e-3", &d) && d == 1e-3);
    ck_assert(!parse_double("1e-3 ", &d));
    ck_assert(!parse_double("1e999", &d));
}
END_TEST

START_TEST(test_atomic_write_and_read)
{
    char dir[] = "/tmp/lg-util-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *sub = xstrfmt("%s/a/b/c", dir);
    ck_assert_int_eq(mkdir_p(sub, NULL), 0);
    char *f = path_join(sub, "x.txt");
    ck_assert_int_eq(write_file_atomic(f, "hello", 5, NULL), 0);
    struct strbuf sb = STRBUF_INIT;
    ck_assert_int_eq(read_file(f, &sb, NULL), 0);
    ck_assert_str_eq(sb.buf, "hello");
    struct error err;
    ck_assert_int_eq(read_file("/nonexistent/file", &sb, &err), -1);
    ck_assert_str_eq(err.file, "/nonexistent/file");
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    ck_assert(!dir_exists(dir));
    strbuf_release(&sb);
    free(f);
    free(sub);
}
END_TEST

START_TEST(test_paths_and_strbuf)
{
    char *p = path_join("a/", "b");
    ck_assert_str_eq(p, "a/b");
    free(p);
    p = path_join("a", "/abs");
    ck_assert_str_eq(p, "/abs");
    free(p);
    ck_assert_str_eq(path_base("/x/y/z.c"), "z.c");
    struct strbuf sb = STRBUF_INIT;
    ck_assert_str_eq(strbuf_str(&sb), "");
    strbuf_addf(&sb, "%d-%s", 7, "x");
    strbuf_addstr(&sb, "  \n");
    strbuf_rtrim(&sb);
    ck_assert_str_eq(sb.buf, "7-x");
    char *d = strbuf_detach(&sb);
    ck_assert_str_eq(d, "7-x");
    free(d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_sha256_vectors);
    tcase_add_test(tc, test_parse_numbers);
    tcase_add_test(tc, test_atomic_write_and_read);
    tcase_add_test(tc, test_paths_and_strbuf);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* symbols: the libraries' exported names read for the link-time check (grader/run/symbols.h). */
#include "run/symbols.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The C library is on every machine that builds the grader: its clocks and allocator are
 * read from the mapped library (cuBLASLt, where installed, is read the same way). */
START_TEST(test_reserved_names_from_the_c_library)
{
    struct symbol_set s;
    symbol_set_init(&s);
    symbols_reserved(NULL, &s);
    const char *origin = symbol_set_find(&s, "clock_gettime");
    ck_assert_ptr_nonnull(origin);
    ck_assert_str_eq(origin, "the C library");
    ck_assert_ptr_nonnull(symbol_set_find(&s, "malloc"));
    ck_assert_ptr_null(symbol_set_find(&s, "saxpy_cpu"));
    symbol_set_release(&s);
}
END_TEST

/* A file that is not a library is an error, not a crash, and adds nothing. */
START_TEST(test_library_that_is_not_elf)
{
    char path[] = "/tmp/lg-symbols-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "not an ELF file at all\n", 23), 23);
    close(fd);
    struct symbol_set s;
    struct error err;
    symbol_set_init(&s);
    error_init(&err);
    ck_assert_int_eq(symbols_read_library(path, "test", &s, &err), -1);
    ck_assert_uint_eq(s.n, 0);
    ck_assert_int_eq(symbols_read_library("/nonexistent/libnothing.so", "test", &s, &err), -1);
    symbol_set_release(&s);
    unlink(path);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("symbols");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_reserved_names_from_the_c_library);
    tcase_add_test(tc, test_library_that_is_not_elf);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

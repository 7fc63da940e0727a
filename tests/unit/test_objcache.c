#include "base/alloc.h"
#include "base/fs.h"
#include "run/objcache.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A build folder with src/a.c including src/a.h, compiled by the real C compiler. */
static char root[] = "/tmp/lg-objcache-XXXXXX";
static char *build, *cache;

static void put(const char *rel, const char *text)
{
    char *p = path_join(build, rel);
    ck_assert_int_eq(write_file_atomic(p, text, strlen(text), NULL), 0);
    free(p);
}

static void setup(void)
{
    ck_assert_ptr_nonnull(mkdtemp(root));
    build = xstrfmt("%s/build", root);
    cache = xstrfmt("%s/cache", root);
    char *src = xstrfmt("%s/src", build);
    ck_assert_int_eq(mkdir_p(src, NULL), 0);
    free(src);
    put("src/a.h", "#define A 1\n");
    put("src/a.c", "#include \"a.h\"\nint a(void) { return A; }\n");
    put("src/b.c", "int b(void) { return 2; }\n");
}

static void teardown(void)
{
    remove_tree(root, NULL);
    strcpy(root + strlen(root) - 6, "XXXXXX");
    free(build);
    free(cache);
}

static const char *argv_a[] = {"cc", "-O2", "-c", "src/a.c", "-o", "obj.o", NULL};

static void entry(struct objcache_entry *e, const char *object)
{
    argv_a[5] = object;
    struct error err;
    error_init(&err);
    ck_assert_int_eq(objcache_entry_init(e, cache, build, argv_a, object, "src/a.c", "cc 12", &err),
                     0);
}

/* Compile for real, writing the object and its dependency file, then keep it. */
static void compile_and_store(const char *object)
{
    struct objcache_entry e;
    char *cmd = xstrfmt("cd %s && cc -O2 -c src/a.c -o %s -MD -MF %s.d", build, object, object);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    entry(&e, object);
    char *dep = xstrfmt("%s.d", object);
    objcache_store(&e, object, dep, "src/a.c: a warning");
    free(dep);
    objcache_entry_release(&e);
}

static bool hit(const char *object)
{
    struct objcache_entry e;
    char *log = NULL;
    entry(&e, object);
    bool ok = objcache_load(&e, object, &log);
    objcache_entry_release(&e);
    free(log);
    return ok;
}

START_TEST(test_hit_after_store_and_shared_by_object_names)
{
    ck_assert(!hit("one.o"));
    compile_and_store("one.o");
    ck_assert(hit("one.o"));
    /* Another variant compiling the same source into another file shares the entry. */
    ck_assert(hit("two.o"));
    char *two = path_join(build, "two.o");
    ck_assert(file_exists(two));
    free(two);
}
END_TEST

START_TEST(test_header_edit_misses_unrelated_edit_hits)
{
    compile_and_store("one.o");
    put("src/b.c", "int b(void) { return 3; }\n");
    ck_assert(hit("one.o"));
    put("src/a.h", "#define A 2\n");
    ck_assert(!hit("one.o"));
    compile_and_store("one.o");
    ck_assert(hit("one.o"));
}
END_TEST

START_TEST(test_source_edit_is_another_entry)
{
    compile_and_store("one.o");
    put("src/a.c", "#include \"a.h\"\nint a(void) { return A + 1; }\n");
    ck_assert(!hit("one.o"));
}
END_TEST

START_TEST(test_damaged_entry_misses)
{
    compile_and_store("one.o");
    struct objcache_entry e;
    entry(&e, "one.o");
    char *obj = path_join(e.dir, "object.o");
    ck_assert_int_eq(write_file_atomic(obj, "junk", 4, NULL), 0);
    free(obj);
    objcache_entry_release(&e);
    ck_assert(!hit("one.o"));
}
END_TEST

START_TEST(test_log_keeps_this_build_folder)
{
    struct objcache_entry e;
    char *log = NULL;
    char *cmd = xstrfmt("cd %s && cc -O2 -c src/a.c -o one.o -MD -MF one.o.d", build);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    entry(&e, "one.o");
    char *text = xstrfmt("%s/src/a.c:1: warning: something", build);
    objcache_store(&e, "one.o", "one.o.d", text);
    ck_assert(objcache_load(&e, "one.o", &log));
    ck_assert_str_eq(log, text);
    free(log);
    free(text);
    objcache_entry_release(&e);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("objcache");
    TCase *tc = tcase_create("objcache");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_hit_after_store_and_shared_by_object_names);
    tcase_add_test(tc, test_header_edit_misses_unrelated_edit_hits);
    tcase_add_test(tc, test_source_edit_is_another_entry);
    tcase_add_test(tc, test_damaged_entry_misses);
    tcase_add_test(tc, test_log_keeps_this_build_folder);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

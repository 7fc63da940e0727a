/* util and strbuf: SHA-256 vectors, checked parsing, atomic writes, paths. */
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/util.h"

#include <check.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Bytes this process has read through read() and its kin so far (/proc/self/io's rchar). */
static long long own_bytes_read(void)
{
    struct strbuf sb = STRBUF_INIT;
    long long v = -1;
    if (read_file("/proc/self/io", &sb, NULL) == 0) {
        const char *p = strstr(sb.buf, "rchar: ");
        if (p)
            v = strtoll(p + 7, NULL, 10);
    }
    strbuf_release(&sb);
    return v;
}

/* Files a sandboxed run left behind: whatever the run made of them, read_run_file neither
 * follows, nor blocks, nor reads more than its cap. */
START_TEST(test_read_run_file)
{
    char dir[] = "/tmp/lg-util-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *reg = path_join(dir, "result.txt"), *p = NULL;
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    error_init(&err);
    ck_assert_int_eq(write_file_atomic(reg, "harness 1\n", 10, NULL), 0);
    ck_assert_int_eq(read_run_file(reg, 16, false, &sb, &err), 0);
    ck_assert_str_eq(sb.buf, "harness 1\n");
    strbuf_reset(&sb);
    /* Exact sizes: a short or long output is refused, not padded or cut. */
    ck_assert_int_eq(read_run_file(reg, 10, true, &sb, &err), 0);
    strbuf_reset(&sb);
    ck_assert_int_eq(read_run_file(reg, 11, true, &sb, &err), RUN_FILE_REFUSED);
    ck_assert_msg(strstr(err.msg, "10 bytes, expected 11"), "%s", err.msg);
    ck_assert_int_eq(read_run_file(reg, 9, false, &sb, &err), RUN_FILE_REFUSED);
    ck_assert_uint_eq(sb.len, 0);
    /* Missing is told apart from refused. */
    p = path_join(dir, "none");
    ck_assert_int_eq(read_run_file(p, 16, false, &sb, &err), RUN_FILE_MISSING);
    free(p);
    /* A named pipe nobody writes: refused at once (plain open() would block forever). */
    p = path_join(dir, "fifo");
    ck_assert_int_eq(mkfifo(p, 0644), 0);
    ck_assert_int_eq(read_run_file(p, 16, false, &sb, &err), RUN_FILE_REFUSED);
    ck_assert_msg(strstr(err.msg, "named pipe"), "%s", err.msg);
    free(p);
    /* A link to /dev/zero (endless) or to a real file (someone else's outputs). */
    p = path_join(dir, "zero");
    ck_assert_int_eq(symlink("/dev/zero", p), 0);
    ck_assert_int_eq(read_run_file(p, 16u << 20, false, &sb, &err), RUN_FILE_REFUSED);
    ck_assert_msg(strstr(err.msg, "symbolic link"), "%s", err.msg);
    free(p);
    p = path_join(dir, "link");
    ck_assert_int_eq(symlink(reg, p), 0);
    ck_assert_int_eq(read_run_file(p, 16, false, &sb, &err), RUN_FILE_REFUSED);
    free(p);
    p = path_join(dir, "hard");
    ck_assert_int_eq(link(reg, p), 0);
    ck_assert_int_eq(read_run_file(p, 16, false, &sb, &err), RUN_FILE_REFUSED);
    ck_assert_msg(strstr(err.msg, "hard links"), "%s", err.msg);
    ck_assert_int_eq(unlink(p), 0);
    free(p);
    /* A sparse 4 GiB file costs no disk, and must cost the grader nothing either. */
    p = path_join(dir, "sparse");
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, 4LL << 30), 0);
    close(fd);
    /* Refused by its size, not read: the bytes this process read (the kernel's count, not a
     * clock, which a loaded machine slows) grow by far less than the 16 MiB cap. */
    long long read_before = own_bytes_read();
    ck_assert_int_eq(read_run_file(p, 16u << 20, false, &sb, &err), RUN_FILE_REFUSED);
    ck_assert_msg(strstr(err.msg, "4294967296 bytes"), "%s", err.msg);
    long long read_after = own_bytes_read();
    ck_assert_msg(read_before >= 0 && read_after - read_before < (1 << 20),
                  "read %lld bytes of the sparse file", read_after - read_before);
    ck_assert_uint_eq(sb.len, 0);
    free(p);
    /* A directory. */
    ck_assert_int_eq(read_run_file(dir, 16, false, &sb, &err), RUN_FILE_REFUSED);
    ck_assert_msg(strstr(err.msg, "directory"), "%s", err.msg);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    strbuf_release(&sb);
    free(reg);
}
END_TEST

/* nvcc's --version ends with its build line; the version is on the "release" line. */
START_TEST(test_text_pick_line)
{
    const char *nvcc = "nvcc: NVIDIA (R) Cuda compiler driver\n"
                       "Copyright (c) 2005-2025 NVIDIA Corporation\n"
                       "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
                       "Cuda compilation tools, release 13.0, V13.0.88\n"
                       "Build cuda_13.0.r13.0/compiler.36424714_0\n";
    char *v = text_pick_line(nvcc, "release");
    ck_assert_str_eq(v, "Cuda compilation tools, release 13.0, V13.0.88");
    free(v);
    v = text_pick_line("\n  \ngcc (Debian 14.2.0-19) 14.2.0\r\nCopyright\n", NULL);
    ck_assert_str_eq(v, "gcc (Debian 14.2.0-19) 14.2.0");
    free(v);
    v = text_pick_line("first\nsecond\n", "release");
    ck_assert_str_eq(v, "first");
    free(v);
    ck_assert_ptr_null(text_pick_line("\n\n", "release"));
    ck_assert_ptr_null(text_pick_line("", NULL));
}
END_TEST

/* The CPUs a process may run on are its affinity mask's (what Slurm or taskset gave it), not
 * the machine's: a class's default workers are counted from them (class/batch.h). */
START_TEST(test_cpus_usable_follows_affinity)
{
    cpu_set_t all, one;
    ck_assert_int_eq(sched_getaffinity(0, sizeof(all), &all), 0);
    ck_assert_int_eq(cpus_usable(), CPU_COUNT(&all));
    int first = 0;
    while (!CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    ck_assert_int_eq(sched_setaffinity(0, sizeof(one), &one), 0);
    int n = cpus_usable();
    ck_assert_int_eq(sched_setaffinity(0, sizeof(all), &all), 0);
    ck_assert_int_eq(n, 1);
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
    tcase_add_test(tc, test_read_run_file);
    tcase_add_test(tc, test_text_pick_line);
    tcase_add_test(tc, test_cpus_usable_follows_affinity);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

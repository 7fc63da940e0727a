/*
 * The command line as a user meets it (LG_BIN): help on every subcommand and `grader help`,
 * each documented exit status with the message that says what to do (0 passed, 1 the
 * submission failed, 2 usage or spec error, 3 the grader failed), the kit's listing of what
 * it packs and refuses, and the manual page (checked by groff where it is installed).
 * Grading runs use the CPU test lab (tests/fixtures/labcpu), with --no-timing.
 * Run from the repository root.
 */
#include "e2e.h"
#include "base/fs.h"

#include <stdarg.h>

#define LABCPU "tests/fixtures/labcpu"
#define CLASS "tests/fixtures/class"

static char *tmp_root;
static char *out; /* what the last grader() printed (stdout and stderr) */

static void setup(void)
{
    tmp_root = e2e_tmpdir("cli");
    ck_assert_ptr_nonnull(tmp_root);
}

static void teardown(void)
{
    struct error err;
    free(out);
    out = NULL;
    remove_tree(tmp_root, &err);
    free(tmp_root);
}

static char *read_text(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    if (read_file(path, &sb, &err) != 0)
        return xstrdup("");
    return strbuf_detach(&sb);
}

/* `grader ARGS...` (NULL-terminated): its exit status; its output in out. */
static int grader(const char *first, ...)
{
    const char *argv[64] = {e2e_bin(), first};
    size_t n = first ? 2 : 1;
    va_list ap;
    va_start(ap, first);
    for (const char *a; first && n < 63 && (a = va_arg(ap, const char *));)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    char *log = xstrfmt("%s/out.log", tmp_root);
    int status = e2e_run(argv, log);
    free(out); /* the previous command's */
    out = read_text(log);
    free(log);
    return status;
}

/* The exit status is want and the output holds every one of the NULL-terminated texts. */
static void expect(int status, int want, const char *what, ...)
{
    va_list ap;
    ck_assert_msg(status == want, "%s: exit %d, expected %d:\n%s", what, status, want, out);
    va_start(ap, what);
    for (const char *t; (t = va_arg(ap, const char *));)
        ck_assert_msg(strstr(out, t), "%s: no '%s' in:\n%s", what, t, out);
    va_end(ap);
}

static const char *const commands[] = {"check",   "validate", "report",     "grade",     "merge",
                                       "slurm",   "kit",      "gradescope", "autograde", "header",
                                       "machine", "version",  "help",       NULL};

START_TEST(test_help_everywhere)
{
    for (size_t i = 0; commands[i]; i++) {
        char *usage = xstrfmt("usage: grader %s", commands[i]);
        expect(grader(commands[i], "--help", NULL), 0, commands[i], usage, "-h, --help",
               "exit status", NULL);
        char *help = xstrdup(out);
        /* -h and `grader help CMD` print the same. */
        ck_assert_int_eq(grader(commands[i], "-h", NULL), 0);
        ck_assert_str_eq(out, help);
        ck_assert_int_eq(grader("help", commands[i], NULL), 0);
        ck_assert_str_eq(out, help);
        free(help);
        free(usage);
    }
    /* grade --help once answered "unknown option". */
    expect(grader("grade", "--help", NULL), 0, "grade --help", "--submissions DIR", "--shard K/N",
           NULL);
    /* Each command's exit statuses are its own (issue 47: grade's 0 was check's "everything
     * graded passed", where it means every student graded, failing ones included). */
    expect(grader("help", "grade", NULL), 0, "help grade", "exit status: 0 every student graded,",
           NULL);
    ck_assert_msg(!strstr(out, "everything graded passed"), "help grade:\n%s", out);
    expect(grader("help", "merge", NULL), 0, "help merge", "1 some students not",
           "graded yet or their results unreadable", NULL);
    expect(grader("help", "check", NULL), 0, "help check",
           "exit status: 0 everything graded passed", NULL);
    expect(grader("slurm", "--help", NULL), 0, "slurm --help",
           "grade options passed to every shard:", "--shards N", NULL);
    expect(grader("gradescope", "-h", NULL), 0, "gradescope -h", "--gpu-policy POLICY",
           "--remote-host USER@HOST", NULL);
    expect(grader("help", "autograde", NULL), 0, "help autograde", "--stdin-tar", "--root DIR",
           NULL);
    expect(grader("--help", NULL), 0, "--help", "commands:", "kit", "gradescope", NULL);
    expect(grader("help", NULL), 0, "help", "commands:", "grader help COMMAND", NULL);
    /* Help follows --lang where the command has one. */
    expect(grader("check", "--help", "--lang", "es", NULL), 0, "check --help es",
           "uso: grader check", "opciones:", "incluye los casos lentos", NULL);
    expect(grader("help", "grade", "--lang", "es", NULL), 0, "help grade es", "uso: grader grade",
           NULL);
    expect(grader(NULL, NULL), 2, "no command", "usage: grader COMMAND", NULL);
    expect(grader("help", "nosuch", NULL), 2, "help nosuch", "no command 'nosuch'",
           "check, validate", NULL);
}
END_TEST

/* Each usage or spec error: exit 2, and a message naming what exists or what to do. */
START_TEST(test_usage_errors)
{
    static const struct {
        const char *args[10];
        const char *says;
    } cases[] = {
        {{"machine", "--bogus"}, "unknown option '--bogus' (see grader machine --help)"},
        {{"version", "--bogus"}, "unknown option '--bogus'"},
        {{"version", "extra"}, "unexpected argument 'extra'"},
        {{"frob"}, "unknown command 'frob'"},
        {{"check"}, "missing arguments (usage: grader check LAB [options])"},
        {{"check", LABCPU, "--only", "nosuchex"},
         "no exercise 'nosuchex' in " LABCPU "/lab.yaml (its exercises: saxpy, dot)"},
        {{"check", LABCPU, "--case", "nosuchcase"}, "no case nosuchcase in " LABCPU},
        {{"check", LABCPU, "--case", "nosuchcase"}, "saxpy: n1000, n100k, nh (hidden)"},
        {{"check", LABCPU, "--only", "dot", "--case", "n1000,nope"}, "no case nope in dot"},
        {{"check", LABCPU, "--case", "nh"}, "nh is hidden (add --hidden)"},
        {{"check", LABCPU, "--case", "n1000,,n100k"}, "an empty case id"},
        {{"check", LABCPU, "--jobs", "2"}, "--jobs is an option of grade, mutate, not of check"},
        {{"check", LABCPU, "--timeout", "x"}, "--timeout takes a positive number of seconds"},
        {{"check", LABCPU, "--timeout"}, "--timeout needs a value (SECONDS)"},
        {{"check", LABCPU, "--lang", "fr"}, "--lang is one of es, en, not 'fr'"},
        {{"check", LABCPU, "--submission", "/nonexistent/sub"}, "/nonexistent/sub: no such folder"},
        {{"check", "labs/lab6", "--only", "nosuchex"}, "matmul, grade2"},
        {{"grade", LABCPU, "--submissions", CLASS, "--only", "nosuchex"}, "saxpy, dot"},
        {{"grade", LABCPU}, "--submissions DIR (a folder per student, or an LMS zip) is required"},
        {{"grade", LABCPU, "--submissions", CLASS, "--shard", "3/2"}, "K/N with 1 <= K <= N"},
        {{"slurm", LABCPU, "--submissions", CLASS, "--shard", "1/2"}, "set by slurm for each task"},
        {{"slurm", LABCPU, "--submissions", CLASS, "--only", "nosuchex"}, "saxpy, dot"},
        {{"merge", LABCPU, "--jobs", "2"}, "--jobs is an option of grade, mutate, not of merge"},
        {{"merge", LABCPU, "--canvas-points", "0"}, "--canvas-points takes a positive number"},
        {{"gradescope", LABCPU, "--gpu-policy", "maybe"},
         "--gpu-policy is one of informational, remote, fail, not 'maybe'"},
        {{"gradescope", LABCPU, "--gpu-policy", "remote"},
         "--gpu-policy remote needs --remote-host, --remote-dir, --remote-key and --known-hosts"},
        {{"autograde", LABCPU, "--out", "x"}, "--out is an option of"},
        {{"autograde", "tests/fixtures/specs/bad_top_key.yaml", "--root", "/nonexistent"},
         "unknown key 'author'"},
        {{"validate", "tests/fixtures/specs/bad_top_key.yaml"}, "unknown key 'author'"},
        {{"header", "tests/fixtures/specs/bad_lang.yaml"}, "lang 'fr' is not one of es, en"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *const *a = cases[i].args;
        char *what = xstrfmt("%s %s %s %s %s", a[0], a[1] ? a[1] : "", a[2] ? a[2] : "",
                             a[3] ? a[3] : "", a[4] ? a[4] : "");
        int status = grader(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], NULL);
        expect(status, 2, what, cases[i].says, NULL);
        free(what);
    }
}
END_TEST

static int check_one(const char *out_dir, const char *submission, const char *student)
{
    return grader("check", LABCPU, "--submission", submission, "--student", student, "--no-timing",
                  "--no-pdf", "--quiet", "--out", out_dir, NULL);
}

/* 0 passed, 1 the submission failed, 3 the grader failed; then report and merge on them. */
START_TEST(test_statuses_and_results)
{
    char *dir = xstrfmt("%s/reports", tmp_root), *empty = xstrfmt("%s/empty", tmp_root);
    expect(check_one(dir, LABCPU "/solution", "sol"), 0, "solution", "results:", NULL);
    expect(check_one(dir, CLASS "/s04", "s04"), 1, "s04 (WA)", "WA", NULL);
    /* The grader's own data missing is never the submission's fault. */
    setenv("LABGRADER_HOME", "/nonexistent/labgrader", 1);
    expect(check_one(empty, LABCPU "/solution", "sol"), 3, "no harness", "harness", NULL);
    unsetenv("LABGRADER_HOME");

    expect(grader("report", LABCPU, "--out", dir, "--student", "nobody", "--no-pdf", NULL), 2,
           "report --student nobody", "no results of student 'nobody'", "(graded there: s04, sol)",
           NULL);
    expect(grader("report", LABCPU, "--out", dir, "--student", "sol", "--no-pdf", NULL), 0,
           "report --student sol", "report:", NULL);
    expect(grader("report", LABCPU, "--out", empty, NULL), 2, "report, nothing graded",
           "no results.json under", "grade first", NULL);

    expect(grader("merge", LABCPU, "--out", empty, NULL), 2, "merge, nothing graded",
           "no results.json under", "--out", NULL);
    char *roster = xstrfmt("%s/dup.csv", tmp_root);
    struct error err;
    const char *dup = "id,name\ns01,Ana\ns01,Eva\n";
    ck_assert(write_file_atomic(roster, dup, strlen(dup), &err) == 0);
    expect(grader("merge", LABCPU, "--out", dir, "--submissions", CLASS, "--roster", roster,
                  "--no-pdf", NULL),
           2, "merge, duplicate roster id", "appears twice", NULL);
    expect(grader("merge", LABCPU, "--out", dir, "--submissions", "/nonexistent/class", "--no-pdf",
                  NULL),
           2, "merge, no submissions folder", "/nonexistent/class", NULL);
    expect(grader("merge", LABCPU, "--out", dir, "--no-pdf", NULL), 0, "merge", "gradebook:", NULL);
    free(roster);
    free(dir);
    free(empty);
}
END_TEST

/* grader kit lists every file it packs, by group, and warns about what it refuses. */
START_TEST(test_kit_listing)
{
    char *lab = xstrfmt("%s/labs/lab99", tmp_root), *kit = xstrfmt("%s/kit.tar.gz", tmp_root);
    char *cmd = xstrfmt("mkdir -p '%s' && cp -r " LABCPU "/. '%s/' && cp -r " LABCPU
                        "/solution '%s/skeleton' && mkdir '%s/tests' && cp -r " CLASS
                        "/s04 '%s/tests/' && echo 'n4099' > '%s/tests/EXPECTED' && echo notes > "
                        "'%s/handout.md'",
                        lab, lab, lab, lab, lab, lab, lab);
    ck_assert_int_eq(system(cmd), 0);
    expect(grader("kit", lab, "--out", kit, NULL), 0, "kit", "packed ",
           "references, compiled (their sources stay out)", "ref_dot.c.o ref_saxpy.c.o",
           "    grader/cli/ ", "labs/lab99/skeleton/ ", "the grader's sources",
           "not packed (the instructor's): ", "solution/", "tests/",
           "handout.md is not packed: a kit takes only lab.yaml, README.md and skeleton/",
           "students: tar xzf kit.tar.gz && cd lab99-kit && make check LAB=99", NULL);
    ck_assert_msg(!strstr(out, "ref_dot.c ") && !strstr(out, "ref_saxpy.c\n"),
                  "a reference source packed:\n%s", out);
    /* The lab may choose to hand its references out as sources: the listing says so. */
    free(cmd);
    cmd = xstrfmt("echo 'kit: {references: sources}' >> '%s/lab.yaml'", lab);
    ck_assert_int_eq(system(cmd), 0);
    expect(grader("kit", lab, "--out", kit, NULL), 0, "kit, sources",
           "references as sources (kit: {references: sources} in lab.yaml)",
           "ref_dot.c ref_saxpy.c", "the references are shipped as sources", NULL);
    free(cmd);
    free(lab);
    free(kit);
}
END_TEST

/* The manual page: every command and option, and groff finds nothing to warn about. */
START_TEST(test_man_page)
{
    char *text;
    char *page = xstrfmt("%s/grader.1", tmp_root), *warn = xstrfmt("%s/groff.log", tmp_root);
    const char *argv[] = {e2e_bin(), "help", "--man", NULL};
    ck_assert_int_eq(e2e_run(argv, page), 0);
    text = read_text(page);
    ck_assert_msg(!strncmp(text, ".\\\"", 3) && strstr(text, ".TH LABGRADER 1"), "%.300s", text);
    for (size_t i = 0; commands[i]; i++) {
        char *ss = xstrfmt(".SS \"%s ", commands[i]);
        ck_assert_msg(strstr(text, ss), "no section for %s", commands[i]);
        free(ss);
    }
    static const char *const some[] = {"\\-\\-case", "\\-\\-canvas\\-assignment",
                                       "\\-\\-gpus\\-per\\-task", "\\-\\-man", ".SH EXIT STATUS"};
    for (size_t i = 0; i < sizeof(some) / sizeof(some[0]); i++)
        ck_assert_msg(strstr(text, some[i]), "no %s in the page", some[i]);
    char *groff = find_program("groff");
    if (groff) {
        const char *g[] = {groff, "-man", "-Tutf8", "-ww", "-z", page, NULL};
        ck_assert_int_eq(e2e_run(g, warn), 0);
        free(text);
        text = read_text(warn);
        ck_assert_msg(!*text, "groff warns:\n%s", text);
    }
    free(text);
    free(groff);
    free(page);
    free(warn);
}
END_TEST

/* A student's first `make check` builds quietly: one line naming what is built and the log;
 * a failed build prints the compilers' errors in full, never the commands. (A build folder of
 * its own with a compiler flag that fails at once: no real build is made.) */
START_TEST(test_quiet_build)
{
    char *make = find_program("make");
    if (!make) {
        fprintf(stderr, "test_cli: make not installed: the quiet build not checked\n");
        return;
    }
    char *build = xstrfmt("BUILD=%s/build", tmp_root), *log = xstrfmt("%s/make.log", tmp_root);
    const char *argv[] = {make,
                          "--no-print-directory",
                          "build-quiet",
                          build,
                          "CFLAGS=-O0 -include /nonexistent/lg-quiet-build.h",
                          NULL};
    ck_assert_int_ne(e2e_run(argv, log), 0);
    char *text = read_text(log);
    ck_assert_msg(strstr(text, "make: building labgrader in ") && strstr(text, "; log: ") &&
                      strstr(text, "build.log"),
                  "%s", text);
    ck_assert_msg(strstr(text, "/nonexistent/lg-quiet-build.h: No such file or directory"), "%s",
                  text);
    ck_assert_msg(strstr(text, "make: building labgrader failed: the compilers' messages are "
                               "above and in "),
                  "%s", text);
    /* No command line: neither the compiler's nor the archiver's. */
    ck_assert_msg(!strstr(text, " -c grader/") && !strstr(text, "-std=c11"), "%s", text);
    char *full = xstrfmt("%s/build/build.log", tmp_root), *kept = read_text(full);
    ck_assert_msg(strstr(kept, "lg-quiet-build.h"), "the log has no error: %s", kept);
    free(kept);
    free(full);
    free(text);
    free(log);
    free(build);
    free(make);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    /* Grading runs are a few seconds each, the kit compiles two small references. */
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_help_everywhere);
    tcase_add_test(tc, test_usage_errors);
    tcase_add_test(tc, test_statuses_and_results);
    tcase_add_test(tc, test_kit_listing);
    tcase_add_test(tc, test_man_page);
    tcase_add_test(tc, test_quiet_build);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

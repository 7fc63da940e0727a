/*
 * sanitizer: reading compute-sanitizer's output exactly (real outputs of compute-sanitizer
 * 2025.3.1 under CUDA 13 on an H100, in tests/fixtures/sanitizer/: memcheck with 25
 * out-of-bounds writes and a launch failure, memcheck clean, racecheck with a race, initcheck
 * over its print limit), merging, forged lines, runs that did not complete, the sentences
 * in both languages, finding the tool, its command line, the folders it needs, its limit.
 */
#include "run/build.h"
#include "base/messages.h"
#include "run/runner.h"
#include "run/sanitizer.h"
#include "spec/spec.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXTURES "tests/fixtures/sanitizer"

static void parse_file(const char *name, struct sanitizer_output *out)
{
    struct strbuf sb = STRBUF_INIT;
    char *path = xstrfmt("%s/%s", FIXTURES, name);
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s", err.msg);
    sanitizer_output_init(out);
    sanitizer_parse(sb.buf, sb.len, out);
    strbuf_release(&sb);
    free(path);
}

static void parse_text(const char *text, struct sanitizer_output *out)
{
    sanitizer_output_init(out);
    sanitizer_parse(text, strlen(text), out);
}

/* A finished run whose output is text (a fixture's name, or the text itself). */
static void judge(enum sandbox_status status, const char *text, struct sanitizer_run *run)
{
    struct sandbox_result sb;
    sandbox_result_init(&sb);
    sb.status = status;
    sb.output = xstrdup(text);
    sb.output_len = strlen(text);
    sb.wall_s = 12.5;
    sanitizer_run_init(run);
    run->tool = xstrdup("memcheck");
    run->case_id = xstrdup("n1000");
    sanitizer_judge(&sb, 300, NULL, run);
    ck_assert(run->wall_s == 12.5);
    sandbox_result_release(&sb);
}

static char *fixture_text(const char *name)
{
    struct strbuf sb = STRBUF_INIT;
    char *path = xstrfmt("%s/%s", FIXTURES, name);
    ck_assert_int_eq(read_file(path, &sb, NULL), 0);
    free(path);
    return strbuf_detach(&sb);
}

START_TEST(test_memcheck_oob)
{
    struct sanitizer_output o;
    parse_file("memcheck_oob.txt", &o);
    ck_assert(o.summary);
    ck_assert_int_eq(o.errors, 25);
    ck_assert_int_eq(o.warnings, 0);
    ck_assert_int_eq(o.not_printed, 0);
    ck_assert_ptr_null(o.tool_error);
    ck_assert_uint_eq(o.n_reports, 2);
    ck_assert_int_eq(o.other_reports, 0);
    /* The two printed out-of-bounds writes are one report: same kind, same place. The second
     * one's extra "Access to ..." lines do not replace the first one's details. */
    const struct sanitizer_report *w = &o.reports[0];
    ck_assert_str_eq(w->kind, "Invalid __global__ write of size 4 bytes");
    ck_assert_str_eq(w->location, "oob(float *, int) in san.cu:3");
    ck_assert_str_eq(w->thread, "(232,0,0)");
    ck_assert_str_eq(w->block, "(3,0,0)");
    ck_assert_str_eq(w->access, "1 byte after an allocation of 4,000 bytes");
    ck_assert_int_eq(w->count, 2);
    const struct sanitizer_report *api = &o.reports[1];
    ck_assert_str_eq(api->kind, "Program hit cudaErrorLaunchFailure (error 719) due to "
                                "\"unspecified launch failure\" on CUDA API call to "
                                "cudaDeviceSynchronize.");
    ck_assert_ptr_null(api->location);
    ck_assert_ptr_null(api->thread);
    ck_assert_ptr_null(api->block);
    ck_assert_ptr_null(api->access);
    ck_assert_int_eq(api->count, 1);

    char *text = sanitizer_report_text(w, NULL);
    ck_assert_str_eq(text, "Invalid __global__ write of size 4 bytes at oob(float *, int) in "
                           "san.cu:3, first by thread (232,0,0) in block (3,0,0): 1 byte after "
                           "an allocation of 4,000 bytes");
    free(text);
    text = sanitizer_report_text(api, NULL);
    ck_assert_str_eq(text, api->kind);
    free(text);
    sanitizer_output_release(&o);

    /* Judged as a run: it completed, and its one line counts every error. */
    struct sanitizer_run run;
    char *out = fixture_text("memcheck_oob.txt");
    judge(SB_EXITED, out, &run);
    ck_assert_int_eq(run.status, SANITIZER_RAN);
    ck_assert_ptr_null(run.reason);
    text = sanitizer_run_summary(&run, NULL);
    ck_assert_str_eq(text, "memcheck on case n1000: 25 errors: Invalid __global__ write of size 4 "
                           "bytes at oob(float *, int) in san.cu:3, first by thread (232,0,0) in "
                           "block (3,0,0): 1 byte after an allocation of 4,000 bytes (and 1 more "
                           "of other kinds)");
    free(text);
    sanitizer_run_release(&run);
    free(out);
}
END_TEST

START_TEST(test_memcheck_clean)
{
    struct sanitizer_output o;
    parse_file("memcheck_clean.txt", &o);
    ck_assert(o.summary);
    ck_assert_int_eq(o.errors, 0);
    ck_assert_uint_eq(o.n_reports, 0);
    ck_assert_ptr_null(o.tool_error);
    sanitizer_output_release(&o);
    struct sanitizer_run run;
    char *out = fixture_text("memcheck_clean.txt");
    judge(SB_EXITED, out, &run);
    ck_assert_int_eq(run.status, SANITIZER_RAN);
    char *text = sanitizer_run_summary(&run, NULL);
    ck_assert_str_eq(text, "memcheck on case n1000: no errors");
    free(text);
    sanitizer_run_release(&run);
    free(out);
}
END_TEST

START_TEST(test_racecheck)
{
    struct sanitizer_output o;
    parse_file("racecheck_race.txt", &o);
    ck_assert(o.summary);
    ck_assert_int_eq(o.errors, 1);
    ck_assert_int_eq(o.warnings, 0);
    ck_assert_uint_eq(o.n_reports, 1);
    const struct sanitizer_report *r = &o.reports[0];
    ck_assert_str_eq(r->kind, "Race reported between Write access");
    ck_assert_str_eq(r->location, "race(float *) in san.cu:6");
    ck_assert_ptr_null(r->thread);
    ck_assert_str_eq(r->access, "and Write access at race(float *) in san.cu:6 [64 hazards], and "
                                "Read access at race(float *) in san.cu:7 [384 hazards]");
    ck_assert_int_eq(r->count, 1);
    char *text = sanitizer_report_text(r, NULL);
    ck_assert_str_eq(text, "Race reported between Write access at race(float *) in san.cu:6 and "
                           "Write access at race(float *) in san.cu:6 [64 hazards], and Read "
                           "access at race(float *) in san.cu:7 [384 hazards]");
    free(text);
    sanitizer_output_release(&o);
}
END_TEST

/* Over the print limit: the summary's count is the whole count; a report whose lines were
 * cut off (no location) counts with the first one of its kind. */
START_TEST(test_initcheck_truncated)
{
    struct sanitizer_output o;
    parse_file("initcheck_uninit.txt", &o);
    ck_assert(o.summary);
    ck_assert_int_eq(o.errors, 256);
    ck_assert_int_eq(o.not_printed, 156);
    ck_assert_uint_eq(o.n_reports, 1);
    const struct sanitizer_report *r = &o.reports[0];
    ck_assert_str_eq(r->kind, "Uninitialized __global__ memory read of size 4 bytes");
    ck_assert_str_eq(r->location, "uninit(const float *, float *) in san.cu:9");
    ck_assert_str_eq(r->thread, "(0,0,0)");
    ck_assert_str_eq(r->block, "(0,0,0)");
    ck_assert_ptr_null(r->access); /* "Address 0x..." says nothing more */
    ck_assert_int_eq(r->count, 3);
    sanitizer_output_release(&o);
}
END_TEST

/* No SUMMARY line, or a tool that did not end well: the grader's side, with the reason. */
START_TEST(test_did_not_complete)
{
    struct sanitizer_run run;
    struct sanitizer_output o;
    parse_text("sync: no error\n========= COMPUTE-SANITIZER\n", &o);
    ck_assert(!o.summary);
    ck_assert_int_eq(o.errors, 0);
    sanitizer_output_release(&o);

    judge(SB_EXITED, "========= COMPUTE-SANITIZER\nsync: no error\n", &run);
    ck_assert_int_eq(run.status, SANITIZER_FAILED);
    ck_assert_str_eq(run.reason, "compute-sanitizer did not complete: it exited with status 0 "
                                 "without its summary");
    char *text = sanitizer_run_summary(&run, NULL);
    ck_assert_str_eq(text, "memcheck on case n1000: compute-sanitizer did not complete: it exited "
                           "with status 0 without its summary");
    free(text);
    sanitizer_run_release(&run);

    judge(SB_TIMEOUT, "========= COMPUTE-SANITIZER\n", &run);
    ck_assert_int_eq(run.status, SANITIZER_FAILED);
    ck_assert_str_eq(run.reason,
                     "compute-sanitizer did not complete: it ran longer than its 300 s limit");
    sanitizer_run_release(&run);

    /* The tool's own failure, in its words. */
    judge(SB_EXITED,
          "========= COMPUTE-SANITIZER\n========= Error: Target application terminated before "
          "first instrumented API call\n",
          &run);
    ck_assert_int_eq(run.status, SANITIZER_FAILED);
    ck_assert_str_eq(run.reason, "compute-sanitizer did not complete: Error: Target application "
                                 "terminated before first instrumented API call");
    ck_assert_uint_eq(run.out.n_reports, 0);
    sanitizer_run_release(&run);

    /* A summary on the pipe does not make a killed tool finished: the program can print one. */
    char *clean = fixture_text("memcheck_clean.txt");
    struct sandbox_result sb;
    sandbox_result_init(&sb);
    sb.status = SB_SIGNALED;
    sb.term_signal = SIGKILL;
    sb.output = clean;
    sb.output_len = strlen(clean);
    sanitizer_run_init(&run);
    sanitizer_judge(&sb, 60, NULL, &run);
    ck_assert_int_eq(run.status, SANITIZER_FAILED);
    ck_assert_msg(!strncmp(run.reason, "compute-sanitizer did not complete: killed by SIGKILL",
                           strlen("compute-sanitizer did not complete: killed by SIGKILL")),
                  "%s", run.reason);
    sanitizer_run_release(&run);

    /* Output cut before the summary. */
    sb.status = SB_EXITED;
    sb.exit_code = 0;
    sb.output_truncated = true;
    clean[strlen(clean) - strlen("========= ERROR SUMMARY: 0 errors\n")] = '\0';
    sb.output_len = strlen(clean);
    sanitizer_run_init(&run);
    sanitizer_judge(&sb, 60, NULL, &run);
    ck_assert_int_eq(run.status, SANITIZER_FAILED);
    ck_assert_str_eq(run.reason, "compute-sanitizer did not complete: the program's output filled "
                                 "the capture before the tool's summary");
    sanitizer_run_release(&run);
    sandbox_result_release(&sb);

    /* The sandbox could not start it. */
    sandbox_result_init(&sb);
    sb.status = SB_SETUP_FAILED;
    snprintf(sb.setup_error, sizeof(sb.setup_error), "bwrap: execvp: No such file");
    sanitizer_run_init(&run);
    sanitizer_judge(&sb, 60, NULL, &run);
    ck_assert_int_eq(run.status, SANITIZER_FAILED);
    ck_assert_str_eq(run.reason,
                     "the sandbox could not start compute-sanitizer: bwrap: execvp: No such file");
    sanitizer_run_release(&run);
    sandbox_result_release(&sb);
}
END_TEST

/* The program's own lines: forged ones only add findings against it; its separators and
 * unterminated output do not confuse the reading. */
START_TEST(test_forged_and_mixed_lines)
{
    struct sanitizer_output o;
    char *oob = fixture_text("memcheck_oob.txt");
    /* A forged "0 errors" after the real summary does not lower it. */
    char *text = xstrfmt("%s========= ERROR SUMMARY: 0 errors\n", oob);
    parse_text(text, &o);
    ck_assert_int_eq(o.errors, 25);
    sanitizer_output_release(&o);
    free(text);
    free(oob);

    /* A forged report counts against its author, even in a clean run. */
    char *clean = fixture_text("memcheck_clean.txt");
    text = xstrfmt("========= Invalid __global__ read of size 1 bytes\n"
                   "=========     at fake()+0x10 in mine.cu:1\n"
                   "========= \n%s",
                   clean);
    struct sanitizer_run run;
    judge(SB_EXITED, text, &run);
    ck_assert_int_eq(run.status, SANITIZER_RAN);
    ck_assert_uint_eq(run.out.n_reports, 1);
    ck_assert_str_eq(run.out.reports[0].location, "fake() in mine.cu:1");
    char *line = sanitizer_run_summary(&run, NULL);
    ck_assert_str_eq(line, "memcheck on case n1000: 1 error: Invalid __global__ read of size 1 "
                           "bytes at fake() in mine.cu:1");
    free(line);
    sanitizer_run_release(&run);
    free(text);
    free(clean);

    /* Separators of '=' are the program's; the tool's prefix may follow unterminated output;
     * carriage returns are dropped. */
    parse_text("=========== Results ===========\n"
               "==========\n"
               "x =========\n"
               "sync: no error========= ERROR SUMMARY: 3 errors\r\n",
               &o);
    ck_assert(o.summary);
    ck_assert_int_eq(o.errors, 3);
    ck_assert_uint_eq(o.n_reports, 0);
    sanitizer_output_release(&o);

    /* At most SANITIZER_MAX_REPORTS kinds are kept; the rest are counted. Fields are cut. */
    struct strbuf sb = STRBUF_INIT;
    for (int i = 0; i < 15; i++)
        strbuf_addf(&sb, "========= Kind %d\n=========     at f%d() in a.cu:%d\n", i, i, i);
    strbuf_addstr(&sb, "========= ");
    for (int i = 0; i < 10000; i++)
        strbuf_addch(&sb, 'k');
    strbuf_addstr(&sb, "\n========= ERROR SUMMARY: 2 errors\n");
    parse_text(sb.buf, &o);
    ck_assert_uint_eq(o.n_reports, SANITIZER_MAX_REPORTS);
    ck_assert_int_eq(o.other_reports, 6);
    ck_assert_str_eq(o.reports[9].kind, "Kind 9");
    ck_assert_str_eq(o.reports[9].location, "f9() in a.cu:9");
    ck_assert_int_eq(o.errors, 2);
    sanitizer_output_release(&o);
    strbuf_release(&sb);

    /* A report line with NUL bytes and nothing after the prefix. */
    const char nul[] = "=========\n========= A\0B\n========= ERROR SUMMARY: 1 error\n";
    sanitizer_output_init(&o);
    sanitizer_parse(nul, sizeof(nul) - 1, &o);
    ck_assert_uint_eq(o.n_reports, 1);
    ck_assert_str_eq(o.reports[0].kind, "A");
    ck_assert_int_eq(o.errors, 1);
    sanitizer_output_release(&o);
}
END_TEST

/* The sentences in the report's language (templates/es/messages.po). */
START_TEST(test_spanish)
{
    struct messages es;
    struct error err;
    messages_init(&es);
    ck_assert_msg(messages_load(&es, "templates/es/messages.po", &err) == 0, "%s", err.msg);
    struct sanitizer_run run;
    char *oob = fixture_text("memcheck_oob.txt");
    judge(SB_EXITED, oob, &run);
    char *text = sanitizer_run_summary(&run, &es);
    ck_assert_str_eq(text, "memcheck en el caso n1000: 25 errores: Invalid __global__ write of "
                           "size 4 bytes en oob(float *, int) in san.cu:3, el primero en el hilo "
                           "(232,0,0) del bloque (3,0,0): 1 byte after an allocation of 4,000 "
                           "bytes (y 1 más de otros tipos)");
    free(text);
    sanitizer_run_release(&run);
    free(oob);

    struct sandbox_result sb;
    sandbox_result_init(&sb);
    sb.status = SB_TIMEOUT;
    sanitizer_run_init(&run);
    sanitizer_judge(&sb, 300, &es, &run);
    ck_assert_str_eq(run.reason, "compute-sanitizer no terminó: superó su límite de 300 s");
    sanitizer_run_release(&run);
    sandbox_result_release(&sb);
    messages_release(&es);
}
END_TEST

static char *make_tmpdir(void)
{
    char *t = xstrdup("/tmp/lg-sanitizer-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(t));
    return t;
}

static char *make_tool(const char *dir, const char *rel, int mode)
{
    struct error err;
    char *path = path_join(dir, rel);
    char *parent = xstrdup(path);
    *strrchr(parent, '/') = '\0';
    ck_assert_int_eq(mkdir_p(parent, &err), 0);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("#!/bin/sh\n", f);
    fclose(f);
    ck_assert_int_eq(chmod(path, (mode_t)mode), 0);
    free(parent);
    return path;
}

START_TEST(test_find)
{
    char *t = make_tmpdir();
    char *home = path_join(t, "cuda"), *other = path_join(t, "other"), *pathdir = path_join(t, "p");
    char *in_home = make_tool(home, "bin/compute-sanitizer", 0755);
    char *in_path = make_tool(pathdir, "compute-sanitizer", 0755);
    char *in_other = make_tool(other, "bin/compute-sanitizer", 0755);
    char *path_env = xstrfmt("/nonexistent:%s", pathdir);
    /* $CUDA_HOME first, whatever else there is. */
    char *found = sanitizer_find(home, path_env, other);
    ck_assert_str_eq(found, in_home);
    free(found);
    /* Then (after /usr/local/cuda, machine-dependent) PATH, then nvcc's toolkit. */
    bool usr_local = access("/usr/local/cuda/bin/compute-sanitizer", X_OK) == 0;
    found = sanitizer_find(NULL, path_env, other);
    if (!usr_local)
        ck_assert_str_eq(found, in_path);
    free(found);
    found = sanitizer_find("", NULL, other);
    if (!usr_local)
        ck_assert_str_eq(found, in_other);
    free(found);
    /* Not executable: not found. A link is resolved to the real file. */
    ck_assert_int_eq(chmod(in_other, 0644), 0);
    found = sanitizer_find(NULL, "/nonexistent", other);
    if (!usr_local)
        ck_assert_ptr_null(found);
    free(found);
    char *linkdir = path_join(t, "links");
    ck_assert_int_eq(mkdir(linkdir, 0755), 0);
    char *link = path_join(linkdir, "compute-sanitizer");
    ck_assert_int_eq(symlink(in_path, link), 0);
    found = sanitizer_find(NULL, linkdir, NULL);
    if (!usr_local)
        ck_assert_str_eq(found, in_path);
    free(found);
    remove_tree(t, NULL);
    free(link);
    free(linkdir);
    free(path_env);
    free(in_home);
    free(in_path);
    free(in_other);
    free(home);
    free(other);
    free(pathdir);
    free(t);
}
END_TEST

START_TEST(test_argv_paths_limits)
{
    const char *argv[SANITIZER_ARGV_MAX];
    size_t n = sanitizer_argv("/opt/cuda/bin/compute-sanitizer", "racecheck", argv);
    const char *want[] = {"/opt/cuda/bin/compute-sanitizer",
                          "--tool",
                          "racecheck",
                          "--print-limit",
                          "10",
                          "--show-backtrace",
                          "no",
                          "--error-exitcode",
                          "86"};
    ck_assert_uint_eq(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n; i++)
        ck_assert_str_eq(argv[i], want[i]);
    ck_assert_ptr_null(argv[n]);

    /* A toolkit's layout: its bin/ (the wrapper) and compute-sanitizer/ (what it starts). */
    char *t = make_tmpdir();
    char *tk = path_join(t, "toolkit");
    char *wrapper = make_tool(tk, "bin/compute-sanitizer", 0755);
    char *real = make_tool(tk, "compute-sanitizer/compute-sanitizer", 0755);
    char **p = sanitizer_ro_paths(wrapper);
    char *bin = path_join(tk, "bin"), *dir = path_join(tk, "compute-sanitizer");
    ck_assert_ptr_nonnull(p[0]);
    ck_assert_str_eq(p[0], bin);
    ck_assert_ptr_nonnull(p[1]);
    ck_assert_str_eq(p[1], dir);
    ck_assert_ptr_null(p[2]);
    sanitizer_paths_free(p);
    p = sanitizer_ro_paths(real);
    ck_assert_str_eq(p[0], dir);
    ck_assert_ptr_null(p[1]);
    sanitizer_paths_free(p);
    /* A copy in some bin/ without the toolkit beside it: nothing of that folder is shown. */
    char *copy = make_tool(t, "home/bin/compute-sanitizer", 0755);
    p = sanitizer_ro_paths(copy);
    ck_assert_ptr_null(p[0]);
    sanitizer_paths_free(p);
    /* System folders are visible anyway. */
    p = sanitizer_ro_paths("/usr/local/cuda-13.0/compute-sanitizer/compute-sanitizer");
    ck_assert_ptr_null(p[0]);
    sanitizer_paths_free(p);
    p = sanitizer_ro_paths("compute-sanitizer");
    ck_assert_ptr_null(p[0]);
    sanitizer_paths_free(p);
    remove_tree(t, NULL);
    free(copy);
    free(bin);
    free(dir);
    free(wrapper);
    free(real);
    free(tk);
    free(t);

    ck_assert(sanitizer_wall_limit(30) == 300);
    ck_assert(sanitizer_wall_limit(2) == 60);
    ck_assert(sanitizer_wall_limit(100) == 600);
    ck_assert(sanitizer_wall_limit(900) == 900);
    ck_assert(sanitizer_wall_limit(0) == 300);
}
END_TEST

START_TEST(test_names)
{
    ck_assert(sanitizer_tool_known("memcheck"));
    ck_assert(sanitizer_tool_known("racecheck"));
    ck_assert(sanitizer_tool_known("initcheck"));
    ck_assert(sanitizer_tool_known("synccheck"));
    ck_assert(!sanitizer_tool_known("memchek"));
    ck_assert(!sanitizer_tool_known(NULL));
    for (int s = SANITIZER_RAN; s <= SANITIZER_FAILED; s++)
        ck_assert_int_eq(sanitizer_status_parse(sanitizer_status_name((enum sanitizer_status)s)),
                         s);
    ck_assert_str_eq(sanitizer_status_name(SANITIZER_SKIPPED), "skipped");
    ck_assert_int_eq(sanitizer_status_parse("exploded"), -1);
    ck_assert_int_eq(sanitizer_status_parse(NULL), -1);

    struct sanitizer_run run;
    sanitizer_run_init(&run);
    run.tool = xstrdup("initcheck");
    run.status = SANITIZER_SKIPPED;
    run.reason = xstrdup("no GPU");
    char *text = sanitizer_run_summary(&run, NULL);
    ck_assert_str_eq(text, "initcheck: not run: no GPU");
    free(text);
    sanitizer_run_release(&run);
    sanitizer_run_release(&run); /* releasing twice is harmless */
}
END_TEST

/* A stand-in for compute-sanitizer in a toolkit's layout: bin/compute-sanitizer is a wrapper
 * that runs ../compute-sanitizer/compute-sanitizer, which takes the real tool's options, runs
 * the program, and prints a report and a summary after it, as the real one does. */
static const char fake_wrapper[] =
    "#!/bin/sh\n"
    "exec \"$(dirname \"$0\")/../compute-sanitizer/compute-sanitizer\" "
    "\"$@\"\n";
static const char fake_tool[] = "#!/bin/sh\n"
                                "tool=none\n"
                                "while [ $# -gt 0 ]; do\n"
                                "  case \"$1\" in\n"
                                "    --tool) tool=$2; shift 2;;\n"
                                "    --print-limit|--show-backtrace|--error-exitcode) shift 2;;\n"
                                "    *) break;;\n"
                                "  esac\n"
                                "done\n"
                                "echo '========= COMPUTE-SANITIZER'\n"
                                "\"$@\"\n"
                                "echo \"program status $? under $tool\"\n"
                                "echo '========= Invalid __global__ write of size 8 bytes'\n"
                                "echo '=========     at k(double *)+0x10 in t.cu:7'\n"
                                "echo '=========     by thread (3,0,0) in block (0,0,0)'\n"
                                "echo '=========     and is 0 bytes after the nearest allocation "
                                "at 0x7f00 of size 8,000 bytes'\n"
                                "echo '========= '\n"
                                "echo '========= ERROR SUMMARY: 1 error'\n"
                                "exit 86\n";
/* The "runner": checks the job it is given (checks only, no timing), floods its output past
 * the capture's head, and reports a finished run. */
static const char fake_runner[] = "#!/bin/sh\n"
                                  "[ \"$1\" = job.txt ] && grep -q '^time 0$' job.txt || exit 3\n"
                                  "yes flood | head -c 400000\n"
                                  "printf 'harness 2\\ncase 0 begin\\ncase 0 end\\nstatus ok\\n' "
                                  "> result.txt\n";

static void write_script(const char *path, const char *text)
{
    struct error err;
    char *parent = xstrdup(path);
    *strrchr(parent, '/') = '\0';
    ck_assert_int_eq(mkdir_p(parent, &err), 0);
    ck_assert_int_eq(write_file_atomic(path, text, strlen(text), &err), 0);
    ck_assert_int_eq(chmod(path, 0755), 0);
    free(parent);
}

/* The run grade.c makes, end to end but for the GPU: runner_run with the tool's command in
 * front, the toolkit's folders shown to the sandbox (under bubblewrap, /tmp is otherwise
 * empty), the capture's tail keeping the summary after a flood, and the judgement. */
START_TEST(test_wrapped_run)
{
    enum isolation iso = _i ? ISOLATION_BWRAP : ISOLATION_SUPERVISOR;
    if (iso == ISOLATION_BWRAP && sandbox_available() != ISOLATION_BWRAP) {
        fprintf(stderr, "test_wrapped_run: skipped: bubblewrap does not work here\n");
        return;
    }
    struct lab lab;
    struct error err;
    ck_assert_msg(spec_load(&lab, "tests/fixtures/labcpu/lab.yaml", NULL, &err) == 0, "%s",
                  err.msg);
    char *t = make_tmpdir();
    char *wrapper = path_join(t, "toolkit/bin/compute-sanitizer");
    char *tool = path_join(t, "toolkit/compute-sanitizer/compute-sanitizer");
    char *runner = path_join(t, "build/runner");
    char *work = path_join(t, "run");
    write_script(wrapper, fake_wrapper);
    write_script(tool, fake_tool);
    write_script(runner, fake_runner);
    ck_assert_int_eq(mkdir_p(work, &err), 0);

    struct toolchain tc;
    toolchain_init(&tc);
    tc.isolation = iso;
    const struct exercise_spec *ex = &lab.exercises[0];
    struct run_spec s;
    memset(&s, 0, sizeof(s));
    s.tc = &tc;
    s.lab = &lab;
    s.ex = ex;
    s.v = &ex->variants[0];
    const struct case_spec *c = exercise_sanitizer_case(ex);
    double limit = sanitizer_wall_limit(1);
    s.cases = &c;
    s.n_cases = 1;
    s.case_timeout_s = &limit;
    s.runner = runner;
    s.workdir = work;
    s.checks = 1;
    s.timing = ex->timing;
    const char *wrap[SANITIZER_ARGV_MAX];
    char *toolkit = path_join(t, "toolkit");
    char *program = sanitizer_find(NULL, NULL, toolkit);
    free(toolkit);
    if (!program || strcmp(program, wrapper) != 0) {
        /* /usr/local/cuda has a real one: this test wants the stand-in. */
        free(program);
        program = xstrdup(wrapper);
    }
    sanitizer_argv(program, "racecheck", wrap);
    char **ro = sanitizer_ro_paths(program);
    s.wrap = wrap;
    s.wrap_ro = (const char *const *)ro;
    s.output_cap = SANITIZER_OUTPUT_HEAD;
    s.output_tail = SANITIZER_OUTPUT_TAIL;
    struct run_outcome o;
    run_outcome_init(&o);
    ck_assert_msg(runner_run(&s, &o, &err) == 0, "%s", err.msg);
    ck_assert_msg(o.sb.status == SB_EXITED && o.sb.exit_code == 86, "status %d exit %d: %.300s",
                  (int)o.sb.status, o.sb.exit_code, o.sb.output ? o.sb.output : "");
    ck_assert(o.finished);
    ck_assert(o.sb.output_truncated);
    ck_assert_msg(strstr(o.sb.output, "program status 0 under racecheck\n"), "%.300s",
                  o.sb.output + o.sb.output_len - 300);

    struct sanitizer_run run;
    sanitizer_run_init(&run);
    run.tool = xstrdup("racecheck");
    sanitizer_judge(&o.sb, limit, NULL, &run);
    ck_assert_int_eq(run.status, SANITIZER_RAN);
    ck_assert_int_eq(run.out.errors, 1);
    ck_assert_uint_eq(run.out.n_reports, 1);
    ck_assert_str_eq(run.out.reports[0].location, "k(double *) in t.cu:7");
    ck_assert_str_eq(run.out.reports[0].access, "0 bytes after an allocation of 8,000 bytes");
    sanitizer_run_release(&run);

    run_outcome_release(&o);
    sanitizer_paths_free(ro);
    free(program);
    toolchain_release(&tc);
    lab_release(&lab);
    remove_tree(t, NULL);
    free(wrapper);
    free(tool);
    free(runner);
    free(work);
    free(t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sanitizer");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_memcheck_oob);
    tcase_add_test(tc, test_memcheck_clean);
    tcase_add_test(tc, test_racecheck);
    tcase_add_test(tc, test_initcheck_truncated);
    tcase_add_test(tc, test_did_not_complete);
    tcase_add_test(tc, test_forged_and_mixed_lines);
    tcase_add_test(tc, test_spanish);
    tcase_add_test(tc, test_find);
    tcase_add_test(tc, test_argv_paths_limits);
    tcase_add_test(tc, test_names);
    tcase_add_loop_test(tc, test_wrapped_run, 0, 2);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * End to end on the CPU: grade every lab 6 fixture submission with the real
 * grader binary and assert the exact verdict of every exercise variant
 * (tests/fixtures/lab6/EXPECTED, cpu column), the exit status, and the
 * behaviour of the command line on bad input.
 */
#include "e2e.h"

#include "base/stats.h"
#include "base/strbuf.h"

#include <math.h>
#include <sys/stat.h>

static char *out_dir;

static void setup(void)
{
    if (!out_dir)
        out_dir = e2e_tmpdir("cpu");
}

#define FIXTURE_TEST(name, timing)                                                                 \
    START_TEST(test_##name)                                                                        \
    {                                                                                              \
        e2e_check_fixture(#name, false, out_dir, timing ? E2E_TIMED : 0);                          \
    }                                                                                              \
    END_TEST

FIXTURE_TEST(correct, true)
FIXTURE_TEST(wrong_values, false)
FIXTURE_TEST(unwritten_element, false)
FIXTURE_TEST(nan_output, false)
FIXTURE_TEST(segfault, false)
FIXTURE_TEST(endless_loop, false)
FIXTURE_TEST(compile_error, false)
FIXTURE_TEST(missing_function, false)
FIXTURE_TEST(signature_mismatch, false)

/* The same verdicts with the variants side by side (grade/side.c, --parallel 3), into a
 * folder of their own: timed (the CPU variants then take turns under the CPU lock), a crash,
 * and a wrong answer. */
static char *side_dir;

#define SIDE_BY_SIDE_TEST(name, flags)                                                             \
    START_TEST(test_##name##_side_by_side)                                                         \
    {                                                                                              \
        if (!side_dir)                                                                             \
            side_dir = e2e_tmpdir("side");                                                         \
        e2e_check_fixture(#name, false, side_dir, (flags) | E2E_PARALLEL);                         \
    }                                                                                              \
    END_TEST

SIDE_BY_SIDE_TEST(correct, E2E_TIMED)
SIDE_BY_SIDE_TEST(segfault, 0)
SIDE_BY_SIDE_TEST(wrong_values, 0)

/* Side by side, each variant's progress lines still come out together and in the lab's order
 * (the CPU test lab's saxpy before its dot), whichever finished first. */
START_TEST(test_side_by_side_progress_in_order)
{
    if (!side_dir)
        side_dir = e2e_tmpdir("side");
    char *log = xstrfmt("%s/progress.log", side_dir);
    const char *argv[] = {e2e_bin(),     "check",    "tests/fixtures/labcpu",
                          "--no-timing", "--no-pdf", "--parallel",
                          "2",           "--out",    side_dir,
                          "--lang",      "en",       NULL};
    ck_assert_int_eq(e2e_run(argv, log), 0);
    struct strbuf text = STRBUF_INIT;
    ck_assert_int_eq(read_file(log, &text, NULL), 0);
    const char *saxpy[2] = {strstr(text.buf, "saxpy/cpu n1000"),
                            strstr(text.buf, "saxpy/cpu n100k")};
    const char *dot[2] = {strstr(text.buf, "dot/cpu n10 "), strstr(text.buf, "dot/cpu n1000")};
    ck_assert_msg(saxpy[0] && saxpy[1] && dot[0] && dot[1], "progress lines missing: %s", text.buf);
    ck_assert_msg(saxpy[0] < saxpy[1] && saxpy[1] < dot[0] && dot[0] < dot[1],
                  "progress lines out of order: %s", text.buf);
    strbuf_release(&text);
    free(log);
}
END_TEST

START_TEST(test_solution_passes_with_timing)
{
    char *log = xstrfmt("%s/solution.log", out_dir);
    const char *argv[] = {e2e_bin(), "check", "labs/lab6", "--no-pdf",
                          "--quiet", "--out", out_dir,     NULL};
    int status = e2e_run(argv, log);
    struct results r;
    struct error err;
    char *json = xstrfmt("%s/lab6/solution/results.json", out_dir);
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s", err.msg);
    char *failed = e2e_failed_cases(&r);
    ck_assert_msg(status == 0, "exit %d (log %s): %s", status, log, failed);
    ck_assert_msg(r.n_fail == 0, "%s", failed);
    free(failed);
    ck_assert_int_eq(r.n_grader_errors, 0);
    ck_assert_int_gt(r.n_pass, 0);
    /* Every passed CPU case was timed (or says why a loaded machine could not), and the CPU
     * baseline speedup is known. */
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[e].variants[v];
            for (size_t c = 0; c < vr->n_cases; c++) {
                char *what = xstrfmt("%s/%s", vr->variant_id, vr->cases[c].case_id);
                if (vr->cases[c].verdict == V_PASS && e2e_timed(what, &vr->cases[c])) {
                    ck_assert(vr->cases[c].time.samples >= 1);
                    ck_assert(vr->cases[c].speedup_baseline > 0);
                }
                free(what);
            }
        }
    char *md = xstrfmt("%s/lab6/solution/report.md", out_dir);
    ck_assert_msg(file_exists(md), "no report.md");
    free(md);
    results_release(&r);
    free(json);
    free(log);
}
END_TEST

/* The compute-sanitizer pass without a GPU: asked for with --sanitize, it is recorded on every
 * GPU variant as skipped, with the reason; the grade is what it would be without it. Lab 6
 * does not ask for it, so without the switch nothing is recorded; --no-sanitize neither. */
START_TEST(test_sanitize_skipped_without_gpu)
{
    const char *modes[] = {"--sanitize", "--no-sanitize", "--no-timing"};
    for (size_t m = 0; m < 3; m++) {
        char *student = xstrfmt("sanitize-%zu", m);
        char *log = xstrfmt("%s/%s.log", out_dir, student);
        const char *argv[] = {e2e_bin(),
                              "check",
                              "labs/lab6",
                              "--submission",
                              "tests/fixtures/lab6/correct",
                              "--only",
                              "grade2",
                              "--case",
                              "n1000",
                              "--no-pdf",
                              "--out",
                              out_dir,
                              "--student",
                              student,
                              "--lang",
                              "en",
                              "--no-timing",
                              modes[m],
                              NULL};
        int status = e2e_run(argv, log);
        struct results r;
        struct error err;
        char *json = xstrfmt("%s/lab6/%s/results.json", out_dir, student);
        results_init(&r);
        ck_assert_msg(results_read(&r, json, &err) == 0, "%s (log %s)", err.msg, log);
        ck_assert_msg(status == 0, "exit %d (log %s)", status, log);
        if (r.machine.gpu_name) {
            printf("e2e sanitize: SKIPPED: this machine has a GPU (%s): tests/gpu covers it\n",
                   r.machine.gpu_name);
            results_release(&r);
            free(json);
            free(log);
            free(student);
            return;
        }
        const char *gpu_variants[] = {"gpu", "gpu_dev"};
        for (size_t k = 0; k < 2; k++) {
            const struct variant_result *v = e2e_variant(&r, "grade2", gpu_variants[k]);
            ck_assert_ptr_nonnull(v);
            if (m != 0) {
                ck_assert_uint_eq(v->n_sanitizer, 0);
                continue;
            }
            ck_assert_uint_eq(v->n_sanitizer, 1);
            const struct sanitizer_run *run = &v->sanitizer[0];
            ck_assert_str_eq(run->tool, "memcheck");
            ck_assert_str_eq(run->case_id, "n1000"); /* the smallest visible case */
            ck_assert_int_eq(run->status, SANITIZER_SKIPPED);
            ck_assert_msg(run->reason && !strncmp(run->reason, "compute-sanitizer needs a GPU: ",
                                                  strlen("compute-sanitizer needs a GPU: ")),
                          "reason: %s", run->reason ? run->reason : "(none)");
            /* Findings only: the case's verdict is the usual one (no GPU: skipped). */
            ck_assert_int_eq(v->cases[0].verdict, V_SKIPPED);
        }
        /* The CPU variant is never sanitized. */
        ck_assert_uint_eq(e2e_variant(&r, "grade2", "cpu")->n_sanitizer, 0);
        /* The console says so, once per GPU variant, and that the grade does not change. */
        struct strbuf text = STRBUF_INIT;
        ck_assert_int_eq(read_file(log, &text, NULL), 0);
        if (m == 0) {
            ck_assert_msg(strstr(text.buf, "compute-sanitizer memcheck: not run: compute-sanitizer "
                                           "needs a GPU: "),
                          "%s", text.buf);
            ck_assert(strstr(text.buf, "compute-sanitizer findings do not change the grade"));
            /* And the report, under each GPU variant. */
            char *md = xstrfmt("%s/lab6/%s/report.md", out_dir, student);
            strbuf_reset(&text);
            ck_assert_int_eq(read_file(md, &text, NULL), 0);
            ck_assert_msg(strstr(text.buf, "**compute-sanitizer** (findings only: they do not "
                                           "change the grade)\n\n- memcheck on case n1000: not "
                                           "run: compute-sanitizer needs a GPU: "),
                          "%s", md);
            free(md);
        } else {
            ck_assert_ptr_null(strstr(text.buf, "compute-sanitizer"));
        }
        strbuf_release(&text);
        results_release(&r);
        free(json);
        free(log);
        free(student);
    }
}
END_TEST

/*
 * Timed pairs on a copy of the CPU test lab with speed points: the function and its reference
 * are timed alternately in one process on fresh inputs each pair, the speedup is 1 / the
 * median of the pairs' ratios with its 95% interval, and the speed points are decided at the
 * interval's end least favourable to the student (the finding says so).
 */
START_TEST(test_timed_pairs)
{
    char *dir = e2e_tmpdir("pairs");
    char *cmd = xstrfmt("cp -r tests/fixtures/labcpu '%s/lab' && sed -i "
                        "'s/timing: {warmup: 1, min_samples: 3, max_samples: 10, budget: 0.5}/"
                        "timing: {warmup: 1, min_samples: 6, max_samples: 12, budget: 0.5}"
                        "\\n    performance: {points: 1, full_at: 1.2, zero_at: 10}/' "
                        "'%s/lab/lab.yaml' && grep -q 'performance: {points: 1' '%s/lab/lab.yaml'",
                        dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    char *lab = xstrfmt("%s/lab", dir), *sub = xstrfmt("%s/lab/solution", dir);
    char *out = xstrfmt("%s/out", dir), *log = xstrfmt("%s/log", dir);
    const char *argv[] = {
        e2e_bin(), "check", lab, "--submission", sub,       "--only", "saxpy", "--case",
        "n1000",   "--out", out, "--no-pdf",     "--quiet", "--lang", "en",    NULL};
    ck_assert_int_eq(e2e_run(argv, log), 0);
    struct results r;
    struct error err;
    char *json = xstrfmt("%s/lab99/solution/results.json", out);
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s", err.msg);
    const struct variant_result *v = e2e_variant(&r, "saxpy", "cpu");
    ck_assert(v != NULL);
    const struct case_result *cr = &v->cases[0];
    ck_assert_str_eq(cr->case_id, "n1000");
    ck_assert_int_eq(cr->verdict, V_PASS);
    if (!e2e_timed("saxpy/cpu n1000", cr)) {
        results_release(&r);
        free(json);
        free(lab);
        free(sub);
        free(out);
        free(log);
        remove_tree(dir, NULL);
        free(dir);
        return;
    }
    ck_assert_int_ge(cr->pairs, 6);
    ck_assert_int_le(cr->pairs, 12);
    ck_assert(cr->time.valid && cr->ref_time.valid && cr->time.samples == cr->pairs);
    ck_assert_msg(cr->speedup_lo > 0 && cr->speedup_lo <= cr->speedup_ref &&
                      cr->speedup_ref <= cr->speedup_hi,
                  "speedup %g not within [%g, %g]", cr->speedup_ref, cr->speedup_lo,
                  cr->speedup_hi);
    ck_assert(cr->perf_finding > 0 &&
              strstr(cr->findings[cr->perf_finding - 1], "timed pairs") != NULL);
    results_release(&r);
    free(json);
    free(lab);
    free(sub);
    free(out);
    free(log);
    remove_tree(dir, NULL);
    free(dir);
}
END_TEST

/* A C compiler at <root>/cc/bin/cc that runs `before` (shell) inside a build folder, then gcc.
 * Returns the path (the caller frees it). */
static char *cc_wrapper(const char *root, const char *before)
{
    char *bin = xstrfmt("%s/cc/bin", root), *cc = xstrfmt("%s/cc", bin);
    ck_assert_int_eq(mkdir_p(bin, NULL), 0);
    /* Only inside a build folder, and never for the version probe (run in /tmp, where
     * TMPDIR may be $PWD too: it would wait out the probe's own 30 s limit). */
    char *script = xstrfmt("#!/bin/sh\n"
                           "case \"$*\" in --version) exec gcc \"$@\";; esac\n"
                           "case \"$TMPDIR\" in \"$PWD\"/*|\"$PWD\")\n"
                           "  %s;;\n"
                           "esac\n"
                           "exec gcc \"$@\"\n",
                           before);
    struct error err;
    ck_assert_int_eq(write_file_atomic(cc, script, strlen(script), &err), 0);
    ck_assert_int_eq(chmod(cc, 0755), 0);
    free(script);
    free(bin);
    return cc;
}

/* `grader check` of the CPU test lab's solution (or of submission) with CC=cc and these extra
 * arguments; the exit status. */
static int check_labcpu_sub(const char *root, const char *cc, const char *submission,
                            const char *extra1, const char *extra2)
{
    char *cache = xstrfmt("%s/cache", root), *out = xstrfmt("%s/out", root);
    char *log = xstrfmt("%s/check.log", root);
    setenv("CC", cc, 1);
    setenv("LABGRADER_CACHE", cache, 1); /* nothing served from another test's builds */
    const char *argv[] = {e2e_bin(),
                          "check",
                          "tests/fixtures/labcpu",
                          "--submission",
                          submission ? submission : "tests/fixtures/labcpu/solution",
                          "--no-timing",
                          "--no-pdf",
                          "--quiet",
                          "--out",
                          out,
                          extra1,
                          extra2,
                          NULL};
    int status = e2e_run(argv, log);
    unsetenv("CC");
    unsetenv("LABGRADER_CACHE");
    free(cache), free(out), free(log);
    return status;
}

static int check_labcpu_with(const char *root, const char *cc, const char *extra1,
                             const char *extra2)
{
    return check_labcpu_sub(root, cc, NULL, extra1, extra2);
}

/* Every compile and link runs with a TMPDIR of its own, removed after it. nvcc names its
 * intermediate files after its pid, which is 2 in every sandbox: two variants of one .cu built
 * at once in one folder swapped files, and an honest submission got "linking grade2_gpu
 * failed" (seen on the H100). A CC wrapper records what each command was given. */
START_TEST(test_each_build_step_has_its_own_tmpdir)
{
    char *root = e2e_tmpdir("tmpdir");
    /* The folder TMPDIR was (the build folder itself, before) and whether it held anything. */
    char *cc = cc_wrapper(root, "echo \"$TMPDIR $(ls -A \"$TMPDIR\" | wc -l)\" >> "
                                "\"$PWD/tmpdirs.txt\"");
    struct error err;
    int status = check_labcpu_with(root, cc, NULL, NULL);
    ck_assert_msg(status == 0, "exit %d (log %s/check.log)", status, root);
    char *cmd = xstrfmt("find '%s' -name tmpdirs.txt -exec cat {} + | sort > '%s/all.txt'; "
                        "find '%s' -name '.tmp-*' | wc -l > '%s/left.txt'",
                        root, root, root, root);
    ck_assert_int_eq(system(cmd), 0);
    struct strbuf sb = STRBUF_INIT;
    char *all = xstrfmt("%s/all.txt", root), *left = xstrfmt("%s/left.txt", root);
    ck_assert_int_eq(read_file(all, &sb, &err), 0);
    size_t lines = 0;
    char prev[4096] = "";
    for (char *line = strtok(sb.buf, "\n"); line; line = strtok(NULL, "\n"), lines++) {
        ck_assert_msg(strstr(line, "/.tmp-") && !strcmp(line + strlen(line) - 2, " 0"),
                      "a build step's TMPDIR was shared or not empty: %s", line);
        ck_assert_msg(strcmp(line, prev), "two build steps shared %s", line);
        snprintf(prev, sizeof(prev), "%s", line);
    }
    ck_assert_msg(lines >= 4, "only %zu build steps recorded", lines); /* 2 sources, 2 links */
    strbuf_reset(&sb);
    ck_assert_int_eq(read_file(left, &sb, &err), 0);
    ck_assert_msg(strtol(sb.buf, NULL, 10) == 0, "TMPDIRs left behind: %s", sb.buf);
    strbuf_release(&sb);
    remove_tree(root, NULL);
    free(all), free(left), free(cmd), free(cc);
    free(root);
}
END_TEST

/* The object cache's entries under root's cache, one "inode path" line each, sorted: an entry
 * written again (its step run again) is a new folder, so a new inode. */
static char *cache_entries(const char *root, size_t *n)
{
    char *list = xstrfmt("%s/entries.txt", root);
    char *cmd = xstrfmt("find '%s/cache/objects' -mindepth 2 -maxdepth 2 -type d -printf '%%i "
                        "%%P\\n' | sort > '%s'",
                        root, list);
    ck_assert_int_eq(system(cmd), 0);
    struct strbuf sb = STRBUF_INIT;
    ck_assert_int_eq(read_file(list, &sb, NULL), 0);
    *n = 0;
    for (const char *p = sb.buf; (p = strchr(p, '\n')); p++)
        ++*n;
    free(cmd), free(list);
    return strbuf_detach(&sb);
}

/* Whether every line of a is a line of b. */
static bool lines_kept(const char *a, const char *b)
{
    char *copy = xstrdup(a), *in = xstrfmt("\n%s", b);
    bool ok = true;
    for (char *line = strtok(copy, "\n"); ok && line; line = strtok(NULL, "\n")) {
        char *want = xstrfmt("\n%s\n", line);
        ok = strstr(in, want) != NULL;
        free(want);
    }
    free(copy), free(in);
    return ok;
}

/* A check after an edit builds only what the edited source goes into: its object and its
 * variant's runner. The other variant's runner and both generated drivers come from the
 * object cache (their entries are the first check's, not written again). A runner is reused
 * only when every input is as it was: the edit that breaks dot is graded as broken, and undoing
 * it takes the first build's object and runner again, graded correct, with nothing built. */
START_TEST(test_edit_builds_only_its_variants)
{
    char *root = e2e_tmpdir("edit"), *sub = xstrfmt("%s/sub", root);
    char *dot = xstrfmt("%s/dot.c", sub),
         *cp = xstrfmt("cp -r tests/fixtures/labcpu/solution '%s'", sub);
    struct strbuf orig = STRBUF_INIT;
    size_t n1, n2, n3;
    ck_assert_int_eq(system(cp), 0);
    ck_assert_int_eq(read_file(dot, &orig, NULL), 0);
    ck_assert_int_eq(check_labcpu_sub(root, "cc", sub, NULL, NULL), 0);
    /* Two sources, two drivers, two runners. */
    char *first = cache_entries(root, &n1);
    ck_assert_msg(n1 == 6, "%zu entries after the first check:\n%s", n1, first);

    char *broken = xstrdup(orig.buf), *at = strstr(broken, "out[0] = sum;");
    ck_assert_ptr_nonnull(at);
    memcpy(at, "out[0] = 0.5;", strlen("out[0] = 0.5;"));
    ck_assert_int_eq(write_file_atomic(dot, broken, strlen(broken), NULL), 0);
    int status = check_labcpu_sub(root, "cc", sub, NULL, NULL);
    ck_assert_msg(status == 1, "the broken dot passed, or the grader failed: exit %d (%s)", status,
                  root);
    char *edit = cache_entries(root, &n2);
    ck_assert_msg(n2 == 8 && lines_kept(first, edit),
                  "after the edit, not one object and one runner more, the rest kept:\n%s\n"
                  "before:\n%s",
                  edit, first);

    ck_assert_int_eq(write_file_atomic(dot, orig.buf, orig.len, NULL), 0);
    ck_assert_int_eq(check_labcpu_sub(root, "cc", sub, NULL, NULL), 0);
    char *undone = cache_entries(root, &n3);
    ck_assert_msg(!strcmp(undone, edit), "undoing the edit built again:\n%s\nbefore:\n%s", undone,
                  edit);
    strbuf_release(&orig);
    remove_tree(root, NULL);
    free(first), free(edit), free(undone), free(broken), free(cp), free(dot), free(sub);
    free(root);
}
END_TEST

/* --compile-timeout: a compiler past it is stopped, and that is the submission's compile
 * error (CE, exit 1), not the grader's failure. */
START_TEST(test_compile_timeout)
{
    char *root = e2e_tmpdir("ccslow");
    /* The student's compiles and links only: the references' must still build. */
    char *cc = cc_wrapper(root, "case \"$*\" in *ref_*) ;; *) sleep 30;; esac");
    int status = check_labcpu_with(root, cc, "--compile-timeout", "1");
    ck_assert_msg(status == 1, "exit %d, expected 1 (log %s/check.log)", status, root);
    struct results r;
    struct error err;
    char *json = xstrfmt("%s/out/lab99/solution/results.json", root);
    results_init(&r);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(r.n_grader_errors, 0);
    for (size_t e = 0; e < r.n_exercises; e++) {
        const struct variant_result *vr = &r.exercises[e].variants[0];
        ck_assert_msg(vr->n_cases && vr->cases[0].verdict == V_COMPILE, "%s: %s",
                      r.exercises[e].exercise_id, verdict_code(vr->cases[0].verdict));
        ck_assert_msg(vr->build_log && strstr(vr->build_log, "timed out after"), "log: %s",
                      vr->build_log ? vr->build_log : "");
    }
    results_release(&r);
    remove_tree(root, NULL);
    free(json), free(cc), free(root);
}
END_TEST

START_TEST(test_validate_bad_spec_exits_2)
{
    char *dir = e2e_tmpdir("spec");
    char *path = xstrfmt("%s/lab.yaml", dir);
    char *log = xstrfmt("%s/log", dir);
    FILE *f = fopen(path, "w");
    fputs("lab: 9\ntitle: x\nexercises:\n  - id: a\n    titel: y\n", f);
    fclose(f);
    const char *argv[] = {e2e_bin(), "validate", path, NULL};
    ck_assert_int_eq(e2e_run(argv, log), 2);
    struct strbuf sb = STRBUF_INIT;
    ck_assert_int_eq(read_file(log, &sb, NULL), 0);
    char *where = xstrfmt("%s:5:5: unknown key 'titel'", path);
    ck_assert_msg(strstr(sb.buf, where), "message was: %s", sb.buf);
    free(where);
    strbuf_release(&sb);
    remove_tree(dir, NULL);
    free(dir);
    free(path);
    free(log);
}
END_TEST

START_TEST(test_usage_errors_exit_2)
{
    const char *a1[] = {e2e_bin(), "check", "labs/lab6", "--submission", "/nonexistent/x", NULL};
    const char *a2[] = {e2e_bin(), "frobnicate", NULL};
    const char *a3[] = {e2e_bin(), "check", "labs/lab6", "--timeout", "soon", NULL};
    const char *a4[] = {e2e_bin(), "validate", "labs/lab6", NULL};
    ck_assert_int_eq(e2e_run(a1, NULL), 2);
    ck_assert_int_eq(e2e_run(a2, NULL), 2);
    ck_assert_int_eq(e2e_run(a3, NULL), 2);
    ck_assert_int_eq(e2e_run(a4, NULL), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("e2e");
    TCase *tc = tcase_create("lab6-cpu");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_usage_errors_exit_2);
    tcase_add_test(tc, test_validate_bad_spec_exits_2);
    tcase_add_test(tc, test_correct);
    tcase_add_test(tc, test_wrong_values);
    tcase_add_test(tc, test_unwritten_element);
    tcase_add_test(tc, test_nan_output);
    tcase_add_test(tc, test_segfault);
    tcase_add_test(tc, test_endless_loop);
    tcase_add_test(tc, test_compile_error);
    tcase_add_test(tc, test_missing_function);
    tcase_add_test(tc, test_signature_mismatch);
    tcase_add_test(tc, test_correct_side_by_side);
    tcase_add_test(tc, test_segfault_side_by_side);
    tcase_add_test(tc, test_wrong_values_side_by_side);
    tcase_add_test(tc, test_side_by_side_progress_in_order);
    tcase_add_test(tc, test_solution_passes_with_timing);
    tcase_add_test(tc, test_sanitize_skipped_without_gpu);
    tcase_add_test(tc, test_timed_pairs);
    tcase_add_test(tc, test_each_build_step_has_its_own_tmpdir);
    tcase_add_test(tc, test_edit_builds_only_its_variants);
    tcase_add_test(tc, test_compile_timeout);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (out_dir && !failed)
        remove_tree(out_dir, NULL);
    return failed ? 1 : 0;
}

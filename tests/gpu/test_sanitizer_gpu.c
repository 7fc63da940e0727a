/*
 * The compute-sanitizer pass on a GPU machine (make test-gpu), end to end with the real
 * grader and the real tool. Lab 6 does not ask for the pass, so both gradings use --sanitize
 * (memcheck on every GPU variant, on its smallest visible case: matmul n256, grade2 n1000):
 *
 *   gpu_oob_write   tests/hostile/gpu_oob_write: grade2_gpu_dev computes every element
 *                   right but writes three past the end of z. Its verdict is RE from the
 *                   guard zone after z (the rows of tests/hostile/EXPECTED), and under the
 *                   sanitizer, which runs without guard zones, memcheck reports an "Invalid
 * __global__ write of size 8 bytes" in grade2_oob_kernel at grade2_gpu.cu's marked line, past an
 *                   allocation of 8000 bytes (the sandbox's C locale: run by hand with a
 *                   UTF-8 locale the tool writes 8,000); in results.json, the console and
 *                   the report.
 *   correct         tests/fixtures/lab6/correct: memcheck ran on every GPU variant (cuBLAS
 *                   ones included) and found nothing; CPU variants have no pass.
 *
 * With the hostile suite's guarantees (tests/hostile/hostile.h): no process of a run left,
 * nothing outside the scratch folders changed.
 */
#include "../hostile/hostile.h"

static struct hostile_suite suite;

static void setup(void)
{
    if (!suite.repo && !suite.why[0] && !hostile_suite_setup(&suite))
        fprintf(stderr, "sanitizer-gpu: setup failed: %s\n", suite.why);
}

#define CASE_TIMEOUT "20"
/* Four GPU variants, each at most sanitizer_wall_limit(20 s) = 200 s under the tool. */
#define GRADING_LIMIT_S (20 + HOSTILE_COMPILE_LIMIT_S + HOSTILE_GRACE_S + 4 * 200)

/* Like hostile_grade(), with --sanitize, progress lines in the log, in English. */
static void grade_sanitized(const struct hostile_suite *s, const char *submission,
                            const char *student, struct hostile_run *run)
{
    memset(run, 0, sizeof(*run));
    run->log = xstrfmt("%s/%s.log", s->scratch, student);
    const char *argv[] = {e2e_bin(),     "check",      "labs/lab6",  "--submission",
                          submission,    "--case",     "n256,n1000", "--timeout",
                          CASE_TIMEOUT,  "--no-pdf",   "--out",      s->out,
                          "--student",   student,      "--lang",     "en",
                          "--no-timing", "--sanitize", NULL};
    hostile_exec(s, argv, run->log, GRADING_LIMIT_S, run);
    ck_assert_msg(run->status >= 0, "%s: grading still running after %.0f s: killed; see %s",
                  student, run->wall_s, run->log);
    char *json = xstrfmt("%s/lab6/%s/results.json", s->out, student);
    struct error err;
    results_init(&run->r);
    run->have_results = file_exists(json) && results_read(&run->r, json, &err) == 0;
    if (!run->have_results)
        results_release(&run->r);
    ck_assert_msg(run->have_results, "%s: no results.json (exit %d); see %s", student, run->status,
                  run->log);
    free(json);
}

static const struct sanitizer_run *memcheck_of(const struct hostile_run *run, const char *ex,
                                               const char *var, const char *case_id)
{
    const struct variant_result *v = e2e_variant(&run->r, ex, var);
    ck_assert_msg(v != NULL, "no %s/%s", ex, var);
    ck_assert_msg(v->n_sanitizer == 1, "%s/%s: %zu sanitizer runs, expected memcheck alone", ex,
                  var, v->n_sanitizer);
    const struct sanitizer_run *s = &v->sanitizer[0];
    ck_assert_str_eq(s->tool, "memcheck");
    ck_assert_msg(s->case_id && !strcmp(s->case_id, case_id), "%s/%s: ran on %s, expected %s", ex,
                  var, s->case_id ? s->case_id : "(none)", case_id);
    ck_assert_msg(s->status == SANITIZER_RAN, "%s/%s: memcheck %s: %s; log %s", ex, var,
                  sanitizer_status_name(s->status), s->reason ? s->reason : "", run->log);
    ck_assert(s->out.summary);
    return s;
}

static void assert_clean(const struct hostile_run *run, const char *ex, const char *var,
                         const char *case_id)
{
    const struct sanitizer_run *s = memcheck_of(run, ex, var, case_id);
    char *line = sanitizer_run_summary(s, NULL);
    ck_assert_msg(s->out.errors == 0 && s->out.n_reports == 0 && s->out.other_reports == 0,
                  "%s/%s: memcheck found something in correct code: %s; log %s", ex, var, line,
                  run->log);
    free(line);
}

/* The line of the fixture's out-of-bounds write (marked "lg-oob-write"). */
static int oob_line(void)
{
    FILE *f = fopen("tests/hostile/gpu_oob_write/grade2_gpu.cu", "r");
    char buf[512];
    int line = 0, found = 0;
    ck_assert_ptr_nonnull(f);
    while (!found && fgets(buf, sizeof(buf), f)) {
        line++;
        if (strstr(buf, "z[i] =") && strstr(buf, "lg-oob-write"))
            found = line;
    }
    fclose(f);
    ck_assert_msg(found > 0, "no lg-oob-write mark in the fixture");
    return found;
}

START_TEST(test_correct_is_clean)
{
    struct hostile_run run;
    ck_assert_msg(suite.ready, "suite not set up: %s", suite.why);
    ck_assert_msg(suite.gpu, "no usable GPU seen by the grader: run this suite on a GPU machine");
    grade_sanitized(&suite, "tests/fixtures/lab6/correct", "sanitize-correct", &run);
    ck_assert_msg(run.status == 0, "exit %d; log %s", run.status, run.log);
    hostile_check_correct(&suite, "sanitize-correct", &run);
    assert_clean(&run, "matmul", "gpu", "n256");
    assert_clean(&run, "matmul", "gpu_dev", "n256");
    assert_clean(&run, "grade2", "gpu", "n1000");
    assert_clean(&run, "grade2", "gpu_dev", "n1000");
    ck_assert_uint_eq(e2e_variant(&run.r, "matmul", "cpu")->n_sanitizer, 0);
    ck_assert_uint_eq(e2e_variant(&run.r, "grade2", "cpu")->n_sanitizer, 0);
    hostile_assert_no_leftovers(&suite, "sanitize-correct");
    printf("sanitizer correct: graded in %.1f s\n", run.wall_s);
    fflush(stdout);
    hostile_run_release(&run);
}
END_TEST

START_TEST(test_oob_write_found)
{
    struct hostile_snapshot before;
    struct hostile_run run, correct;
    ck_assert_msg(suite.ready, "suite not set up: %s", suite.why);
    ck_assert_msg(suite.gpu, "no usable GPU seen by the grader: run this suite on a GPU machine");
    char *sub = hostile_prepare(&suite, "gpu_oob_write");
    hostile_snapshot_take(&suite, &before);
    grade_sanitized(&suite, sub, "gpu_oob_write", &run);
    hostile_assert_no_leftovers(&suite, "gpu_oob_write");

    /* The grade: the usual verdicts (EXPECTED): RE from the guard zone after z, found without
     * the sanitizer, which runs anyway and adds its own findings. */
    hostile_check_rows(&suite, "gpu_oob_write", &run);
    const struct case_result *cr = hostile_case(&run, "grade2", "gpu_dev");
    ck_assert_msg(cr->verdict == V_EXIT && cr->message && strstr(cr->message, "past the end of z"),
                  "%s", cr->message ? cr->message : "");
    grade_sanitized(&suite, "tests/fixtures/lab6/correct", "sanitize-correct-2", &correct);
    ck_assert_msg(run.r.score < correct.r.score,
                  "score %g with the out-of-bounds write, %g without", run.r.score,
                  correct.r.score);
    hostile_run_release(&correct);

    /* The finding: the write, where it is, by whom, what it hit. */
    const struct sanitizer_run *s = memcheck_of(&run, "grade2", "gpu_dev", "n1000");
    char *where = xstrfmt("grade2_gpu.cu:%d", oob_line());
    const struct sanitizer_report *w = NULL;
    for (size_t i = 0; i < s->out.n_reports && !w; i++)
        if (!strncmp(s->out.reports[i].kind, "Invalid __global__ write of size 8 bytes",
                     strlen("Invalid __global__ write of size 8 bytes")))
            w = &s->out.reports[i];
    char *line = sanitizer_run_summary(s, NULL);
    ck_assert_msg(w != NULL, "no out-of-bounds write reported: %s; log %s", line, run.log);
    ck_assert_msg(
        w->location && strstr(w->location, "grade2_oob_kernel") && strstr(w->location, where),
        "location '%s', expected grade2_oob_kernel in %s", w->location ? w->location : "", where);
    ck_assert_msg(w->thread && w->block, "no thread or block: %s", line);
    ck_assert_msg(w->access && (strstr(w->access, "after an allocation of 8000 bytes") ||
                                strstr(w->access, "after an allocation of 8,000 bytes")),
                  "access '%s'", w->access ? w->access : "");
    ck_assert_msg(s->out.errors >= 3, "%ld errors, expected the three writes at least: %s",
                  s->out.errors, line);
    /* The other GPU variants are correct code: nothing found. */
    assert_clean(&run, "grade2", "gpu", "n1000");
    assert_clean(&run, "matmul", "gpu", "n256");
    assert_clean(&run, "matmul", "gpu_dev", "n256");

    /* Console and report name it too. */
    struct strbuf text = STRBUF_INIT;
    ck_assert_int_eq(read_file(run.log, &text, NULL), 0);
    ck_assert_msg(strstr(text.buf, "compute-sanitizer memcheck on case n1000: ") &&
                      strstr(text.buf, "errors: Invalid __global__ write of size 8 bytes at "
                                       "grade2_oob_kernel"),
                  "console: see %s", run.log);
    ck_assert(strstr(text.buf, "compute-sanitizer findings do not change the grade"));
    strbuf_reset(&text);
    char *md = xstrfmt("%s/lab6/gpu_oob_write/report.md", suite.out);
    ck_assert_int_eq(read_file(md, &text, NULL), 0);
    /* Markdown reads it as it is written (escape.h: a _ inside a word needs no backslash). */
    char *escaped = xstrfmt("grade2_gpu.cu:%d", oob_line());
    ck_assert_msg(strstr(text.buf, "**compute-sanitizer** (findings only: they do not change the "
                                   "grade)") &&
                      strstr(text.buf, escaped),
                  "report %s lacks the finding at %s", md, escaped);
    printf("sanitizer gpu_oob_write: %s (graded in %.1f s)\n", line, run.wall_s);
    fflush(stdout);
    strbuf_release(&text);
    free(escaped);
    free(md);
    free(line);
    free(where);

    hostile_assert_no_marks(&suite, "gpu_oob_write");
    hostile_assert_unchanged(&suite, &before, "gpu_oob_write");
    hostile_run_release(&run);
    free(sub);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sanitizer-gpu");
    TCase *tc = tcase_create("lab6-sanitizer-gpu");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 3 * GRADING_LIMIT_S);
    tcase_add_test(tc, test_correct_is_clean);
    tcase_add_test(tc, test_oob_write_found);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    hostile_suite_teardown(&suite, failed != 0);
    return failed ? 1 : 0;
}

/*
 * End to end over the course labs: every lab in labs/ validates; labs 3 and 4 grade their
 * solution (everything that runs here passes) and their skeleton (everything fails with the
 * "never written" message, GPU sources still compile); their fixture submissions get the
 * verdicts of tests/fixtures/labN/EXPECTED.
 *
 * The expectations follow the machine the grader saw: without a GPU, GPU variants must be
 * skipped with a reason (and not be CE or MF); with one, they must get their real verdicts
 * (the gpu column of EXPECTED). tests/gpu/test_labs_gpu.c includes this file with
 * LABS_REQUIRE_GPU set, which also fails when no GPU was seen.
 *
 * Small cases only (--case); the solutions are timed too (timing must never change a
 * verdict: the timed calls are checked against the checked ones), the rest is correctness
 * only (--no-timing). The suite takes about two minutes on two cores, most of it nvcc.
 */
#include "e2e.h"

#include "base/dtype.h"
#include "spec/spec.h"

#include <dirent.h>

#ifndef LABS_REQUIRE_GPU
#define LABS_REQUIRE_GPU 0
#endif

static char *out_dir;

static void setup(void)
{
    if (!out_dir)
        out_dir = e2e_tmpdir("labs");
}

/* One submission, the hidden cases too where the suite grades them; the exit status, and r
 * filled (the caller releases it). */
static int grade(const char *lab, const char *submission, const char *student, const char *only,
                 const char *cases, bool timed, struct results *r)
{
    int flags = (timed ? E2E_TIMED : 0) | (LABS_REQUIRE_GPU ? E2E_REQUIRE_GPU : 0);
    return e2e_check_lab(out_dir, lab, submission, student, only, cases, flags, r);
}

static void load_lab(const char *lab, struct lab *spec)
{
    struct error err;
    char *path = xstrfmt("labs/%s/lab.yaml", lab);
    lab_init(spec);
    ck_assert_msg(spec_load(spec, path, NULL, &err) == 0, "%s: %s", path, err.msg);
    free(path);
}

/* The solution, timed: every selected case of every variant passes, or (GPU variants on a
 * machine without one) is skipped with the reason. A "vs CPU" time exists exactly where the
 * exercise names a CPU baseline (a copy's reference is no CPU time). */
static void check_solution(const char *lab, const char *cases)
{
    char *sub = xstrfmt("labs/%s/solution", lab);
    struct results r;
    struct lab spec;
    int status = grade(lab, sub, "solution", NULL, cases, true, &r);
    load_lab(lab, &spec);
    bool gpu = r.machine.gpu_name != NULL;
    size_t graded = 0, skipped_gpu = 0;
    ck_assert_msg(status == 0, "%s solution: exit %d", lab, status);
    ck_assert_int_eq(r.n_fail, 0);
    ck_assert_int_eq(r.n_grader_errors, 0);
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[e].variants[v];
            bool gpu_variant = vr->target && !strcmp(vr->target, "gpu");
            ck_assert_msg(vr->built, "%s solution %s/%s did not build: %s", lab,
                          r.exercises[e].exercise_id, vr->variant_id,
                          vr->build_log ? vr->build_log : "");
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (!e2e_in_list(cases, cr->case_id))
                    continue;
                if (gpu_variant && !gpu) {
                    ck_assert_msg(cr->verdict == V_SKIPPED && cr->message && *cr->message,
                                  "%s solution %s/%s %s: %s (%s), expected SK with a reason", lab,
                                  r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                                  verdict_code(cr->verdict), cr->message ? cr->message : "");
                    skipped_gpu++;
                    continue;
                }
                ck_assert_msg(cr->verdict == V_PASS, "%s solution %s/%s %s: %s (%s)", lab,
                              r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                              verdict_code(cr->verdict), cr->message ? cr->message : "");
                char *what = xstrfmt("%s solution %s/%s %s", lab, r.exercises[e].exercise_id,
                                     vr->variant_id, cr->case_id);
                bool timed = e2e_timed(what, cr);
                free(what);
                const struct exercise_spec *ex = lab_exercise(&spec, r.exercises[e].exercise_id);
                ck_assert(ex != NULL);
                ck_assert_msg(!timed || (cr->baseline_ms > 0) == (ex->baseline != NULL),
                              "%s solution %s/%s %s: baseline %g ms, spec baseline %s", lab,
                              r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                              cr->baseline_ms, ex->baseline ? ex->baseline : "none");
                graded++;
            }
        }
    ck_assert_msg(graded > 0, "%s solution: no case graded", lab);
    ck_assert_msg(gpu || skipped_gpu > 0, "%s solution: no GPU variant seen", lab);
    lab_release(&spec);
    results_release(&r);
    free(sub);
}

/* The skeleton: every selected case that runs is WA, and says its elements were never written
 * (float outputs still NaN, integer outputs still the fill pattern).
 * Nothing is CE or MF: the stubs compile warning-free against the generated prototypes. */
static void check_skeleton(const char *lab, const char *cases)
{
    char *sub = xstrfmt("labs/%s/skeleton", lab);
    struct results r;
    struct lab spec;
    int status = grade(lab, sub, "skeleton", NULL, cases, false, &r);
    bool gpu = r.machine.gpu_name != NULL;
    size_t wrong = 0;
    load_lab(lab, &spec);
    ck_assert_msg(status == 1, "%s skeleton: exit %d, expected 1", lab, status);
    ck_assert_int_eq(r.n_pass, 0);
    ck_assert_int_eq(r.n_grader_errors, 0);
    for (size_t e = 0; e < r.n_exercises; e++) {
        const struct exercise_spec *ex = lab_exercise(&spec, r.exercises[e].exercise_id);
        ck_assert(ex != NULL);
        /* In the lab's language (templates/es/messages.po). */
        bool es = r.lang && !strcmp(r.lang, "es");
        /* Floats still NaN, integers still the fill pattern: both "never written". */
        const char *says = es ? "nunca se escribieron" : "never written";
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[e].variants[v];
            bool gpu_variant = vr->target && !strcmp(vr->target, "gpu");
            ck_assert_msg(vr->built && vr->n_warnings == 0,
                          "%s skeleton %s/%s: built %d, %d warnings:\n%s", lab,
                          r.exercises[e].exercise_id, vr->variant_id, vr->built, vr->n_warnings,
                          vr->build_log ? vr->build_log : "");
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (!e2e_in_list(cases, cr->case_id))
                    continue;
                if (gpu_variant && !gpu) {
                    ck_assert_msg(cr->verdict == V_SKIPPED, "%s skeleton %s/%s %s: %s (%s)", lab,
                                  r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                                  verdict_code(cr->verdict), cr->message ? cr->message : "");
                    continue;
                }
                ck_assert_msg(cr->verdict == V_WRONG && cr->message && strstr(cr->message, says),
                              "%s skeleton %s/%s %s: %s (%s), expected WA saying '%s'", lab,
                              r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                              verdict_code(cr->verdict), cr->message ? cr->message : "", says);
                wrong++;
            }
        }
    }
    ck_assert_msg(wrong > 0, "%s skeleton: no case graded", lab);
    lab_release(&spec);
    results_release(&r);
    free(sub);
}

struct lab_row {
    char fixture[64], exercise[64], variant[64], case_id[64], cpu[8], gpu[8];
};

/* tests/fixtures/<lab>/EXPECTED: "fixture exercise variant case cpu_verdict gpu_verdict". */
static size_t read_expected(const char *lab, struct lab_row *rows, size_t max)
{
    char *path = xstrfmt("tests/fixtures/%s/EXPECTED", lab);
    FILE *f = fopen(path, "r");
    char line[512];
    size_t n = 0;
    ck_assert_msg(f != NULL, "cannot open %s", path);
    while (n < max && fgets(line, sizeof(line), f)) {
        struct lab_row *w = &rows[n];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        ck_assert_msg(sscanf(line, "%63s %63s %63s %63s %7s %7s", w->fixture, w->exercise,
                             w->variant, w->case_id, w->cpu, w->gpu) == 6,
                      "%s: bad line: %s", path, line);
        n++;
    }
    fclose(f);
    free(path);
    return n;
}

/* Grade one fixture on its exercise and cases; check every EXPECTED row and the exit status. */
static void check_fixture(const char *lab, const char *fixture)
{
    struct lab_row rows[64];
    size_t n = read_expected(lab, rows, 64);
    struct strbuf cases = STRBUF_INIT;
    const char *exercise = NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].fixture, fixture))
            continue;
        ck_assert_msg(!exercise || !strcmp(exercise, rows[i].exercise),
                      "%s/%s: one exercise per fixture", lab, fixture);
        exercise = rows[i].exercise;
        if (!e2e_in_list(strbuf_str(&cases), rows[i].case_id))
            strbuf_addf(&cases, "%s%s", cases.len ? "," : "", rows[i].case_id);
    }
    ck_assert_msg(exercise != NULL, "tests/fixtures/%s/EXPECTED has no rows for %s", lab, fixture);
    char *sub = xstrfmt("tests/fixtures/%s/%s", lab, fixture);
    struct results r;
    int status = grade(lab, sub, fixture, exercise, strbuf_str(&cases), false, &r);
    bool gpu = r.machine.gpu_name != NULL, any_failure = false, unchecked = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].fixture, fixture))
            continue;
        const char *want = gpu ? rows[i].gpu : rows[i].cpu;
        if (!strcmp(want, "-")) {
            unchecked = true;
            continue;
        }
        if (verdict_is_failure((enum verdict)verdict_parse(want)))
            any_failure = true;
        const struct variant_result *v = e2e_variant(&r, rows[i].exercise, rows[i].variant);
        const struct case_result *cr = NULL;
        ck_assert_msg(v != NULL, "%s/%s: no result for %s/%s", lab, fixture, rows[i].exercise,
                      rows[i].variant);
        for (size_t c = 0; c < v->n_cases; c++)
            if (!strcmp(v->cases[c].case_id, rows[i].case_id))
                cr = &v->cases[c];
        ck_assert_msg(cr != NULL, "%s/%s: no case %s", lab, fixture, rows[i].case_id);
        ck_assert_msg(!strcmp(verdict_code(cr->verdict), want),
                      "%s/%s: %s/%s case %s: verdict %s (%s), expected %s", lab, fixture,
                      rows[i].exercise, rows[i].variant, rows[i].case_id, verdict_code(cr->verdict),
                      cr->message ? cr->message : "", want);
    }
    if (any_failure || !unchecked)
        ck_assert_msg(status == (any_failure ? 1 : 0), "%s/%s: exit status %d, expected %d", lab,
                      fixture, status, any_failure ? 1 : 0);
    results_release(&r);
    strbuf_release(&cases);
    free(sub);
}

START_TEST(test_every_lab_validates)
{
    DIR *d = opendir("labs");
    struct dirent *de;
    int found = 0;
    ck_assert_msg(d != NULL, "no labs/ folder: run from the labgrader root");
    while ((de = readdir(d))) {
        if (strncmp(de->d_name, "lab", 3) || !de->d_name[3])
            continue;
        char *yaml = xstrfmt("labs/%s/lab.yaml", de->d_name);
        char *dir = xstrfmt("labs/%s", de->d_name);
        char *log = xstrfmt("%s/validate-%s.log", out_dir, de->d_name);
        if (file_exists(yaml)) {
            const char *argv[] = {e2e_bin(), "validate", dir, NULL};
            int status = e2e_run(argv, log);
            struct strbuf sb = STRBUF_INIT;
            read_file(log, &sb, NULL);
            ck_assert_msg(status == 0, "grader validate %s: exit %d: %s", dir, status,
                          strbuf_str(&sb));
            strbuf_release(&sb);
            found += !strcmp(de->d_name, "lab3") || !strcmp(de->d_name, "lab4") ||
                     !strcmp(de->d_name, "lab6");
        }
        free(yaml);
        free(dir);
        free(log);
    }
    closedir(d);
    ck_assert_int_eq(found, 3);
}
END_TEST

/* 4KB: the copies; n1000: the dtype exercises; n100: add, mul, exp. */
#define LAB3_CASES "4KB,n1000,n100"
#define LAB4_CASES "n5466,n1000"

START_TEST(test_lab3_solution)
{
    check_solution("lab3", LAB3_CASES);
}
END_TEST

START_TEST(test_lab3_skeleton)
{
    check_skeleton("lab3", LAB3_CASES);
}
END_TEST

START_TEST(test_lab4_solution)
{
    check_solution("lab4", LAB4_CASES);
}
END_TEST

START_TEST(test_lab4_skeleton)
{
    check_skeleton("lab4", LAB4_CASES);
}
END_TEST

#define FIXTURE_TEST(lab, name)                                                                    \
    START_TEST(test_##lab##_##name)                                                                \
    {                                                                                              \
        check_fixture(#lab, #name);                                                                \
    }                                                                                              \
    END_TEST

FIXTURE_TEST(lab3, i8_roundf)
FIXTURE_TEST(lab3, i8_wraparound)
FIXTURE_TEST(lab3, bf16_truncate)
FIXTURE_TEST(lab4, no_bounds_check)
FIXTURE_TEST(lab4, accumulate)
FIXTURE_TEST(lab4, matvec_column_major)

int main(void)
{
    Suite *s = suite_create(LABS_REQUIRE_GPU ? "labs-gpu" : "labs");
    TCase *tc = tcase_create("labs");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_every_lab_validates);
    tcase_add_test(tc, test_lab3_solution);
    tcase_add_test(tc, test_lab3_skeleton);
    tcase_add_test(tc, test_lab4_solution);
    tcase_add_test(tc, test_lab4_skeleton);
    tcase_add_test(tc, test_lab3_i8_roundf);
    tcase_add_test(tc, test_lab3_i8_wraparound);
    tcase_add_test(tc, test_lab3_bf16_truncate);
    tcase_add_test(tc, test_lab4_no_bounds_check);
    tcase_add_test(tc, test_lab4_accumulate);
    tcase_add_test(tc, test_lab4_matvec_column_major);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (out_dir && !failed)
        remove_tree(out_dir, NULL);
    free(out_dir);
    return failed ? 1 : 0;
}

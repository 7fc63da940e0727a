/*
 * End to end over labs 7, 8 and 9 (issue 18: a float32 reduction to a scalar, a 256-bin int32
 * histogram with uniform and skewed inputs, a non-square transpose), written from the docs as
 * a new instructor would. Each lab validates; its solution passes on its small cases, timed
 * (timing must never change a verdict); its skeleton fails in every variant that runs, with a
 * "never written" diagnosis, and compiles warning-free; its fixture submissions get the
 * verdicts of tests/fixtures/labN/EXPECTED, hidden cases included. The must-hold: lab
 * 7's off-by-one (uno_de_menos) fails at every size, and `s[0] += acc` on the NaN-filled output
 * is diagnosed with `+=`.
 *
 * Without a GPU, GPU variants must be skipped with a reason (and not be CE or MF): their
 * sources still compile. tests/gpu/test_newlabs_gpu.c includes this file with
 * NEWLABS_REQUIRE_GPU set: the gpu column of EXPECTED is asserted, and a run without a GPU
 * fails. Small cases, --no-sanitize (lab 7 asks for racecheck, which only adds findings), and
 * correctness only (--no-timing) but for the solutions.
 */
#include "e2e.h"

#include "base/dtype.h"
#include "spec/spec.h"

#ifndef NEWLABS_REQUIRE_GPU
#define NEWLABS_REQUIRE_GPU 0
#endif

static char *out_dir;

static void setup(void)
{
    if (!out_dir)
        out_dir = e2e_tmpdir("newlabs");
}

/* One submission, the hidden cases too where the suite grades them; the exit status, and r
 * filled (the caller releases it). */
static int grade(const char *lab, const char *submission, const char *student, const char *only,
                 const char *cases, bool timed, struct results *r)
{
    int flags = (timed ? E2E_TIMED : 0) | E2E_HIDDEN | (NEWLABS_REQUIRE_GPU ? E2E_REQUIRE_GPU : 0);
    return e2e_check_lab(out_dir, lab, submission, student, only, cases, flags, r);
}

static bool is_gpu(const struct variant_result *v)
{
    return v->target && !strcmp(v->target, "gpu");
}

/* A GPU variant on a machine without a GPU: skipped, with the reason. */
static void assert_skipped(const char *what, const struct variant_result *v,
                           const struct case_result *cr)
{
    ck_assert_msg(cr->verdict == V_SKIPPED && cr->message && *cr->message,
                  "%s %s %s: %s (%s), expected SK with a reason", what, v->variant_id, cr->case_id,
                  verdict_code(cr->verdict), cr->message ? cr->message : "");
}

/* The solution, timed on the given cases: every case passes (or, a GPU variant without a
 * GPU, is skipped with the reason), and every case that ran was timed. */
static void check_solution(const char *lab, const char *cases)
{
    char *sub = xstrfmt("labs/%s/solution", lab);
    struct results r;
    int status = grade(lab, sub, "solution", NULL, cases, true, &r);
    bool gpu = r.machine.gpu_name != NULL;
    size_t passed = 0, skipped = 0;
    ck_assert_msg(status == 0, "%s solution: exit %d", lab, status);
    ck_assert_int_eq(r.n_fail, 0);
    ck_assert_int_eq(r.n_grader_errors, 0);
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[e].variants[v];
            ck_assert_msg(vr->built, "%s solution %s/%s did not build: %s", lab,
                          r.exercises[e].exercise_id, vr->variant_id,
                          vr->build_log ? vr->build_log : "");
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (!e2e_in_list(cases, cr->case_id))
                    continue;
                if (is_gpu(vr) && !gpu) {
                    assert_skipped(lab, vr, cr);
                    skipped++;
                    continue;
                }
                ck_assert_msg(cr->verdict == V_PASS, "%s solution %s/%s %s: %s (%s)", lab,
                              r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                              verdict_code(cr->verdict), cr->message ? cr->message : "");
                char *what = xstrfmt("%s solution %s/%s %s", lab, r.exercises[e].exercise_id,
                                     vr->variant_id, cr->case_id);
                e2e_timed(what, cr);
                free(what);
                passed++;
            }
        }
    ck_assert_msg(passed > 0, "%s solution: no case graded", lab);
    ck_assert_msg(gpu || skipped > 0, "%s solution: no GPU variant seen", lab);
    results_release(&r);
    free(sub);
}

/* The skeleton: every selected case that runs is WA and says its outputs were never written
 * (float outputs still NaN, a NaN return value, integer outputs still the fill pattern), in
 * the lab's language (Spanish); nothing is CE or MF, and nothing warns. */
static void check_skeleton(const char *lab, const char *cases)
{
    char *sub = xstrfmt("labs/%s/skeleton", lab);
    struct results r;
    int status = grade(lab, sub, "skeleton", NULL, cases, false, &r);
    bool gpu = r.machine.gpu_name != NULL;
    size_t wrong = 0;
    ck_assert_msg(status == 1, "%s skeleton: exit %d, expected 1", lab, status);
    ck_assert_int_eq(r.n_pass, 0);
    ck_assert_int_eq(r.n_grader_errors, 0);
    ck_assert_msg(r.lang && !strcmp(r.lang, "es"), "%s: reports in %s, not Spanish", lab,
                  r.lang ? r.lang : "?");
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r.exercises[e].variants[v];
            ck_assert_msg(vr->built && vr->n_warnings == 0,
                          "%s skeleton %s/%s: built %d, %d warnings:\n%s", lab,
                          r.exercises[e].exercise_id, vr->variant_id, vr->built, vr->n_warnings,
                          vr->build_log ? vr->build_log : "");
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (!e2e_in_list(cases, cr->case_id))
                    continue;
                if (is_gpu(vr) && !gpu) {
                    assert_skipped(lab, vr, cr);
                    continue;
                }
                ck_assert_msg(cr->verdict == V_WRONG && cr->message &&
                                  strstr(cr->message, "nunca se escribieron"),
                              "%s skeleton %s/%s %s: %s (%s), expected WA saying 'nunca se "
                              "escribieron'",
                              lab, r.exercises[e].exercise_id, vr->variant_id, cr->case_id,
                              verdict_code(cr->verdict), cr->message ? cr->message : "");
                wrong++;
            }
        }
    ck_assert_msg(wrong > 0, "%s skeleton: no case graded", lab);
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
    ck_assert_msg(f != NULL, "cannot open %s (run from the repository root)", path);
    while (fgets(line, sizeof(line), f)) {
        struct lab_row *w = &rows[n];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        ck_assert_msg(n < max, "%s: more than %zu rows", path, max);
        ck_assert_msg(sscanf(line, "%63s %63s %63s %63s %7s %7s", w->fixture, w->exercise,
                             w->variant, w->case_id, w->cpu, w->gpu) == 6,
                      "%s: bad line: %s", path, line);
        ck_assert_msg(verdict_parse(w->cpu) >= 0 &&
                          (verdict_parse(w->gpu) >= 0 || !strcmp(w->gpu, "-")),
                      "%s: unknown verdict: %s", path, line);
        n++;
    }
    fclose(f);
    free(path);
    return n;
}

static const struct case_result *find_case(const struct variant_result *v, const char *id)
{
    for (size_t c = 0; v && c < v->n_cases; c++)
        if (!strcmp(v->cases[c].case_id, id))
            return &v->cases[c];
    return NULL;
}

/* Grade one fixture on its exercise and cases; check every EXPECTED row and the exit status.
 * Fills r (the caller releases it). */
static void check_fixture(const char *lab, const char *fixture, struct results *r)
{
    struct lab_row rows[96];
    size_t n = read_expected(lab, rows, 96);
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
    int status = grade(lab, sub, fixture, exercise, strbuf_str(&cases), false, r);
    bool gpu = r->machine.gpu_name != NULL, any_failure = false, unchecked = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].fixture, fixture))
            continue;
        const char *want = gpu ? rows[i].gpu : rows[i].cpu;
        if (!strcmp(want, "-")) {
            unchecked = true;
            continue;
        }
        any_failure |= verdict_is_failure((enum verdict)verdict_parse(want));
        const struct variant_result *v = e2e_variant(r, rows[i].exercise, rows[i].variant);
        ck_assert_msg(v != NULL, "%s/%s: no result for %s/%s", lab, fixture, rows[i].exercise,
                      rows[i].variant);
        const struct case_result *cr = find_case(v, rows[i].case_id);
        ck_assert_msg(cr != NULL, "%s/%s: no case %s", lab, fixture, rows[i].case_id);
        if (!strcmp(want, "SK"))
            assert_skipped(fixture, v, cr);
        ck_assert_msg(!strcmp(verdict_code(cr->verdict), want),
                      "%s/%s: %s/%s case %s: verdict %s (%s), expected %s", lab, fixture,
                      rows[i].exercise, rows[i].variant, rows[i].case_id, verdict_code(cr->verdict),
                      cr->message ? cr->message : "", want);
    }
    if (any_failure || !unchecked)
        ck_assert_msg(status == (any_failure ? 1 : 0), "%s/%s: exit status %d, expected %d", lab,
                      fixture, status, any_failure ? 1 : 0);
    strbuf_release(&cases);
    free(sub);
}

static void fixture_only(const char *lab, const char *fixture)
{
    struct results r;
    check_fixture(lab, fixture, &r);
    results_release(&r);
}

START_TEST(test_new_labs_validate)
{
    static const char *const labs[] = {"lab7", "lab8", "lab9"};
    for (size_t i = 0; i < sizeof(labs) / sizeof(labs[0]); i++) {
        char *dir = xstrfmt("labs/%s", labs[i]);
        char *log = xstrfmt("%s/validate-%s.log", out_dir, labs[i]);
        const char *argv[] = {e2e_bin(), "validate", dir, NULL};
        int status = e2e_run(argv, log);
        struct strbuf sb = STRBUF_INIT;
        read_file(log, &sb, NULL);
        ck_assert_msg(status == 0, "grader validate %s: exit %d: %s", dir, status, strbuf_str(&sb));
        strbuf_release(&sb);
        free(dir);
        free(log);
    }
}
END_TEST

/* Both features for one value: suma writes *s (shape []), punto returns it. */
START_TEST(test_lab7_scalar_outputs)
{
    struct lab spec;
    struct error err;
    lab_init(&spec);
    ck_assert_msg(spec_load(&spec, "labs/lab7/lab.yaml", NULL, &err) == 0, "%s", err.msg);
    const struct exercise_spec *suma = lab_exercise(&spec, "suma");
    const struct exercise_spec *punto = lab_exercise(&spec, "punto");
    ck_assert(suma != NULL && punto != NULL);
    bool shape0 = false, returns = false;
    for (size_t i = 0; i < suma->n_args; i++)
        shape0 |= suma->args[i].kind == ARG_OUT && suma->args[i].n_shape == 0;
    for (size_t i = 0; i < punto->n_args; i++)
        returns |= punto->args[i].is_return;
    ck_assert_msg(shape0, "lab 7's suma has no output of shape []");
    ck_assert_msg(returns, "lab 7's punto returns nothing");
    lab_release(&spec);
}
END_TEST

#define LAB7_CASES "n1,n1000"
#define LAB8_CASES "n1,uniforme_n1000,sesgado_n1000"
#define LAB9_CASES "f1_c5000,f100_c333"

START_TEST(test_lab7_solution)
{
    check_solution("lab7", LAB7_CASES);
}
END_TEST

START_TEST(test_lab8_solution)
{
    check_solution("lab8", LAB8_CASES);
}
END_TEST

START_TEST(test_lab9_solution)
{
    check_solution("lab9", LAB9_CASES);
}
END_TEST

START_TEST(test_lab7_skeleton)
{
    check_skeleton("lab7", LAB7_CASES);
}
END_TEST

START_TEST(test_lab8_skeleton)
{
    check_skeleton("lab8", LAB8_CASES);
}
END_TEST

START_TEST(test_lab9_skeleton)
{
    check_skeleton("lab9", LAB9_CASES);
}
END_TEST

/* The must-hold: the off-by-one fails at every size of the exercise, hidden ones included,
 * in every variant that runs here. */
START_TEST(test_lab7_uno_de_menos)
{
    struct results r;
    struct lab spec;
    struct error err;
    check_fixture("lab7", "uno_de_menos", &r);
    lab_init(&spec);
    ck_assert_msg(spec_load(&spec, "labs/lab7/lab.yaml", NULL, &err) == 0, "%s", err.msg);
    const struct exercise_spec *ex = lab_exercise(&spec, "suma");
    const struct variant_result *cpu = e2e_variant(&r, "suma", "cpu");
    ck_assert(ex != NULL && cpu != NULL);
    for (size_t c = 0; c < ex->n_cases; c++) {
        const struct case_result *cr = find_case(cpu, ex->cases[c].id);
        ck_assert_msg(cr && cr->verdict == V_WRONG,
                      "uno_de_menos passes case %s: EXPECTED must "
                      "list every case, and every one must fail",
                      ex->cases[c].id);
    }
    lab_release(&spec);
    results_release(&r);
}
END_TEST

/* `s[0] += acc` on the NaN the output arrives with: the diagnosis names `+=`. */
START_TEST(test_lab7_acumula)
{
    struct results r;
    check_fixture("lab7", "acumula", &r);
    const struct variant_result *v = e2e_variant(&r, "suma", "cpu");
    const struct case_result *cr = find_case(v, "n1000");
    ck_assert(cr != NULL);
    ck_assert_msg(cr->message && strstr(cr->message, "+="),
                  "acumula: '%s' does not name +=", cr->message ? cr->message : "");
    results_release(&r);
}
END_TEST

START_TEST(test_lab7_carrera)
{
    fixture_only("lab7", "carrera");
}
END_TEST

START_TEST(test_lab8_sin_atomicas)
{
    fixture_only("lab8", "sin_atomicas");
}
END_TEST

START_TEST(test_lab8_sin_inicializar)
{
    fixture_only("lab8", "sin_inicializar");
}
END_TEST

START_TEST(test_lab9_indices_cambiados)
{
    fixture_only("lab9", "indices_cambiados");
}
END_TEST

START_TEST(test_lab9_sin_limites)
{
    fixture_only("lab9", "sin_limites");
}
END_TEST

int main(void)
{
    Suite *s = suite_create(NEWLABS_REQUIRE_GPU ? "newlabs-gpu" : "newlabs");
    TCase *tc = tcase_create("newlabs");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 900);
    tcase_add_test(tc, test_new_labs_validate);
    tcase_add_test(tc, test_lab7_scalar_outputs);
    tcase_add_test(tc, test_lab7_solution);
    tcase_add_test(tc, test_lab8_solution);
    tcase_add_test(tc, test_lab9_solution);
    tcase_add_test(tc, test_lab7_skeleton);
    tcase_add_test(tc, test_lab8_skeleton);
    tcase_add_test(tc, test_lab9_skeleton);
    tcase_add_test(tc, test_lab7_uno_de_menos);
    tcase_add_test(tc, test_lab7_acumula);
    tcase_add_test(tc, test_lab7_carrera);
    tcase_add_test(tc, test_lab8_sin_atomicas);
    tcase_add_test(tc, test_lab8_sin_inicializar);
    tcase_add_test(tc, test_lab9_indices_cambiados);
    tcase_add_test(tc, test_lab9_sin_limites);
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

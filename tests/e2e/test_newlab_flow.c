/*
 * An instructor's own lab, start to finish (issue 47): tests/fixtures/labstencil, a 1-D
 * three-point stencil written from docs/writing-a-lab.md (CPU and GPU variants, points per
 * case, a hidden and a slow case), through every command an instructor and a student meet:
 * validate, header, check (the solution, the skeleton, a folder holding the student's zip),
 * mutate, kit, the kit's check, grade of a class of five (tests/fixtures/labstencil/tests/
 * class: what each student's differs from the solution; one of them handed in as a zip in a
 * folder), merge with a roster and a Canvas
 * assignment, and every export, each with its exact verdicts, points and cells. Each stage's
 * assertion that failed on the code before issue 47 says so.
 *
 * The class, CPU variant (weight 2 of 4: half of each case's points):
 *   alice  correct everywhere
 *   bob    memcpy of n + 1 elements: RE on every case (the guard copied from x's)
 *   carol  the ends clamped, not zero: WA everywhere (on the GPU too)
 *   dave   correct on the CPU; stencil_gpu.cu misses a semicolon (CE on both GPU variants);
 *          a main.c of his own with a second stencil_cpu (a warning in the build log)
 *   erin   unrolled by 4 without the remainder: WA on the slow n300k and the hidden n4099;
 *          handed in as erin.zip holding a folder
 * Without a GPU the GPU variants of a class are XX (the grade is incomplete, never exported as
 * a number) and a student's check skips them; tests/gpu/test_newlab_flow_gpu.c includes this
 * file with NEWLAB_FLOW_REQUIRE_GPU set, asserts their verdicts and every exported number, and
 * fails without a GPU. Correctness only (--no-timing): timing is not what is tested here.
 */
#include "e2e.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <math.h>
#include <stdarg.h>

#ifndef NEWLAB_FLOW_REQUIRE_GPU
#define NEWLAB_FLOW_REQUIRE_GPU 0
#endif

#define LAB "tests/fixtures/labstencil"
#define LAB_TITLE "1-D three-point stencil"

static char *scratch;
static char *out;     /* the class's reports: grade and merge */
static char *checks;  /* the checks' reports, apart: a check's results are no class's */
static bool gpu;      /* the grader saw a usable GPU */
static bool has_nvcc; /* a CUDA toolkit compiled the GPU variants */

/* `grader ARGS...` (NULL-terminated, at most 31), its output in scratch/<name>.log: its exit
 * status; *text (when not NULL) gets the output. */
static int grader(const char *name, char **text, ...)
{
    const char *argv[32] = {e2e_bin()};
    size_t n = 1;
    va_list ap;
    va_start(ap, text);
    for (const char *a; n < 31 && (a = va_arg(ap, const char *));)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    char *log = xstrfmt("%s/%s.log", scratch, name);
    int status = e2e_run(argv, log);
    if (text) {
        struct strbuf sb = STRBUF_INIT;
        read_file(log, &sb, NULL);
        *text = strbuf_detach(&sb);
    }
    free(log);
    return status;
}

static char *slurp(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s", err.msg);
    return strbuf_detach(&sb);
}

static void has(const char *what, const char *text, const char *want)
{
    ck_assert_msg(text && strstr(text, want), "%s: no '%s' in:\n%.3000s", what, want,
                  text ? text : "(nothing)");
}

static void results_of(const char *path, struct results *r)
{
    struct error err;
    results_init(r);
    ck_assert_msg(results_read(r, path, &err) == 0, "%s: %s", path, err.msg);
}

static const struct case_result *case_of(const struct results *r, const char *variant,
                                         const char *id)
{
    const struct variant_result *v = e2e_variant(r, "stencil", variant);
    ck_assert_msg(v != NULL, "no variant %s", variant);
    for (size_t c = 0; c < v->n_cases; c++)
        if (!strcmp(v->cases[c].case_id, id))
            return &v->cases[c];
    ck_abort_msg("no case %s/%s", variant, id);
    return NULL;
}

/* verdict, and points out of max, of one case. */
static void expect_case(const char *who, const struct results *r, const char *variant,
                        const char *id, const char *verdict, double points, double max)
{
    const struct case_result *cr = case_of(r, variant, id);
    ck_assert_msg(!strcmp(verdict_code(cr->verdict), verdict), "%s %s/%s: %s (%s), expected %s",
                  who, variant, id, verdict_code(cr->verdict), cr->message ? cr->message : "",
                  verdict);
    ck_assert_msg(fabs(cr->max_points - max) < 1e-9, "%s %s/%s: max %g, expected %g", who, variant,
                  id, cr->max_points, max);
    if (strcmp(verdict, "XX"))
        ck_assert_msg(fabs(cr->points - points) < 1e-9, "%s %s/%s: %g points, expected %g", who,
                      variant, id, cr->points, points);
}

/* The GPU variants' verdict on one case: on a GPU, want; else XX in a class (the grade waits
 * for a GPU), SK in a check; CE wherever it does not compile (with nvcc). */
static const char *gpu_verdict(const char *want, bool class_grade)
{
    if (!strcmp(want, "CE"))
        return has_nvcc ? "CE" : (class_grade ? "XX" : "SK");
    if (gpu)
        return want;
    return class_grade ? "XX" : "SK";
}

/* ---- validate, header, the solution, the skeleton ---- */

static void stage_validate(void)
{
    char *text;
    ck_assert_int_eq(grader("validate", &text, "validate", LAB, NULL), 0);
    /* Issue 47: "1 exercises". */
    has("validate", text,
        LAB "/lab.yaml: ok (lab 95: 1 exercise, 3 variants, 4 cases: 1 hidden, "
            "1 slow)");
    free(text);
    ck_assert_int_eq(grader("header", &text, "header", LAB, NULL), 0);
    has("header", text,
        "void stencil_cpu(const float *x, float *y, float a, float b, float c, int32_t n);");
    has("header", text,
        "void stencil_gpu_dev(const float *x, float *y, float a, float b, float c, int32_t n);");
    free(text);
}

/* A student's check of the lab's own folders: the points as graded, hidden and slow apart. */
static void stage_check_solution(void)
{
    struct results r;
    char *text, *json = xstrfmt("%s/lab95/solution/results.json", checks);
    int st = grader("check-solution", &text, "check", LAB, "--no-timing", "--no-pdf", "--out",
                    checks, NULL);
    ck_assert_msg(st == 0, "check of the solution: exit %d:\n%.3000s", st, text);
    results_of(json, &r);
    gpu = r.machine.gpu_status && !strcmp(r.machine.gpu_status, "available");
    has_nvcc = r.machine.nvcc_version != NULL;
    ck_assert_msg(gpu || !NEWLAB_FLOW_REQUIRE_GPU, "no GPU: %s",
                  r.machine.gpu_status ? r.machine.gpu_status : "-");
    /* Case points 1, 3, 2 (slow) and 2 (hidden); the CPU variant half of each. */
    expect_case("solution", &r, "cpu", "n1", "OK", 0.5, 0.5);
    expect_case("solution", &r, "cpu", "n1000", "OK", 1.5, 1.5);
    expect_case("solution", &r, "cpu", "n300k", "SK", 0, 1);
    expect_case("solution", &r, "cpu", "n4099", "SK", 0, 1);
    expect_case("solution", &r, "gpu_dev", "n1000", gpu_verdict("OK", false), gpu ? 0.75 : 0, 0.75);
    ck_assert_msg(fabs(r.max_score - 8) < 1e-9, "max %g", r.max_score);
    results_release(&r);
    free(json);
    free(text);
    json = xstrfmt("%s/lab95/skeleton/results.json", checks);
    st = grader("check-skeleton", &text, "check", LAB, "--submission", LAB "/skeleton",
                "--no-timing", "--no-pdf", "--out", checks, NULL);
    ck_assert_msg(st == 1, "check of the skeleton: exit %d:\n%.3000s", st, text);
    results_of(json, &r);
    expect_case("skeleton", &r, "cpu", "n1000", "WA", 0, 1.5);
    has("skeleton", case_of(&r, "cpu", "n1000")->message, "are NaN");
    results_release(&r);
    free(json);
    free(text);
}

/* ---- the class, and a folder holding a zip ---- */

/* dir's files into zip, each under inside/. */
static void zip_folder(const char *dir, const char *inside, const char *zip)
{
    struct archive *a = archive_write_new();
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    archive_write_set_format_zip(a);
    ck_assert_int_eq(archive_write_open_filename(a, zip), ARCHIVE_OK);
    for (int i = 0; i < n; i++) {
        char *path = path_join(dir, list[i]->d_name);
        if (list[i]->d_name[0] != '.' && !dir_exists(path)) {
            char *name = xstrfmt("%s/%s", inside, list[i]->d_name), *body = slurp(path);
            struct archive_entry *e = archive_entry_new();
            archive_entry_set_pathname(e, name);
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_perm(e, 0644);
            archive_entry_set_size(e, (la_int64_t)strlen(body));
            ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
            ck_assert_int_eq(archive_write_data(a, body, strlen(body)), (la_ssize_t)strlen(body));
            archive_entry_free(e);
            free(body);
            free(name);
        }
        free(path);
        free(list[i]);
    }
    free(list);
    archive_write_close(a);
    archive_write_free(a);
}

/* Every file of from into to (a flat folder). */
static void copy_files(const char *from, const char *to)
{
    struct dirent **list = NULL;
    struct error err;
    int n = scandir(from, &list, NULL, alphasort);
    ck_assert_int_eq(mkdir_p(to, &err), 0);
    for (int i = 0; i < n; i++) {
        char *src = path_join(from, list[i]->d_name), *dst = path_join(to, list[i]->d_name);
        if (list[i]->d_name[0] != '.' && !dir_exists(src))
            ck_assert_msg(copy_file(src, dst, &err) == 0, "%s", err.msg);
        free(src);
        free(dst);
        free(list[i]);
    }
    free(list);
}

/* scratch/class: each student's folder of tests/class (only what differs) laid over the
 * solution; erin's as erin/erin.zip holding lab95/. */
static char *make_class(void)
{
    static const char *const students[] = {"alice", "bob", "carol", "dave", "erin"};
    char *class = path_join(scratch, "class");
    for (size_t s = 0; s < 5; s++) {
        bool zipped = !strcmp(students[s], "erin");
        char *dst =
            zipped ? xstrfmt("%s/erin-files", scratch) : xstrfmt("%s/%s", class, students[s]);
        char *own = xstrfmt(LAB "/tests/class/%s", students[s]);
        copy_files(LAB "/solution", dst);
        if (dir_exists(own))
            copy_files(own, dst);
        if (zipped) {
            struct error err;
            char *erin = path_join(class, "erin"), *zip = path_join(erin, "erin.zip");
            ck_assert_int_eq(mkdir_p(erin, &err), 0);
            zip_folder(dst, "lab95", zip);
            free(zip);
            free(erin);
        }
        free(own);
        free(dst);
    }
    return class;
}

/* Issue 47: `check` on a folder holding the student's zip said MF for every variant ("source
 * file 'stencil_cpu.c' is missing"); `grade` unpacked the same zip. */
static void stage_check_zip(const char *class)
{
    struct results r;
    char *text, *sub = path_join(class, "erin");
    char *json = xstrfmt("%s/lab95/erin/results.json", checks);
    int st = grader("check-zip", &text, "check", LAB, "--submission", sub, "--full", "--no-timing",
                    "--no-pdf", "--out", checks, NULL);
    ck_assert_msg(st == 1, "check of erin's zip: exit %d:\n%.3000s", st, text);
    has("check of a zip", text, "collected as grader grade collects a student's folder");
    results_of(json, &r);
    ck_assert_str_eq(r.student_id, "erin");
    ck_assert_str_eq(r.submission, sub);
    expect_case("erin (check)", &r, "cpu", "n1", "OK", 0.5, 0.5);
    expect_case("erin (check)", &r, "cpu", "n1000", "OK", 1.5, 1.5);
    expect_case("erin (check)", &r, "cpu", "n300k", "WA", 0, 1);
    expect_case("erin (check)", &r, "cpu", "n4099", "SK", 0, 1);
    results_release(&r);
    free(json);
    free(sub);
    free(text);
}

/* ---- mutate ---- */

/* Issue 47: the survivor that only reads x[n] was told "equivalent, or the cases need other
 * values"; no output can show a read past the end, and the report says so. */
static void stage_mutate(void)
{
    char *text, *mut = path_join(scratch, "mutate");
    int st = grader("mutate", &text, "mutate", LAB, "--cpu-only", "--no-pdf", "--quiet", "--out",
                    mut, NULL);
    ck_assert_msg(st == 0, "mutate: exit %d:\n%.3000s", st, text);
    has("mutate", text,
        "survived m0001 stencil_cpu.c:11:27 rel_bound  (no size tried kills it; it "
        "reaches one element further: a read past the end, which no output "
        "shows?)");
    has("mutate", text, "lab95: 4 of 5 mutants killed (80.0%)");
    char *md_path = xstrfmt("%s/lab95/mutate/report.md", mut), *md = slurp(md_path);
    has("mutate's report", md, "+   11 |     for (int32_t i = 1; i <= n - 1; i++)");
    has("mutate's report", md,
        "where that element is only read (one past the end of an input) "
        "or written and then overwritten, no output can show it");
    ck_assert_msg(!strstr(md, "if it is equivalent (no input the spec allows tells it apart)"),
                  "the read past the end is still called equivalent or short of values");
    free(md);
    free(md_path);
    free(mut);
    free(text);
}

/* ---- the kit, and a student's check inside it ---- */

static char *unpack_kit(const char *tarball)
{
    char *dir = path_join(scratch, "kit");
    struct error err;
    ck_assert_int_eq(mkdir_p(dir, &err), 0);
    const char *argv[] = {"/bin/tar", "xzf", tarball, "-C", dir, NULL};
    ck_assert_int_eq(e2e_run(argv, NULL), 0);
    return dir;
}

/* The kit's lab.yaml keeps the hidden case's place and points, and nothing of what it is. */
static void check_kit_spec(const char *kit)
{
    char *yaml_path = xstrfmt("%s/lab95-kit/labs/lab95/lab.yaml", kit), *yaml = slurp(yaml_path);
    has("the kit's lab.yaml", yaml,
        "      - {id: n300k, sizes: {n: 300007}, slow: true, points: 2}\n"
        "      - {id: hidden1, hidden: true, withheld: true, points: 2}\n");
    ck_assert_msg(!strstr(yaml, "n4099") && !strstr(yaml, "4099") && !strchr(yaml, '#'),
                  "the kit's lab.yaml tells of the hidden case:\n%s", yaml);
    char *readme_path = xstrfmt("%s/lab95-kit/README.md", kit), *readme = slurp(readme_path);
    has("the kit's README", readme, "`n1`, `n1000`, `n300k` (slow: `--full`), and 1 hidden |");
    free(readme);
    free(readme_path);
    free(yaml);
    free(yaml_path);
}

/* Issue 47: `make kit` of this lab failed ("case points of exercise 'stencil' add up to 6, but
 * the exercise has 8 points", naming a deleted temporary copy), and a kit's check shared the
 * points over the visible cases only. The kit's check gives each case the points the
 * instructor's grading gives it, the hidden one listed under "Not graded here". */
static void stage_kit(void)
{
    char *text, *tarball = path_join(scratch, "lab95-kit.tar.gz");
    int st = grader("kit", &text, "kit", LAB, "--out", tarball, NULL);
    if (!has_nvcc) {
        ck_assert_msg(st != 0, "a kit with CUDA references was made without nvcc");
        printf("SKIPPED: the kit and the kit's check: no CUDA toolkit (nvcc) to compile the "
               "lab's CUDA references into the kit\n");
        free(text);
        free(tarball);
        return;
    }
    ck_assert_msg(st == 0, "kit: exit %d:\n%.3000s", st, text);
    has("kit", text,
        "not packed (the instructor's): ref_stencil.c, ref_stencil.cu, solution/, "
        "tests/");
    free(text);
    char *kit = unpack_kit(tarball);
    check_kit_spec(kit);
    /* The student's work: the solution over the kit's skeleton. */
    char *skel = xstrfmt("%s/lab95-kit/labs/lab95/skeleton", kit);
    static const char *const files[] = {"stencil_cpu.c", "stencil_gpu.cu"};
    struct error err;
    for (size_t i = 0; i < 2; i++) {
        char *from = xstrfmt(LAB "/solution/%s", files[i]), *to = path_join(skel, files[i]);
        ck_assert_msg(copy_file(from, to, &err) == 0, "%s", err.msg);
        free(from);
        free(to);
    }
    char *labdir = xstrfmt("%s/lab95-kit/labs/lab95", kit), *kit_out = path_join(kit, "reports");
    st = grader("kit-check", &text, "check", labdir, "--submission", skel, "--student", "me",
                "--hidden", "--no-timing", "--no-pdf", "--lang", "en", "--out", kit_out, NULL);
    ck_assert_msg(st == 0, "the kit's check: exit %d:\n%.3000s", st, text);
    has("the kit's check", text,
        "hidden case, not in this kit: it runs only when the "
        "instructor grades");
    struct results r;
    char *json = xstrfmt("%s/lab95/me/results.json", kit_out);
    results_of(json, &r);
    expect_case("kit", &r, "cpu", "n1", "OK", 0.5, 0.5);
    expect_case("kit", &r, "cpu", "n1000", "OK", 1.5, 1.5);
    expect_case("kit", &r, "cpu", "n300k", "SK", 0, 1);
    expect_case("kit", &r, "cpu", "hidden1", "SK", 0, 1);
    expect_case("kit", &r, "gpu", "hidden1", "SK", 0, 0.5);
    ck_assert_msg(case_of(&r, "cpu", "hidden1")->hidden, "the withheld case is not hidden");
    ck_assert_msg(fabs(r.max_score - 8) < 1e-9, "the kit's maximum is %g, not 8", r.max_score);
    results_release(&r);
    free(json);
    free(kit_out);
    free(labdir);
    free(skel);
    free(kit);
    free(text);
    free(tarball);
}

/* ---- grade, merge, exports ---- */

struct expected_student {
    const char *id, *cpu[4], *gpu[4];
    const char *name, *roster_id, *email;
};

/* Per case n1, n1000, n300k, n4099; the GPU column as it is on a GPU. */
static const struct expected_student class_five[] = {
    {"alice",
     {"OK", "OK", "OK", "OK"},
     {"OK", "OK", "OK", "OK"},
     "Alice Mart\xC3\xADn",
     "s2026001",
     "alice@uni.example"},
    {"bob",
     {"RE", "RE", "RE", "RE"},
     {"OK", "OK", "OK", "OK"},
     "\"Stone, Bob\"",
     "s2026002",
     "bob@uni.example"},
    {"carol",
     {"WA", "WA", "WA", "WA"},
     {"WA", "WA", "WA", "WA"},
     "Carol Nguy\xE1\xBB\x85n",
     "s2026003",
     "carol@uni.example"},
    {"dave",
     {"OK", "OK", "OK", "OK"},
     {"CE", "CE", "CE", "CE"},
     "Dave Okafor",
     "s2026004",
     "dave@uni.example"},
    {"erin",
     {"OK", "OK", "WA", "WA"},
     {"OK", "OK", "OK", "OK"},
     "Erin \xC3\x93 Briain",
     "s2026005",
     "erin@uni.example"},
};
static const char *const case_ids[] = {"n1", "n1000", "n300k", "n4099"};
static const double case_points[] = {1, 3, 2, 2};

/* A student's score where every case ran: the CPU half and each GPU quarter of each case. */
static double expected_score(const struct expected_student *s)
{
    double score = 0;
    for (size_t c = 0; c < 4; c++)
        score += case_points[c] *
                 ((strcmp(s->cpu[c], "OK") ? 0 : 0.5) + (strcmp(s->gpu[c], "OK") ? 0 : 0.5));
    return score;
}

/* Whether the student's grade is complete here (no XX: a GPU, or GPU variants that do not
 * compile). */
static bool complete(const struct expected_student *s)
{
    return gpu || (has_nvcc && !strcmp(s->gpu[0], "CE"));
}

static void check_graded(const struct expected_student *s)
{
    struct results r;
    char *json = xstrfmt("%s/lab95/%s/results.json", out, s->id);
    results_of(json, &r);
    for (size_t c = 0; c < 4; c++) {
        double max = case_points[c] / 2;
        expect_case(s->id, &r, "cpu", case_ids[c], s->cpu[c], strcmp(s->cpu[c], "OK") ? 0 : max,
                    max);
        const char *g = gpu_verdict(s->gpu[c], true);
        for (size_t v = 0; v < 2; v++)
            expect_case(s->id, &r, v ? "gpu_dev" : "gpu", case_ids[c], g,
                        strcmp(g, "OK") ? 0 : max / 2, max / 2);
    }
    if (!strcmp(s->id, "dave")) {
        /* Issue 47: a second stencil_cpu in a file the lab does not compile was not said. */
        const struct variant_result *v = e2e_variant(&r, "stencil", "cpu");
        has("dave's build log", v->build_log,
            "warning: main.c defines stencil_cpu too, but the lab compiles only stencil_cpu.c "
            "for it");
        ck_assert_int_eq(v->n_warnings, 1);
    }
    if (!strcmp(s->id, "bob"))
        has("bob's n1000", case_of(&r, "cpu", "n1000")->message,
            "wrote past the end of y (at least");
    results_release(&r);
    free(json);
}

static void stage_grade(const char *class)
{
    char *text;
    int st = grader("grade", &text, "grade", LAB, "--submissions", class, "--no-timing", "--no-pdf",
                    "--out", out, NULL);
    /* Exit 0: every student graded; 3 where a GPU variant could not run (XX, graded again). */
    int want = gpu ? 0 : 3;
    ck_assert_msg(st == want, "grade: exit %d, expected %d:\n%.3000s", st, want, text);
    has("grade", text, "lab95: 5 graded, 0 unchanged");
    for (size_t i = 0; i < 5; i++)
        check_graded(&class_five[i]);
    free(text);
}

/* "12.5" or "4": the grader's points in a CSV cell. */
static char *cell(double points)
{
    char *s = xstrfmt("%.2f", points);
    char *end = s + strlen(s) - 1;
    while (*end == '0')
        *end-- = '\0';
    if (*end == '.')
        *end = '\0';
    return s;
}

/* Each export's row of one student: points where the grade is complete, empty cells and the
 * status where it is not. */
static void check_exports_of(const struct expected_student *s, const char *csv, const char *canvas,
                             const char *moodle)
{
    bool done = complete(s);
    char *pts = done ? cell(expected_score(s)) : xstrdup("");
    const char *status = done ? "ok" : "grader-error";
    char *row = xstrfmt("\r\n%s,%s,%s,%s,8,%s,", s->id, s->name, pts, pts, status);
    has("gradebook.csv", csv, row);
    free(row);
    row = xstrfmt("\r\n%s,,%s,%s,,%s,%s\r\n", s->name, s->roster_id, s->email, pts, status);
    has("gradebook-canvas.csv", canvas, row);
    free(row);
    row = xstrfmt("\r\n%s,%s,%s,%s,%s,", s->roster_id, s->email, s->id, s->name, pts);
    has("gradebook-moodle.csv", moodle, row);
    free(row);
    char *gs_path = xstrfmt("%s/lab95/%s/gradescope.json", out, s->id), *gs = slurp(gs_path);
    char *score = xstrfmt("\"score\": %s,", pts);
    if (done)
        has("gradescope.json", gs, score);
    else
        ck_assert_msg(!strstr(gs, "\"score\""), "%s: a score for an incomplete grade", gs_path);
    char *gs_status = xstrfmt("\"labgrader_status\": \"%s\"", status);
    has("gradescope.json", gs, gs_status);
    char *ju_path = xstrfmt("%s/lab95/%s/junit.xml", out, s->id), *ju = slurp(ju_path);
    char *ju_status = xstrfmt("<property name=\"labgrader.status\" value=\"%s\"/>", status);
    has("junit.xml", ju, ju_status);
    free(ju_status);
    free(ju);
    free(ju_path);
    free(gs_status);
    free(score);
    free(gs);
    free(gs_path);
    free(pts);
}

static void check_exports(void)
{
    char *p = xstrfmt("%s/lab95/gradebook.csv", out), *csv = slurp(p);
    free(p);
    p = xstrfmt("%s/lab95/gradebook-canvas.csv", out);
    char *canvas = slurp(p);
    free(p);
    p = xstrfmt("%s/lab95/gradebook-moodle.csv", out);
    char *moodle = slurp(p);
    free(p);
    has("gradebook.csv", csv,
        "student_id,name,stencil,total,max,status,late_days,late_penalty,note\r\n");
    /* Issue 47: Moodle's column had Canvas's "(4242)", and a merge without
     * --canvas-assignment dropped it from Canvas's header. */
    has("gradebook-canvas.csv", canvas,
        "Student,ID,SIS User ID,SIS Login ID,Section," LAB_TITLE
        " (4242),\"Final Grade (labgrader status, not imported)\"\r\nPoints Possible,,,,,8,\r\n");
    has("gradebook-moodle.csv", moodle,
        "ID number,Email address,Username,Full name," LAB_TITLE ",Feedback,labgrader status\r\n");
    for (size_t i = 0; i < 5; i++)
        check_exports_of(&class_five[i], csv, canvas, moodle);
    free(csv);
    free(canvas);
    free(moodle);
}

/* Issue 47: merge ignored --roster (names were the folders', and Moodle's file left everyone
 * out "give --roster" with --roster given), and a roster's student_id was not Moodle's ID
 * number. */
static void stage_merge(void)
{
    char *text;
    int st = grader("merge", &text, "merge", LAB, "--roster", LAB "/tests/roster.csv",
                    "--canvas-assignment", "4242", "--no-pdf", "--out", out, NULL);
    ck_assert_msg(st == 0, "merge: exit %d:\n%.3000s", st, text);
    has("merge", text, "5 of 5 students named from it");
    ck_assert_msg(!strstr(text, "left out"), "merge left students out:\n%s", text);
    free(text);
    check_exports();
    /* Again with neither option: both remembered. */
    st = grader("merge-again", &text, "merge", LAB, "--no-pdf", "--out", out, NULL);
    ck_assert_msg(st == 0, "merge again: exit %d:\n%.3000s", st, text);
    has("merge again", text, "(given before; --roster changes it): 5 of 5 students named");
    has("merge again", text, "(assignment 4242, as given before; --canvas-assignment changes it)");
    free(text);
    check_exports();
}

START_TEST(test_newlab_flow)
{
    scratch = e2e_tmpdir("newlabflow");
    ck_assert_ptr_nonnull(scratch);
    out = path_join(scratch, "reports");
    checks = path_join(scratch, "checks");
    stage_validate();
    stage_check_solution();
    char *class = make_class();
    stage_check_zip(class);
    stage_mutate();
    stage_kit();
    stage_grade(class);
    stage_merge();
    struct error err;
    remove_tree(scratch, &err);
    free(class);
    free(out);
    free(checks);
    free(scratch);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("newlab flow");
    TCase *tc = tcase_create("flow");
    /* Builds the references (CUDA ones for every architecture, in the kit), grades the class:
     * a few minutes on two cores. */
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_newlab_flow);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

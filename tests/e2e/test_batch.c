/*
 * Instructor batch grading end to end: `grader grade` on the class fixture
 * (tests/fixtures/class, 14 students) against the CPU-only test lab
 * (tests/fixtures/labcpu), then what an instructor relies on: every verdict and
 * total as tests/fixtures/class/EXPECTED{,_TOTALS} say, the gradebook, Gradescope
 * and JUnit exports, hidden cases graded, unchanged work skipped, a killed run
 * resumed without re-grading, shards merged into the same gradebook, and an LMS
 * zip with a "../" entry refused.
 * Run from the repository root with LG_BIN set to the grader binary.
 */
#include "e2e.h"
#include "base/json.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <dirent.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>

#define LAB "tests/fixtures/labcpu"
#define CLASS "tests/fixtures/class"
#define ROSTER CLASS "/roster.csv"
#define MAX_STUDENTS 32
#define MAX_ROWS 256

struct expect_row {
    char student[32], exercise[32], variant[32], kase[32], verdict[8];
};

struct expect_total {
    char student[32];
    double total;
};

static struct expect_row rows[MAX_ROWS];
static size_t n_rows;
static struct expect_total totals[MAX_STUDENTS];
static size_t n_students;

static char *tmp_root;  /* everything this suite writes */
static char *main_out;  /* test 1's out folder, shared by the tests that only read it */
static int main_status; /* test 1's exit status, -1 before it ran */

static void load_expected(void)
{
    char line[512];
    FILE *f = fopen(CLASS "/EXPECTED", "r");
    ck_assert_msg(f != NULL, "cannot open " CLASS "/EXPECTED (run from the repository root)");
    n_rows = 0;
    while (fgets(line, sizeof(line), f)) {
        struct expect_row *r = &rows[n_rows];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        ck_assert_msg(n_rows < MAX_ROWS, "EXPECTED has too many rows");
        ck_assert_msg(sscanf(line, "%31s %31s %31s %31s %7s", r->student, r->exercise, r->variant,
                             r->kase, r->verdict) == 5,
                      "bad EXPECTED line: %s", line);
        ck_assert_msg(verdict_parse(r->verdict) >= 0, "unknown verdict in EXPECTED: %s", line);
        n_rows++;
    }
    fclose(f);
    f = fopen(CLASS "/EXPECTED_TOTALS", "r");
    ck_assert_msg(f != NULL, "cannot open " CLASS "/EXPECTED_TOTALS");
    n_students = 0;
    while (fgets(line, sizeof(line), f)) {
        struct expect_total *t = &totals[n_students];
        if (line[0] == '#' || line[0] == '\n')
            continue;
        ck_assert_msg(n_students < MAX_STUDENTS, "EXPECTED_TOTALS has too many rows");
        ck_assert_msg(sscanf(line, "%31s %lf", t->student, &t->total) == 2,
                      "bad EXPECTED_TOTALS line: %s", line);
        n_students++;
    }
    fclose(f);
    ck_assert_msg(n_students >= 12 && n_rows == n_students * 5,
                  "%zu students and %zu EXPECTED rows: 5 cases per student expected", n_students,
                  n_rows);
}

static void setup(void)
{
    if (tmp_root)
        return;
    tmp_root = e2e_tmpdir("batch");
    main_status = -1;
    load_expected();
}

static char *read_text(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s: %s", path, err.msg);
    return strbuf_detach(&sb);
}

/* `grader grade` on the class fixture, with extra options (NULL-terminated). */
static int grade_class(const char *out, const char *log, const char *const *extra)
{
    const char *argv[32] = {e2e_bin(), "grade", LAB, "--submissions", CLASS,       "--roster",
                            ROSTER,    "--out", out, "--no-pdf",      "--timeout", "5"};
    size_t n = 12;
    for (size_t i = 0; extra && extra[i]; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    return e2e_run(argv, log);
}

static int merge_class(const char *out, const char *log)
{
    const char *argv[] = {e2e_bin(), "merge",    LAB,    "--out",    out, "--submissions",
                          CLASS,     "--roster", ROSTER, "--no-pdf", NULL};
    return e2e_run(argv, log);
}

/* Test 1's command, run once; the tests that only read its output share it. */
static const char *graded_class(void)
{
    if (!main_out) {
        main_out = xstrfmt("%s/main", tmp_root);
        char *log = xstrfmt("%s/main.log", tmp_root);
        main_status = grade_class(main_out, log, NULL);
        free(log);
    }
    return main_out;
}

static char *student_file(const char *out, const char *student, const char *name)
{
    return xstrfmt("%s/lab99/%s/%s", out, student, name);
}

static const struct case_result *find_case(const struct results *r, const struct expect_row *e)
{
    const struct variant_result *v = e2e_variant(r, e->exercise, e->variant);
    for (size_t c = 0; v && c < v->n_cases; c++)
        if (!strcmp(v->cases[c].case_id, e->kase))
            return &v->cases[c];
    return NULL;
}

static size_t count_cases(const struct results *r)
{
    size_t n = 0;
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            n += r->exercises[e].variants[v].n_cases;
    return n;
}

/* A student's results.json: every case as EXPECTED says, nothing more, and the total. */
static void check_student(const char *out, const struct expect_total *t)
{
    struct results r;
    struct error err;
    char *json = student_file(out, t->student, "results.json");
    size_t want = 0;
    results_init(&r);
    error_init(&err);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s: %s", json, err.msg);
    ck_assert_str_eq(r.student_id, t->student);
    for (size_t i = 0; i < n_rows; i++) {
        if (strcmp(rows[i].student, t->student))
            continue;
        want++;
        const struct case_result *c = find_case(&r, &rows[i]);
        ck_assert_msg(c != NULL, "%s: no case %s/%s/%s in %s", t->student, rows[i].exercise,
                      rows[i].variant, rows[i].kase, json);
        ck_assert_msg(!strcmp(verdict_code(c->verdict), rows[i].verdict),
                      "%s %s/%s/%s: verdict %s (%s), expected %s", t->student, rows[i].exercise,
                      rows[i].variant, rows[i].kase, verdict_code(c->verdict),
                      c->message ? c->message : "", rows[i].verdict);
    }
    ck_assert_msg(count_cases(&r) == want, "%s: %zu cases graded, EXPECTED lists %zu", t->student,
                  count_cases(&r), want);
    ck_assert_msg(r.score == t->total, "%s: total %g, expected %g", t->student, r.score, t->total);
    ck_assert_msg(r.max_score == 10, "%s: max %g, expected 10", t->student, r.max_score);
    ck_assert_int_eq(r.n_grader_errors, 0);
    results_release(&r);
    free(json);
}

/* ---- a small RFC 4180 reader, for roster.csv and gradebook.csv ---- */

#define CSV_FIELDS 16
#define CSV_WIDTH 128

/* One record from *p into f; returns the number of fields, 0 at the end. */
static int csv_row(const char **p, char f[CSV_FIELDS][CSV_WIDTH])
{
    const char *s = *p;
    int n = 0;
    size_t len = 0;
    bool quoted = false;
    if (!*s)
        return 0;
    f[0][0] = '\0';
    for (;; s++) {
        if (quoted) {
            ck_assert_msg(*s != '\0', "unterminated quoted CSV field");
            if (*s == '"' && s[1] == '"') {
                s++;
            } else if (*s == '"') {
                quoted = false;
                continue;
            }
        } else if (*s == '"') {
            quoted = true;
            continue;
        } else if (*s == ',' || *s == '\r' || *s == '\n' || *s == '\0') {
            f[n][len] = '\0';
            n++;
            len = 0;
            if (*s != ',') {
                if (*s == '\r' && s[1] == '\n')
                    s++;
                *p = *s ? s + 1 : s;
                return n;
            }
            ck_assert_msg(n < CSV_FIELDS, "too many CSV fields");
            f[n][0] = '\0';
            continue;
        }
        ck_assert_msg(len + 1 < CSV_WIDTH, "CSV field too long");
        f[n][len++] = *s;
    }
}

static const char *roster_name(const char *id)
{
    static char names[MAX_STUDENTS][CSV_FIELDS][CSV_WIDTH];
    static char f[CSV_FIELDS][CSV_WIDTH];
    static size_t loaded;
    if (!loaded) {
        char *text = read_text(ROSTER);
        const char *p = text;
        ck_assert_int_eq(csv_row(&p, f), 2); /* id,name */
        while (loaded < MAX_STUDENTS && csv_row(&p, f) == 2) {
            snprintf(names[loaded][0], CSV_WIDTH, "%s", f[0]);
            snprintf(names[loaded][1], CSV_WIDTH, "%s", f[1]);
            loaded++;
        }
        free(text);
    }
    for (size_t i = 0; i < loaded; i++)
        if (!strcmp(names[i][0], id))
            return names[i][1];
    ck_abort_msg("%s is not in the roster", id);
    return NULL;
}

/* gradebook.csv: a header and one row per student, with roster names and expected totals. */
static void check_gradebook(const char *out)
{
    char f[CSV_FIELDS][CSV_WIDTH];
    char *csv = xstrfmt("%s/lab99/gradebook.csv", out);
    char *text = read_text(csv);
    const char *p = text;
    ck_assert_msg(strstr(text, "\r\n") != NULL, "gradebook rows end with CRLF (RFC 4180)");
    ck_assert_int_eq(csv_row(&p, f), 10);
    const char *header[] = {"student_id", "name",   "saxpy",     "dot",          "total",
                            "max",        "status", "late_days", "late_penalty", "note"};
    for (int i = 0; i < 10; i++)
        ck_assert_str_eq(f[i], header[i]);
    for (size_t i = 0; i < n_students; i++) {
        const struct expect_total *t = &totals[i];
        double total = -1;
        ck_assert_msg(csv_row(&p, f) == 10, "gradebook row %zu: not 10 fields", i + 1);
        /* Sorted by id, like EXPECTED_TOTALS. */
        ck_assert_str_eq(f[0], t->student);
        ck_assert_str_eq(f[1], roster_name(t->student));
        ck_assert_msg(parse_double(f[4], &total) && total == t->total,
                      "gradebook: %s total '%s', expected %g", t->student, f[4], t->total);
        ck_assert_str_eq(f[5], "10");
        ck_assert_str_eq(f[6], "ok");
    }
    ck_assert_msg(csv_row(&p, f) == 0, "gradebook has more rows than students");
    /* The name with a comma is quoted; accented names are kept as UTF-8. */
    ck_assert(strstr(text, "\r\ns03,\"Smith, John\",") != NULL);
    ck_assert(strstr(text, "\r\ns01,Mar\xC3\xAD"
                           "a N\xC3\xBA\xC3\xB1"
                           "ez,") != NULL);
    free(text);
    free(csv);
}

/* The lab's one hidden case. */
static bool is_hidden(const struct expect_row *e)
{
    return !strcmp(e->kase, "nh");
}

/* gradescope.json, the student view: every visible case, and the hidden case only as
 * "saxpy / hidden cases" with its points and a count. */
static void check_gradescope_student(const char *out, const struct expect_total *t)
{
    struct json_value *doc = NULL;
    struct error err;
    char *path = student_file(out, t->student, "gradescope.json");
    char *text = read_text(path);
    error_init(&err);
    ck_assert_msg(json_parse(text, strlen(text), &doc, &err) == 0, "%s: %s", path, err.msg);
    ck_assert_msg(json_get_number(doc, "score", -1) == t->total, "%s: score %g, expected %g", path,
                  json_get_number(doc, "score", -1), t->total);
    const struct json_value *tests = json_get(doc, "tests");
    ck_assert_msg(tests && tests->type == JSON_ARRAY, "%s: no tests array", path);
    size_t want = 0;
    for (size_t i = 0; i < n_rows; i++) {
        if (strcmp(rows[i].student, t->student))
            continue;
        bool ok = !strcmp(rows[i].verdict, "OK");
        char *name = is_hidden(&rows[i])
                         ? xstrfmt("%s / hidden cases", rows[i].exercise)
                         : xstrfmt("%s / %s / %s", rows[i].exercise, rows[i].variant, rows[i].kase);
        const struct json_value *found = NULL;
        for (size_t k = 0; k < tests->n && !found; k++) {
            const char *nm = json_get_string(json_at(tests, k), "name");
            if (nm && !strcmp(nm, name))
                found = json_at(tests, k);
        }
        ck_assert_msg(found != NULL, "%s: no test named '%s'", path, name);
        const char *status = json_get_string(found, "status");
        ck_assert_msg(status && !strcmp(status, ok ? "passed" : "failed"), "%s: '%s' status %s",
                      path, name, status ? status : "(none)");
        if (is_hidden(&rows[i])) {
            const char *output = json_get_string(found, "output");
            const char *count = ok ? "1 of 1 hidden case passed." : "0 of 1 hidden case passed.";
            ck_assert_msg(output && !strcmp(output, ok ? count
                                                       : "0 of 1 hidden case passed. "
                                                         "1 failed."),
                          "%s: '%s' says '%s'", path, name, output ? output : "(none)");
        }
        free(name);
        want++;
    }
    ck_assert_msg(tests->n == want, "%s: %zu tests, expected %zu", path, tests->n, want);
    /* Not a word of the hidden case itself: its name, its size, its mismatches. */
    /* s10 fails the hidden case only: no mismatch may show at all. */
    ck_assert_msg(!strstr(text, "/ nh") && !strstr(text, "4099") &&
                      (strcmp(t->student, "s10") || !strstr(text, "differ")),
                  "%s shows hidden-case detail:\n%.1500s", path, text);
    json_value_free(doc);
    free(text);
    free(path);
}

/* gradescope-instructor.json: score = total, one test per case, passed exactly where the
 * case is OK. */
static void check_gradescope(const char *out, const struct expect_total *t)
{
    struct json_value *doc = NULL;
    struct error err;
    check_gradescope_student(out, t);
    char *path = student_file(out, t->student, "gradescope-instructor.json");
    char *text = read_text(path);
    error_init(&err);
    ck_assert_msg(json_parse(text, strlen(text), &doc, &err) == 0, "%s: %s", path, err.msg);
    ck_assert_msg(json_get_number(doc, "score", -1) == t->total, "%s: score %g, expected %g", path,
                  json_get_number(doc, "score", -1), t->total);
    const struct json_value *tests = json_get(doc, "tests");
    ck_assert_msg(tests && tests->type == JSON_ARRAY, "%s: no tests array", path);
    size_t want = 0;
    for (size_t i = 0; i < n_rows; i++) {
        if (strcmp(rows[i].student, t->student))
            continue;
        char *name = xstrfmt("%s / %s / %s", rows[i].exercise, rows[i].variant, rows[i].kase);
        const struct json_value *found = NULL;
        for (size_t k = 0; k < tests->n && !found; k++) {
            const char *nm = json_get_string(json_at(tests, k), "name");
            if (nm && !strcmp(nm, name))
                found = json_at(tests, k);
        }
        ck_assert_msg(found != NULL, "%s: no test named '%s'", path, name);
        const char *status = json_get_string(found, "status");
        bool ok = !strcmp(rows[i].verdict, "OK");
        ck_assert_msg(status && !strcmp(status, ok ? "passed" : "failed"),
                      "%s: '%s' status %s, verdict %s", path, name, status ? status : "(none)",
                      rows[i].verdict);
        ck_assert_msg(json_get_number(found, "score", -1) == (ok ? 2 : 0), "%s: '%s' score %g",
                      path, name, json_get_number(found, "score", -1));
        free(name);
        want++;
    }
    ck_assert_msg(tests->n == want, "%s: %zu tests, expected one per case (%zu)", path, tests->n,
                  want);
    json_value_free(doc);
    free(text);
    free(path);
}

static int xml_count(const char *text, const char *tag, const char *attr)
{
    char *key = xstrfmt(" %s=\"", attr);
    const char *p = strstr(text, tag);
    long v = -1;
    if (p)
        p = strstr(p, key);
    if (p) {
        char *end;
        v = strtol(p + strlen(key), &end, 10);
        if (*end != '"')
            v = -1;
    }
    free(key);
    return (int)v;
}

/* junit.xml (student view) and junit-instructor.xml: well formed, with as many failures
 * as failing cases (the lab has one hidden case per exercise at most, so the student
 * view's "hidden cases" testcase counts the same) and nothing skipped. */
static void check_junit_file(const char *out, const struct expect_total *t, const char *file)
{
    char *path = student_file(out, t->student, file);
    char *text = read_text(path);
    int failures = 0, tests = 0;
    for (size_t i = 0; i < n_rows; i++)
        if (!strcmp(rows[i].student, t->student)) {
            tests++;
            failures += strcmp(rows[i].verdict, "OK") != 0;
        }
    ck_assert_msg(xml_count(text, "<testsuites", "tests") == tests, "%s: tests", path);
    ck_assert_msg(xml_count(text, "<testsuites", "failures") == failures,
                  "%s: failures=%d, expected %d", path, xml_count(text, "<testsuites", "failures"),
                  failures);
    /* junit-10.xsd has no skipped attribute on <testsuites>: nothing skipped means no
     * <skipped> element. */
    ck_assert_msg(!strstr(text, "<skipped"), "%s: skipped", path);
    ck_assert_msg(xml_count(text, "<testsuites", "errors") == 0, "%s: errors", path);
    char *xmllint = find_program("xmllint");
    if (xmllint) {
        char *log = xstrfmt("%s/xmllint.log", tmp_root);
        const char *argv[] = {xmllint, "--noout", path, NULL};
        ck_assert_msg(e2e_run(argv, log) == 0, "xmllint rejects %s (see %s)", path, log);
        free(log);
        free(xmllint);
    }
    free(text);
    free(path);
}

static void check_junit(const char *out, const struct expect_total *t)
{
    check_junit_file(out, t, "junit.xml");
    check_junit_file(out, t, "junit-instructor.xml");
    char *path = student_file(out, t->student, "junit.xml");
    char *text = read_text(path);
    ck_assert_msg(!strstr(text, "name=\"nh\"") && !strstr(text, "4099") &&
                      (strcmp(t->student, "s10") || !strstr(text, "differ")),
                  "%s shows hidden-case detail:\n%.1500s", path, text);
    free(text);
    free(path);
}

/* ---- 1. the class graded: verdicts, totals, gradebook, exports ---- */

START_TEST(test_grade_class)
{
    const char *out = graded_class();
    ck_assert_msg(main_status == 0,
                  "grader grade exited %d: failing students are not a grader failure (log %s/"
                  "main.log)",
                  main_status, tmp_root);
    for (size_t i = 0; i < n_students; i++) {
        check_student(out, &totals[i]);
        check_gradescope(out, &totals[i]);
        check_junit(out, &totals[i]);
    }
    check_gradebook(out);
}
END_TEST

/* ---- 2. hidden cases are graded and count ---- */

START_TEST(test_hidden_cases_count)
{
    const char *out = graded_class();
    struct results r;
    struct error err;
    /* s01 is correct everywhere; s10 fails the hidden case (odd n) only. */
    const char *who[] = {"s01", "s10"};
    const double want_points[] = {2, 0}, want_total[] = {10, 8};
    for (int i = 0; i < 2; i++) {
        char *json = student_file(out, who[i], "results.json");
        results_init(&r);
        ck_assert_msg(results_read(&r, json, &err) == 0, "%s: %s", json, err.msg);
        ck_assert_str_eq(r.mode, "grade");
        ck_assert(r.hidden);
        const struct expect_row nh = {"", "saxpy", "cpu", "nh", ""};
        const struct case_result *c = find_case(&r, &nh);
        ck_assert_msg(c != NULL, "%s: hidden case nh missing from results", who[i]);
        ck_assert(c->hidden);
        ck_assert_str_eq(verdict_code(c->verdict), i == 0 ? "OK" : "WA");
        ck_assert_msg(c->max_points == 2 && c->points == want_points[i],
                      "%s: nh worth %g of %g points", who[i], c->points, c->max_points);
        ck_assert_msg(r.score == want_total[i], "%s: total %g", who[i], r.score);
        results_release(&r);
        free(json);
    }
}
END_TEST

/* ---- 3. unchanged submissions are skipped; --force re-grades ---- */

struct file_id {
    bool exists;
    ino_t ino;
    struct timespec mtime;
};

static struct file_id file_id_of(const char *path)
{
    struct file_id id;
    struct stat st;
    memset(&id, 0, sizeof(id));
    if (stat(path, &st) == 0) {
        id.exists = true;
        id.ino = st.st_ino;
        id.mtime = st.st_mtim;
    }
    return id;
}

/* Results are replaced by rename: a re-grade gives a new inode as well as a new mtime. */
static bool same_file(const struct file_id *a, const struct file_id *b)
{
    return a->exists && b->exists && a->ino == b->ino && a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec;
}

static void snapshot(const char *out, struct file_id ids[MAX_STUDENTS])
{
    for (size_t i = 0; i < n_students; i++) {
        char *json = student_file(out, totals[i].student, "results.json");
        ids[i] = file_id_of(json);
        free(json);
    }
}

START_TEST(test_rerun_skips_unchanged)
{
    const char *out = graded_class();
    struct file_id before[MAX_STUDENTS], after[MAX_STUDENTS];
    char *log = xstrfmt("%s/rerun.log", tmp_root);
    ck_assert_msg(main_status == 0, "the first grade failed");
    snapshot(out, before);
    ck_assert_int_eq(grade_class(out, log, NULL), 0);
    char *text = read_text(log);
    char *want = xstrfmt("lab99: %zu submissions, 0 to grade (%zu unchanged since last time)",
                         n_students, n_students);
    ck_assert_msg(strstr(text, want), "expected '%s' in:\n%s", want, text);
    free(want);
    free(text);
    snapshot(out, after);
    for (size_t i = 0; i < n_students; i++)
        ck_assert_msg(same_file(&before[i], &after[i]), "%s was re-graded", totals[i].student);
    /* The gradebook is still written (merged from the results). */
    check_gradebook(out);

    const char *force[] = {"--force", NULL};
    ck_assert_int_eq(grade_class(out, log, force), 0);
    text = read_text(log);
    want = xstrfmt("lab99: %zu submissions, %zu to grade", n_students, n_students);
    ck_assert_msg(strstr(text, want), "expected '%s' in:\n%s", want, text);
    free(want);
    free(text);
    snapshot(out, after);
    for (size_t i = 0; i < n_students; i++) {
        ck_assert_msg(!same_file(&before[i], &after[i]), "--force: %s was not re-graded",
                      totals[i].student);
        check_student(out, &totals[i]);
    }
    check_gradebook(out);
    free(log);
}
END_TEST

/* ---- 4. killed mid-run, then resumed ---- */

static pid_t spawn(const char *const *argv, const char *log)
{
    pid_t pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* A student is graded once its results and the stamp that certifies them exist. */
static bool any_graded(const char *out)
{
    bool found = false;
    for (size_t i = 0; i < n_students && !found; i++) {
        char *json = student_file(out, totals[i].student, "results.json");
        char *stamp = student_file(out, totals[i].student, ".graded");
        found = file_exists(json) && file_exists(stamp);
        free(json);
        free(stamp);
    }
    return found;
}

static int tmp_files_found;
static char tmp_file_seen[1024];

static int look_for_tmp(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (strstr(path + ftw->base, ".tmp.")) {
        if (!tmp_files_found++)
            snprintf(tmp_file_seen, sizeof(tmp_file_seen), "%s", path);
    }
    return 0;
}

START_TEST(test_kill_and_resume)
{
    char *out = xstrfmt("%s/kill", tmp_root);
    char *log1 = xstrfmt("%s/kill.log", tmp_root), *log2 = xstrfmt("%s/resume.log", tmp_root);
    const char *argv[] = {e2e_bin(),     "grade", LAB, "--submissions", CLASS,       "--roster",
                          ROSTER,        "--out", out, "--no-pdf",      "--timeout", "5",
                          "--no-timing", NULL};
    pid_t pid = spawn(argv, log1);
    int st = 0;
    bool exited = false;
    /* Not a timing assertion: polling stops once a student is graded or the grader ends. */
    while (!any_graded(out)) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            exited = true;
            break;
        }
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        nanosleep(&ms10, NULL);
    }
    ck_assert_msg(!exited, "the grader ended (status %d) before any student was graded; see %s", st,
                  log1);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    /* s07 takes 5 s to time out, so the run cannot have finished on its own by now. */
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
                  "the grader was not stopped by SIGTERM (wait status %#x); see %s", st, log1);

    /* Graded before the kill: results and the stamp that certifies them. */
    bool stamped[MAX_STUDENTS];
    struct file_id before[MAX_STUDENTS], after[MAX_STUDENTS];
    size_t n_stamped = 0;
    snapshot(out, before);
    for (size_t i = 0; i < n_students; i++) {
        char *stamp = student_file(out, totals[i].student, ".graded");
        stamped[i] = file_exists(stamp) && before[i].exists;
        n_stamped += stamped[i];
        free(stamp);
    }
    ck_assert_msg(n_stamped >= 1 && n_stamped < n_students, "%zu students graded before the kill",
                  n_stamped);

    ck_assert_msg(e2e_run(argv, log2) == 0, "the resumed run failed; see %s", log2);
    char *text = read_text(log2);
    char *want =
        xstrfmt("%zu to grade (%zu unchanged since last time)", n_students - n_stamped, n_stamped);
    ck_assert_msg(strstr(text, want), "expected '%s' in:\n%s", want, text);
    free(want);
    free(text);

    snapshot(out, after);
    for (size_t i = 0; i < n_students; i++) {
        if (stamped[i])
            ck_assert_msg(same_file(&before[i], &after[i]),
                          "%s was graded before the kill, and again after", totals[i].student);
        static const char *const outputs[] = {"gradescope.json", "junit.xml", "report.md"};
        for (size_t k = 0; k < 3; k++) {
            char *path = student_file(out, totals[i].student, outputs[k]);
            ck_assert_msg(file_exists(path), "no %s after the resumed run (%s before the kill)",
                          path, stamped[i] ? "stamped as graded" : "not graded");
            free(path);
        }
        check_student(out, &totals[i]);
        check_gradescope(out, &totals[i]);
        check_junit(out, &totals[i]);
    }
    check_gradebook(out);
    tmp_files_found = 0;
    ck_assert_int_eq(nftw(out, look_for_tmp, 16, FTW_PHYS), 0);
    ck_assert_msg(tmp_files_found == 0, "%d temporary files left behind, e.g. %s", tmp_files_found,
                  tmp_file_seen);
    free(out);
    free(log1);
    free(log2);
}
END_TEST

/* ---- 5. shards, merged (their variants side by side) ---- */

START_TEST(test_shards_merge)
{
    const char *main_dir = graded_class();
    char *out = xstrfmt("%s/shards", tmp_root);
    char *log = xstrfmt("%s/shards.log", tmp_root);
    /* Each shard's worker runs a student's variants side by side: the merged gradebook is the
     * same as the single run's, one variant after another. */
    const char *shard1[] = {"--shard", "1/2", "--no-timing", "--parallel", "2", NULL};
    const char *shard2[] = {"--shard", "2/2", "--no-timing", "--parallel", "2", NULL};
    ck_assert_msg(main_status == 0, "the first grade failed");

    ck_assert_msg(grade_class(out, log, shard1) == 0, "shard 1/2 failed; see %s", log);
    /* Only shard 1: merge names every student of shard 2 and exits 1. */
    ck_assert_int_eq(merge_class(out, log), 1);
    char *text = read_text(log);
    ck_assert_msg(strstr(text, "not yet graded"), "merge output:\n%s", text);
    size_t missing = 0;
    for (size_t i = 0; i < n_students; i++) {
        /* Shards take every N-th submission in id order: index 1, 3, ... is shard 2. */
        char *line = xstrfmt("  %s (%s)\n", totals[i].student, roster_name(totals[i].student));
        bool listed = strstr(text, line) != NULL;
        ck_assert_msg(listed == (i % 2 == 1), "%s %s in the missing list:\n%s", totals[i].student,
                      listed ? "wrongly" : "not", text);
        missing += listed;
        free(line);
    }
    char *count = xstrfmt("%zu students not graded yet", missing);
    ck_assert_msg(strstr(text, count), "expected '%s' in:\n%s", count, text);
    free(count);
    free(text);

    ck_assert_msg(grade_class(out, log, shard2) == 0, "shard 2/2 failed; see %s", log);
    ck_assert_msg(merge_class(out, log) == 0, "merge of both shards failed; see %s", log);
    char *a_path = xstrfmt("%s/lab99/gradebook.csv", main_dir);
    char *b_path = xstrfmt("%s/lab99/gradebook.csv", out);
    char *a = read_text(a_path), *b = read_text(b_path);
    ck_assert_msg(!strcmp(a, b), "merged gradebook differs from a single run's:\n%s\n---\n%s", b,
                  a);
    free(a);
    free(b);
    free(a_path);
    free(b_path);
    free(out);
    free(log);
}
END_TEST

/* ---- 6. an LMS zip that reaches outside its folder ---- */

static void add_entry(struct archive *a, const char *name, const char *data)
{
    struct archive_entry *e = archive_entry_new();
    archive_entry_set_pathname_utf8(e, name);
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, (la_int64_t)strlen(data));
    ck_assert_int_eq(archive_write_header(a, e), ARCHIVE_OK);
    ck_assert_int_eq(archive_write_data(a, data, strlen(data)), (la_ssize_t)strlen(data));
    archive_entry_free(e);
}

static int evil_found;

static int look_for_evil(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    if (!strcmp(path + ftw->base, "evil.c"))
        evil_found++;
    return 0;
}

/* The zip, then `grader grade` on it; returns its exit status, the output in *text. */
static int grade_evil_zip(char **text)
{
    char *dir = xstrfmt("%s/zip", tmp_root);
    char *zip = xstrfmt("%s/in/class.zip", dir);
    char *out = xstrfmt("%s/out", dir), *log = xstrfmt("%s/grade.log", dir);
    char *in = xstrfmt("%s/in", dir);
    struct error err;
    ck_assert_msg(mkdir_p(in, &err) == 0, "%s", err.msg);
    struct archive *a = archive_write_new();
    ck_assert_int_eq(archive_write_set_format_zip(a), ARCHIVE_OK);
    ck_assert_int_eq(archive_write_open_filename(a, zip), ARCHIVE_OK);
    add_entry(a, "s01/saxpy.c",
              "void saxpy_cpu(const float *x, const float *y, float *out, float a, int32_t n)\n"
              "{\n    for (int32_t i = 0; i < n; i++)\n        out[i] = a * x[i] + y[i];\n}\n");
    add_entry(a, "../evil.c", "int evil = 1;\n");
    ck_assert_int_eq(archive_write_close(a), ARCHIVE_OK);
    archive_write_free(a);

    const char *argv[] = {e2e_bin(),   "grade", LAB, "--submissions", zip, "--out", out, "--no-pdf",
                          "--timeout", "5",     NULL};
    int status = e2e_run(argv, log);
    *text = read_text(log);
    /* Nothing escaped, nothing was graded. */
    evil_found = 0;
    ck_assert_int_eq(nftw(dir, look_for_evil, 16, FTW_PHYS), 0);
    ck_assert_msg(evil_found == 0, "evil.c was written somewhere under %s", dir);
    char *gradebook = xstrfmt("%s/lab99/gradebook.csv", out);
    char *json = xstrfmt("%s/lab99/s01/results.json", out);
    ck_assert_msg(!file_exists(gradebook) && !file_exists(json), "a refused class was graded");
    free(gradebook);
    free(json);
    free(in);
    free(dir);
    free(zip);
    free(out);
    free(log);
    return status;
}

START_TEST(test_evil_zip_refused)
{
    char *text = NULL;
    int status = grade_evil_zip(&text);
    ck_assert_msg(status != 0 && status != 1, "exit %d for a refused zip:\n%s", status, text);
    ck_assert_msg(strstr(text, "'../evil.c'") && strstr(text, "refused"),
                  "the message should name the entry and say it was refused:\n%s", text);
    ck_assert_msg(strstr(text, "class.zip"), "the message should name the archive:\n%s", text);
    free(text);
}
END_TEST

/*
 * Exit status 2, not 3: a zip we refuse is bad input the instructor must fix, like a
 * missing --submissions folder or a bad spec (main.c: 2 usage or spec error), whereas 3
 * promises the grader itself failed and re-running may help. Retrying cannot fix it.
 */
START_TEST(test_evil_zip_exit_status)
{
    char *text = NULL;
    int status = grade_evil_zip(&text);
    ck_assert_msg(status == 2,
                  "exit %d for a refused zip, expected 2 (bad input, not a grader failure):\n%s",
                  status, text);
    free(text);
}
END_TEST

/* ---- 7. `grader report` re-renders what students read, and the class summary ---- */

START_TEST(test_report_rerender_student_view)
{
    const char *out = graded_class();
    char *log = xstrfmt("%s/report.log", tmp_root);
    char *md = student_file(out, "s10", "report.md");
    char *summary = xstrfmt("%s/lab99/summary.md", out);
    ck_assert_msg(main_status == 0, "the first grade failed");
    char *before = read_text(md);
    ck_assert_int_eq(unlink(summary), 0);
    const char *argv[] = {e2e_bin(), "report", LAB, "--out", out, "--no-pdf", NULL};
    ck_assert_msg(e2e_run(argv, log) == 0, "grader report failed; see %s", log);
    char *after = read_text(md);
    ck_assert_msg(
        !strcmp(before, after),
        "grader report changed s10's report (instructor view?):\n%.1000s\n--- was ---\n%.1000s",
        after, before);
    ck_assert_msg(file_exists(summary), "grader report did not re-render %s", summary);
    free(after);

    /* --instructor: the hidden case in full. */
    const char *inst[] = {e2e_bin(),  "report",    LAB,   "--out",        out,
                          "--no-pdf", "--student", "s10", "--instructor", NULL};
    ck_assert_msg(e2e_run(inst, log) == 0, "grader report --instructor failed; see %s", log);
    after = read_text(md);
    ck_assert_msg(strstr(after, "nh") && strcmp(before, after), "--instructor report:\n%.1500s",
                  after);
    free(after);
    /* Back to what students read, for the tests after this one. */
    const char *back[] = {e2e_bin(),  "report",    LAB,   "--out", out,
                          "--no-pdf", "--student", "s10", NULL};
    ck_assert_int_eq(e2e_run(back, log), 0);
    free(before);
    free(summary);
    free(md);
    free(log);
}
END_TEST

/* ---- 8. a crash between results and stamp; PDF failures; --lang; merge ---- */

static void write_script(const char *path, const char *text)
{
    struct error err;
    ck_assert_msg(write_file_atomic(path, text, strlen(text), &err) == 0, "%s", err.msg);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

static bool changed_since(const struct file_id *before, const char *path)
{
    struct file_id now = file_id_of(path);
    return now.exists && !same_file(before, &now);
}

START_TEST(test_crash_window_pdf_lang_merge)
{
    char *dir = xstrfmt("%s/window", tmp_root);
    char *out = xstrfmt("%s/out", dir), *bin = xstrfmt("%s/bin", dir);
    char *log = xstrfmt("%s/grade.log", dir), *pidfile = xstrfmt("%s/pandoc.pid", dir);
    char *pandoc = xstrfmt("%s/pandoc", bin);
    const char *old_path = getenv("PATH");
    char *path_env = xstrfmt("%s:%s", bin, old_path ? old_path : "/usr/bin:/bin");
    char *saved_path = xstrdup(old_path ? old_path : "/usr/bin:/bin");
    struct error err;
    struct file_id before[MAX_STUDENTS];
    ck_assert_msg(mkdir_p(bin, &err) == 0, "%s", err.msg);

    /* A: graded with some options. */
    const char *no_timing[] = {"--no-timing", NULL};
    ck_assert_msg(grade_class(out, log, no_timing) == 0, "run A failed; see %s", log);
    snapshot(out, before);

    /* B: other options, killed (as by a power cut) while the first student's PDF is being
     * made: after its results were replaced, before its stamp. */
    char *script = xstrfmt("#!/bin/sh\necho $$ > '%s.tmp' && mv '%s.tmp' '%s'\nexec sleep 300\n",
                           pidfile, pidfile, pidfile);
    write_script(pandoc, script);
    free(script);
    setenv("PATH", path_env, 1);
    const char *argv_b[] = {e2e_bin(), "grade", LAB, "--submissions", CLASS, "--roster",
                            ROSTER,    "--out", out, "--timeout",     "5",   "--force",
                            NULL};
    pid_t pid = spawn(argv_b, log);
    setenv("PATH", saved_path, 1);
    int st = 0;
    bool exited = false;
    while (!file_exists(pidfile)) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            exited = true;
            break;
        }
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        nanosleep(&ms10, NULL);
    }
    ck_assert_msg(!exited, "run B ended (status %#x) before making a PDF; see %s", st, log);
    ck_assert_int_eq(kill(pid, SIGKILL), 0);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    char *pid_text = read_text(pidfile);
    long pandoc_pid = strtol(pid_text, NULL, 10);
    ck_assert(pandoc_pid > 1);
    kill((pid_t)pandoc_pid, SIGKILL);
    free(pid_text);
    size_t hit = n_students;
    for (size_t i = 0; i < n_students; i++) {
        char *json = student_file(out, totals[i].student, "results.json");
        if (changed_since(&before[i], json)) {
            ck_assert_msg(hit == n_students, "two students re-graded before the kill");
            hit = i;
        }
        free(json);
    }
    ck_assert_msg(hit < n_students, "run B replaced no results before its PDF");
    const char *who = totals[hit].student;
    char *stamp = student_file(out, who, ".graded");
    ck_assert_msg(!file_exists(stamp),
                  "%s: run A's stamp still certifies results run B replaced (%s)", who, stamp);
    free(stamp);

    /* C: A's options again, with a pandoc that fails and in Spanish: the student whose
     * results B replaced is graded again, the others are not, and the PDF failure is said. */
    write_script(pandoc, "#!/bin/sh\necho 'pandoc: fake failure' >&2\nexit 43\n");
    setenv("PATH", path_env, 1);
    const char *argv_c[] = {e2e_bin(), "grade",       LAB, "--submissions", CLASS, "--roster",
                            ROSTER,    "--out",       out, "--timeout",     "5",   "--lang",
                            "es",      "--no-timing", NULL};
    int status = e2e_run(argv_c, log);
    setenv("PATH", saved_path, 1);
    char *text = read_text(log);
    ck_assert_msg(status == 0, "run C exited %d:\n%.1500s", status, text);
    char *want = xstrfmt("1 to grade (%zu unchanged since last time)", n_students - 1);
    ck_assert_msg(strstr(text, want), "expected '%s' in:\n%.1500s", want, text);
    free(want);
    want = xstrfmt("%s: no PDF: ", who);
    ck_assert_msg(strstr(text, want), "expected '%s' in:\n%.1500s", want, text);
    free(want);
    ck_assert_msg(strstr(text, ", 1 without a PDF"), "closing line without the count:\n%.1500s",
                  text);
    free(text);
    char *md = student_file(out, who, "report.md");
    text = read_text(md);
    ck_assert_msg(strstr(text, "Resumen de la nota"), "--lang es: %s is not Spanish:\n%.1500s", md,
                  text);
    free(text);
    free(md);
    check_student(out, &totals[hit]);

    /* Merge against the submissions as they are now: s02 changed since it was graded, s14
     * left the class. */
    char *class2 = xstrfmt("%s/class", dir);
    char *cmd = xstrfmt("cp -r '%s' '%s' && rm -r '%s/s14' && echo '/* v2 */' >> '%s/s02/saxpy.c'",
                        CLASS, class2, class2, class2);
    ck_assert_int_eq(system(cmd), 0);
    free(cmd);
    const char *argv_m[] = {e2e_bin(), "merge",    LAB,    "--out",    out, "--submissions",
                            class2,    "--roster", ROSTER, "--no-pdf", NULL};
    ck_assert_int_eq(e2e_run(argv_m, log), 1);
    text = read_text(log);
    ck_assert_msg(strstr(text, "not yet graded (changed since graded):\n  s02 ("),
                  "merge:\n%.1500s", text);
    ck_assert_msg(strstr(text, "not among the submissions):\n  s14 ("), "merge:\n%.1500s", text);
    ck_assert_msg(strstr(text, "1 student not graded yet"), "merge:\n%.1500s", text);
    free(text);
    char *gb = xstrfmt("%s/lab99/gradebook.csv", out);
    text = read_text(gb);
    ck_assert_msg(!strstr(text, "\r\ns02,") && !strstr(text, "\r\ns14,") &&
                      strstr(text, "\r\ns03,"),
                  "gradebook with stale or departed students:\n%.1500s", text);
    free(text);
    free(gb);
    free(class2);
    free(saved_path);
    free(path_env);
    free(pandoc);
    free(pidfile);
    free(log);
    free(bin);
    free(out);
    free(dir);
}
END_TEST

/* ---- 9. several workers (--gpus 2; a CPU lab needs no GPU): SIGTERM, then resume ---- */

/* Is pid a live process running the grader binary? (Zombies have no exe.) */
static bool runs_grader(long pid)
{
    char want[PATH_MAX], exe[PATH_MAX];
    char *link = xstrfmt("/proc/%ld/exe", pid);
    ssize_t len = readlink(link, exe, sizeof(exe) - 1);
    free(link);
    if (len <= 0 || !realpath(e2e_bin(), want))
        return false;
    exe[len] = '\0';
    return !strcmp(exe, want);
}

/* The grader's worker processes: its children that run the grader binary. */
/* The grader's children that run the grader (its workers, and its builder while the class is
 * still building: named BUILDER_COMM); *builders counts the latter among them. */
#define BUILDER_COMM "(grader-builder)"
static int grader_workers(pid_t parent, long *pids, int max, int *builders)
{
    *builders = 0;
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL && n < max) {
        long pid, ppid;
        char *stat_path, *end;
        struct strbuf sb = STRBUF_INIT;
        pid = strtol(de->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        stat_path = xstrfmt("/proc/%ld/stat", pid);
        /* "pid (comm) state ppid ...": comm may hold spaces, so start after its ')'. */
        if (read_file(stat_path, &sb, NULL) == 0) {
            const char *close = strrchr(strbuf_str(&sb), ')');
            char state;
            if (close && sscanf(close + 1, " %c %ld", &state, &ppid) == 2 && ppid == parent &&
                runs_grader(pid)) {
                pids[n++] = pid;
                *builders += strstr(strbuf_str(&sb), BUILDER_COMM) != NULL;
            }
        }
        strbuf_release(&sb);
        free(stat_path);
    }
    if (d)
        closedir(d);
    return n;
}

static int surviving(const long *pids, int n)
{
    int alive = 0;
    for (int i = 0; i < n; i++)
        alive += runs_grader(pids[i]);
    return alive;
}

START_TEST(test_gpu_workers_sigterm_resume)
{
    const char *main_dir = graded_class();
    char *out = xstrfmt("%s/gpus", tmp_root);
    char *log1 = xstrfmt("%s/gpus.log", tmp_root), *log2 = xstrfmt("%s/gpus-resume.log", tmp_root);
    /* --timeout 30: s07 (an endless loop) keeps its worker busy for 30 s, so a worker
     * left running after the grader's end would still be there when looked for. */
    const char *argv[] = {e2e_bin(), "grade", LAB, "--submissions", CLASS,       "--roster",
                          ROSTER,    "--out", out, "--no-pdf",      "--timeout", "30",
                          "--gpus",  "2",     NULL};
    ck_assert_msg(main_status == 0, "the first grade failed");
    pid_t pid = spawn(argv, log1);
    int st = 0;
    bool exited = false;
    while (!any_graded(out)) {
        if (waitpid(pid, &st, WNOHANG) == pid) {
            exited = true;
            break;
        }
        struct timespec ms10 = {0, 10 * 1000 * 1000};
        nanosleep(&ms10, NULL);
    }
    ck_assert_msg(!exited, "the grader ended (status %#x) before any student was graded; see %s",
                  st, log1);
    /* Every child that runs the grader must end with it: the two workers, and the builder if
     * the class is still building. */
    long workers[8];
    int builders, n_workers = grader_workers(pid, workers, 8, &builders);
    ck_assert_msg(n_workers - builders == 2 && builders <= 1,
                  "%d worker processes and %d builders, expected 2 and at most 1",
                  n_workers - builders, builders);
    ck_assert_int_eq(kill(pid, SIGTERM), 0);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "wait status %#x; see %s", st, log1);
    /* Generous (20 s): the workers get the signal at once; they need only stop their runs. */
    for (int i = 0; i < 400 && surviving(workers, n_workers) > 0; i++) {
        struct timespec ms50 = {0, 50 * 1000 * 1000};
        nanosleep(&ms50, NULL);
    }
    ck_assert_msg(surviving(workers, n_workers) == 0, "%d worker processes outlived the grader",
                  surviving(workers, n_workers));

    ck_assert_msg(e2e_run(argv, log2) == 0, "the resumed run failed; see %s", log2);
    char *text = read_text(log2);
    /* Off a terminal, a line per student as the workers finish them. */
    ck_assert_msg(strstr(text, "graded 1/") && strstr(text, "(failing so far: "),
                  "no per-student lines in:\n%.1500s", text);
    free(text);
    char *a_path = xstrfmt("%s/lab99/gradebook.csv", main_dir);
    char *b_path = xstrfmt("%s/lab99/gradebook.csv", out);
    char *a = read_text(a_path), *b = read_text(b_path);
    ck_assert_msg(!strcmp(a, b),
                  "resumed --gpus 2 gradebook differs from a single run's:\n%.1000s\n---\n%.1000s",
                  b, a);
    for (size_t i = 0; i < n_students; i++)
        check_student(out, &totals[i]);
    free(a);
    free(b);
    free(a_path);
    free(b_path);
    free(out);
    free(log1);
    free(log2);
}
END_TEST

/* Every case of a student's results has the verdict want (NULL: any), but the one named. */
static void check_verdicts(const char *out, const char *student, const char *odd_case,
                           const char *odd_verdict)
{
    struct results r;
    struct error err;
    char *json = student_file(out, student, "results.json");
    results_init(&r);
    error_init(&err);
    ck_assert_msg(results_read(&r, json, &err) == 0, "%s: %s", json, err.msg);
    for (size_t e = 0; e < r.n_exercises; e++)
        for (size_t v = 0; v < r.exercises[e].n_variants; v++)
            for (size_t c = 0; c < r.exercises[e].variants[v].n_cases; c++) {
                const struct case_result *cr = &r.exercises[e].variants[v].cases[c];
                bool odd = odd_case && !strcmp(cr->case_id, odd_case) &&
                           !strcmp(r.exercises[e].exercise_id, "saxpy");
                const char *want = odd ? odd_verdict : "OK";
                ck_assert_msg(!strcmp(verdict_code(cr->verdict), want), "%s %s/%s: %s, expected %s",
                              student, r.exercises[e].exercise_id, cr->case_id,
                              verdict_code(cr->verdict), want);
            }
    results_release(&r);
    free(json);
}

/* Students go to whichever worker is free: a worker stuck on a hang (a00, the first in the
 * class, waits out its limit) holds back nobody, where a fixed share would have left a02
 * behind it. Untimed, so that the others' runs need no turn beside the hang; the limit is a
 * generous watchdog for three quick students, not a bound on anything measured. */
START_TEST(test_hang_holds_back_nobody)
{
    char *dir = xstrfmt("%s/hang-first", tmp_root), *out = xstrfmt("%s/out", dir);
    char *log = xstrfmt("%s/grade.log", dir);
    char *cmd = xstrfmt("mkdir -p '%s/class' && cp -r " CLASS "/s07 '%s/class/a00' && "
                        "for s in a01 a02 a03; do cp -r " LAB "/solution '%s/class/'$s; done",
                        dir, dir, dir);
    ck_assert_int_eq(system(cmd), 0);
    char *class = xstrfmt("%s/class", dir);
    const char *argv[] = {e2e_bin(), "grade",    LAB,           "--submissions", class, "--out",
                          out,       "--no-pdf", "--no-timing", "--timeout",     "10",  "--gpus",
                          "2",       NULL};
    ck_assert_msg(e2e_run(argv, log) == 0, "grade failed; see %s", log);
    char *text = read_text(log);
    const char *last = NULL;
    for (const char *p = text; (p = strstr(p, "graded ")); p++)
        if (p[7] >= '1' && p[7] <= '9')
            last = p;
    ck_assert_msg(last && !strncmp(last, "graded 4/4: a00 ", 16),
                  "the hanging student was not the last graded:\n%.2000s", text);
    check_verdicts(out, "a00", "n100k", "TO");
    check_verdicts(out, "a01", NULL, NULL);
    check_verdicts(out, "a02", NULL, NULL);
    check_verdicts(out, "a03", NULL, NULL);
    free(text);
    free(class);
    free(cmd);
    free(log);
    free(out);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("batch");
    TCase *tc = tcase_create("class");
    tcase_add_unchecked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_grade_class);
    tcase_add_test(tc, test_hidden_cases_count);
    tcase_add_test(tc, test_rerun_skips_unchanged);
    tcase_add_test(tc, test_kill_and_resume);
    tcase_add_test(tc, test_shards_merge);
    tcase_add_test(tc, test_evil_zip_refused);
    tcase_add_test(tc, test_evil_zip_exit_status);
    tcase_add_test(tc, test_report_rerender_student_view);
    tcase_add_test(tc, test_crash_window_pdf_lang_merge);
    tcase_add_test(tc, test_gpu_workers_sigterm_resume);
    tcase_add_test(tc, test_hang_holds_back_nobody);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (tmp_root && !failed)
        remove_tree(tmp_root, NULL);
    else if (tmp_root)
        fprintf(stderr, "outputs and logs kept in %s\n", tmp_root);
    free(main_out);
    free(tmp_root);
    return failed ? 1 : 0;
}

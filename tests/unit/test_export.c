/*
 * export: every LMS file checked against a replay of the receiving system's own rules
 * (docs/exports.md cites each): Canvas's gradebook importer (header, Points Possible,
 * how it finds a student from ID, SIS User ID, SIS Login ID, name), Moodle's CSV grade
 * import (only mappable rows) and offline grading worksheet importer (column names,
 * "Participant N"), Gradescope's results.json keys and display rule (a test without a
 * status passes when score >= max_score), and junit-10.xsd (xmllint --schema).
 */
#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "base/messages.h"
#include "base/strbuf.h"
#include "grade/results.h"
#include "grade/score.h"
#include "report/export.h"
#include "report/table.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- building results by hand ---- */

static struct exercise_result *add_exercise(struct results *r, const char *id, const char *title)
{
    r->exercises = xrealloc(r->exercises, (r->n_exercises + 1) * sizeof(*r->exercises));
    struct exercise_result *e = &r->exercises[r->n_exercises++];
    memset(e, 0, sizeof(*e));
    e->exercise_id = xstrdup(id);
    e->title = xstrdup(title);
    return e;
}

static struct variant_result *add_variant(struct exercise_result *e, const char *id,
                                          const char *target)
{
    e->variants = xrealloc(e->variants, (e->n_variants + 1) * sizeof(*e->variants));
    struct variant_result *v = &e->variants[e->n_variants++];
    memset(v, 0, sizeof(*v));
    v->variant_id = xstrdup(id);
    v->title = xstrdup(id);
    v->function = xstrdup("f");
    v->target = xstrdup(target);
    v->memory = xstrdup("host");
    v->built = true;
    return v;
}

static struct case_result *add_case(struct variant_result *v, const char *id, enum verdict verdict,
                                    double points, double max_points, const char *message,
                                    const char *detail, double wall_s)
{
    v->cases = xrealloc(v->cases, (v->n_cases + 1) * sizeof(*v->cases));
    struct case_result *c = &v->cases[v->n_cases++];
    memset(c, 0, sizeof(*c));
    c->case_id = xstrdup(id);
    c->sizes = xstrdup("n=16");
    c->verdict = verdict;
    c->points = points;
    c->max_points = max_points;
    c->message = message ? xstrdup(message) : NULL;
    c->detail = detail ? xstrdup(detail) : NULL;
    c->wall_s = wall_s;
    return c;
}

static void add_finding(struct case_result *c, const char *text)
{
    c->findings = xrealloc(c->findings, (c->n_findings + 1) * sizeof(*c->findings));
    c->findings[c->n_findings++] = xstrdup(text);
}

static struct results *new_results(const char *id, const char *name)
{
    struct results *r = xmalloc(sizeof(*r));
    results_init(r);
    r->lab_id = xstrdup("lab6");
    r->lab_number = 6;
    r->lab_title = xstrdup("Lab 6: Matrices");
    r->student_id = xstrdup(id);
    r->student_name = xstrdup(name);
    r->mode = xstrdup("grade");
    return r;
}

/* points and max include the speed points, as results_tally counts them. */
static void set_exercise(struct results *r, const char *id, double points, double max, double perf,
                         double perf_max)
{
    struct exercise_result *e = add_exercise(r, id, id);
    e->points = points;
    e->max_points = max;
    e->perf_points = perf;
    e->perf_max_points = perf_max;
}

static char *tmp_dir(void)
{
    char *d = xstrdup("/tmp/lg-export-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(d));
    return d;
}

static void set_ids(struct lms_ids *ids, const char *canvas, const char *sis, const char *login,
                    const char *participant, const char *idnumber, const char *email)
{
    ids->canvas_id = canvas ? xstrdup(canvas) : NULL;
    ids->sis_user_id = sis ? xstrdup(sis) : NULL;
    ids->sis_login_id = login ? xstrdup(login) : NULL;
    ids->moodle_participant = participant ? xstrdup(participant) : NULL;
    ids->idnumber = idnumber ? xstrdup(idnumber) : NULL;
    ids->email = email ? xstrdup(email) : NULL;
}

/* ---- a small RFC 4180 reader, as the importers read the files ---- */

#define MAXF 16
struct csv_row {
    char *f[MAXF];
    int n;
};

static bool csv_next(const char **pp, struct csv_row *row)
{
    const char *p = *pp;
    if (!*p)
        return false;
    row->n = 0;
    for (;;) {
        struct strbuf f = STRBUF_INIT;
        strbuf_grow(&f, 0);
        if (*p == '"') {
            for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
                if (*p == '"')
                    p++;
                strbuf_addch(&f, *p);
            }
            if (*p == '"')
                p++;
        }
        while (*p && *p != ',' && *p != '\r' && *p != '\n')
            strbuf_addch(&f, *p++);
        ck_assert_int_lt(row->n, MAXF);
        row->f[row->n++] = strbuf_detach(&f);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '\r')
            p++;
        if (*p == '\n')
            p++;
        break;
    }
    *pp = p;
    return true;
}

static void csv_free(struct csv_row *row)
{
    for (int i = 0; i < row->n; i++)
        free(row->f[i]);
    row->n = 0;
}

/* Three students, given out of order, with names a spreadsheet or CSV parser would trip on;
 * s003 handed in late; s004's submission was refused; g01 stands for a group of two. */
static void make_class(struct results *all[5])
{
    all[0] = new_results("s002", "N\xC3\xBA\xC3\xB1"
                                 "ez, Mar\xC3\xAD"
                                 "a \"Mia\"");
    set_exercise(all[0], "matmul", 6, 8, 0, 0);
    set_exercise(all[0], "reduce", 6.75, 8, 1.25, 2);
    all[0]->score = 12.75;
    all[0]->max_score = 16;

    all[1] = new_results("s001", "=HYPERLINK(\"http://x\")");
    set_exercise(all[1], "matmul", 4, 8, 0, 0);
    set_exercise(all[1], "reduce", 3.5, 8, 0, 2);
    all[1]->score = 7.5;
    all[1]->max_score = 16;
    all[1]->n_grader_errors = 1;

    all[2] = new_results("s003", "Line\nBreak \xC3\x98");
    set_exercise(all[2], "matmul", 8, 8, 0, 0);
    all[2]->score = 8;
    all[2]->max_score = 16;
    all[2]->lms.late.evaluated = all[2]->lms.late.late = all[2]->lms.late.days_known = true;
    all[2]->lms.late.days = 2;
    all[2]->lms.late.penalty_pct = 20;
    all[2]->lms.late.penalty = 3.2;

    all[3] = new_results("s004", "Online Text");
    struct exercise_result *e = add_exercise(all[3], "matmul", "matmul");
    add_case(add_variant(e, "cpu", "cpu"), "n", V_MISSING, 0, 8,
             "handed in as online text, not as files: nothing to compile", NULL, 0);
    results_tally(all[3]);
    all[3]->max_score = 16;
    all[3]->lms.problem = xstrdup("online_text");

    all[4] = new_results("g01", "Team");
    set_exercise(all[4], "matmul", 8, 8, 0, 0);
    all[4]->score = 8;
    all[4]->max_score = 16;
    all[4]->lms.members = xcalloc(2, sizeof(struct lms_member));
    all[4]->lms.n_members = 2;
    all[4]->lms.members[0].id = xstrdup("s010");
    all[4]->lms.members[0].name = xstrdup("Ann");
    all[4]->lms.members[1].id = xstrdup("s011");
    all[4]->lms.members[1].name = xstrdup("Ben");
}

static void free_class(struct results *all[5])
{
    for (int i = 0; i < 5; i++)
        results_free(all[i]);
}

START_TEST(test_gradebook_csv)
{
    struct results *all[5];
    struct strbuf sb = STRBUF_INIT, file = STRBUF_INIT;
    make_class(all);
    export_gradebook_csv_text((const struct results *const *)all, 5, &sb);
    ck_assert_str_eq(
        sb.buf, "student_id,name,matmul,reduce,total,max,status,late_days,late_penalty,note\r\n"
                /* A grader error: no points at all, only the maximum and the status. */
                "s001,\"'=HYPERLINK(\"\"http://x\"\")\",,,,16,grader-error,,,\r\n"
                "s002,\"N\xC3\xBA\xC3\xB1"
                "ez, Mar\xC3\xAD"
                "a \"\"Mia\"\"\",6,6.75,12.75,16,ok,,,\r\n"
                "s003,\"Line\nBreak \xC3\x98\",8,,4.8,16,incomplete,2,3.2,\r\n"
                "s004,Online Text,0,,0,16,not-graded,,,\"handed in as online text, not as files: "
                "nothing to compile\"\r\n"
                "s010,Ann,8,,8,16,incomplete,,,\r\n"
                "s011,Ben,8,,8,16,incomplete,,,\r\n");
    char *dir = tmp_dir();
    char *path = path_join(dir, "gradebook.csv");
    ck_assert_int_eq(export_gradebook_csv((const struct results *const *)all, 5, path, NULL), 0);
    ck_assert_int_eq(read_file(path, &file, NULL), 0);
    ck_assert_str_eq(file.buf, sb.buf);
    /* No BOM: Moodle would read it as part of the first header. */
    ck_assert_int_ne((unsigned char)file.buf[0], 0xEF);
    struct error err;
    ck_assert_int_eq(
        export_gradebook_csv((const struct results *const *)all, 5, "/nonexistent/x.csv", &err),
        -1);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    free(path);
    free(dir);
    strbuf_release(&file);
    strbuf_release(&sb);
    free_class(all);
}
END_TEST

START_TEST(test_gradebook_formula_prefixes_and_numbers)
{
    const char *firsts[] = {"+1", "-2", "@SUM(A1)", "\tx", "\rx"};
    const char *expect[] = {"'+1", "'-2", "'@SUM(A1)", "'\tx", "\"'\rx\""};
    for (size_t i = 0; i < 5; i++) {
        struct results *r = new_results("a", firsts[i]);
        const struct results *one[] = {r};
        struct strbuf sb = STRBUF_INIT;
        r->score = 1.0 / 3;
        r->max_score = 0.999;
        export_gradebook_csv_text(one, 1, &sb);
        char *want = xstrfmt("student_id,name,total,max,status,late_days,late_penalty,note\r\n"
                             "a,%s,0.33,1,ok,,,\r\n",
                             expect[i]);
        ck_assert_str_eq(sb.buf, want);
        free(want);
        strbuf_release(&sb);
        results_free(r);
    }
    struct results *r = new_results("b", "x\xFFy");
    const struct results *one[] = {r};
    struct strbuf sb = STRBUF_INIT;
    export_gradebook_csv_text(one, 1, &sb);
    ck_assert_str_eq(sb.buf, "student_id,name,total,max,status,late_days,late_penalty,note\r\n"
                             "b,x\xEF\xBF\xBDy,0,0,ok,,,\r\n");
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

/* ---- Canvas: app/models/gradebook_importer.rb, replayed ---- */

struct canvas_user {
    long id;
    const char *name, *sis_user, *login;
};

/* The course the file is imported into. Canvas user 9999 is someone else entirely: a Moodle
 * participant number 9999 in ID would grade them. */
static const struct canvas_user course[] = {
    {12345,
     "Mar\xC3\xAD"
     "a N\xC3\xBA\xC3\xB1"
     "ez",
     "S-100", "maria@uni.example"},
    {23456, "Bob Stone", "S-200", "bob@uni.example"},
    {9999, "Other Person", "S-999", "other@uni.example"},
    {34567, "Ann", "s010", "ann@uni.example"},
    {45678, "Ben", "s011", "ben@uni.example"},
};

/* Who Canvas grades for a row: row[1].to_i as its own user id, else the SIS User ID, else
 * the SIS Login ID, else a student of exactly that name; -1: nobody (a new user). */
static long canvas_lookup(const struct csv_row *row, int sis_col, int login_col)
{
    long id = strtol(row->f[1], NULL, 10); /* Ruby's to_i: leading digits, else 0 */
    for (size_t i = 0; id && i < sizeof(course) / sizeof(*course); i++)
        if (course[i].id == id)
            return course[i].id;
    for (size_t i = 0; sis_col >= 0 && i < sizeof(course) / sizeof(*course); i++)
        if (*row->f[sis_col] && !strcmp(course[i].sis_user, row->f[sis_col]))
            return course[i].id;
    for (size_t i = 0; login_col >= 0 && i < sizeof(course) / sizeof(*course); i++)
        if (*row->f[login_col] && !strcmp(course[i].login, row->f[login_col]))
            return course[i].id;
    for (size_t i = 0; i < sizeof(course) / sizeof(*course); i++)
        if (!strcmp(course[i].name, row->f[0]))
            return course[i].id;
    return -1;
}

/* Imports text as Canvas would: the header's rules, the Points Possible row, then each
 * student; grades[k] receives (user id, score). Returns the points possible. */
static double canvas_import(const char *text, long *ids, double *grades, int *n)
{
    struct csv_row h, row;
    const char *p = text;
    double points = -1;
    ck_assert(csv_next(&p, &h));
    /* row_has_student_headers? and the last student column is Section */
    ck_assert(h.n > 3 && strstr(h.f[0], "Student") && strstr(h.f[1], "ID"));
    int sis_col = -1, login_col = -1, student_cols = 3;
    if (!strcmp(h.f[2], "SIS User ID") && !strcmp(h.f[3], "SIS Login ID")) {
        sis_col = 2;
        login_col = 3;
        student_cols += 2;
    }
    ck_assert_str_eq(h.f[student_cols - 1], "Section");
    /* strip_non_assignment_columns: a header naming one of Canvas's computed columns is no
     * assignment (grep_v over the row; older versions popped trailing ones only, so such a
     * column must come last). Exactly one assignment is left: the lab. */
    static const char *const computed[] = {"Current Score",  "Current Points", "Current Grade",
                                           "Final Score",    "Final Points",   "Final Grade",
                                           "Override Score", "Override Grade", "Override Status"};
    int assignments = 0, col = -1;
    for (int i = student_cols; i < (int)h.n; i++) {
        bool stripped = false;
        for (size_t k = 0; k < sizeof(computed) / sizeof(*computed); k++)
            stripped |= strstr(h.f[i], computed[k]) != NULL;
        if (stripped)
            ck_assert_int_eq(i, (int)h.n - 1);
        else
            col = i, assignments++;
    }
    ck_assert_int_eq(assignments, 1);
    ck_assert_int_eq(col, student_cols);
    *n = 0;
    while (csv_next(&p, &row)) {
        if (strstr(row.f[0], "Points Possible")) {
            points = atof(row.f[col]);
        } else {
            ids[*n] = canvas_lookup(&row, sis_col, login_col);
            /* An empty cell leaves Canvas's grade as it is: no number imported. */
            grades[(*n)++] = *row.f[col] ? atof(row.f[col]) : NAN;
        }
        csv_free(&row);
    }
    csv_free(&h);
    return points;
}

START_TEST(test_canvas_import)
{
    struct results *r[4];
    r[0] = new_results("12345", "Mar\xC3\xAD"
                                "a N\xC3\xBA\xC3\xB1"
                                "ez");
    set_ids(&r[0]->lms.ids, "12345", NULL, NULL, NULL, NULL, NULL); /* from Canvas's zip */
    r[1] = new_results("9999", "Bob Stone"); /* a Moodle participant number */
    set_ids(&r[1]->lms.ids, NULL, NULL, NULL, "9999", NULL, "bob@uni.example");
    r[2] = new_results("S-999x", "Nobody Known"); /* an id from elsewhere */
    r[3] = new_results("g01", "Team");
    r[3]->lms.members = xcalloc(2, sizeof(struct lms_member));
    r[3]->lms.n_members = 2;
    r[3]->lms.members[0].id = xstrdup("s010");
    r[3]->lms.members[0].name = xstrdup("Ann");
    set_ids(&r[3]->lms.members[0].ids, NULL, "s010", NULL, NULL, NULL, NULL);
    r[3]->lms.members[1].id = xstrdup("s011");
    r[3]->lms.members[1].name = xstrdup("Ben");
    set_ids(&r[3]->lms.members[1].ids, NULL, "s011", NULL, NULL, NULL, NULL);
    for (int i = 0; i < 4; i++) {
        r[i]->score = 6 + i;
        r[i]->max_score = 12;
    }
    struct strbuf sb = STRBUF_INIT;
    struct gradebook_opts o = {"Lab 6 (123456)", 0, NULL, 0};
    export_gradebook_canvas_csv_text((const struct results *const *)r, 4, &o, &sb);
    long ids[8];
    double grades[8];
    int n;
    /* Without a Points Possible row a new assignment has 0 points: everything extra credit. */
    ck_assert(canvas_import(sb.buf, ids, grades, &n) == 12);
    ck_assert_int_eq(n, 5);
    /* Sorted by id: 12345, 9999, S-999x, s010, s011. */
    ck_assert_int_eq(ids[0], 12345);
    ck_assert_int_eq(ids[1], 23456); /* by its email as SIS Login ID, never as user 9999 */
    ck_assert_int_eq(ids[2], -1);    /* unknown: Canvas shows it as new, grades nobody */
    ck_assert_int_eq(ids[3], 34567); /* the group's members, each by SIS User ID */
    ck_assert_int_eq(ids[4], 45678);
    ck_assert(grades[3] == 9 && grades[4] == 9);
    ck_assert_ptr_null(strstr(sb.buf, ",9999,"));

    /* Scaled to the assignment's points possible. */
    strbuf_reset(&sb);
    o.points = 100;
    export_gradebook_canvas_csv_text((const struct results *const *)r, 1, &o, &sb);
    ck_assert(canvas_import(sb.buf, ids, grades, &n) == 100);
    ck_assert(fabs(grades[0] - 50) < 1e-9);
    strbuf_release(&sb);
    for (int i = 0; i < 4; i++)
        results_free(r[i]);
}
END_TEST

/* ---- Moodle: grade/import/csv and mod/assign/feedback/offline, replayed ---- */

START_TEST(test_moodle_imports)
{
    struct results *r[3];
    r[0] = new_results("2001", "Ana Ruiz");
    set_ids(&r[0]->lms.ids, NULL, NULL, NULL, "2001", "s01", "ana@uni.example");
    r[1] = new_results("2002", "Bob Stone");
    set_ids(&r[1]->lms.ids, NULL, NULL, NULL, "2002", NULL, NULL); /* no roster */
    r[2] = new_results("s03", "Carl");
    set_ids(&r[2]->lms.ids, NULL, NULL, NULL, NULL, "s03", NULL);
    for (int i = 0; i < 3; i++) {
        r[i]->score = 5 + i;
        r[i]->max_score = 10;
        r[i]->n_pass = 1;
    }
    struct strbuf sb = STRBUF_INIT;
    struct gradebook_opts o = {"Lab 6", 0, NULL, 1772495940}; /* 2026-03-02T23:59:00Z */
    size_t left = 0;
    export_gradebook_moodle_csv_text((const struct results *const *)r, 3, &o, &sb, &left);
    /* Moodle stops the whole import at a row it cannot map: only mappable rows. */
    ck_assert_uint_eq(left, 1);
    struct csv_row row;
    const char *p = sb.buf;
    ck_assert(csv_next(&p, &row));
    ck_assert_str_eq(row.f[0], "ID number");
    ck_assert_str_eq(row.f[1], "Email address");
    ck_assert_str_eq(row.f[2], "Username");
    csv_free(&row);
    int rows = 0;
    while (csv_next(&p, &row)) {
        ck_assert(*row.f[0] || *row.f[1] || *row.f[2]);
        rows++;
        csv_free(&row);
    }
    ck_assert_int_eq(rows, 2);

    /* The worksheet: the importer finds its columns by these exact names, and the user
     * from "Participant N" (the text after get_string('hiddenuser') = "Participant "). */
    strbuf_reset(&sb);
    export_moodle_worksheet_text((const struct results *const *)r, 3, &o, &sb);
    p = sb.buf;
    ck_assert(csv_next(&p, &row));
    int id = -1, grade = -1, modified = -1;
    for (int i = 0; i < row.n; i++) {
        id = !strcmp(row.f[i], "Identifier") ? i : id;
        grade = !strcmp(row.f[i], "Grade") ? i : grade;
        modified = !strcmp(row.f[i], "Last modified (grade)") ? i : modified;
    }
    ck_assert(id >= 0 && grade >= 0 && modified >= 0);
    csv_free(&row);
    ck_assert(csv_next(&p, &row));
    ck_assert_str_eq(row.f[id], "Participant 2001");
    ck_assert_str_eq(row.f[grade], "5");
    ck_assert_str_eq(row.f[modified], "2026-03-02T23:59:00Z");
    csv_free(&row);
    ck_assert(csv_next(&p, &row));
    ck_assert_str_eq(row.f[id], "Participant 2002");
    csv_free(&row);
    ck_assert(!csv_next(&p, &row)); /* s03 came from no Moodle download */
    ck_assert(gradebook_has_moodle_participants((const struct results *const *)r, 3));
    strbuf_release(&sb);
    for (int i = 0; i < 3; i++)
        results_free(r[i]);
}
END_TEST

/* ---- Gradescope ---- */

/* One student with a pass, a failure with detail, a hidden failure, a skipped GPU case,
 * a grader error and speed points. */
static struct results *make_student(void)
{
    struct results *r = new_results("s002", "Mar\xC3\xAD"
                                            "a <N\xC3\xBA\xC3\xB1"
                                            "ez> & 'co'");
    struct exercise_result *e = add_exercise(r, "matmul", "Matrix multiply");
    struct variant_result *cpu = add_variant(e, "cpu", "cpu");
    struct case_result *c = add_case(cpu, "small", V_PASS, 2, 2, "agrees", NULL, 0.5);
    c->time.valid = true;
    c->time.samples = 9;
    c->time.median_ms = 1.25;
    add_finding(c, "performance: 0.90x the reference's time (best quartiles) earns 100% of the "
                   "speed points");
    add_case(cpu, "big", V_WRONG, 0, 2, "3 of 16 values differ",
             "C: 3 of 16 differ\nfirst at [0, 1]: 1.5 vs 2 \"quoted\" \x01 ]]> \xFF", 0.25);
    c = add_case(cpu, "secret", V_WRONG, 0, 1, "1 of 16 values differ", "at [2, 2]: 9 vs 7", 0.125);
    c->hidden = true;
    struct variant_result *gpu = add_variant(e, "gpu", "gpu");
    add_case(gpu, "small", V_SKIPPED, 0, 2, "no GPU on this machine", NULL, 0);
    add_case(gpu, "large", V_GRADER, 0, 2, "the reference crashed", "SIGBUS in reference", 0.125);
    e->perf_points = 1.5;
    e->perf_max_points = 2;
    results_tally(r);
    ck_assert(r->score == 3.5 && r->max_score == 11);
    ck_assert(r->n_pass == 1 && r->n_fail == 2 && r->n_skipped == 1 && r->n_grader_errors == 1);
    return r;
}

/* Gradescope's display rule: a test's status when given, else passed when score >= max. */
static bool shown_passed(const struct json_value *t)
{
    const char *status = json_get_string(t, "status");
    if (status)
        return !strcmp(status, "passed");
    return json_get_number(t, "score", 0) >= json_get_number(t, "max_score", 0);
}

static const struct json_value *test_named(const struct json_value *doc, const char *name)
{
    const struct json_value *tests = json_get(doc, "tests");
    for (size_t i = 0; tests && i < tests->n; i++) {
        const char *nm = json_get_string(json_at(tests, i), "name");
        if (nm && !strcmp(nm, name))
            return json_at(tests, i);
    }
    ck_abort_msg("no test '%s'", name);
    return NULL;
}

static struct json_value *gradescope_doc(const struct results *r, const struct gradescope_opts *o,
                                         struct strbuf *sb)
{
    struct json_value *doc = NULL;
    struct error err;
    strbuf_reset(sb);
    export_gradescope_text(r, o, sb);
    error_init(&err);
    ck_assert_msg(json_parse(sb->buf, sb->len, &doc, &err) == 0, "%s\n%s", err.msg, sb->buf);
    return doc;
}

START_TEST(test_gradescope_keys_and_display)
{
    struct results *r = make_student();
    struct strbuf sb = STRBUF_INIT;
    struct gradescope_opts o = {.student_view = false};
    struct json_value *doc = gradescope_doc(r, &o, &sb);
    /* A grader error leaves the grade incomplete: no score anywhere, and the status. */
    ck_assert_ptr_null(json_get(doc, "score"));
    for (size_t i = 0; i < json_get(doc, "tests")->n; i++)
        ck_assert_ptr_null(json_get(json_at(json_get(doc, "tests"), i), "score"));
    ck_assert_str_eq(json_get_string(json_get(doc, "extra_data"), "labgrader_status"),
                     "grader-error");
    ck_assert(strstr(json_get_string(doc, "output"),
                     "Not graded yet: the grader failed on 1 case, not your code (the reference "
                     "crashed)"));
    ck_assert(strstr(json_get_string(test_named(doc, "matmul / gpu / large"), "output"),
                     "not counted against you"));
    json_value_free(doc);
    /* Graded again without it: a score, of what ran. */
    r->exercises[0].variants[1].cases[1].verdict = V_WRONG;
    results_tally(r);
    doc = gradescope_doc(r, &o, &sb);
    ck_assert(json_get_number(doc, "score", -1) == 3.5);
    ck_assert_str_eq(json_get_string(json_get(doc, "extra_data"), "labgrader_status"),
                     "incomplete");
    ck_assert_str_eq(json_get_string(doc, "output_format"), "md");
    ck_assert_str_eq(json_get_string(doc, "stdout_visibility"), "hidden");
    const struct json_value *tests = json_get(doc, "tests");
    /* Every test has a status, an output format and a visibility Gradescope knows. */
    for (size_t i = 0; i < tests->n; i++) {
        const struct json_value *t = json_at(tests, i);
        ck_assert_ptr_nonnull(json_get_string(t, "status"));
        ck_assert_str_eq(json_get_string(t, "output_format"), "md");
        const char *vis = json_get_string(t, "visibility");
        ck_assert(!strcmp(vis, "visible") || !strcmp(vis, "after_due_date") ||
                  !strcmp(vis, "after_published") || !strcmp(vis, "hidden"));
    }
    ck_assert(shown_passed(test_named(doc, "matmul / cpu / small")));
    ck_assert(!shown_passed(test_named(doc, "matmul / cpu / big")));
    /* Not run here: not shown as failed, and not counted (0 of 0). */
    const struct json_value *sk = test_named(doc, "matmul / gpu / small");
    ck_assert(shown_passed(sk));
    ck_assert(json_get_number(sk, "max_score", -1) == 0);
    ck_assert(strstr(json_get_string(sk, "output"), "Not graded here: the score above is of the "
                                                    "cases that ran."));
    ck_assert(!shown_passed(test_named(doc, "matmul / gpu / large")));
    /* The detail goes in a code block: nothing in it is rendered. */
    ck_assert(strstr(json_get_string(test_named(doc, "matmul / cpu / big"), "output"),
                     "```\nC: 3 of 16 differ"));
    /* The score is stated for what ran: 9 of the 11 points (the GPU case's 2 did not). */
    ck_assert(strstr(json_get_string(doc, "output"), "3.5 / 11 points."));
    ck_assert(strstr(json_get_string(doc, "output"), "That is the score of what ran here, out of "
                                                     "its 9 points; the other 2 points were not "
                                                     "graded here"));
    ck_assert(strstr(json_get_string(doc, "output"), "Not graded here (no GPU on this machine)"));
    json_value_free(doc);
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

START_TEST(test_gradescope_hidden_escaping_and_language)
{
    struct results *r = make_student();
    struct strbuf sb = STRBUF_INIT;
    struct lab lab;
    lab_init(&lab);
    lab.gradescope.hidden_visibility = xstrdup("after_published");
    lab.gradescope.leaderboard = true;
    free(r->lab_title);
    r->lab_title = xstrdup("<script>alert(1)</script> *lab*");
    r->exercises[0].variants[0].cases[0].speedup_ref = 2.0;
    r->exercises[0].variants[0].cases[1].speedup_ref = 8.0; /* failed: not on the board */
    struct gradescope_opts o = {.student_view = true, .lab = &lab};
    struct json_value *doc = gradescope_doc(r, &o, &sb);
    const struct json_value *h = test_named(doc, "matmul / hidden cases");
    ck_assert_str_eq(json_get_string(h, "visibility"), "after_published");
    ck_assert_str_eq(json_get_string(h, "output"), "0 of 1 hidden case passed. 1 failed.");
    ck_assert_ptr_null(strstr(sb.buf, "secret"));
    ck_assert_ptr_null(strstr(sb.buf, "9 vs 7"));
    /* The title goes into rendered Markdown: escaped. */
    const char *out = json_get_string(doc, "output");
    ck_assert_ptr_null(strstr(out, "<script>"));
    ck_assert(strstr(out, "&lt;script&gt;alert(1)&lt;/script&gt; \\*lab\\*"));
    const struct json_value *board = json_get(doc, "leaderboard");
    ck_assert(board && board->n == 1);
    ck_assert_str_eq(json_get_string(json_at(board, 0), "name"), "matmul speedup");
    ck_assert(json_get_number(json_at(board, 0), "value", 0) == 2);
    json_value_free(doc);

    /* Every sentence in the report's language. */
    char *dir = tmp_dir();
    char *es = path_join(dir, "messages.po");
    const char *po = "msgid \"%d of %d hidden case passed.\"\nmsgstr \"%d de %d caso oculto "
                     "superado.\"\n\nmsgid \" %d failed.\"\nmsgstr \" %d fallido.\"\n\n"
                     "msgid \"Not run here: \"\nmsgstr \"No ejecutado aqu\xC3\xAD: \"\n";
    ck_assert_int_eq(write_file_atomic(es, po, strlen(po), NULL), 0);
    struct messages m;
    messages_init(&m);
    ck_assert_int_eq(messages_load(&m, es, NULL), 0);
    o.messages = &m;
    doc = gradescope_doc(r, &o, &sb);
    ck_assert_str_eq(json_get_string(test_named(doc, "matmul / hidden cases"), "output"),
                     "0 de 1 caso oculto superado. 1 fallido.");
    ck_assert(strstr(json_get_string(test_named(doc, "matmul / gpu / small"), "output"),
                     "No ejecutado aqu\xC3\xAD"));
    json_value_free(doc);
    messages_release(&m);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    free(es);
    free(dir);
    lab_release(&lab);
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

START_TEST(test_gradescope_compile_error_late_and_scale)
{
    struct results *r = new_results("s9", "S");
    struct exercise_result *e = add_exercise(r, "matmul", "matmul");
    struct variant_result *v = add_variant(e, "cpu", "cpu");
    v->built = false;
    v->build_log = xstrdup("matmul_cpu.c: In function 'f':\nmatmul_cpu.c:3:5: error: "
                           "expected ';' before '}' token\n    3 | }\n      | ^\nnote: x\n");
    add_case(v, "n", V_COMPILE, 0, 4, "matmul_cpu.c does not compile", NULL, 0);
    results_tally(r);
    r->lms.late.evaluated = r->lms.late.late = r->lms.late.marked = true;
    r->lms.late.days = 1;
    r->lms.late.penalty_pct = 10;
    struct strbuf sb = STRBUF_INIT;
    struct gradescope_opts o = {.student_view = true, .scale_to = 12};
    struct json_value *doc = gradescope_doc(r, &o, &sb);
    const char *out = json_get_string(test_named(doc, "matmul / cpu / n"), "output");
    ck_assert(strstr(out, "matmul_cpu.c:3:5: error: expected ';' before '}' token"));
    ck_assert(strstr(json_get_string(doc, "output"), "Marked late"));
    json_value_free(doc);
    /* Scaled: 3 of 4 points count as 9 of 12. */
    e->variants[0].cases[0].verdict = V_PASS;
    e->variants[0].cases[0].points = 3;
    results_tally(r);
    late_record_release(&r->lms.late);
    doc = gradescope_doc(r, &o, &sb);
    ck_assert(json_get_number(doc, "score", -1) == 9);
    ck_assert(strstr(json_get_string(doc, "output"), "scaled to the assignment's 12"));
    json_value_free(doc);
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

/* ---- JUnit against junit-10.xsd ---- */

static void assert_valid_junit(const char *xml)
{
    char *xmllint = find_program("xmllint");
    ck_assert_msg(xmllint != NULL, "xmllint is needed (grader/deps.sh test installs "
                                   "libxml2-utils)");
    char *dir = tmp_dir();
    char *path = path_join(dir, "junit.xml"), *log = path_join(dir, "log");
    ck_assert_int_eq(write_file_atomic(path, xml, strlen(xml), NULL), 0);
    /* Unit suites run from the repository's root. */
    char *cmd = xstrfmt("'%s' --noout --schema tests/fixtures/junit/junit-10.xsd '%s' >'%s' 2>&1",
                        xmllint, path, log);
    struct strbuf why = STRBUF_INIT;
    int rc = system(cmd);
    read_file(log, &why, NULL);
    ck_assert_msg(rc == 0, "junit-10.xsd rejects:\n%s\n%s", strbuf_str(&why), xml);
    strbuf_release(&why);
    ck_assert_int_eq(remove_tree(dir, NULL), 0);
    free(cmd);
    free(log);
    free(path);
    free(dir);
    free(xmllint);
}

START_TEST(test_junit_schema_and_bodies)
{
    struct results *r = make_student();
    struct strbuf sb = STRBUF_INIT;
    struct junit_opts o = {false, NULL};
    export_junit_text(r, &o, &sb);
    assert_valid_junit(sb.buf);
    ck_assert_ptr_null(strstr(sb.buf, "<testsuites name=\"labgrader\" tests=\"5\" failures=\"2\" "
                                      "errors=\"1\" skipped"));
    /* GitLab shows a failure's text only: the message is in it. */
    ck_assert(strstr(sb.buf, "message=\"3 of 16 values differ\">3 of 16 values differ\n\nC: 3"));
    strbuf_reset(&sb);
    o.student_view = true;
    export_junit_text(r, &o, &sb);
    assert_valid_junit(sb.buf);
    ck_assert(strstr(sb.buf, "<failure type=\"hidden\" message=\"0 of 1 hidden case passed. 1 "
                             "failed.\">0 of 1 hidden case passed. 1 failed.</failure>"));
    ck_assert_ptr_null(strstr(sb.buf, "secret"));
    results_free(r);

    /* A compile error carries the compiler's first errors; odd text stays valid XML. */
    r = new_results("x", "X");
    free(r->lab_id);
    r->lab_id = xstrdup("lab&<6>");
    struct exercise_result *e = add_exercise(r, "e\"1'", "t");
    struct variant_result *v = add_variant(e, "v\t1", "cpu");
    v->build_log = xstrdup("a.c:1:1: error: unknown type name 'x'\n");
    add_case(v, "c\r\n\x1b[31mred", V_COMPILE, 0, 1,
             "a.c does not compile \"<x>\"\n\x7f\xEF\xBF\xBE]]>", NULL, -1);
    strbuf_reset(&sb);
    o.student_view = false;
    export_junit_text(r, &o, &sb);
    assert_valid_junit(sb.buf);
    ck_assert(strstr(sb.buf, "a.c:1:1: error: unknown type name &apos;x&apos;"));
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

/* ---- A grader failure reaches no gradebook as a number (grade/score.h) ---- */

/* One student graded on a machine without a GPU in instructor mode: the CPU case passed, the
 * GPU case is XX. Every export leaves the points empty and says why. */
static struct results *grader_failed_student(void)
{
    struct results *r = new_results("s07", "Eva");
    set_ids(&r->lms.ids, "777", "S-7", "eva@uni.example", "7007", "E7", "eva@uni.example");
    struct exercise_result *e = add_exercise(r, "scale", "scale");
    add_case(add_variant(e, "cpu", "cpu"), "n1000", V_PASS, 3, 3, "agrees", NULL, 0.1);
    add_case(add_variant(e, "gpu", "gpu"), "n1000", V_GRADER, 0, 3,
             "GPU variant not run here: no usable CUDA device", NULL, 0);
    results_tally(r);
    ck_assert(r->score == 3 && r->max_score == 6 && r->n_grader_errors == 1);
    return r;
}

/* The field of a CSV text's row (after the header) in the column named `column`. */
static char *csv_cell(const char *text, int row_index, const char *column)
{
    struct csv_row h, row;
    const char *p = text;
    ck_assert(csv_next(&p, &h));
    int col = -1;
    for (int i = 0; i < h.n; i++)
        col = !strcmp(h.f[i], column) ? i : col;
    ck_assert_msg(col >= 0, "no column '%s' in %s", column, text);
    for (int k = 0; k <= row_index; k++)
        ck_assert(csv_next(&p, &row) && (k == row_index || (csv_free(&row), 1)));
    char *cell = xstrdup(row.f[col]);
    csv_free(&row);
    csv_free(&h);
    return cell;
}

#define ASSERT_CELL(text, row, column, want)                                                       \
    do {                                                                                           \
        char *c_ = csv_cell(text, row, column);                                                    \
        ck_assert_str_eq(c_, want);                                                                \
        free(c_);                                                                                  \
    } while (0)

START_TEST(test_grader_error_exports_nothing_numeric)
{
    struct results *r = grader_failed_student();
    const struct results *one[] = {r};
    struct strbuf sb = STRBUF_INIT;
    struct gradebook_opts o = {"Lab 98", 0, NULL, 1772495940};
    ck_assert_int_eq(grade_gap_of(r, NULL), GAP_GRADER_ERROR);
    /* gradebook.csv: no exercise points, no total; the maximum, the status, the reason. */
    export_gradebook_csv_text(one, 1, &sb);
    ASSERT_CELL(sb.buf, 0, "scale", "");
    ASSERT_CELL(sb.buf, 0, "total", "");
    ASSERT_CELL(sb.buf, 0, "max", "6");
    ASSERT_CELL(sb.buf, 0, "status", "grader-error");
    ASSERT_CELL(sb.buf, 0, "note", "GPU variant not run here: no usable CUDA device");
    /* Canvas: an empty score (Canvas leaves the grade alone), the status in a column its
     * importer strips (test_canvas_import replays the rule); scaled or not. */
    for (int scaled = 0; scaled < 2; scaled++) {
        strbuf_reset(&sb);
        o.points = scaled ? 100 : 0;
        export_gradebook_canvas_csv_text(one, 1, &o, &sb);
        long ids[2];
        double grades[2];
        int n;
        ck_assert(canvas_import(sb.buf, ids, grades, &n) == (scaled ? 100 : 6));
        ck_assert(n == 1 && ids[0] == -1 && isnan(grades[0]));
        ASSERT_CELL(sb.buf, 1, "Final Grade (labgrader status, not imported)", "grader-error");
    }
    o.points = 0;
    /* Moodle: an empty grade (no grade, never a number), the reason as feedback, the status. */
    strbuf_reset(&sb);
    export_gradebook_moodle_csv_text(one, 1, &o, &sb, NULL);
    ASSERT_CELL(sb.buf, 0, "Lab 98", "");
    ASSERT_CELL(sb.buf, 0, "labgrader status", "grader-error");
    char *fb = csv_cell(sb.buf, 0, "Feedback");
    ck_assert_msg(strstr(fb, "Not graded yet: the grader failed on 1 case, not your code (GPU "
                             "variant not run here: no usable CUDA device)."),
                  "%s", fb);
    free(fb);
    /* Moodle's worksheet: no grade (its importer skips the row's grade), the feedback. */
    strbuf_reset(&sb);
    export_moodle_worksheet_text(one, 1, &o, &sb);
    ASSERT_CELL(sb.buf, 0, "Grade", "");
    ASSERT_CELL(sb.buf, 0, "Maximum Grade", "6");
    fb = csv_cell(sb.buf, 0, "Feedback comments");
    ck_assert(strstr(fb, "Not graded yet"));
    free(fb);
    /* Gradescope: no score at all, the status in extra_data; the same for the autograder's
     * scaled results. */
    for (int scaled = 0; scaled < 2; scaled++) {
        struct gradescope_opts go = {.student_view = true, .scale_to = scaled ? 12 : 0};
        struct json_value *doc = gradescope_doc(r, &go, &sb);
        ck_assert_ptr_null(json_get(doc, "score"));
        ck_assert_ptr_null(strstr(sb.buf, "\"score\""));
        ck_assert_str_eq(json_get_string(json_get(doc, "extra_data"), "labgrader_status"),
                         "grader-error");
        json_value_free(doc);
    }
    /* JUnit: the status on every suite, and why. */
    strbuf_reset(&sb);
    struct junit_opts jo = {true, NULL};
    export_junit_text(r, &jo, &sb);
    assert_valid_junit(sb.buf);
    ck_assert(strstr(sb.buf, "<property name=\"labgrader.status\" value=\"grader-error\"/>"));
    ck_assert(strstr(sb.buf, "<property name=\"labgrader.status.reason\" value=\"Not graded yet"));

    /* Graded again without the error: numbers everywhere, status ok. */
    r->exercises[0].variants[1].cases[0].verdict = V_PASS;
    r->exercises[0].variants[1].cases[0].points = 3;
    results_tally(r);
    ck_assert_int_eq(grade_gap_of(r, NULL), GAP_NONE);
    strbuf_reset(&sb);
    export_gradebook_csv_text(one, 1, &sb);
    ASSERT_CELL(sb.buf, 0, "total", "6");
    ASSERT_CELL(sb.buf, 0, "status", "ok");
    strbuf_reset(&sb);
    export_gradebook_canvas_csv_text(one, 1, &o, &sb);
    ASSERT_CELL(sb.buf, 1, "Lab 98", "6");
    ASSERT_CELL(sb.buf, 1, "Final Grade (labgrader status, not imported)", "ok");
    strbuf_reset(&sb);
    export_junit_text(r, &jo, &sb);
    ck_assert(strstr(sb.buf, "<property name=\"labgrader.status\" value=\"ok\"/>"));
    ck_assert_ptr_null(strstr(sb.buf, "labgrader.status.reason"));
    strbuf_release(&sb);
    results_free(r);
}
END_TEST

/* An autograde's answer due before its limit, with a case the machine could not time: scored
 * for what was graded (the speed points it waits for out of the score and its maximum, as the
 * autograder leaves them), and saying what is still to come; without that option, no score. */
START_TEST(test_gradescope_speed_pending)
{
    struct results r;
    struct error err;
    struct strbuf sb = STRBUF_INIT;
    results_init(&r);
    ck_assert(results_read(&r, "tests/fixtures/results/lab6-h200.json", &err) == 0);
    struct exercise_result *mm = &r.exercises[0];
    struct case_result *c = &mm->variants[2].cases[1];
    ck_assert_str_eq(mm->variants[2].variant_id, "gpu_dev");
    c->not_timed = NOT_TIMED_BUSY;
    c->speedup_ref = c->speedup_lo = c->speedup_hi = 0;
    c->pairs = 0;
    results_tally(&r);
    ck_assert_int_eq(grade_gap_of(&r, NULL), GAP_NOT_TIMED);
    struct gradescope_opts go = {.student_view = true, .scale_to = 12};
    struct json_value *doc = gradescope_doc(&r, &go, &sb);
    ck_assert_ptr_null(json_get(doc, "score"));
    json_value_free(doc);
    double earned = r.score - mm->perf_points, max = r.max_score - mm->perf_max_points;
    mm->perf_points = mm->perf_max_points = 0;
    results_tally(&r);
    go = (struct gradescope_opts){
        .student_view = true, .scale_to = 12 - 2, .speed_pending = true, .pending_points = 2};
    doc = gradescope_doc(&r, &go, &sb);
    ck_assert_ptr_nonnull(json_get(doc, "score"));
    ck_assert_double_eq_tol(json_get(doc, "score")->number, earned * 10 / max, 1e-6);
    const char *out = json_get_string(doc, "output");
    ck_assert_msg(strstr(out, "Speed points still to come (2 points): 1 of your cases could not be "
                              "timed before Gradescope's time limit"),
                  "%s", out);
    json_value_free(doc);
    /* Not timed because every measurement shared the machine: said so, not as the limit. */
    c->not_timed = NOT_TIMED_SHARED;
    results_tally(&r);
    doc = gradescope_doc(&r, &go, &sb);
    out = json_get_string(doc, "output");
    ck_assert_msg(strstr(out, "Speed points still to come (2 points): 1 of your cases could not be "
                              "timed alone: other programs shared the course's machine"),
                  "%s", out);
    ck_assert_msg(!strstr(out, "time limit"), "%s", out);
    const struct json_value *nt = json_get(json_get(doc, "extra_data"), "labgrader_not_timed");
    ck_assert_ptr_nonnull(nt);
    ck_assert_double_eq(json_get(nt, "shared")->number, 1);
    ck_assert_ptr_null(json_get(nt, "busy"));
    json_value_free(doc);
    go.pending_points = 0;
    doc = gradescope_doc(&r, &go, &sb);
    out = json_get_string(doc, "output");
    ck_assert_msg(strstr(out, "1 of your cases could not be timed alone (other programs shared the "
                              "course's machine each time they were measured): no points depend"),
                  "%s", out);
    json_value_free(doc);
    struct messages es;
    messages_init(&es);
    ck_assert_int_eq(messages_load(&es, "templates/es/messages.po", NULL), 0);
    go.messages = &es;
    go.pending_points = 2;
    doc = gradescope_doc(&r, &go, &sb);
    out = json_get_string(doc, "output");
    ck_assert_msg(strstr(out, "Puntos de velocidad pendientes (2 puntos): 1 de tus casos no se "
                              "pudieron medir a solas: otros programas compartían la máquina"),
                  "%s", out);
    json_value_free(doc);
    messages_release(&es);
    strbuf_release(&sb);
    results_release(&r);
}
END_TEST

/* ---- One maximum per lab, with a GPU and without ---- */

/* What table_print and table_print_summary write (English). */
static char *console_of(const struct results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct table_opts o;
    table_opts_init(&o);
    table_print(f, r, &o);
    table_print_summary(f, r, &o);
    fclose(f);
    return buf;
}

/* Lab 6's solution checked on an H200 (every variant timed) and on a machine without a GPU:
 * 12 points at most in the console, the report, gradebook.csv, Canvas's Points Possible,
 * Moodle's worksheet and Gradescope, as the lab's README says (6 + 2 + 4). */
START_TEST(test_one_maximum_everywhere)
{
    static const char *const fixtures[] = {"tests/fixtures/results/lab6-h200.json",
                                           "tests/fixtures/results/lab6-nogpu.json"};
    for (size_t i = 0; i < 2; i++) {
        struct results r;
        struct error err;
        struct strbuf sb = STRBUF_INIT;
        results_init(&r);
        ck_assert_msg(results_read(&r, fixtures[i], &err) == 0, "%s: %s", fixtures[i], err.msg);
        ck_assert_msg(fabs(r.max_score - 12) < 1e-9, "%s: max %g", fixtures[i], r.max_score);
        const struct results *one[] = {&r};
        struct gradebook_opts o = {"Lab 6", 0, NULL, 1772495940};
        export_gradebook_csv_text(one, 1, &sb);
        ASSERT_CELL(sb.buf, 0, "max", "12");
        ASSERT_CELL(sb.buf, 0, "status", "incomplete"); /* slow and hidden cases not run */
        strbuf_reset(&sb);
        export_gradebook_canvas_csv_text(one, 1, &o, &sb);
        ck_assert(strstr(sb.buf, "\r\nPoints Possible,,,,,12,\r\n"));
        strbuf_reset(&sb);
        set_ids(&r.lms.ids, NULL, NULL, NULL, "77", NULL, NULL);
        export_moodle_worksheet_text(one, 1, &o, &sb);
        ASSERT_CELL(sb.buf, 0, "Maximum Grade", "12");
        /* Gradescope: the check's view states the lab's 12; the autograder's scales to it. */
        struct gradescope_opts go = {.student_view = true};
        struct json_value *doc = gradescope_doc(&r, &go, &sb);
        ck_assert_msg(strstr(json_get_string(doc, "output"), " / 12 points."), "%s",
                      json_get_string(doc, "output"));
        json_value_free(doc);
        char *out = console_of(&r);
        ck_assert_msg(strstr(out, "\nScore: ") && strstr(out, " / 12.00 points — ") &&
                          strstr(out, "\nlab6: ") && !strstr(out, "/ 10.00"),
                      "%s", out);
        /* What the score is of: all of it ran on the H200 but the slow and hidden cases
         * (6.60 of 6.60); without a GPU, 1.53 of 1.53, the speed points among the rest. */
        ck_assert_msg(strstr(out, i == 0 ? "  of what ran here: 6.60 / 6.60 points; 5.40 points "
                                         : "  of what ran here: 1.53 / 1.53 points; 10.47 points "),
                      "%s", out);
        ck_assert(i == 0 ? !strstr(out, "speed points of matmul")
                         : strstr(out, "speed points of matmul (2.00 points): measured on gpu_dev, "
                                       "which did not run here") != NULL);
        /* One CPU baseline: the CPU variant's "vs CPU" is its "vs ref". */
        const struct case_result *c = &r.exercises[0].variants[0].cases[0];
        ck_assert(c->speedup_baseline == c->speedup_ref);
        free(out);
        strbuf_release(&sb);
        results_release(&r);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("export");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_gradebook_csv);
    tcase_add_test(tc, test_gradebook_formula_prefixes_and_numbers);
    tcase_add_test(tc, test_canvas_import);
    tcase_add_test(tc, test_moodle_imports);
    tcase_add_test(tc, test_gradescope_keys_and_display);
    tcase_add_test(tc, test_gradescope_hidden_escaping_and_language);
    tcase_add_test(tc, test_gradescope_compile_error_late_and_scale);
    tcase_add_test(tc, test_junit_schema_and_bodies);
    tcase_add_test(tc, test_grader_error_exports_nothing_numeric);
    tcase_add_test(tc, test_one_maximum_everywhere);
    tcase_add_test(tc, test_gradescope_speed_pending);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

/*
 * What grading a class adds for the LMSs: times as LMSs write them, the late policy (days,
 * grace, cap, limit, extensions, a late mark without a time), the regrade audit, a refused
 * submission's verdicts, and results.json keeping all of it.
 */
#include "base/alloc.h"
#include "base/fs.h"
#include "base/isotime.h"
#include "base/strbuf.h"
#include "class/late.h"
#include "class/lmsinfo.h"
#include "class/regrade.h"
#include "grade/results.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(test_iso_times)
{
    long long t;
    char buf[40];
    ck_assert(iso_time_parse("2026-03-02T23:59:00Z", &t));
    ck_assert_int_eq(t, 1772495940);
    /* Gradescope's: fractions and an offset. */
    ck_assert(iso_time_parse("2026-03-03T00:59:00.365935+01:00", &t));
    ck_assert_int_eq(t, 1772495940);
    ck_assert(iso_time_parse("2026-03-02T16:59:00-0700", &t));
    ck_assert_int_eq(t, 1772495940);
    iso_time_format(t, buf, sizeof(buf));
    ck_assert_str_eq(buf, "2026-03-02T23:59:00Z");
    ck_assert(!iso_time_parse("next friday", &t));
    ck_assert(!iso_time_parse("2026-13-02T00:00Z", &t));
    ck_assert(!iso_time_parse("2026-03-02T23:59+25:00", &t));
    double s;
    ck_assert(duration_parse("15m", &s) && s == 900);
    ck_assert(duration_parse("1.5d", &s) && s == 129600);
    ck_assert(duration_parse("90", &s) && s == 5400); /* a bare number: minutes */
    ck_assert(!duration_parse("2 weeks", &s));
}
END_TEST

static struct results *scored(double score, double max, const char *submitted)
{
    struct results *r = xcalloc(1, sizeof(*r));
    results_init(r);
    r->student_id = xstrdup("s01");
    r->score = score;
    r->max_score = max;
    if (submitted)
        r->lms.late.submitted_at = xstrdup(submitted);
    return r;
}

START_TEST(test_late_policy)
{
    struct lab lab;
    struct late_policy p;
    struct error err;
    lab_init(&lab);
    lab.late.set = true;
    ck_assert(iso_time_parse("2026-03-02T23:59:00Z", &lab.late.deadline_s));
    lab.late.grace_s = 900;
    lab.late.per_day = 10;
    lab.late.cap = 25;
    lab.late.max_days = 5;
    ck_assert_int_eq(late_policy_make(&lab, NULL, &p, &err), 0);

    /* Within the grace period: on time. */
    struct results *r = scored(8, 10, "2026-03-03T00:10:00Z");
    late_apply(&p, "s01", r);
    ck_assert(r->lms.late.evaluated && !r->lms.late.late);
    ck_assert(results_final_score(r) == 8);
    results_free(r);
    /* 2 h 1 min late: one started day, 10% of 10. */
    r = scored(8, 10, "2026-03-03T02:00:00Z");
    late_apply(&p, "s01", r);
    ck_assert(r->lms.late.late && r->lms.late.days == 1 && r->lms.late.penalty == 1);
    ck_assert(results_final_score(r) == 7);
    results_free(r);
    /* Four days: capped at 25%. Six days: past max_days, 0. */
    r = scored(8, 10, "2026-03-06T12:00:00Z");
    late_apply(&p, "s01", r);
    ck_assert(r->lms.late.days == 4 && r->lms.late.penalty_pct == 25);
    ck_assert(results_final_score(r) == 5.5);
    results_free(r);
    r = scored(8, 10, "2026-03-08T12:00:00Z");
    late_apply(&p, "s01", r);
    ck_assert(r->lms.late.zeroed && results_final_score(r) == 0);
    results_free(r);
    /* Canvas's mark without a time: one day charged, and the days said unknown. */
    r = scored(8, 10, NULL);
    r->lms.late.marked = true;
    late_apply(&p, "s01", r);
    ck_assert(r->lms.late.late && !r->lms.late.days_known && r->lms.late.days == 1);
    results_free(r);
    late_policy_release(&p);

    /* The command line: an extension of two days for s01, a new deadline for s02. */
    char dir[] = "/tmp/lg-late-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *ext = path_join(dir, "ext.csv");
    const char *text = "student_id,extension\ns01,2d\ns02,2026-03-10T00:00:00Z\n";
    ck_assert_int_eq(write_file_atomic(ext, text, strlen(text), NULL), 0);
    struct late_options o = {NULL, "0", "20", NULL, NULL, ext};
    ck_assert_int_eq(late_policy_make(&lab, &o, &p, &err), 0);
    r = scored(8, 10, "2026-03-04T12:00:00Z");
    late_apply(&p, "s01", r);
    ck_assert(!r->lms.late.late);
    ck_assert_str_eq(r->lms.late.deadline, "2026-03-04T23:59:00Z");
    late_apply(&p, "s03", r);
    /* 2 days * 20% = 40%, the lab's cap of 25%: 2.5 of 10. */
    ck_assert(r->lms.late.late && r->lms.late.penalty == 2.5);
    results_free(r);
    late_policy_release(&p);
    /* Bad values name the option; a policy needs a deadline. */
    struct late_options bad = {"tomorrow", NULL, NULL, NULL, NULL, NULL};
    ck_assert_int_eq(late_policy_make(NULL, &bad, &p, &err), -1);
    ck_assert(strstr(err.msg, "--deadline") != NULL);
    struct late_options nodl = {NULL, NULL, "10", NULL, NULL, NULL};
    ck_assert_int_eq(late_policy_make(NULL, &nodl, &p, &err), -1);
    ck_assert(strstr(err.msg, "needs a deadline") != NULL);
    remove_tree(dir, NULL);
    free(ext);
    lab.late.set = false;
    lab_release(&lab);
}
END_TEST

START_TEST(test_regrade_audit_and_round_trip)
{
    char dir[] = "/tmp/lg-regrade-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char *json = path_join(dir, "results.json"), *csv = path_join(dir, "regrades.csv");
    struct results *old = scored(6, 10, "2026-03-05T12:00:00Z");
    old->submission_hash = xstrdup("aaa");
    old->lms.late.evaluated = old->lms.late.late = old->lms.late.days_known = true;
    old->lms.late.days = 3;
    old->lms.late.penalty = 3;
    old->lms.ids.moodle_participant = xstrdup("1001");
    old->lms.group = xstrdup("Equipo 1");
    ck_assert_int_eq(results_write(old, json, NULL), 0);
    /* results.json keeps lateness, ids and group. */
    struct results back;
    results_init(&back);
    ck_assert_int_eq(results_read(&back, json, NULL), 0);
    ck_assert(back.lms.late.evaluated && back.lms.late.days == 3 && back.lms.late.penalty == 3);
    ck_assert_str_eq(back.lms.ids.moodle_participant, "1001");
    ck_assert_str_eq(back.lms.group, "Equipo 1");
    ck_assert(results_final_score(&back) == 3);
    results_release(&back);

    struct results *now = scored(9, 10, NULL);
    now->submission_hash = xstrdup("bbb");
    ck_assert_int_eq(regrade_audit(dir, json, now, NULL, false, NULL), 0);
    ck_assert_int_eq(regrade_audit(dir, json, now, "appeal, by email", true, NULL), 0);
    struct strbuf sb = STRBUF_INIT;
    ck_assert_int_eq(read_file(csv, &sb, NULL), 0);
    ck_assert(!strncmp(sb.buf,
                       "date,student_id,previous_score,new_score,previous_submission,"
                       "new_submission,previous_grader,new_grader,reason\r\n",
                       110));
    ck_assert(strstr(sb.buf, ",s01,3.00,9.00,aaa,bbb,,,submission changed\r\n"));
    ck_assert(strstr(sb.buf, ",s01,3.00,9.00,aaa,bbb,,,\"appeal, by email\"\r\n"));
    /* A first grade is no re-grade. */
    unlink(json);
    ck_assert_int_eq(regrade_audit(dir, json, now, NULL, false, NULL), 0);
    strbuf_reset(&sb);
    read_file(csv, &sb, NULL);
    ck_assert_int_eq((int)(strchr(strchr(strchr(sb.buf, '\n') + 1, '\n') + 1, '\n') - sb.buf + 1),
                     (int)sb.len);
    strbuf_release(&sb);
    results_free(old);
    results_free(now);
    remove_tree(dir, NULL);
    free(json);
    free(csv);
}
END_TEST

START_TEST(test_refused_submission_verdicts)
{
    struct results r;
    results_init(&r);
    r.n_exercises = 1;
    r.exercises = xcalloc(1, sizeof(*r.exercises));
    r.exercises[0].exercise_id = xstrdup("saxpy");
    r.exercises[0].n_variants = 1;
    r.exercises[0].variants = xcalloc(1, sizeof(struct variant_result));
    struct variant_result *v = &r.exercises[0].variants[0];
    v->n_cases = 2;
    v->cases = xcalloc(2, sizeof(struct case_result));
    for (int i = 0; i < 2; i++) {
        v->cases[i].verdict = V_MISSING;
        v->cases[i].max_points = 3;
        v->cases[i].message = xstrdup("source file 'saxpy.c' is missing");
    }
    struct submission sub;
    memset(&sub, 0, sizeof(sub));
    sub.problem = SUBMISSION_TOO_MANY_FILES;
    sub.problem_limit = 2000;
    sub.origin = "moodle";
    sub.ids.moodle_participant = xstrdup("1005");
    sub.submitted_at = 1772366400;
    lmsinfo_record(&sub, &r);
    lmsinfo_mark_refused(&sub, NULL, &r);
    ck_assert_int_eq(v->cases[1].verdict, V_OUTPUT);
    ck_assert_str_eq(v->cases[1].message, "submission too large: more than 2000 files and "
                                          "folders (the limit); nothing was graded");
    ck_assert_str_eq(r.lms.problem, "too_many_files");
    ck_assert_str_eq(r.lms.ids.moodle_participant, "1005");
    ck_assert_str_eq(r.lms.late.submitted_at, "2026-03-01T12:00:00Z");
    ck_assert_str_eq(r.lms.late.source, "moodle");
    ck_assert(r.score == 0 && r.max_score == 6 && r.n_fail == 2);
    sub.problem = SUBMISSION_ONLINE_TEXT;
    lmsinfo_mark_refused(&sub, NULL, &r);
    ck_assert_int_eq(v->cases[0].verdict, V_MISSING);
    ck_assert(strstr(v->cases[0].message, "online text") != NULL);
    lms_ids_release(&sub.ids);
    results_release(&r);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("lms");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_iso_times);
    tcase_add_test(tc, test_late_policy);
    tcase_add_test(tc, test_regrade_audit_and_round_trip);
    tcase_add_test(tc, test_refused_submission_verdicts);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}

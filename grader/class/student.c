/* student: one student graded and written (batch_internal.h): results, exports, report, and
 * the stamp last. */
#include "class/batch_internal.h"

#include "grade/score.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "grade/score.h"
#include "base/space.h"
#include "base/util.h"
#include "class/lmsinfo.h"
#include "class/regrade.h"
#include "report/export.h"
#include "report/report.h"
#include "run/turns.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Half-written files (name.tmp.PID) left by a run that was killed. */
static void remove_stale_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL)
        if (strstr(de->d_name, ".tmp.")) {
            char *p = path_join(dir, de->d_name);
            unlink(p);
            free(p);
        }
    if (d)
        closedir(d);
}

/* What collection knew of the student, a refusal, lateness, and the audit of a re-grade:
 * everything results.json gets beside the grading itself (lmsinfo.h, late.h, regrade.h). */
static int record_lms(struct batch_run *b, struct results *r, const struct todo *t,
                      const char *json, struct error *err)
{
    const struct batch_opts *o = b->o;
    lmsinfo_record(t->sub, r);
    if (t->sub->problem != SUBMISSION_OK)
        lmsinfo_mark_refused(t->sub, o->grade.messages, r);
    late_apply(b->late, r->student_id, r);
    return regrade_audit(b->out, json, r, o->regrade_reason, o->force, err);
}

/*
 * The student's report. Its Markdown is results turned into words: not writing it is the
 * grader's failure. A PDF that could not be made is a note (pandoc, LaTeX), unless the disk
 * is full, which is the grader's failure too, or PDFs are required.
 */
static int write_report(struct batch_run *b, const struct results *r, const char *dir,
                        struct error *err)
{
    const struct batch_opts *o = b->o;
    struct report_opts ro;
    struct report_outcome out;
    struct error rerr;
    report_opts_init(&ro);
    ro.lang = o->lang;
    ro.templates_dir = o->templates_dir;
    ro.pdf = o->pdf_mode >= 0;
    ro.pdf_required = o->pdf_mode > 0;
    ro.student_view = true;
    ro.html = !o->no_html;
    memset(&out, 0, sizeof(out));
    error_init(&rerr);
    /* Writing the pages (and plotting, and pandoc and LaTeX for the PDF) takes cores for
     * milliseconds to seconds: not while a series is timed on them (run/work.h). */
    size_t n_held = 0;
    int *held = turns_hold_cores(b->env->tc.turns, &n_held);
    int rrc = report_student(r, dir, &ro, &out, &rerr);
    turns_let_go(held, n_held);
    if (!out.md_written) {
        *err = rerr;
        error_prefix(err, "report: ");
        return -1;
    }
    bool no_html = ro.html && out.md_written && !out.html_written;
    if (ro.pdf && !out.pdf_written) {
        struct error serr;
        error_init(&serr);
        if (space_probe(dir, 8LL << 20, &serr) == SPACE_FULL) {
            *err = serr;
            error_prefix(err, "no PDF: ");
            return -1;
        }
        fprintf(stderr, "\n%s: no PDF: %s\n", r->student_id,
                out.pdf_note[0] ? out.pdf_note : rerr.msg);
        b->no_pdf++;
    } else if (rrc != 0 && !no_html) {
        fprintf(stderr, "\n%s: report: %s\n", r->student_id, rerr.msg);
    }
    if (no_html)
        fprintf(stderr, "%s: no HTML page: %s\n", r->student_id, out.html_note);
    if (rrc != 0 && o->pdf_mode > 0) {
        *err = rerr;
        return -1;
    }
    return 0;
}

/*
 * Everything of one student, stamp last. Every write is checked: any that fails (a full
 * disk above all) is the grader's error, and the student stays unstamped, to be graded
 * again. So do results with an XX case: the next run grades them again.
 */
static int write_student(struct batch_run *b, struct results *r, const struct todo *t,
                         struct error *err)
{
    const struct batch_opts *o = b->o;
    double t0 = now_seconds();
    char *json = path_join(t->dir, "results.json");
    char *stamp = path_join(t->dir, ".graded");
    char *gs = path_join(t->dir, "gradescope.json");
    char *gs_all = path_join(t->dir, "gradescope-instructor.json");
    char *junit = path_join(t->dir, "junit.xml");
    char *junit_all = path_join(t->dir, "junit-instructor.xml");
    struct strbuf text = STRBUF_INIT;
    int rc = -1;
    if (mkdir_p(t->dir, err) != 0)
        goto out;
    /* The old stamp goes before anything is replaced and the new one comes last: a
     * crash in between leaves no stamp, so new results are never certified by a stamp
     * of other options (nor old results by the new one); it only costs a re-grade. */
    if (unlink(stamp) != 0 && errno != ENOENT) {
        error_set(err, "%s: cannot remove: %s", stamp, strerror(errno));
        goto out;
    }
    remove_stale_tmp(t->dir);
    if (record_lms(b, r, t, json, err) != 0)
        goto out;
    results_to_json(r, &text);
    if (write_file_atomic(json, text.buf, text.len, err) != 0)
        goto out;
    /* What students get is the student view (hidden cases as counts unless the lab
     * sets show_hidden); the instructor's full view has its own names. */
    struct gradescope_opts gso = {
        .student_view = true, .messages = o->grade.messages, .lab = b->lab};
    struct gradescope_opts gso_all = {.messages = o->grade.messages, .lab = b->lab};
    struct junit_opts jo = {true, o->grade.messages}, jo_all = {false, o->grade.messages};
    if (export_gradescope(r, &gso, gs, err) != 0 ||
        export_gradescope(r, &gso_all, gs_all, err) != 0 || export_junit(r, &jo, junit, err) != 0 ||
        export_junit(r, &jo_all, junit_all, err) != 0)
        goto out;
    if (o->pdf_mode >= -1 && write_report(b, r, t->dir, err) != 0)
        goto out;
    /* Not stamped, so graded again next time: a grader error, and a case not timed here. */
    if (grade_gap_of(r, NULL) == GAP_NONE) {
        char *certified = stamp_certifying(t->stamp, text.buf, text.len);
        int src = write_file_atomic(stamp, certified, strlen(certified), err);
        free(certified);
        if (src != 0)
            goto out;
    }
    rc = 0;
out:
    b->report_seconds += now_seconds() - t0;
    strbuf_release(&text);
    free(json);
    free(stamp);
    free(gs);
    free(gs_all);
    free(junit);
    free(junit_all);
    return rc;
}

int batch_grade_one(struct batch_run *b, const struct todo *t, bool build_only, struct results *r,
                    struct error *err)
{
    const struct batch_opts *o = b->o;
    struct grade_opts g = o->grade;
    g.submission = t->sub->dir;
    g.student_id = t->sub->id;
    g.student_name = t->sub->name;
    g.build_only = build_only;
    g.reuse_build = !build_only;
    /* The build pass's folders are the grading pass's input; --keep keeps the runs too. */
    g.keep_work = build_only || o->grade.keep_work;
    g.reuse_ref_times = true;
    g.progress = NULL;
    g.first_variant = (size_t)(t - b->todo);
    if (grade_submission(b->env, b->lab, &g, r, err) != 0)
        return -1;
    /* Graded from a copy in a working folder that is gone by the time anyone reads the
     * report: the report names where the submission came from instead. */
    free(r->submission);
    r->submission = xstrfmt("%s (%s)", o->submissions, t->sub->id);
    return 0;
}

int batch_grade_student(struct batch_run *b, const struct todo *t)
{
    struct results r;
    struct error err;
    int outcome;
    error_init(&err);
    results_init(&r);
    if (batch_grade_one(b, t, false, &r, &err) != 0 || write_student(b, &r, t, &err) != 0) {
        char msg[2600];
        error_format(&err, msg, sizeof(msg));
        fprintf(stderr, "\n%s: grader error (not graded, graded again next time): %s\n", t->sub->id,
                msg);
        outcome = OUT_XX;
    } else {
        outcome = OUT_WRITTEN | (r.n_fail ? OUT_FAILING : 0) | (r.n_grader_errors ? OUT_XX : 0) |
                  (r.n_not_timed ? OUT_NOT_TIMED : 0);
    }
    results_release(&r);
    return outcome;
}

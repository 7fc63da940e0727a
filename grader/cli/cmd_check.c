/* grader check: grade one submission, print its table, write its results and report. */
#include "cli/cli.h"

#include "class/collect.h"
#include "class/lmsinfo.h"
#include "grade/grade.h"
#include "run/turns.h"
#include "grade/results.h"
#include "report/gradescope.h"
#include "report/table.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The folder to grade: --submission, else the lab's solution (in a kit: its skeleton). */
static int pick_submission(struct cli *c, const struct lab *lab, char **out)
{
    char *sub = c->a.submission ? xstrdup(c->a.submission) : path_join(lab->dir, "solution");
    if (!c->a.submission && !dir_exists(sub)) {
        free(sub);
        sub = path_join(lab->dir, "skeleton");
    }
    if (!dir_exists(sub)) {
        cli_error(c, cli_tr(c, "%s: no such folder (the submission to grade)"), sub);
        free(sub);
        return EXIT_USAGE;
    }
    *out = sub;
    return 0;
}

static void check_opts(struct cli *c, const char *submission, const char *work,
                       struct grade_opts *o)
{
    const struct cli_args *a = &c->a;
    grade_opts_init(o);
    o->full = a->full;
    o->hidden = a->hidden;
    o->no_timing = a->no_timing;
    o->cases = a->cases;
    o->only = a->only;
    o->timeout_s = a->timeout_s;
    o->keep_work = a->keep;
    o->profile = a->profile;
    if (a->sanitize >= 0)
        o->sanitize = (enum sanitize_mode)a->sanitize;
    o->messages = &c->msgs;
    o->submission = submission;
    o->student_id = a->student;
    o->student_name = a->name;
    o->work_dir = work;
    o->progress = a->quiet ? NULL : stderr;
    o->variant_jobs = a->parallel > 0 ? a->parallel : cli_parallel_auto();
}

static int status_of(const struct results *r)
{
    if (r->n_grader_errors)
        return EXIT_GRADER;
    return r->n_fail ? EXIT_FAIL : EXIT_PASS;
}

/* What check leaves for an LMS beside results.json: the student's gradescope.json
 * (report/gradescope.h), the student view. */
static int write_check_exports(struct cli *c, const struct lab *lab, const struct results *r,
                               const char *dir, struct error *err)
{
    struct gradescope_opts go = {.student_view = true, .messages = &c->msgs, .lab = lab};
    char *path = path_join(dir, "gradescope.json");
    int rc = export_gradescope(r, &go, path, err);
    free(path);
    return rc;
}

/* results.json, gradescope.json, the console table and the report, under OUT/<lab>/<student>/;
 * then results.json again with the reports' time, and where the time went on the console. */
static int write_results(struct cli *c, const struct lab *lab, struct results *r, const char *out)
{
    struct error err;
    char *dir = xstrfmt("%s/%s/%s", out, lab->id, r->student_id);
    char *json = path_join(dir, "results.json");
    struct table_opts to;
    table_opts_init(&to);
    to.color = table_use_color(stdout);
    to.msgs = &c->msgs;
    int status = EXIT_GRADER;
    error_init(&err);
    if (mkdir_p(dir, &err) != 0 || results_write(r, json, &err) != 0 ||
        write_check_exports(c, lab, r, dir, &err) != 0) {
        error_print(&err, stderr);
    } else {
        if (!c->a.quiet)
            fputc('\n', stdout);
        table_print(stdout, r, &to);
        table_print_summary(stdout, r, &to);
        status = status_of(r);
        double t_reports = now_seconds();
        /* A PDF that was required and not made fails a passing check; otherwise it is a note. */
        if (cli_render_report(c, r, dir, true, false) != 0 && c->a.pdf_mode > 0 &&
            status == EXIT_PASS)
            status = EXIT_GRADER;
        /* results.json again, now with the reports' time in its phases. */
        r->phase_reports_s = now_seconds() - t_reports;
        if (results_write(r, json, &err) != 0) {
            error_print(&err, stderr);
            status = status == EXIT_PASS ? EXIT_GRADER : status;
        }
        table_print_phases(stdout, r, &to);
        printf(cli_tr(c, "results: %s\n"), json);
    }
    free(dir);
    free(json);
    return status;
}

/* Whether every source file the lab asks for is where the lab says, in dir. */
static bool sources_in_place(const struct lab *lab, const char *dir)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            const struct impl_spec *im = &lab->exercises[e].variants[v].student;
            for (size_t i = 0; i < im->n_sources; i++) {
                char *path = path_join(dir, im->sources[i]);
                bool there = file_exists(path);
                free(path);
                if (!there)
                    return false;
            }
        }
    return true;
}

/*
 * A folder without the lab's sources where the lab says (the student's zip, a folder inside
 * the folder) is collected as grader grade collects a student's (class/collect.h: archives
 * unpacked, the sources found where they are), into a folder of the work folder; *dir is then
 * the folder to grade, and sub what collection found. 0, or the exit status of a failure.
 */
static int unpack_submission(struct cli *c, const struct lab *lab, const char *submission,
                             const char *work, struct submission_set *set, char **unpack,
                             const char **dir)
{
    struct error err;
    *dir = submission;
    if (sources_in_place(lab, submission))
        return 0;
    char **sources = lab_source_names(lab);
    struct collect_opts co = {NULL, NULL, (const char *const *)sources, true};
    error_init(&err);
    *unpack = xstrfmt("%s/check-unpack-XXXXXX", work);
    int rc = mkdir_p(work, &err) == 0 && mkdtemp(*unpack) ? 0 : -1;
    if (rc != 0)
        error_set_at(&err, *unpack, 0, 0, "cannot create a folder to unpack into");
    else
        rc = collect_submissions_opts(submission, *unpack, &co, set, &err);
    lab_source_names_free(sources);
    if (rc != 0 || set->n != 1) {
        error_print(&err, stderr);
        return EXIT_GRADER;
    }
    for (size_t i = 0; i < set->n_warnings; i++)
        fprintf(stderr, "%s\n", set->warnings[i]);
    *dir = set->items[0].dir;
    if (!c->a.quiet)
        fprintf(stderr,
                cli_tr(c, "%s does not have the lab's files where the lab says: collected as "
                          "grader grade collects a student's folder (archives unpacked, the "
                          "files found where they are)\n"),
                submission);
    return 0;
}

/* What collection found, into the results: the folder as given, and a refusal's verdicts. */
static void note_unpacked(struct cli *c, const struct submission_set *set, const char *submission,
                          struct results *r)
{
    if (set->n != 1)
        return;
    free(r->submission);
    r->submission = xstrdup(submission);
    if (set->items[0].problem != SUBMISSION_OK)
        lmsinfo_mark_refused(&set->items[0], &c->msgs, r);
}

static int grade_one(struct cli *c, const struct lab *lab, const char *submission)
{
    const char *out = c->a.out ? c->a.out : "reports";
    char *cache = xstrfmt("%s/.cache", out), *work = cli_work_folder(out);
    struct grade_env env;
    struct grade_opts o;
    struct results r;
    struct error err;
    struct submission_set set;
    char *unpack = NULL;
    const char *dir = submission;
    int status = EXIT_GRADER;
    cli_catch_signals();
    grade_env_init(&env);
    results_init(&r);
    error_init(&err);
    submission_set_init(&set);
    if ((status = unpack_submission(c, lab, submission, work, &set, &unpack, &dir)) != 0)
        goto out;
    status = EXIT_GRADER;
    env.memory_limit_bytes = c->a.memory_limit;
    if (grade_env_setup(&env, c->home.harness_dir, c->home.include_dir, cache,
                        cli_isolation(c->a.isolation), &err) != 0) {
        error_print(&err, stderr);
        goto out;
    }
    if (c->a.compile_timeout_s > 0)
        env.tc.compile_timeout_s = c->a.compile_timeout_s;
    if (c->a.timing_wait_s > 0)
        env.turns.wait_s = c->a.timing_wait_s;
    grade_calibrate_say(&env, c->a.quiet ? NULL : stderr, &c->msgs);
    check_opts(c, dir, work, &o);
    /* The id is the folder's as given, not the unpacked copy's. */
    if (!o.student_id && unpack)
        o.student_id = set.items[0].id;
    if (!c->a.quiet)
        fprintf(stderr, cli_tr(c, "grading %s against %s ...\n"), submission, lab->path);
    if (grade_submission(&env, lab, &o, &r, &err) != 0) {
        error_print(&err, stderr);
        cli_error(c, "%s",
                  cli_tr(c, "grading stopped by a grader error (not the submission's fault)"));
        goto out;
    }
    if (unpack)
        note_unpacked(c, &set, submission, &r);
    /* Writing the results and pages (and plotting, and pandoc and LaTeX for the PDF) takes
     * cores for milliseconds to seconds: not while a series is timed on them (run/work.h). */
    size_t n_held = 0;
    int *held = turns_hold_cores(&env.turns, &n_held);
    status = write_results(c, lab, &r, out);
    turns_let_go(held, n_held);
out:
    results_release(&r);
    grade_env_release(&env);
    submission_set_release(&set);
    if (unpack)
        remove_tree(unpack, NULL);
    free(unpack);
    free(cache);
    free(work);
    return status;
}

int cmd_check(struct cli *c)
{
    struct lab lab;
    char *submission = NULL;
    int status = cli_load_lab(c, &lab, c->a.pos[0]);
    if (status == 0)
        status = cli_check_selection(c, &lab, c->a.only, c->a.cases, c->a.hidden, c->a.full);
    if (status == 0)
        status = pick_submission(c, &lab, &submission);
    if (status == 0)
        status = cli_home(c);
    if (status == 0)
        status = grade_one(c, &lab, submission);
    free(submission);
    lab_release(&lab);
    return status;
}

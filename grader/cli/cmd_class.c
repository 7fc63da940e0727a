/* grader grade and grader merge: a class graded (maybe in shards), and shards joined. */
#include "cli/cli.h"

#include "class/batch.h"
#include "class/lock.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <string.h>
#include <unistd.h>

/* The options grade and merge share, over batch_opts_init()'s defaults. */
static void batch_from_args(const struct cli *c, struct batch_opts *o)
{
    const struct cli_args *a = &c->a;
    batch_opts_init(o);
    o->submissions = a->submissions;
    o->roster = a->roster;
    o->canvas_assignment = a->canvas_assignment;
    o->lang = a->lang;
    if (a->out)
        o->out = a->out;
    o->jobs = a->jobs;
    o->gpus = a->gpus;
    o->shard_k = a->shard[0];
    o->shard_n = a->shard[1];
    o->force = a->force;
    o->pdf_mode = a->pdf_mode;
    o->no_html = a->no_html;
    o->templates_dir = c->home.templates_dir;
    /* A class is graded in full unless told otherwise. */
    o->grade.full = !a->no_slow;
    o->grade.hidden = !a->no_hidden;
    o->grade.no_timing = a->no_timing;
    o->grade.timeout_s = a->timeout_s;
    o->grade.only = a->only;
    o->grade.keep_work = a->keep;
    o->grade.profile = a->profile;
    /* One variant after another unless asked: side by side (a class of ten on an H200 at 7.7 a
     * minute against 6.5), a worker's series were measured again more often, and five re-grades
     * of lab 6 spread one CPU case by 5% (docs/benchmarks.md); several workers on one GPU
     * (--gpus N) overlap their untimed work instead. */
    o->grade.variant_jobs = a->parallel > 0 ? a->parallel : 1;
    if (a->sanitize >= 0)
        o->grade.sanitize = (enum sanitize_mode)a->sanitize;
    /* Checked when the policy is made, naming the option (class/late.h). */
    o->late = (struct late_options){a->deadline, a->grace,         a->late_per_day,
                                    a->late_cap, a->late_max_days, a->extensions};
    o->regrade_reason = a->reason;
    o->canvas_points = a->canvas_points;
}

static void print_summary(const struct lab *lab, const struct batch_summary *sum)
{
    printf("%s: %d graded, %d unchanged, %d with failures, %d with grader errors", lab->id,
           sum->graded, sum->skipped_unchanged, sum->failed, sum->grader_errors);
    if (sum->not_timed)
        printf(", %d not timed (the machine was busy: graded again next time)", sum->not_timed);
    if (sum->no_pdf)
        printf(", %d without a PDF", sum->no_pdf);
    printf("\n");
    if (sum->graded)
        printf("time: collect %.1f s, references %.1f s, compile %.1f s (beside the runs), runs "
               "%.1f s, reports %.1f s\n",
               sum->t_collect, sum->t_prepare, sum->t_build, sum->t_runs, sum->t_reports);
}

/* After grading: a shard's hint, or the gradebooks and the summary. */
static int finish_grade(struct cli *c, const struct lab *lab, const struct batch_opts *o,
                        const struct batch_summary *sum)
{
    struct error err;
    int missing = 0;
    if (o->shard_n && !c->a.no_merge) {
        printf(cli_tr(c, "shard %d/%d done; join the shards with: grader merge %s --out %s\n"),
               o->shard_k, o->shard_n, c->a.pos[0], o->out);
    } else if (!c->a.no_merge) {
        struct batch_opts mo = *o;
        mo.submissions = NULL;
        error_init(&err);
        if (batch_merge(lab, &mo, &missing, NULL, &err) != 0) {
            error_print(&err, stderr);
            return EXIT_GRADER;
        }
    }
    return sum->grader_errors || sum->not_timed ? EXIT_GRADER : EXIT_PASS;
}

static int grade_class(struct cli *c, const struct lab *lab)
{
    struct batch_opts o;
    struct batch_summary sum;
    struct grade_env env;
    struct error err;
    int status = EXIT_GRADER;
    batch_from_args(c, &o);
    cli_catch_signals();
    o.progress_bar = isatty(2) && !getenv("NO_PROGRESS");
    char *cache = xstrfmt("%s/.cache", o.out);
    char *work = cli_work_folder(o.out);
    o.grade.work_dir = work;
    grade_env_init(&env);
    env.grade_mode = true;
    error_init(&err);
    memset(&sum, 0, sizeof(sum));
    if (grade_env_setup(&env, c->home.harness_dir, c->home.include_dir, cache,
                        cli_isolation(c->a.isolation), &err) != 0) {
        error_print(&err, stderr);
    } else {
        if (c->a.compile_timeout_s > 0)
            env.tc.compile_timeout_s = c->a.compile_timeout_s;
        if (c->a.timing_wait_s > 0)
            env.turns.wait_s = c->a.timing_wait_s;
        grade_calibrate(&env, stderr);
        if (batch_grade(&env, lab, &o, &sum, &err) != 0) {
            error_print(&err, stderr);
            status = sum.bad_input ? EXIT_USAGE : EXIT_GRADER;
        } else {
            print_summary(lab, &sum);
            status = finish_grade(c, lab, &o, &sum);
        }
    }
    grade_env_release(&env);
    free(cache);
    free(work);
    return status;
}

int cmd_grade(struct cli *c)
{
    struct lab lab;
    if (!c->a.submissions) {
        cli_error(c, "%s",
                  cli_tr(c, "--submissions DIR (a folder per student, or an LMS zip) is "
                            "required"));
        return EXIT_USAGE;
    }
    int status = cli_load_lab(c, &lab, c->a.pos[0]);
    if (status == 0)
        status = cli_check_selection(c, &lab, c->a.only, NULL, true, true);
    if (status == 0)
        status = cli_home(c);
    if (status == 0)
        status = grade_class(c, &lab);
    lab_release(&lab);
    return status;
}

/* Is a grader at work on labdir? Then say who (lock.h) and answer true. */
static bool folder_in_use(const char *labdir)
{
    struct error err;
    error_init(&err);
    if (!out_lock_busy(labdir, &err))
        return false;
    error_print(&err, stderr);
    return true;
}

/* Nothing graded under OUT/<lab> is a wrong --out or a class not graded yet: usage; unless a
 * grader is at work there (its first results not written yet), which merge may not join. */
static int check_graded(struct cli *c, const struct lab *lab, const char *out)
{
    char *labdir = xstrfmt("%s/%s", out, lab->id);
    char **dirs = NULL;
    size_t n = 0;
    cli_result_dirs(labdir, &dirs, &n, NULL);
    for (size_t i = 0; i < n; i++)
        free(dirs[i]);
    free(dirs);
    if (n == 0 && folder_in_use(labdir)) {
        free(labdir);
        return EXIT_GRADER;
    }
    if (n == 0)
        cli_error(c,
                  cli_tr(c, "no results.json under %s: grade first (grader grade %s "
                            "--submissions DIR), or name the reports folder with --out"),
                  labdir, c->a.pos[0]);
    free(labdir);
    return n ? 0 : EXIT_USAGE;
}

static int merge_class(struct cli *c, const struct lab *lab)
{
    struct batch_opts o;
    struct error err;
    int missing = 0;
    bool bad_input = false;
    batch_from_args(c, &o);
    int status = check_graded(c, lab, o.out);
    if (status)
        return status;
    error_init(&err);
    if (batch_merge(lab, &o, &missing, &bad_input, &err) != 0) {
        error_print(&err, stderr);
        /* A submissions folder or roster that cannot be read is the caller's to fix. */
        return bad_input ||
                       (o.submissions && !dir_exists(o.submissions) && !file_exists(o.submissions))
                   ? EXIT_USAGE
                   : EXIT_GRADER;
    }
    if (missing == 1)
        cli_error(c, "%s", cli_tr(c, "1 student not graded yet: re-run their shard"));
    else if (missing)
        cli_error(c, cli_tr(c, "%d students not graded yet: re-run their shards"), missing);
    return missing ? EXIT_FAIL : EXIT_PASS;
}

int cmd_merge(struct cli *c)
{
    struct lab lab;
    int status = cli_load_lab(c, &lab, c->a.pos[0]);
    if (status == 0)
        status = cli_home(c);
    if (status == 0)
        status = merge_class(c, &lab);
    lab_release(&lab);
    return status;
}

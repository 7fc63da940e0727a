/*
 * autograde: `grader autograde`, the grading half of the Gradescope autograder
 * (gradescope.h): one submission from a Gradescope-shaped root folder to
 * results/results.json.
 */
#include "base/alloc.h"
#include "base/fs.h"
#include "base/isotime.h"
#include "base/json.h"
#include "base/messages.h"
#include "base/strbuf.h"
#include "base/trace.h"
#include "base/util.h"
#include "class/archive.h"
#include "class/collect.h"
#include "class/gradescope.h"
#include "class/late.h"
#include "class/lmsinfo.h"
#include "grade/grade.h"
#include "grade/score.h"
#include "report/gradescope.h"
#include "report/table.h"
#include "run/turns.h"
#include "run/work.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { AG_OK = 0, AG_NO_GPU = 1, AG_USAGE = 2, AG_GRADER = 3 };
/* Gradescope stops an autograder after its assignment's timeout, 10 minutes by default. */
#define AUTOGRADE_DEFAULT_LIMIT_S 600.0
/* The answer is due this long before the limit, a fifth of it within these bounds: what is left
 * to run untimed once the waiting stops (the remaining cases' checked calls), the results, and
 * the remote policy's copy back. */
#define AUTOGRADE_RESERVE_SHARE 0.2
#define AUTOGRADE_RESERVE_MIN_S 30.0
#define AUTOGRADE_RESERVE_MAX_S 120.0

enum ag_policy { AG_INFORMATIONAL, AG_REMOTE, AG_FAIL };

/* Everything one run holds, released together. */
struct ag_run {
    struct autograde_args cli;
    enum ag_policy policy;
    struct lab lab;
    bool lab_loaded;
    struct grade_env env;
    struct messages msgs;
    struct submission_set set;
    struct results r;
    struct json_value *meta;
    char *root, *out, *tmp;
    /* This run's own folder under out/.autograde/ (its unpacked submission and its work): runs
     * at once share only the cache and the machine's timing coordinator. */
    char *priv;
    int slot_fd; /* the grading slot held (take_slot), -1: none */
    size_t slot; /* its number: which variant this run grades first (grade_opts.first_variant) */
    FILE *log;   /* the console: stdout, or stderr when stdout carries results.json */
    /* When this run began, and the moment no wait may pass: its runner's limit less the reserve
     * (now_seconds). */
    double start, wait_until;
};

static int parse_policy(const char *s, enum ag_policy *p)
{
    if (!strcmp(s, "informational"))
        *p = AG_INFORMATIONAL;
    else if (!strcmp(s, "remote"))
        *p = AG_REMOTE;
    else if (!strcmp(s, "fail"))
        *p = AG_FAIL;
    else
        return -1;
    return 0;
}

static void run_release(struct ag_run *run)
{
    if (run->lab_loaded)
        lab_release(&run->lab);
    grade_env_release(&run->env);
    messages_release(&run->msgs);
    submission_set_release(&run->set);
    results_release(&run->r);
    json_value_free(run->meta);
    if (run->tmp)
        remove_tree(run->tmp, NULL);
    if (run->priv)
        remove_tree(run->priv, NULL);
    free(run->priv);
    if (run->slot_fd >= 0)
        close(run->slot_fd);
    free(run->root);
    free(run->out);
    free(run->tmp);
}

static bool lab_has_gpu(const struct lab *lab)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        if (exercise_has_gpu(&lab->exercises[e]))
            return true;
    return false;
}

/* The lab's points when everything runs: what Gradescope's assignment is out of. */
static double lab_points(const struct lab *lab)
{
    double total = 0;
    for (size_t e = 0; e < lab->n_exercises; e++)
        total += lab->exercises[e].points +
                 (lab->exercises[e].has_perf ? lab->exercises[e].perf.points : 0);
    return total;
}

/* ---- the submission arriving on stdin (the remote policy's GPU machine) ---- */

/* stdin into path, at most max bytes (what arrives is compressed: the unpacking counts
 * again). */
static int copy_stdin(const char *path, long long max, struct error *err)
{
    int out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    char buf[65536];
    long long total = 0;
    int rc = out < 0 ? error_set_at(err, path, 0, 0, "cannot create: %s", strerror(errno)) : 0;
    while (rc == 0) {
        ssize_t n = read(0, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0
                     ? error_set(err, "cannot read the submission from stdin: %s", strerror(errno))
                     : 0;
            break;
        }
        if ((total += n) > max)
            rc = error_set(err, "the submission on stdin is over %lld bytes", max);
        else if (write(out, buf, (size_t)n) != n)
            rc = error_set_at(err, path, 0, 0, "cannot write: %s", strerror(errno));
    }
    if (out >= 0 && close(out) != 0 && rc == 0)
        rc = error_set_at(err, path, 0, 0, "cannot write: %s", strerror(errno));
    return rc;
}

/* stdin's tar.gz (submission/ and submission_metadata.json) kept in a new folder as it came:
 * the runner sends it at once, and it is unpacked (unpack_stdin) once this process takes part in
 * the machine's coordinator. */
static int receive_stdin(struct ag_run *run, struct error *err)
{
    char tmpl[] = "/tmp/lg-autograde-XXXXXX";
    struct collect_limits lim;
    if (!mkdtemp(tmpl))
        return error_set(err, "cannot create a temporary folder: %s", strerror(errno));
    run->tmp = xstrdup(tmpl);
    run->root = path_join(run->tmp, "root");
    char *tar = path_join(run->tmp, "in.tar.gz");
    collect_limits_init(&lim);
    int rc = copy_stdin(tar, lim.max_total_bytes, err);
    free(tar);
    return rc;
}

/* The tar.gz unpacked into the root, with the limits of one submission (what arrives is as
 * untrusted as the submission), in a section of the grader's own work (run/work.h): beside
 * another grader's CPU series it would be that series' neighbour. */
static int unpack_stdin(struct ag_run *run, struct error *err)
{
    struct collect_limits lim;
    struct budget b;
    struct quota q;
    char *tar = path_join(run->tmp, "in.tar.gz");
    collect_limits_init(&lim);
    memset(&b, 0, sizeof(b));
    memset(&q, 0, sizeof(q));
    q.label = "the submission sent to this machine";
    q.lim = &lim;
    q.single = &b;
    work_begin();
    int rc = mkdir_p(run->root, err);
    int fd = rc ? -1 : open(run->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!rc && fd < 0)
        rc = error_set_at(err, run->root, 0, 0, "cannot open: %s", strerror(errno));
    if (!rc && extract_archive(tar, fd, &q, err) != 0)
        rc = -1;
    work_end();
    if (fd >= 0)
        close(fd);
    free(tar);
    return rc ? -1 : 0;
}

/* ---- Gradescope's metadata ---- */

static int read_metadata(struct ag_run *run, struct error *err)
{
    char *path = path_join(run->root, "submission_metadata.json");
    struct strbuf text = STRBUF_INIT;
    int rc = 0;
    if (file_exists(path) && (read_file(path, &text, err) != 0 ||
                              json_parse(text.buf, text.len, &run->meta, err) != 0)) {
        if (err)
            snprintf(err->file, sizeof(err->file), "%s", path);
        rc = -1;
    }
    strbuf_release(&text);
    free(path);
    return rc;
}

static const struct json_value *meta_user(const struct ag_run *run, size_t i)
{
    const struct json_value *users = run->meta ? json_get(run->meta, "users") : NULL;
    return users && users->type == JSON_ARRAY && i < users->n ? json_at(users, i) : NULL;
}

/* A user's id as Gradescope gives it: a number, or text. */
static char *user_field(const struct json_value *u, const char *key)
{
    const struct json_value *v = u ? json_get(u, key) : NULL;
    if (v && v->type == JSON_STRING && *v->string)
        return xstrdup(v->string);
    if (v && v->type == JSON_NUMBER)
        return xstrfmt("%.0f", v->number);
    return NULL;
}

/* The student (and a group's members) as Gradescope says, into the results. */
static void apply_metadata(struct ag_run *run, struct results *r)
{
    const struct json_value *u = meta_user(run, 0);
    char *email = user_field(u, "email"), *name = user_field(u, "name");
    if (email) {
        free(r->student_id);
        r->student_id = xstrdup(email);
        free(r->lms.ids.email);
        r->lms.ids.email = email;
    }
    if (name) {
        free(r->student_name);
        r->student_name = name;
    }
    for (size_t i = 1; meta_user(run, i); i++) {
        if (i == 1) {
            r->lms.members = xcalloc(1, sizeof(*r->lms.members));
            r->lms.members[0].id = xstrdup(r->student_id ? r->student_id : "student");
            r->lms.members[0].name = r->student_name ? xstrdup(r->student_name) : NULL;
            lms_ids_copy(&r->lms.members[0].ids, &r->lms.ids);
            r->lms.n_members = 1;
        }
        const struct json_value *m = meta_user(run, i);
        r->lms.members = xrealloc(r->lms.members, (r->lms.n_members + 1) * sizeof(*r->lms.members));
        struct lms_member *dst = &r->lms.members[r->lms.n_members++];
        memset(dst, 0, sizeof(*dst));
        dst->ids.email = user_field(m, "email");
        dst->id = dst->ids.email ? xstrdup(dst->ids.email) : xstrfmt("user-%zu", i + 1);
        dst->name = user_field(m, "name");
    }
    const char *created = run->meta ? json_get_string(run->meta, "created_at") : NULL;
    if (created) {
        long long t;
        char buf[40];
        if (iso_time_parse(created, &t)) {
            iso_time_format(t, buf, sizeof(buf));
            free(r->lms.late.submitted_at);
            free(r->lms.late.source);
            r->lms.late.submitted_at = xstrdup(buf);
            r->lms.late.source = xstrdup("gradescope");
        }
    }
}

/* ---- grading ---- */

/* Whether an exercise's speed points are measured on this variant (all of them, where the lab
 * names none). */
static bool speed_variant(const struct exercise_spec *spec, const struct variant_result *vr)
{
    return !spec || !spec->perf.variant ||
           (vr->variant_id && !strcmp(vr->variant_id, spec->perf.variant));
}

/* Cases not run here count nothing (Gradescope shows them with max_score 0 and why), nor
 * does a speed score whose variant never ran: a GPU-less runner never lowers a score. */
static void uncount_not_run(struct results *r, const struct lab *lab)
{
    for (size_t e = 0; e < r->n_exercises; e++) {
        struct exercise_result *ex = &r->exercises[e];
        const struct exercise_spec *spec =
            lab_exercise(lab, ex->exercise_id ? ex->exercise_id : "");
        bool perf_ran = false;
        for (size_t v = 0; v < ex->n_variants; v++) {
            struct variant_result *vr = &ex->variants[v];
            bool perf_variant = speed_variant(spec, vr);
            for (size_t c = 0; c < vr->n_cases; c++) {
                if (vr->cases[c].verdict == V_SKIPPED)
                    vr->cases[c].max_points = 0;
                else if (perf_variant)
                    perf_ran = true;
            }
        }
        if (!perf_ran)
            ex->perf_points = ex->perf_max_points = 0;
    }
    results_tally(r);
}

/* Cases the machine could not time before the answer was due keep their correctness verdicts and
 * points; the speed points of an exercise any of whose speed cases went untimed are left to the
 * instructor's grading, counted neither for nor against this answer (an average of the cases that
 * were timed would stand for the others). Returns those points (0 when the untimed cases carried
 * none); the answer says so (report/gradescope.h's speed_pending). */
static double defer_untimed_speed(struct results *r, const struct lab *lab)
{
    double pending = 0;
    for (size_t e = 0; e < r->n_exercises; e++) {
        struct exercise_result *ex = &r->exercises[e];
        const struct exercise_spec *spec =
            lab_exercise(lab, ex->exercise_id ? ex->exercise_id : "");
        bool untimed = false;
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_result *vr = &ex->variants[v];
            bool counts = spec && spec->has_perf && speed_variant(spec, vr);
            for (size_t c = 0; counts && c < vr->n_cases; c++)
                untimed = untimed || case_not_timed(&vr->cases[c]);
        }
        if (untimed && ex->perf_max_points > 0) {
            pending += ex->perf_max_points;
            ex->perf_points = ex->perf_max_points = 0;
        }
    }
    results_tally(r);
    return pending;
}

/* The lab's late policy, with Gradescope's due date when the metadata has one. */
static void apply_late(struct ag_run *run, struct results *r)
{
    struct late_policy p;
    struct late_options o;
    memset(&o, 0, sizeof(o));
    const struct json_value *a = run->meta ? json_get(run->meta, "assignment") : NULL;
    const char *due = a ? json_get_string(a, "due_date") : NULL;
    if (run->lab.late.set && due)
        o.deadline = due;
    if (late_policy_make(&run->lab, &o, &p, NULL) == 0) {
        late_apply(&p, r->student_id, r);
        late_policy_release(&p);
    }
}

static int collect_one(struct ag_run *run, struct error *err)
{
    char *sub = path_join(run->root, "submission");
    char *unpack = path_join(run->priv, "unpack");
    char **sources = lab_source_names(&run->lab);
    struct collect_opts co = {NULL, NULL, (const char *const *)sources, true};
    /* Copying and checking the sources is this process's own work (run/work.h). */
    work_begin();
    int rc = collect_submissions_opts(sub, unpack, &co, &run->set, err);
    work_end();
    for (size_t i = 0; i < run->set.n_warnings; i++)
        fprintf(run->log, "warning: %s\n", run->set.warnings[i]);
    lab_source_names_free(sources);
    free(unpack);
    free(sub);
    return rc;
}

static int grade_it(struct ag_run *run, struct error *err)
{
    struct grade_opts o;
    const struct submission *sub = &run->set.items[0];
    char *work = path_join(run->priv, "work");
    grade_opts_init(&o);
    o.submission = sub->dir;
    o.student_id = sub->id;
    o.student_name = sub->name;
    o.work_dir = work;
    o.full = !run->cli.no_slow;
    o.hidden = true;
    o.no_timing = run->cli.no_timing;
    o.messages = &run->msgs;
    o.progress = run->log;
    o.first_variant = run->slot;
    /* GPU cases this runner cannot run are worth nothing here, never XX (grade.h). */
    o.gpu_policy = GPU_POLICY_INFORMATIONAL;
    int rc = grade_submission(&run->env, &run->lab, &o, &run->r, err);
    free(work);
    if (rc != 0)
        return -1;
    lmsinfo_record(sub, &run->r);
    if (sub->problem != SUBMISSION_OK)
        lmsinfo_mark_refused(sub, &run->msgs, &run->r);
    apply_metadata(run, &run->r);
    uncount_not_run(&run->r, &run->lab);
    apply_late(run, &run->r);
    return 0;
}

/* results.json where Gradescope reads it (or stdout, for the remote policy's caller). pending:
 * the speed points left to the instructor's grading, where cases were not timed (-1: none). */
static int write_results(struct ag_run *run, double pending, struct error *err)
{
    /* Pending speed points count in no maximum: the score is of what was graded, scaled to the
     * lab's points less them, never above it. */
    struct gradescope_opts go = {.student_view = true,
                                 .messages = &run->msgs,
                                 .lab = &run->lab,
                                 .scale_to = lab_points(&run->lab) - (pending > 0 ? pending : 0),
                                 .speed_pending = pending >= 0,
                                 .pending_points = pending >= 0 ? pending : 0};
    struct strbuf sb = STRBUF_INIT;
    int rc = 0;
    work_begin();
    export_gradescope_text(&run->r, &go, &sb);
    work_end();
    if (run->cli.stdin_tar) {
        rc = fwrite(sb.buf, 1, sb.len, stdout) == sb.len && fflush(stdout) == 0
                 ? 0
                 : error_set(err, "cannot write the results to stdout");
    } else {
        char *dir = path_join(run->root, "results");
        char *path = path_join(dir, "results.json");
        rc = mkdir_p(dir, err) != 0 || write_file_atomic(path, sb.buf, sb.len, err) != 0 ? -1 : 0;
        if (rc == 0)
            fprintf(run->log, "results: %s\n", path);
        free(dir);
        free(path);
    }
    strbuf_release(&sb);
    return rc;
}

/* A folder of this run's own: out/.autograde/run-XXXXXX. */
static int make_private(struct ag_run *run, struct error *err)
{
    char *parent = path_join(run->out, ".autograde");
    char *tmpl = path_join(parent, "run-XXXXXX");
    int rc = mkdir_p(parent, err);
    if (rc == 0 && !mkdtemp(tmpl))
        rc = error_set_at(err, tmpl, 0, 0, "cannot create this run's folder: %s", strerror(errno));
    free(parent);
    if (rc == 0)
        run->priv = tmpl;
    else
        free(tmpl);
    return rc;
}

/* Back-pressure at a deadline: at most `slots` autogrades of this machine build and run at
 * once (LABGRADER_AUTOGRADE_SLOTS, else half the CPUs), the others wait for a slot, and say so
 * on the console the student sees. A slot is a lock file in the machine's coordinator folder,
 * held until this process ends. */
static void take_slot(struct ag_run *run)
{
    const struct turns *t = &run->env.turns;
    const char *env = getenv("LABGRADER_AUTOGRADE_SLOTS");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN), slots = 0;
    if (!env || !parse_long(env, &slots) || slots < 1)
        slots = cpus > 3 ? cpus / 2 : 1;
    if (!t->dir)
        return;
    double t0 = now_seconds(), next = t0;
    while (now_seconds() < run->wait_until) {
        for (long k = 0; k < slots; k++) {
            char *path = xstrfmt("%s/autograde-slot-%ld.lock", t->dir, k);
            int fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
            free(path);
            if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0) {
                run->slot_fd = fd;
                run->slot = (size_t)k;
                trace_point("grading slot %ld taken after %.3f s", k, now_seconds() - t0);
                return;
            }
            if (fd >= 0)
                close(fd);
        }
        double now = now_seconds();
        if (now >= next) {
            fprintf(run->log,
                    messages_get(&run->msgs, "queued: all %ld grading slots of this machine are "
                                             "busy (a deadline?); waiting, %.0f s so far\n"),
                    slots, now - t0);
            fflush(run->log);
            next = now + 30;
        }
        struct timespec pause = {0, 200 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    /* No slot before the answer is due: graded now, beside the others, its cases checked but
     * not timed (their waits are over too), rather than not answered. */
    fprintf(run->log, "%s",
            messages_get(&run->msgs, "no grading slot came before the answer is due: graded now, "
                                     "without timing\n"));
}

static int setup_env(struct ag_run *run, const struct grader_paths *p, struct error *err)
{
    if (make_private(run, err) != 0)
        return -1;
    /* A deadline's submissions wait for their timed turns, and for their series to be measured
     * alone, until the answer is due (docs/coordinator.md, "The deadline rush"); so does the
     * setup's own work, from its first hashed file on. */
    if (run->cli.timing_wait_s > 0)
        run->env.turns.wait_s = run->cli.timing_wait_s;
    run->env.turns.deadline = run->wait_until;
    char *cache = path_join(run->out, ".cache");
    int rc = grade_env_setup(&run->env, p->harness_dir, p->include_dir, cache, ISOLATION_AUTO, err);
    free(cache);
    if (rc != 0)
        return -1;
    /* Measured once at setup and cached: later runs read it. */
    grade_calibrate(&run->env, stderr);
    /* Its own work on its lane's cores, which its sections hold (one lane per GPU). */
    turns_pin_self(&run->env.turns);
    if (messages_load_lang(&run->msgs, p->templates_dir,
                           run->cli.lang ? run->cli.lang : run->lab.lang, err) != 0) {
        char msg[2600];
        error_format(err, msg, sizeof(msg));
        fprintf(stderr, "grader autograde: warning: %s; messages stay in English\n", msg);
        error_init(err);
    }
    return 0;
}

/* The image is built once: references and every expected output, so a run only builds
 * and runs the student. */
static int setup_image(struct ag_run *run, struct error *err)
{
    struct grade_opts o;
    char *work = path_join(run->priv, "work");
    grade_opts_init(&o);
    o.full = !run->cli.no_slow;
    o.hidden = true;
    o.no_timing = run->cli.no_timing;
    o.work_dir = work;
    o.messages = &run->msgs;
    int rc = grade_prepare(&run->env, &run->lab, &o, err);
    free(work);
    if (rc == 0)
        fprintf(run->log,
                "autograder ready: references built and expected outputs computed for "
                "%s\n",
                run->lab.id);
    return rc;
}

static int load(struct ag_run *run, const struct grader_paths *p, struct error *err)
{
    char *yaml = dir_exists(run->cli.lab_arg) ? path_join(run->cli.lab_arg, "lab.yaml")
                                              : xstrdup(run->cli.lab_arg);
    int rc = spec_load(&run->lab, yaml, NULL, err);
    free(yaml);
    if (rc != 0)
        return AG_USAGE;
    run->lab_loaded = true;
    run->out = path_join(p->repo_root, "reports");
    if (!run->root) {
        const char *env = getenv("LABGRADER_AUTOGRADER_ROOT");
        run->root = xstrdup(run->cli.root ? run->cli.root : env && *env ? env : "/autograder");
    }
    return 0;
}

static int grade_submission_run(struct ag_run *run, struct error *err)
{
    if (!run->env.gpu.available && lab_has_gpu(&run->lab) && run->policy == AG_FAIL) {
        /* The instructor asked for an autograder failure rather than GPU cases unmarked. */
        fprintf(run->log,
                "No usable GPU on this runner (%s) and --gpu-policy fail: no results. Re-run "
                "this submission on a runner with a GPU.\n",
                run->env.gpu.reason ? run->env.gpu.reason : "no GPU");
        return AG_NO_GPU;
    }
    if (read_metadata(run, err) != 0 || collect_one(run, err) != 0 || run->set.n != 1 ||
        grade_it(run, err) != 0)
        return AG_GRADER;
    /* A grade the grader's side could not complete (a grader error) is no grade: an autograder
     * failure, which the instructor re-runs, never a partial score (grade/score.h). Cases the
     * machine could not time before the answer was due are answered, their speed points left
     * to the instructor's grading (defer_untimed_speed). */
    struct grade_gap_info gap;
    double pending = -1;
    if (grade_gap_of(&run->r, &gap) == GAP_NOT_TIMED)
        pending = defer_untimed_speed(&run->r, &run->lab);
    if (grade_gap_of(&run->r, &gap) != GAP_NONE && gap.gap != GAP_NOT_TIMED) {
        error_set(err,
                  "the grader's side failed on %zu case%s (%s: %s): no results; re-run this "
                  "submission",
                  gap.cases, gap.cases == 1 ? "" : "s", grade_gap_status(gap.gap), gap.reason);
        return AG_GRADER;
    }
    if (write_results(run, pending, err) != 0)
        return AG_GRADER;
    struct table_opts to;
    table_opts_init(&to);
    to.msgs = &run->msgs;
    table_print(run->log, &run->r, &to);
    table_print_summary(run->log, &run->r, &to);
    return AG_OK;
}

/* Seconds from the start within which every wait ends: the runner's limit less the reserve. */
static double answer_due(double limit_s)
{
    double limit = limit_s > 0 ? limit_s : AUTOGRADE_DEFAULT_LIMIT_S;
    double reserve = limit * AUTOGRADE_RESERVE_SHARE;
    reserve = reserve < AUTOGRADE_RESERVE_MIN_S   ? AUTOGRADE_RESERVE_MIN_S
              : reserve > AUTOGRADE_RESERVE_MAX_S ? AUTOGRADE_RESERVE_MAX_S
                                                  : reserve;
    return reserve < limit / 2 ? limit - reserve : limit / 2;
}

int autograde_run(const struct autograde_args *a, const struct grader_paths *p)
{
    struct ag_run run;
    struct error err;
    int status;
    memset(&run, 0, sizeof(run));
    run.slot_fd = -1;
    lab_init(&run.lab);
    grade_env_init(&run.env);
    messages_init(&run.msgs);
    submission_set_init(&run.set);
    results_init(&run.r);
    error_init(&err);
    run.cli = *a;
    run.start = now_seconds();
    run.wait_until = run.start + answer_due(a->time_limit_s);
    /* The option parser checked the value (cli/optable.c). */
    if (a->policy)
        parse_policy(a->policy, &run.policy);
    run.log = run.cli.stdin_tar ? stderr : stdout;
    if (run.cli.stdin_tar && receive_stdin(&run, &err) != 0)
        status = AG_GRADER;
    else if ((status = load(&run, p, &err)) != 0)
        ;
    else if (setup_env(&run, p, &err) != 0 || (run.cli.stdin_tar && unpack_stdin(&run, &err) != 0))
        status = AG_GRADER;
    else if (run.cli.setup)
        status = setup_image(&run, &err) == 0 ? AG_OK : AG_GRADER;
    else {
        take_slot(&run);
        status = grade_submission_run(&run, &err);
    }
    if (status == AG_GRADER || status == AG_USAGE) {
        fprintf(stderr, "grader autograde: ");
        error_print(&err, stderr);
        if (status == AG_GRADER)
            fprintf(stderr, "grader autograde: the grader failed (not the submission): no "
                            "results, so that Gradescope shows an autograder failure to re-run\n");
    }
    run_release(&run);
    return status;
}

#include "class/batch_internal.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"
#include "base/space.h"
#include "base/util.h"
#include "class/lmsinfo.h"
#include "class/lock.h"
#include "grade/results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

void batch_opts_init(struct batch_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->out = "reports";
    grade_opts_init(&o->grade);
}

char *batch_lab_out(const struct lab *lab, const struct batch_opts *o)
{
    return xstrfmt("%s/%s", o->out, lab->id);
}

/* The class as given, "id<TAB>name" a line (out/<lab>/.class): gradebooks made without the
 * submissions at hand (merge, report) list these students and no others. */
static int write_class_list(const char *out, const struct submission_set *set, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    for (size_t i = 0; i < set->n; i++) {
        strbuf_addf(&sb, "%s\t", set->items[i].id);
        /* A name is a folder's or a roster's: no tab or line break may split the list. */
        for (const char *c = set->items[i].name; c && *c; c++)
            strbuf_addch(&sb, *c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c);
        strbuf_addch(&sb, '\n');
    }
    char *path = path_join(out, ".class");
    int rc = write_file_atomic(path, sb.buf ? sb.buf : "", sb.len, err);
    free(path);
    strbuf_release(&sb);
    return rc;
}

/* Bytes every output of a case takes, over its checked calls. */
static long long case_output_bytes(const struct exercise_spec *ex, const struct case_spec *c)
{
    long long bytes = 0;
    for (size_t i = 0; i < ex->n_args; i++) {
        long count =
            ex->args[i].kind == ARG_OUT || ex->args[i].kind == ARG_INOUT ? c->args[i].count : 0;
        if (count > 0)
            bytes += (long long)count * (long long)lg_dtype_size(ex->args[i].dtype);
    }
    return bytes * ex->timing.checks;
}

static long long largest_case_bytes(const struct lab *lab, const struct grade_opts *g)
{
    long long most = 0;
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        if (g->only && strcmp(g->only, ex->id))
            continue;
        for (size_t c = 0; c < ex->n_cases; c++) {
            const struct case_spec *cs = &ex->cases[c];
            long long b = (cs->hidden && !g->hidden) || (cs->slow && !g->full)
                              ? 0
                              : case_output_bytes(ex, cs);
            most = b > most ? b : most;
        }
    }
    return most;
}

#define REPORT_BYTES (1LL << 20) /* results, exports, report and PDF of one student */

/*
 * Before building anything: does the disk have room for the whole run? At its peak every
 * student's build folder exists at once (built ahead, removed once graded), each about as
 * large as the references' build plus the submission, and each worker holds the outputs of
 * one case. LABGRADER_NO_SPACE_CHECK=1 skips the estimate.
 */
static int check_space(const struct grade_env *env, const struct batch_opts *o,
                       const struct lab *lab, const char *ref_digest, const struct todo *todo,
                       size_t n, int workers, const char *out, struct error *err)
{
    const char *off = getenv("LABGRADER_NO_SPACE_CHECK");
    if (off && *off && strcmp(off, "0") != 0)
        return 0;
    char *ref_dir = xstrfmt("%s/build/%s", env->cache_dir, ref_digest);
    long long build = space_tree_bytes(ref_dir), subs = 0;
    free(ref_dir);
    for (size_t i = 0; i < n; i++)
        subs += space_tree_bytes(todo[i].sub->dir);
    long long outputs = largest_case_bytes(lab, &o->grade) + (1LL << 20);
    long long work_need = (long long)n * build + subs + workers * outputs;
    long long out_need = (long long)n * REPORT_BYTES;
    long long work_free = space_available(o->grade.work_dir), out_free = space_available(out);
    bool shared = space_device(o->grade.work_dir) == space_device(out);
    const char *where = o->grade.work_dir;
    long long need = shared ? work_need + out_need : work_need, have = work_free;
    if (!shared && out_free >= 0 && out_free < out_need) {
        where = out;
        need = out_need;
        have = out_free;
    }
    if (have < 0 || have >= need)
        return 0;
    char need_s[32], have_s[32], build_s[32], out_s[32];
    space_format(need, need_s, sizeof(need_s));
    space_format(have, have_s, sizeof(have_s));
    space_format(build, build_s, sizeof(build_s));
    space_format(outputs, out_s, sizeof(out_s));
    return error_set(err,
                     "not enough free space to grade %zu student%s: about %s needed in %s, %s "
                     "free (each student's build folder is about %s, as large as the "
                     "references'; the largest case writes %s; reports about 1 MiB each). Free "
                     "some space, set LABGRADER_WORK to a folder on a larger disk, or grade in "
                     "shards (--shard K/N); LABGRADER_NO_SPACE_CHECK=1 skips this estimate",
                     n, n == 1 ? "" : "s", need_s, where, have_s, build_s, out_s);
}

/* Which students to grade: those without intact results of this very stamp (or all, with
 * --force). Fills todo; students whose results were damaged are named. */
static int select_todo(const struct lab *lab, const struct batch_opts *o,
                       const struct submission_set *set, const char *out, const char *ref_digest,
                       struct todo *todo, size_t *n, struct batch_summary *s, struct error *err)
{
    *n = 0;
    for (size_t i = 0; i < set->n; i++) {
        char digest[65], why[2600];
        if (o->shard_n > 0 && (int)(i % (size_t)o->shard_n) != o->shard_k - 1)
            continue;
        s->total++;
        if (submission_files_digest(set->items[i].dir, digest, err) != 0)
            return -1;
        struct todo *t = &todo[*n];
        t->sub = &set->items[i];
        t->dir = xstrfmt("%s/%s", out, set->items[i].id);
        t->stamp = stamp_text(lab, digest, &o->grade, ref_digest);
        enum graded_state st = stamp_graded_state(t->dir, t->stamp, why, sizeof(why));
        if (st == GRADED_DAMAGED)
            fprintf(stderr, "%s: %s: graded again\n", t->sub->id, why);
        if (!o->force && st == GRADED) {
            s->skipped_unchanged++;
            free(t->dir);
            free(t->stamp);
            continue;
        }
        (*n)++;
    }
    return 0;
}

/* Building and running, once the todo list and the references are ready: the builder runs
 * ahead of the workers, each of which grades the next student once it is built. Every run takes
 * its turns through the machine's timing coordinator (run/turns.h). */
static int grade_todo(struct batch_run *b, int workers, struct batch_summary *s, struct error *err)
{
    double t0 = now_seconds();
    struct work_queue *q = work_queue_create(b->n);
    if (!q)
        return error_set(err, "cannot share the class's queue between its workers: %s",
                         strerror(errno));
    /* The workers said, since their number is grade's own choice unless --gpus gave it. */
    fprintf(stderr, "building %zu submission%s, grading each once built, %d worker%s ...\n", b->n,
            b->n == 1 ? "" : "s", workers, workers == 1 ? "" : "s");
    pid_t builder = batch_start_builder(b, q);
    batch_run_workers(b, q, workers, s, t0);
    if (builder > 0)
        while (waitpid(builder, NULL, 0) < 0 && errno == EINTR)
            ;
    s->t_build = work_queue_build_seconds(q);
    work_queue_free(q);
    /* Several workers write reports at the same time as others run: reports are summed
     * over workers, and runs are the phase's wall time less one worker's share. */
    s->t_runs = now_seconds() - t0 - b->report_seconds / workers;
    s->t_reports = b->report_seconds;
    s->no_pdf = b->no_pdf;
    return 0;
}

int batch_collect_class(const struct lab *lab, const struct batch_opts *o, const char *unpack,
                        const struct collect_limits *lim, struct submission_set *set,
                        struct error *err)
{
    char **sources = lab_source_names(lab);
    struct collect_opts co = {o->roster, lim, (const char *const *)sources, false};
    int rc = collect_submissions_opts(o->submissions, unpack, &co, set, err);
    lab_source_names_free(sources);
    return rc;
}

/* The class to grade, safely copied (collect.h), and what was skipped said. */
static int collect_graded_class(const struct lab *lab, const struct batch_opts *o, const char *out,
                                const char *unpack, struct submission_set *set,
                                struct batch_summary *s, struct error *err)
{
    struct collect_limits lim;
    collect_limits_init(&lim);
    if (batch_collect_class(lab, o, unpack, &lim, set, err) != 0) {
        /* The caller's input to fix, unless the copies failed on a full disk: the grader's. */
        struct error serr;
        error_init(&serr);
        s->bad_input = space_probe(out, 1 << 20, &serr) != SPACE_FULL;
        return -1;
    }
    for (size_t i = 0; i < set->n_warnings; i++)
        fprintf(stderr, "warning: %s\n", set->warnings[i]);
    return 0;
}

/* References and expected outputs ready, room on the disk, then every student graded. */
static int prepare_and_grade(struct batch_run *b, const char *ref_digest, struct batch_summary *s,
                             struct error *err)
{
    struct grade_env *env = b->env;
    const struct lab *lab = b->lab;
    const struct batch_opts *o = b->o;
    size_t n = b->n;
    fprintf(stderr, "preparing references and expected outputs ...\n");
    double t0 = now_seconds();
    if (grade_prepare(env, lab, &o->grade, err) != 0)
        return -1;
    s->t_prepare = now_seconds() - t0;
    int workers = o->gpus > 0 ? o->gpus : batch_default_workers(&env->gpu, cpus_usable());
    workers = workers < 1 ? 1 : (size_t)workers > n ? (int)n : workers;
    if (check_space(env, o, lab, ref_digest, b->todo, n, workers, b->out, err) != 0)
        return -1;
    return grade_todo(b, workers, s, err);
}

/* Who is graded this time: the class collected and listed, and every student without intact
 * results of this very stamp (all of them with --force). */
static int choose(struct batch_run *b, const char *unpack, struct submission_set *set,
                  char ref_digest[65], struct batch_summary *s, struct error *err)
{
    const struct lab *lab = b->lab;
    const struct batch_opts *o = b->o;
    if (collect_graded_class(lab, o, b->out, unpack, set, s, err) != 0 ||
        write_class_list(b->out, set, err) != 0 ||
        build_reference_digest(&b->env->tc, lab, ref_digest, err) != 0)
        return -1;
    b->todo = xcalloc(set->n ? set->n : 1, sizeof(*b->todo));
    if (select_todo(lab, o, set, b->out, ref_digest, b->todo, &b->n, s, err) != 0)
        return -1;
    char shard[64] = "";
    if (o->shard_n)
        snprintf(shard, sizeof(shard), " in shard %d/%d", o->shard_k, o->shard_n);
    fprintf(stderr, "%s: %d submission%s%s, %zu to grade (%d unchanged since last time)\n", lab->id,
            s->total, s->total == 1 ? "" : "s", shard, b->n, s->skipped_unchanged);
    return 0;
}

static int batch_grade_class(struct batch_run *b, struct batch_summary *s, struct error *err)
{
    const struct batch_opts *o = b->o;
    struct submission_set set;
    /* Shards can run at once (grader slurm): collect empties its folder, so each shard
     * needs its own. */
    char *unpack = o->shard_n ? xstrfmt("%s/.unpacked-%d-of-%d", b->out, o->shard_k, o->shard_n)
                              : xstrfmt("%s/.unpacked", b->out);
    struct out_lock lock;
    char ref_digest[65];
    int rc = -1;
    double t0 = now_seconds();
    memset(s, 0, sizeof(*s));
    submission_set_init(&set);
    out_lock_init(&lock);
    if (mkdir_p(b->out, err) != 0 ||
        out_lock_take(&lock, b->out, o->shard_k, o->shard_n, "grade", err) != 0)
        goto done;
    if (lock.stale_holder)
        fprintf(stderr, "grader: %s stopped without finishing its run on %s; taking over\n",
                lock.stale_holder, b->out);
    if (choose(b, unpack, &set, ref_digest, s, err) != 0)
        goto done;
    s->t_collect = now_seconds() - t0;
    rc = b->n == 0 ? 0 : prepare_and_grade(b, ref_digest, s, err);
done:
    for (size_t i = 0; i < b->n; i++) {
        free(b->todo[i].dir);
        free(b->todo[i].stamp);
    }
    free(b->todo);
    submission_set_release(&set);
    if (rc == 0 && !o->grade.keep_work)
        remove_tree(unpack, NULL);
    /* Only while holding the lock: another grader's working copies are not ours to remove. */
    if (lock.file && !o->grade.keep_work)
        remove_tree(o->grade.work_dir, NULL);
    out_lock_release(&lock);
    free(unpack);
    return rc;
}

int batch_grade(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                struct batch_summary *s, struct error *err)
{
    /* Every student's messages in the report's language: one catalog for the class. */
    struct messages msgs;
    struct error merr;
    struct batch_opts local = *o;
    messages_init(&msgs);
    error_init(&merr);
    if (messages_load_lang(&msgs, o->templates_dir, o->lang ? o->lang : lab->lang, &merr) != 0) {
        char buf[2600];
        error_format(&merr, buf, sizeof(buf));
        fprintf(stderr, "grader: warning: %s; the grader's messages stay in English\n", buf);
    }
    local.grade.messages = &msgs;
    /* Working copies per lab and shard: graders of other labs (or other shards) on the same
     * output folder never remove each other's (the lock keeps out the same lab's). */
    char *work = xstrfmt("%s/.grade-%s", o->grade.work_dir ? o->grade.work_dir : o->out, lab->id);
    if (o->shard_n) {
        char *w = xstrfmt("%s-%d-of-%d", work, o->shard_k, o->shard_n);
        free(work);
        work = w;
    }
    local.grade.work_dir = work;
    struct late_policy late;
    int rc = -1;
    if (late_policy_make(lab, &o->late, &late, err) != 0) {
        memset(s, 0, sizeof(*s));
        s->bad_input = true;
    } else {
        char *out = batch_lab_out(lab, o);
        struct batch_run b = {.env = env, .lab = lab, .o = &local, .out = out, .late = &late};
        rc = batch_grade_class(&b, s, err);
        free(out);
        late_policy_release(&late);
    }
    free(work);
    messages_release(&msgs);
    return rc;
}

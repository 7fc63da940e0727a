#include "class/batch.h"

#include "class/collect.h"
#include "report/export.h"
#include "base/messages.h"
#include "report/report.h"
#include "grade/results.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef LG_VERSION
#define LG_VERSION "0.0.0"
#endif

void batch_opts_init(struct batch_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->out = "reports";
    grade_opts_init(&o->grade);
}

static char *lab_out(const struct lab *lab, const struct batch_opts *o)
{
    return xstrfmt("%s/%s", o->out, lab->id);
}

/* What a stamp certifies: these files, graded with this grader against this lab. */
static char *stamp_text(const struct lab *lab, const char *digest, const struct grade_opts *g,
                        const char *ref_digest)
{
    struct strbuf spec = STRBUF_INIT;
    struct sha256 h;
    char hex[65];
    sha256_init(&h);
    if (read_file(lab->path, &spec, NULL) == 0)
        sha256_update(&h, spec.buf, spec.len);
    strbuf_release(&spec);
    sha256_final_hex(&h, hex);
    /* Everything that changes a grade: the files, the spec, the references, the grader
     * and the options that select or time cases; and what the results hold beside it (the
     * compute-sanitizer pass, named only when an option changed it, so that stamps of
     * classes graded without the option stay valid). */
    return xstrfmt("submission %s\nspec %s\nreferences %s\ngrader %s\nfull %d hidden %d timing %d "
                   "only %s timeout %g\n%s",
                   digest, hex, ref_digest, LG_VERSION, g->full, g->hidden, !g->no_timing,
                   g->only ? g->only : "-", g->timeout_s,
                   g->sanitize == SANITIZE_ALL    ? "sanitize all\n"
                   : g->sanitize == SANITIZE_NONE ? "sanitize none\n"
                                                  : "");
}

static bool already_graded(const char *dir, const char *stamp)
{
    struct strbuf old = STRBUF_INIT;
    char *p = path_join(dir, ".graded");
    char *json = path_join(dir, "results.json");
    bool same =
        read_file(p, &old, NULL) == 0 && !strcmp(strbuf_str(&old), stamp) && file_exists(json);
    strbuf_release(&old);
    free(p);
    free(json);
    return same;
}

struct todo {
    const struct submission *sub;
    char *dir; /* out/<lab>/<id> */
    char *stamp;
};

static void progress(const struct batch_opts *o, int done, int total, int failing, double started,
                     const char *last)
{
    double el = now_seconds() - started;
    double eta = done > 0 ? el / done * (total - done) : 0;
    if (o->progress_bar) {
        int width = 30, fill = total ? done * width / total : width;
        fprintf(stderr, "\r[");
        for (int i = 0; i < width; i++)
            fputc(i < fill ? '#' : '.', stderr);
        fprintf(stderr, "] %d/%d  failing %d  ETA %dm%02ds  %-24.24s", done, total, failing,
                (int)eta / 60, (int)eta % 60, last ? last : "");
        if (done == total)
            fputc('\n', stderr);
    } else if (last) {
        fprintf(stderr, "graded %d/%d: %s (failing so far: %d, ETA %ds)\n", done, total, last,
                failing, (int)eta);
    }
    fflush(stderr);
}

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

/* What this process spent on reports and how many PDFs it could not make: a worker
 * sends them to the parent in a file (worker_stats_path) when it ends. */
static double report_seconds;
static int no_pdf_count;

static int write_student(const struct lab *lab, const struct batch_opts *o, struct results *r,
                         const struct todo *t, struct error *err)
{
    double t0 = now_seconds();
    (void)lab;
    char *json = path_join(t->dir, "results.json");
    char *stamp = path_join(t->dir, ".graded");
    char *gs = path_join(t->dir, "gradescope.json");
    char *gs_all = path_join(t->dir, "gradescope-instructor.json");
    char *junit = path_join(t->dir, "junit.xml");
    char *junit_all = path_join(t->dir, "junit-instructor.xml");
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
    if (results_write(r, json, err) != 0)
        goto out;
    /* What students get is the student view (hidden cases as counts unless the lab
     * sets show_hidden); the instructor's full view has its own names. */
    if (export_gradescope(r, true, gs, err) != 0 || export_gradescope(r, false, gs_all, err) != 0 ||
        export_junit(r, true, junit, err) != 0 || export_junit(r, false, junit_all, err) != 0)
        goto out;
    if (o->pdf_mode >= -1) {
        struct report_opts ro;
        struct report_outcome out;
        struct error rerr;
        report_opts_init(&ro);
        ro.lang = o->lang;
        ro.templates_dir = o->templates_dir;
        ro.pdf = o->pdf_mode >= 0;
        ro.pdf_required = o->pdf_mode > 0;
        ro.student_view = true;
        memset(&out, 0, sizeof(out));
        error_init(&rerr);
        int rrc = report_student(r, t->dir, &ro, &out, &rerr);
        if (rrc != 0 && !(ro.pdf && out.md_written && !out.pdf_written))
            fprintf(stderr, "\n%s: report: %s\n", r->student_id, rerr.msg);
        if (ro.pdf && out.md_written && !out.pdf_written) {
            fprintf(stderr, "\n%s: no PDF: %s\n", r->student_id,
                    out.pdf_note[0] ? out.pdf_note : rerr.msg);
            no_pdf_count++;
        }
        if (rrc != 0 && o->pdf_mode > 0) {
            *err = rerr;
            goto out;
        }
    }
    if (write_file_atomic(stamp, t->stamp, strlen(t->stamp), err) != 0)
        goto out;
    rc = 0;
out:
    report_seconds += now_seconds() - t0;
    free(json);
    free(stamp);
    free(gs);
    free(gs_all);
    free(junit);
    free(junit_all);
    return rc;
}

static int grade_one(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                     const struct todo *t, bool build_only, struct results *r, struct error *err)
{
    struct grade_opts g = o->grade;
    g.submission = t->sub->dir;
    g.student_id = t->sub->id;
    g.student_name = t->sub->name;
    g.build_only = build_only;
    g.reuse_build = !build_only;
    g.keep_work = build_only;
    g.reuse_ref_times = true;
    g.progress = NULL;
    return grade_submission(env, lab, &g, r, err);
}

/* Phase 1: compile every submission, `jobs` at a time, in child processes. */
static void build_all(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                      struct todo *todo, size_t n)
{
    int jobs = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    size_t next = 0, running = 0, done = 0;
    double started = now_seconds();
    pid_t *pids = xcalloc(n, sizeof(pid_t));
    if (jobs < 1)
        jobs = 1;
    while (done < n) {
        while (running < (size_t)jobs && next < n) {
            pid_t pid = fork();
            if (pid == 0) {
                struct results r;
                struct error err;
                results_init(&r);
                int rc = grade_one(env, lab, o, &todo[next], true, &r, &err);
                if (rc != 0)
                    fprintf(stderr, "\n%s: build: %s\n", todo[next].sub->id, err.msg);
                results_release(&r);
                _exit(rc == 0 ? 0 : 1);
            }
            if (pid < 0)
                break;
            pids[next++] = pid;
            running++;
        }
        int st;
        pid_t got = wait(&st);
        if (got > 0) {
            /* The sandbox makes this process a subreaper: orphans of sandboxed
             * programs are reaped here too, and are not builds. */
            bool mine = false;
            for (size_t i = 0; i < next && !mine; i++)
                mine = pids[i] == got;
            if (!mine)
                continue;
            running--;
            done++;
            if (o->progress_bar) {
                fprintf(stderr, "\rbuilding %zu/%zu (%.0f s)", done, n, now_seconds() - started);
                fflush(stderr);
            }
        } else if (errno == ECHILD) {
            break;
        }
    }
    if (o->progress_bar)
        fputc('\n', stderr);
    free(pids);
}

/* Phase 2 for one worker: grade todo[i] for i = worker (mod workers). */
static int run_worker(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                      struct todo *todo, size_t n, int worker, int workers, struct batch_summary *s,
                      double started, int *done_before)
{
    int status = 0;
    for (size_t i = (size_t)worker; i < n; i += (size_t)workers) {
        struct results r;
        struct error err;
        error_init(&err);
        results_init(&r);
        if (grade_one(env, lab, o, &todo[i], false, &r, &err) != 0 ||
            write_student(lab, o, &r, &todo[i], &err) != 0) {
            fprintf(stderr, "\n%s: grader error: %s\n", todo[i].sub->id, err.msg);
            s->grader_errors++;
            status = -1;
        } else {
            s->graded++;
            if (r.n_fail)
                s->failed++;
            if (r.n_grader_errors)
                s->grader_errors++;
        }
        (*done_before)++;
        if (workers == 1)
            progress(o, *done_before, (int)n, s->failed, started, todo[i].sub->id);
        results_release(&r);
    }
    return status;
}

char *batch_worker_device(int w)
{
    const char *p = getenv("CUDA_VISIBLE_DEVICES");
    for (int i = 0; p && *p; i++) {
        size_t len = strcspn(p, ",");
        if (i == w)
            return xstrndup(p, len);
        if (!p[len])
            break;
        p += len + 1;
    }
    return xstrfmt("%d", w);
}

/* The worker processes of the running batch, for batch_kill_workers (a signal handler). */
#define MAX_WORKERS 1024
static volatile sig_atomic_t n_worker_pids;
static volatile pid_t worker_pids[MAX_WORKERS];

void batch_kill_workers(int sig)
{
    for (sig_atomic_t i = 0; i < n_worker_pids; i++)
        if (worker_pids[i] > 0)
            kill(worker_pids[i], sig);
}

static char *worker_stats_path(const char *out, int w, pid_t parent)
{
    return xstrfmt("%s/.worker-%d-%ld.stats", out, w, (long)parent);
}

/* A worker's phase times and PDF failures, for the parent's totals. */
static void worker_stats_write(const char *path)
{
    char text[128];
    int len = snprintf(text, sizeof(text), "%.6f %d\n", report_seconds, no_pdf_count);
    write_file_atomic(path, text, (size_t)len, NULL);
}

static void worker_stats_add(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    double sec;
    int no_pdf;
    if (read_file(path, &sb, NULL) == 0 && sscanf(strbuf_str(&sb), "%lf %d", &sec, &no_pdf) == 2) {
        report_seconds += sec;
        no_pdf_count += no_pdf;
    }
    strbuf_release(&sb);
    unlink(path);
}

/* Several workers: fork one per GPU, then follow their results as they appear. */
static void run_workers(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                        struct todo *todo, size_t n, int workers, const char *out,
                        struct batch_summary *s, double started)
{
    pid_t *pids = xcalloc((size_t)workers, sizeof(pid_t));
    bool *seen = xcalloc(n, sizeof(bool));
    pid_t parent = getpid();
    for (int w = 0; w < workers; w++) {
        pids[w] = fork();
        if (pids[w] == 0) {
            struct batch_summary ws;
            /* A worker ends with the grader, even one killed by SIGKILL. */
            n_worker_pids = 0;
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            if (getppid() != parent)
                _exit(3);
            memset(&ws, 0, sizeof(ws));
            report_seconds = 0;
            no_pdf_count = 0;
            char *dev = batch_worker_device(w);
            setenv("CUDA_VISIBLE_DEVICES", dev, 1);
            free(dev);
            int before = 0;
            run_worker(env, lab, o, todo, n, w, workers, &ws, started, &before);
            char *stats = worker_stats_path(out, w, parent);
            worker_stats_write(stats);
            free(stats);
            _exit(ws.grader_errors ? 3 : 0);
        }
        if (pids[w] > 0 && n_worker_pids < MAX_WORKERS) {
            worker_pids[n_worker_pids] = pids[w];
            n_worker_pids = n_worker_pids + 1;
        }
    }
    /* Progress from the results the workers publish: a line per student as it is done. */
    int graded = 0, failing = 0;
    for (;;) {
        int alive = 0, st;
        pid_t got;
        /* This process is a subreaper (sandbox): orphans of sandboxed programs end up
         * here as well as the workers, and every child is reaped, not only workers. */
        while ((got = waitpid(-1, &st, WNOHANG)) > 0)
            for (int w = 0; w < workers; w++)
                if (pids[w] == got)
                    pids[w] = -1;
        for (int w = 0; w < workers; w++)
            alive += pids[w] > 0;
        for (size_t i = 0; i < n; i++) {
            if (seen[i] || !already_graded(todo[i].dir, todo[i].stamp))
                continue;
            struct results r;
            char *json = path_join(todo[i].dir, "results.json");
            seen[i] = true;
            graded++;
            results_init(&r);
            if (results_read(&r, json, NULL) == 0 && r.n_fail > 0)
                failing++;
            results_release(&r);
            free(json);
            progress(o, graded, (int)n, failing, started, todo[i].sub->id);
        }
        if (!alive)
            break;
        sleep(1);
    }
    n_worker_pids = 0;
    for (int w = 0; w < workers; w++) {
        char *stats = worker_stats_path(out, w, parent);
        worker_stats_add(stats);
        free(stats);
    }
    for (size_t i = 0; i < n; i++) {
        struct results r;
        char *json = path_join(todo[i].dir, "results.json");
        results_init(&r);
        if (already_graded(todo[i].dir, todo[i].stamp) && results_read(&r, json, NULL) == 0) {
            s->graded++;
            s->failed += r.n_fail > 0;
            s->grader_errors += r.n_grader_errors > 0;
        } else {
            s->grader_errors++;
        }
        results_release(&r);
        free(json);
    }
    free(seen);
    free(pids);
}

static int batch_grade_class(struct grade_env *env, const struct lab *lab,
                             const struct batch_opts *o, struct batch_summary *s, struct error *err)
{
    struct submission_set set;
    struct collect_limits lim;
    char *out = lab_out(lab, o);
    /* Shards can run at once (grader slurm): collect empties its folder, so each shard
     * needs its own. */
    char *unpack = o->shard_n ? xstrfmt("%s/.unpacked-%d-of-%d", out, o->shard_k, o->shard_n)
                              : xstrfmt("%s/.unpacked", out);
    struct todo *todo = NULL;
    size_t n = 0;
    int rc = -1;

    double t0 = now_seconds();
    memset(s, 0, sizeof(*s));
    report_seconds = 0;
    no_pdf_count = 0;
    submission_set_init(&set);
    collect_limits_init(&lim);
    if (mkdir_p(out, err) != 0)
        goto done;
    if (collect_submissions(o->submissions, unpack, o->roster, &lim, &set, err) != 0) {
        s->bad_input = true;
        goto done;
    }
    for (size_t i = 0; i < set.n_warnings; i++)
        fprintf(stderr, "warning: %s\n", set.warnings[i]);
    char ref_digest[65];
    if (build_reference_digest(&env->tc, lab, ref_digest, err) != 0)
        goto done;
    todo = xcalloc(set.n ? set.n : 1, sizeof(*todo));
    for (size_t i = 0; i < set.n; i++) {
        char digest[65];
        if (o->shard_n > 0 && (int)(i % (size_t)o->shard_n) != o->shard_k - 1)
            continue;
        s->total++;
        if (submission_files_digest(set.items[i].dir, digest, err) != 0)
            goto done;
        struct todo *t = &todo[n];
        t->sub = &set.items[i];
        t->dir = xstrfmt("%s/%s", out, set.items[i].id);
        t->stamp = stamp_text(lab, digest, &o->grade, ref_digest);
        if (!o->force && already_graded(t->dir, t->stamp)) {
            s->skipped_unchanged++;
            free(t->dir);
            free(t->stamp);
            continue;
        }
        n++;
    }
    char shard[64] = "";
    if (o->shard_n)
        snprintf(shard, sizeof(shard), " in shard %d/%d", o->shard_k, o->shard_n);
    fprintf(stderr, "%s: %d submission%s%s, %zu to grade (%d unchanged since last time)\n", lab->id,
            s->total, s->total == 1 ? "" : "s", shard, n, s->skipped_unchanged);
    if (n == 0) {
        rc = 0;
        goto done;
    }
    s->t_collect = now_seconds() - t0;
    fprintf(stderr, "preparing references and expected outputs ...\n");
    t0 = now_seconds();
    if (grade_prepare(env, lab, &o->grade, err) != 0)
        goto done;
    s->t_prepare = now_seconds() - t0;
    fprintf(stderr, "building %zu submission%s ...\n", n, n == 1 ? "" : "s");
    t0 = now_seconds();
    build_all(env, lab, o, todo, n);
    s->t_build = now_seconds() - t0;
    t0 = now_seconds();

    int workers = o->gpus > 0 ? o->gpus : (env->gpu.available ? env->gpu.count : 1);
    if (workers < 1)
        workers = 1;
    if ((size_t)workers > n)
        workers = (int)n;
    double started = now_seconds();
    int done_count = 0;
    /* Timed CPU work of every worker takes this lock, so it runs alone: one lock per
     * machine, as shards on other nodes of a cluster do not disturb this one's timings. */
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    char *lock = xstrfmt("%s/.cpu-timing-%s.lock", out, host);
    setenv("LABGRADER_CPU_LOCK", lock, 1);
    free(lock);
    if (workers == 1)
        run_worker(env, lab, o, todo, n, 0, 1, s, started, &done_count);
    else
        run_workers(env, lab, o, todo, n, workers, out, s, started);
    /* Several workers write reports at the same time as others run: reports are summed
     * over workers, and runs are the phase's wall time less one worker's share. */
    s->t_runs = now_seconds() - t0 - report_seconds / workers;
    s->t_reports = report_seconds;
    s->no_pdf = no_pdf_count;
    rc = 0;
done:
    for (size_t i = 0; i < n; i++) {
        free(todo[i].dir);
        free(todo[i].stamp);
    }
    free(todo);
    submission_set_release(&set);
    if (rc == 0 && !o->grade.keep_work)
        remove_tree(unpack, NULL);
    free(unpack);
    free(out);
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
    int rc = batch_grade_class(env, lab, &local, s, err);
    messages_release(&msgs);
    return rc;
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

static void list_results(const char *dir, struct results ***all, size_t *n)
{
    struct dirent **list = NULL;
    int m = scandir(dir, &list, NULL, alphasort);
    *all = NULL;
    *n = 0;
    for (int i = 0; i < m; i++) {
        if (list[i]->d_name[0] != '.') {
            char *json = xstrfmt("%s/%s/results.json", dir, list[i]->d_name);
            struct results *r = xcalloc(1, sizeof(*r));
            results_init(r);
            if (file_exists(json) && results_read(r, json, NULL) == 0) {
                *all = xrealloc(*all, (*n + 1) * sizeof(**all));
                (*all)[(*n)++] = r;
            } else {
                results_free(r);
            }
            free(json);
        }
        free(list[i]);
    }
    free(list);
}

/* Why a result is left out of the gradebook when the submissions are known. */
enum merge_state { MERGE_OK, MERGE_CHANGED, MERGE_GONE };

/*
 * Compares the results with the submissions as they are now: a result of files that
 * have changed since is not a grade yet, and one of a student no longer among the
 * submissions is left out. Students with no result count as missing too.
 */
static int merge_check(const struct lab *lab, const struct batch_opts *o, const char *out,
                       struct results **all, size_t n, enum merge_state *state, int *missing,
                       bool *bad_input, struct error *err)
{
    struct submission_set set;
    struct collect_limits lim;
    char *unpack = xstrfmt("%s/.unpacked-merge", out);
    int rc = -1, changed = 0;
    (void)lab;
    submission_set_init(&set);
    collect_limits_init(&lim);
    for (size_t j = 0; j < n; j++)
        state[j] = MERGE_GONE;
    if (collect_submissions(o->submissions, unpack, o->roster, &lim, &set, err) != 0) {
        if (bad_input)
            *bad_input = true;
        goto out;
    }
    for (size_t i = 0; i < set.n; i++) {
        char digest[65];
        size_t j = 0;
        while (j < n && strcmp(all[j]->student_id, set.items[i].id))
            j++;
        if (j == n) {
            if (!*missing)
                printf("not yet graded:\n");
            printf("  %s (%s)\n", set.items[i].id, set.items[i].name);
            (*missing)++;
            continue;
        }
        if (submission_files_digest(set.items[i].dir, digest, err) != 0)
            goto out;
        state[j] = all[j]->submission_hash && !strcmp(all[j]->submission_hash, digest)
                       ? MERGE_OK
                       : MERGE_CHANGED;
    }
    for (size_t j = 0; j < n; j++)
        if (state[j] == MERGE_CHANGED) {
            if (!changed++)
                printf("not yet graded (changed since graded):\n");
            printf("  %s (%s)\n", all[j]->student_id, or_dash(all[j]->student_name));
            (*missing)++;
        }
    for (size_t j = 0, gone = 0; j < n; j++)
        if (state[j] == MERGE_GONE) {
            if (!gone++)
                printf("left out (results of students not among the submissions):\n");
            printf("  %s (%s)\n", all[j]->student_id, or_dash(all[j]->student_name));
        }
    rc = 0;
out:
    submission_set_release(&set);
    remove_tree(unpack, NULL);
    free(unpack);
    return rc;
}

int batch_merge(const struct lab *lab, const struct batch_opts *o, int *missing, bool *bad_input,
                struct error *err)
{
    char *out = lab_out(lab, o);
    struct results **all;
    size_t n;
    int rc = -1;
    *missing = 0;
    list_results(out, &all, &n);
    char *csv = path_join(out, "gradebook.csv");
    char *canvas = path_join(out, "gradebook-canvas.csv");
    /* Canvas matches "Name (assignment id)"; without the id it creates a new assignment. */
    char *col = o->canvas_assignment ? xstrfmt("%s (%s)", lab->title, o->canvas_assignment)
                                     : xstrdup(lab->title);
    size_t n_all = n;
    if (o->submissions) {
        enum merge_state *state = xcalloc(n ? n : 1, sizeof(*state));
        if (merge_check(lab, o, out, all, n, state, missing, bad_input, err) != 0) {
            free(state);
            goto out;
        }
        /* Only current grades go into the gradebook and the summary. */
        size_t kept = 0;
        for (size_t j = 0; j < n; j++)
            if (state[j] == MERGE_OK)
                all[kept++] = all[j];
            else
                results_free(all[j]);
        n = n_all = kept;
        free(state);
    }
    if (export_gradebook_csv((const struct results *const *)all, n, csv, err) != 0 ||
        export_gradebook_canvas_csv((const struct results *const *)all, n, col, canvas, err) != 0)
        goto out;
    printf("gradebook: %s (%zu students)\n", csv, n);
    printf("canvas:    %s\n", canvas);
    if (o->pdf_mode >= -1 && n > 0) {
        struct report_opts ro;
        struct report_outcome ou;
        struct error rerr;
        report_opts_init(&ro);
        ro.lang = o->lang;
        ro.templates_dir = o->templates_dir;
        ro.pdf = o->pdf_mode >= 0;
        ro.pdf_required = o->pdf_mode > 0;
        memset(&ou, 0, sizeof(ou));
        error_init(&rerr);
        if (report_summary((const struct results *const *)all, n, out, &ro, &ou, &rerr) != 0) {
            fprintf(stderr, "summary: %s\n", rerr.msg);
            if (o->pdf_mode > 0) {
                *err = rerr;
                goto out;
            }
        }
        if (ou.md_written)
            printf("summary:   %s\n", ou.md_path);
        if (ou.pdf_written)
            printf("           %s\n", ou.pdf_path);
        else if (o->pdf_mode >= 0)
            printf("           no PDF: %s\n", ou.pdf_note);
    }
    rc = 0;
out:
    for (size_t i = 0; i < n_all; i++)
        results_free(all[i]);
    free(all);
    free(csv);
    free(canvas);
    free(col);
    free(out);
    return rc;
}

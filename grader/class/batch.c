#include "class/batch.h"

#include "class/collect.h"
#include "class/lock.h"
#include "class/lmsinfo.h"
#include "class/queue.h"
#include "class/regrade.h"
#include "report/export.h"
#include "base/messages.h"
#include "report/report.h"
#include "grade/results.h"
#include "run/runner.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/space.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
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

/* The stamp as written: what was graded, then the checksum of the results it certifies. */
static char *stamp_certifying(const char *stamp, const char *json, size_t len)
{
    struct sha256 h;
    char hex[65];
    sha256_init(&h);
    sha256_update(&h, json, len);
    sha256_final_hex(&h, hex);
    return xstrfmt("%sresults %s\n", stamp, hex);
}

enum graded_state {
    NOT_GRADED,    /* no stamp, or one of other files or options: grade */
    GRADED,        /* stamped, and the results are the ones stamped, intact */
    GRADED_DAMAGED /* stamped, but the results are gone, changed or refused: grade again */
};

/*
 * Whether dir holds this stamp's results, intact: the stamp names the files and options
 * graded and the checksum of results.json, which must also pass results_read's checks.
 * why says what is wrong when GRADED_DAMAGED.
 */
static enum graded_state graded_state(const char *dir, const char *stamp, char *why,
                                      size_t why_size)
{
    struct strbuf old = STRBUF_INIT, json = STRBUF_INIT;
    char *p = path_join(dir, ".graded"), *jp = path_join(dir, "results.json");
    enum graded_state st = NOT_GRADED;
    struct results tmp;
    struct error err;
    size_t len = strlen(stamp);
    results_init(&tmp);
    error_init(&err);
    if (read_file(p, &old, NULL) != 0 || strncmp(strbuf_str(&old), stamp, len) != 0 ||
        strncmp(strbuf_str(&old) + len, "results ", 8) != 0)
        goto out; /* an older grader's stamp has no checksum: graded again */
    st = GRADED_DAMAGED;
    if (read_file(jp, &json, &err) != 0) {
        snprintf(why, why_size, "results.json: %s", err.msg);
        goto out;
    }
    char *want = stamp_certifying(stamp, json.buf, json.len);
    bool same = !strcmp(want, strbuf_str(&old));
    free(want);
    if (!same) {
        snprintf(why, why_size,
                 "results.json changed since it was graded (its checksum is not "
                 "the one in .graded)");
        goto out;
    }
    if (results_from_json(&tmp, json.buf, json.len, jp, &err) != 0) {
        error_format(&err, why, why_size);
        goto out;
    }
    st = tmp.n_grader_errors ? NOT_GRADED : GRADED;
out:
    results_release(&tmp);
    strbuf_release(&old);
    strbuf_release(&json);
    free(p);
    free(jp);
    return st;
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
/* The late policy of the class being graded (late.h), made once per batch_grade. */
static const struct late_policy *class_late_policy;

/* What collection knew of the student, a refusal, lateness, and the audit of a re-grade:
 * everything results.json gets beside the grading itself (lmsinfo.h, late.h, regrade.h). */
static int record_lms(const struct lab *lab, const struct batch_opts *o, struct results *r,
                      const struct todo *t, const char *json, struct error *err)
{
    lmsinfo_record(t->sub, r);
    if (t->sub->problem != SUBMISSION_OK)
        lmsinfo_mark_refused(t->sub, o->grade.messages, r);
    late_apply(class_late_policy, r->student_id, r);
    char *out = lab_out(lab, o);
    int rc = regrade_audit(out, json, r, o->regrade_reason, o->force, err);
    free(out);
    return rc;
}

/*
 * The student's report. Its Markdown is results turned into words: not writing it is the
 * grader's failure. A PDF that could not be made is a note (pandoc, LaTeX), unless the disk
 * is full, which is the grader's failure too, or PDFs are required.
 */
static int write_report(const struct batch_opts *o, const struct results *r, const char *dir,
                        struct error *err)
{
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
    /* pandoc and LaTeX take cores for seconds: not while another worker times CPU code. */
    int lock = ro.pdf ? runner_host_share_lock() : -1;
    int rrc = report_student(r, dir, &ro, &out, &rerr);
    if (lock >= 0)
        close(lock);
    if (!out.md_written) {
        *err = rerr;
        error_prefix(err, "report: ");
        return -1;
    }
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
        no_pdf_count++;
    } else if (rrc != 0) {
        fprintf(stderr, "\n%s: report: %s\n", r->student_id, rerr.msg);
    }
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
static int write_student(const struct lab *lab, const struct batch_opts *o, struct results *r,
                         const struct todo *t, struct error *err)
{
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
    if (record_lms(lab, o, r, t, json, err) != 0)
        goto out;
    results_to_json(r, &text);
    if (write_file_atomic(json, text.buf, text.len, err) != 0)
        goto out;
    /* What students get is the student view (hidden cases as counts unless the lab
     * sets show_hidden); the instructor's full view has its own names. */
    struct gradescope_opts gso = {true, o->grade.messages, lab, 0};
    struct gradescope_opts gso_all = {false, o->grade.messages, lab, 0};
    struct junit_opts jo = {true, o->grade.messages}, jo_all = {false, o->grade.messages};
    if (export_gradescope(r, &gso, gs, err) != 0 ||
        export_gradescope(r, &gso_all, gs_all, err) != 0 || export_junit(r, &jo, junit, err) != 0 ||
        export_junit(r, &jo_all, junit_all, err) != 0)
        goto out;
    if (o->pdf_mode >= -1 && write_report(o, r, t->dir, err) != 0)
        goto out;
    if (r->n_grader_errors == 0) {
        char *certified = stamp_certifying(t->stamp, text.buf, text.len);
        int src = write_file_atomic(stamp, certified, strlen(certified), err);
        free(certified);
        if (src != 0)
            goto out;
    }
    rc = 0;
out:
    report_seconds += now_seconds() - t0;
    strbuf_release(&text);
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
    /* The build pass's folders are the grading pass's input; --keep keeps the runs too. */
    g.keep_work = build_only || o->grade.keep_work;
    g.reuse_ref_times = true;
    g.progress = NULL;
    if (grade_submission(env, lab, &g, r, err) != 0)
        return -1;
    /* Graded from a copy in a working folder that is gone by the time anyone reads the
     * report: the report names where the submission came from instead. */
    free(r->submission);
    r->submission = xstrfmt("%s (%s)", o->submissions, t->sub->id);
    return 0;
}

/* One build child: student t built (into the cache and its work folder), holding the CPU lock
 * shared as a PDF does, so that no CPU series runs beside the compilers. */
static void build_child(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                        const struct todo *t, struct work_queue *q, pid_t parent)
{
    struct results r;
    struct error err;
    /* A build ends with the grader: it holds the output folder's lock too. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(3);
    work_queue_not_builder(q);
    int lock = runner_host_share_lock();
    results_init(&r);
    int rc = grade_one(env, lab, o, t, true, &r, &err);
    if (rc != 0)
        fprintf(stderr, "\n%s: build: %s\n", t->sub->id, err.msg);
    results_release(&r);
    if (lock >= 0)
        close(lock);
    _exit(rc == 0 ? 0 : 1);
}

/* Which of pids[0..next) got is, or next for a stranger. */
static size_t build_index(const pid_t *pids, size_t next, pid_t got)
{
    size_t i = 0;
    while (i < next && pids[i] != got)
        i++;
    return i;
}

/* Compile every submission in order, `jobs` at a time, in child processes, marking each built
 * in q as its child ends. */
static void build_all(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                      struct todo *todo, size_t n, struct work_queue *q)
{
    int jobs = o->jobs > 0 ? o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    size_t next = 0, running = 0, done = 0;
    pid_t *pids = xcalloc(n, sizeof(pid_t));
    pid_t parent = getpid();
    if (jobs < 1)
        jobs = 1;
    while (done < n) {
        while (running < (size_t)jobs && next < n) {
            pid_t pid = fork();
            if (pid == 0)
                build_child(env, lab, o, &todo[next], q, parent);
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
            size_t i = build_index(pids, next, got);
            if (i == next)
                continue;
            work_queue_mark_built(q, i);
            running--;
            done++;
        } else if (errno == ECHILD) {
            break;
        }
    }
    free(pids);
}

/* The builder: a process of its own that builds the class ahead of the workers, which grade
 * each student once it is built (queue.h). Returns its pid, or -1 (the workers then build what
 * they grade). */
static pid_t start_builder(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                           struct todo *todo, size_t n, struct work_queue *q)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(3);
        /* Told apart from the workers in ps and top (and by tests). */
        prctl(PR_SET_NAME, "grader-builder");
        double t0 = now_seconds();
        build_all(env, lab, o, todo, n, q);
        work_queue_set_build_seconds(q, now_seconds() - t0);
        _exit(0);
    }
    work_queue_not_builder(q);
    return pid;
}

/* How grading one student ended, as the summary counts it. */
enum {
    OUT_WRITTEN = 1, /* results, reports and (without XX) the stamp were written */
    OUT_FAILING = 2, /* some case is the submission's failure */
    OUT_XX = 4       /* some case is XX, or nothing could be written: the grader's error */
};

static void tally(struct batch_summary *s, int outcome)
{
    s->graded += (outcome & OUT_WRITTEN) != 0;
    s->failed += (outcome & OUT_FAILING) != 0;
    s->grader_errors += (outcome & OUT_XX) != 0;
}

/* A GPU worker's word to the parent: student index and outcome (one write, atomic). */
struct worker_msg {
    uint32_t index;
    int32_t outcome;
};

static int grade_student(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                         const struct todo *t)
{
    struct results r;
    struct error err;
    int outcome;
    error_init(&err);
    results_init(&r);
    if (grade_one(env, lab, o, t, false, &r, &err) != 0 ||
        write_student(lab, o, &r, t, &err) != 0) {
        char msg[2600];
        error_format(&err, msg, sizeof(msg));
        fprintf(stderr, "\n%s: grader error (not graded, graded again next time): %s\n", t->sub->id,
                msg);
        outcome = OUT_XX;
    } else {
        outcome = OUT_WRITTEN | (r.n_fail ? OUT_FAILING : 0) | (r.n_grader_errors ? OUT_XX : 0);
    }
    results_release(&r);
    return outcome;
}

/* One worker: the next student not taken by another, once built, until none is left. With
 * report_fd, tell the parent each outcome; else count and show progress here. */
static void run_worker(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                       struct todo *todo, struct work_queue *q, int report_fd,
                       struct batch_summary *s, double started)
{
    int done = 0;
    size_t n = work_queue_size(q);
    for (size_t i; (i = work_queue_take(q)) < n;) {
        work_queue_wait_built(q, i);
        int outcome = grade_student(env, lab, o, &todo[i]);
        if (report_fd >= 0) {
            struct worker_msg m = {(uint32_t)i, outcome};
            while (write(report_fd, &m, sizeof(m)) < 0 && errno == EINTR)
                ;
            continue;
        }
        tally(s, outcome);
        progress(o, ++done, (int)n, s->failed, started, todo[i].sub->id);
    }
}

char *batch_worker_device(int w, int n_gpus)
{
    const char *p = getenv("CUDA_VISIBLE_DEVICES");
    size_t k = 0;
    for (const char *q = p; q && *q; q += strcspn(q, ",") + (q[strcspn(q, ",")] != 0))
        k++;
    if (k == 0)
        return xstrfmt("%d", w % (n_gpus > 0 ? n_gpus : 1));
    size_t want = (size_t)w % k;
    for (size_t i = 0;; i++) {
        size_t len = strcspn(p, ",");
        if (i == want)
            return xstrndup(p, len);
        p += len + 1;
    }
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

/* One worker process on GPU w: grades students from q and reports each on fds[1]. */
static pid_t start_worker(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                          struct todo *todo, struct work_queue *q, int w, int workers, int fds[2],
                          const char *out)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0)
        return pid;
    /* A worker ends with the grader, even one killed by SIGKILL. */
    n_worker_pids = 0;
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(3);
    close(fds[0]);
    report_seconds = 0;
    no_pdf_count = 0;
    int n_gpus = env->gpu.available && env->gpu.count > 0 ? env->gpu.count : 1;
    char *dev = batch_worker_device(w, n_gpus);
    setenv("CUDA_VISIBLE_DEVICES", dev, 1);
    /* Workers sharing a GPU: timed GPU runs take turns on it, as timed CPU runs do on the
     * machine, so that no timing sees another worker's kernels. */
    if (workers > n_gpus) {
        char host[256] = "localhost";
        gethostname(host, sizeof(host) - 1);
        host[sizeof(host) - 1] = '\0';
        char *lock = xstrfmt("%s/.gpu-timing-%s-%s.lock", out, host, dev);
        setenv("LABGRADER_GPU_LOCK", lock, 1);
        free(lock);
    }
    free(dev);
    run_worker(env, lab, o, todo, q, fds[1], NULL, 0);
    char *stats = worker_stats_path(out, w, parent);
    worker_stats_write(stats);
    free(stats);
    _exit(0);
}

/* Reads the workers' reports that arrived; false once every writer is gone. */
static bool read_reports(int fd, int *outcome, size_t n, struct batch_summary *s,
                         const struct batch_opts *o, struct todo *todo, int *done, double started)
{
    struct worker_msg m;
    ssize_t got;
    while ((got = read(fd, &m, sizeof(m))) == (ssize_t)sizeof(m)) {
        if (m.index >= n || outcome[m.index] >= 0)
            continue;
        outcome[m.index] = m.outcome;
        tally(s, m.outcome);
        progress(o, ++*done, (int)n, s->failed, started, todo[m.index].sub->id);
    }
    return !(got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR));
}

/* Several workers: fork one per GPU, then follow their reports as they come. */
static void run_workers(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                        struct todo *todo, struct work_queue *q, int workers, const char *out,
                        struct batch_summary *s, double started)
{
    size_t n = work_queue_size(q);
    pid_t *pids = xcalloc((size_t)workers, sizeof(pid_t));
    int *outcome = xcalloc(n, sizeof(int));
    int fds[2], done = 0;
    for (size_t i = 0; i < n; i++)
        outcome[i] = -1;
    /* Close-on-exec: no student program may hold the pipe open. */
    if (pipe2(fds, O_CLOEXEC) != 0)
        fds[0] = fds[1] = -1;
    for (int w = 0; w < workers && fds[0] >= 0; w++) {
        pids[w] = start_worker(env, lab, o, todo, q, w, workers, fds, out);
        if (pids[w] > 0 && n_worker_pids < MAX_WORKERS) {
            worker_pids[n_worker_pids] = pids[w];
            n_worker_pids = n_worker_pids + 1;
        }
    }
    if (fds[1] >= 0)
        close(fds[1]);
    if (fds[0] >= 0)
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
    for (bool reading = fds[0] >= 0;;) {
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
        if (reading)
            reading = read_reports(fds[0], outcome, n, s, o, todo, &done, started);
        if (!alive)
            break;
        struct pollfd pfd = {fds[0], POLLIN, 0};
        poll(&pfd, reading ? 1 : 0, 1000);
    }
    if (fds[0] >= 0) {
        read_reports(fds[0], outcome, n, s, o, todo, &done, started);
        close(fds[0]);
    }
    n_worker_pids = 0;
    for (int w = 0; w < workers; w++) {
        char *stats = worker_stats_path(out, w, getpid());
        worker_stats_add(stats);
        free(stats);
    }
    /* A student no worker reported (a worker that died) is the grader's error. */
    for (size_t i = 0; i < n; i++)
        if (outcome[i] < 0) {
            fprintf(stderr, "\n%s: grader error: its GPU worker stopped before grading it\n",
                    todo[i].sub->id);
            tally(s, OUT_XX);
        }
    free(outcome);
    free(pids);
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
        enum graded_state st = graded_state(t->dir, t->stamp, why, sizeof(why));
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
 * ahead of the workers, each of which grades the next student once it is built. */
static int grade_todo(struct grade_env *env, const struct lab *lab, const struct batch_opts *o,
                      struct todo *todo, size_t n, int workers, const char *out,
                      struct batch_summary *s, struct error *err)
{
    double t0 = now_seconds();
    /* Timed CPU work of every worker takes this lock, so it runs alone: one lock per
     * machine, as shards on other nodes of a cluster do not disturb this one's timings.
     * Builds hold it shared. */
    char host[256] = "localhost";
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    char *lock = xstrfmt("%s/.cpu-timing-%s.lock", out, host);
    setenv("LABGRADER_CPU_LOCK", lock, 1);
    free(lock);
    struct work_queue *q = work_queue_create(n);
    if (!q)
        return error_set(err, "cannot share the class's queue between its workers: %s",
                         strerror(errno));
    fprintf(stderr, "building %zu submission%s, grading each once built ...\n", n,
            n == 1 ? "" : "s");
    pid_t builder = start_builder(env, lab, o, todo, n, q);
    if (workers == 1)
        run_worker(env, lab, o, todo, q, -1, s, t0);
    else
        run_workers(env, lab, o, todo, q, workers, out, s, t0);
    if (builder > 0)
        while (waitpid(builder, NULL, 0) < 0 && errno == EINTR)
            ;
    s->t_build = work_queue_build_seconds(q);
    work_queue_free(q);
    /* Several workers write reports at the same time as others run: reports are summed
     * over workers, and runs are the phase's wall time less one worker's share. */
    s->t_runs = now_seconds() - t0 - report_seconds / workers;
    s->t_reports = report_seconds;
    s->no_pdf = no_pdf_count;
    return 0;
}

/* The class's submissions, the lab's sources found wherever students put them: grading
 * and merging must collect alike, or their digests differ. */
static int collect_class(const struct lab *lab, const struct batch_opts *o, const char *unpack,
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
    if (collect_class(lab, o, unpack, &lim, set, err) != 0) {
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
static int prepare_and_grade(struct grade_env *env, const struct lab *lab,
                             const struct batch_opts *o, struct todo *todo, size_t n,
                             const char *ref_digest, const char *out, struct batch_summary *s,
                             struct error *err)
{
    fprintf(stderr, "preparing references and expected outputs ...\n");
    double t0 = now_seconds();
    if (grade_prepare(env, lab, &o->grade, err) != 0)
        return -1;
    s->t_prepare = now_seconds() - t0;
    int workers = o->gpus > 0 ? o->gpus : (env->gpu.available ? env->gpu.count : 1);
    workers = workers < 1 ? 1 : (size_t)workers > n ? (int)n : workers;
    if (check_space(env, o, lab, ref_digest, todo, n, workers, out, err) != 0)
        return -1;
    return grade_todo(env, lab, o, todo, n, workers, out, s, err);
}

static int batch_grade_class(struct grade_env *env, const struct lab *lab,
                             const struct batch_opts *o, struct batch_summary *s, struct error *err)
{
    struct submission_set set;
    char *out = lab_out(lab, o);
    /* Shards can run at once (grader slurm): collect empties its folder, so each shard
     * needs its own. */
    char *unpack = o->shard_n ? xstrfmt("%s/.unpacked-%d-of-%d", out, o->shard_k, o->shard_n)
                              : xstrfmt("%s/.unpacked", out);
    struct todo *todo = NULL;
    struct out_lock lock;
    size_t n = 0;
    int rc = -1;

    double t0 = now_seconds();
    memset(s, 0, sizeof(*s));
    report_seconds = 0;
    no_pdf_count = 0;
    submission_set_init(&set);
    out_lock_init(&lock);
    if (mkdir_p(out, err) != 0 ||
        out_lock_take(&lock, out, o->shard_k, o->shard_n, "grade", err) != 0)
        goto done;
    if (lock.stale_holder)
        fprintf(stderr, "grader: %s stopped without finishing its run on %s; taking over\n",
                lock.stale_holder, out);
    if (collect_graded_class(lab, o, out, unpack, &set, s, err) != 0)
        goto done;
    char ref_digest[65];
    if (write_class_list(out, &set, err) != 0 ||
        build_reference_digest(&env->tc, lab, ref_digest, err) != 0)
        goto done;
    todo = xcalloc(set.n ? set.n : 1, sizeof(*todo));
    if (select_todo(lab, o, &set, out, ref_digest, todo, &n, s, err) != 0)
        goto done;
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
    rc = prepare_and_grade(env, lab, o, todo, n, ref_digest, out, s, err);
done:
    for (size_t i = 0; i < n; i++) {
        free(todo[i].dir);
        free(todo[i].stamp);
    }
    free(todo);
    submission_set_release(&set);
    if (rc == 0 && !o->grade.keep_work)
        remove_tree(unpack, NULL);
    /* Only while holding the lock: another grader's working copies are not ours to remove. */
    if (lock.file && !o->grade.keep_work)
        remove_tree(o->grade.work_dir, NULL);
    out_lock_release(&lock);
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
    if (late_policy_make(lab, &o->late, &late, err) != 0) {
        free(work);
        messages_release(&msgs);
        memset(s, 0, sizeof(*s));
        s->bad_input = true;
        return -1;
    }
    class_late_policy = &late;
    int rc = batch_grade_class(env, lab, &local, s, err);
    class_late_policy = NULL;
    late_policy_release(&late);
    free(work);
    messages_release(&msgs);
    return rc;
}

static const char *or_dash(const char *s)
{
    return s && *s ? s : "-";
}

/* A student's stored results, verified: results_read's checks, and the stamp's checksum when
 * there is a stamp. 0, or -1 with why. */
static int read_stored(const char *dir, struct results *r, char *why, size_t why_size)
{
    struct strbuf json = STRBUF_INIT, stamp = STRBUF_INIT;
    struct error err;
    char *jp = path_join(dir, "results.json"), *sp = path_join(dir, ".graded");
    int rc = -1;
    error_init(&err);
    if (read_file(jp, &json, &err) != 0 ||
        results_from_json(r, json.buf, json.len, jp, &err) != 0) {
        error_format(&err, why, why_size);
        goto out;
    }
    /* A stamp certifies the results it was written with: others (edited, or replaced by a
     * `grader check` of the same id) are not this class's grade. */
    const char *line =
        read_file(sp, &stamp, NULL) == 0 ? strstr(strbuf_str(&stamp), "\nresults ") : NULL;
    if (line) {
        struct sha256 h;
        char hex[65];
        sha256_init(&h);
        sha256_update(&h, json.buf, json.len);
        sha256_final_hex(&h, hex);
        if (strncmp(line + 9, hex, 64) != 0) {
            snprintf(why, why_size,
                     "%s: changed since it was graded (its checksum is not the one "
                     "in .graded)",
                     jp);
            results_release(r);
            goto out;
        }
    }
    rc = 0;
out:
    strbuf_release(&json);
    strbuf_release(&stamp);
    free(jp);
    free(sp);
    return rc;
}

/* id's name in the class list's text ("id<TAB>name" lines), or NULL. Caller frees. */
static char *class_name(const char *list, const char *id)
{
    size_t len = strlen(id);
    for (const char *line = list; line && *line;) {
        const char *end = strchr(line, '\n');
        if (!strncmp(line, id, len) && line[len] == '\t')
            return xstrndup(line + len + 1,
                            end ? (size_t)(end - line) - len - 1 : strlen(line + len + 1));
        line = end ? end + 1 : NULL;
    }
    return NULL;
}

/* The gradebook's row for a student whose results could not be read: no points at all. */
static struct results *stand_in(const struct lab *lab, const char *id, const char *name,
                                const char *why)
{
    struct results *r = xcalloc(1, sizeof(*r));
    results_init(r);
    r->lab_id = xstrdup(lab->id);
    r->lab_number = lab->number;
    r->lab_title = xstrdup(lab->title);
    r->lang = xstrdup(lab->lang ? lab->lang : "en");
    r->student_id = xstrdup(id);
    r->student_name = xstrdup(name ? name : id);
    r->n_grader_errors = 1;
    r->unreadable = xstrdup(why);
    return r;
}

/* Every student folder under dir (one holding results.json or a stamp): its results, or a
 * stand-in when they cannot be read, never nothing. */
static void list_results(const struct lab *lab, const char *dir, const char *class_list,
                         struct results ***all, size_t *n)
{
    struct dirent **list = NULL;
    int m = scandir(dir, &list, NULL, alphasort);
    *all = NULL;
    *n = 0;
    for (int i = 0; i < m; i++) {
        const char *name = list[i]->d_name;
        char *sub = path_join(dir, name);
        char *json = path_join(sub, "results.json"), *stamp = path_join(sub, ".graded");
        if (name[0] != '.' && (file_exists(json) || file_exists(stamp))) {
            struct results *r = xcalloc(1, sizeof(*r));
            char why[2600];
            results_init(r);
            if (read_stored(sub, r, why, sizeof(why)) != 0) {
                char *who = class_name(class_list, name);
                results_free(r);
                r = stand_in(lab, name, who, why);
                free(who);
                printf("%s: results cannot be used (%s); a grader error in the gradebook until "
                       "`grader grade` grades it again\n",
                       name, why);
            }
            *all = xrealloc(*all, (*n + 1) * sizeof(**all));
            (*all)[(*n)++] = r;
        }
        free(sub);
        free(json);
        free(stamp);
        free(list[i]);
    }
    free(list);
}

/* Why a result is left out of the gradebook when the submissions are known. */
enum merge_state { MERGE_OK, MERGE_CHANGED, MERGE_GONE };

static void print_header(int *count, const char *header)
{
    if (!(*count)++)
        printf("%s\n", header);
}

/* Results of students not in the class (gone, or `grader check` runs): listed, left out. */
static void print_gone(struct results **all, size_t n, const enum merge_state *state,
                       const char *header)
{
    int gone = 0;
    for (size_t j = 0; j < n; j++)
        if (state[j] == MERGE_GONE) {
            print_header(&gone, header);
            printf("  %s (%s)\n", all[j]->student_id, or_dash(all[j]->student_name));
        }
}

/*
 * Compares the results with the submissions as they are now: a result of files that
 * have changed since is not a grade yet, and one of a student no longer among the
 * submissions is left out. Students with no result count as missing too, and so do
 * students whose results could not be read (their stand-in row stays).
 */
static int merge_check(const struct lab *lab, const struct batch_opts *o, const char *out,
                       struct results **all, size_t n, enum merge_state *state, int *missing,
                       bool *bad_input, struct error *err)
{
    struct submission_set set;
    struct collect_limits lim;
    char *unpack = xstrfmt("%s/.unpacked-merge", out);
    int rc = -1, changed = 0, absent = 0;
    submission_set_init(&set);
    collect_limits_init(&lim);
    for (size_t j = 0; j < n; j++)
        state[j] = MERGE_GONE;
    if (collect_class(lab, o, unpack, &lim, &set, err) != 0) {
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
            print_header(&absent, "not yet graded:");
            printf("  %s (%s)\n", set.items[i].id, set.items[i].name);
            (*missing)++;
            continue;
        }
        if (all[j]->unreadable) {
            state[j] = MERGE_OK;
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
            print_header(&changed, "not yet graded (changed since graded):");
            printf("  %s (%s)\n", all[j]->student_id, or_dash(all[j]->student_name));
            (*missing)++;
        }
    print_gone(all, n, state, "left out (results of students not among the submissions):");
    rc = 0;
out:
    submission_set_release(&set);
    remove_tree(unpack, NULL);
    free(unpack);
    return rc;
}

/*
 * Without the submissions at hand: the class graded last (out/<lab>/.class) is the
 * gradebook's list of students. Results of anyone else (a `grader check` of the solution
 * into the same folder) are left out; students of the class without results are missing.
 * No class list (results of an older grader): every result counts.
 */
static void class_check(const char *list, struct results **all, size_t n, enum merge_state *state,
                        int *missing)
{
    int absent = 0;
    for (size_t j = 0; j < n; j++)
        state[j] = list ? MERGE_GONE : MERGE_OK;
    for (const char *line = list ? list : ""; *line;) {
        size_t len = strcspn(line, "\t\n"), j = 0;
        const char *end = strchr(line, '\n');
        while (j < n &&
               (strlen(all[j]->student_id) != len || strncmp(all[j]->student_id, line, len) != 0))
            j++;
        if (j < n) {
            state[j] = MERGE_OK;
            if (all[j]->unreadable)
                (*missing)++;
        } else if (len > 0) {
            print_header(&absent, "not yet graded:");
            printf("  %.*s\n", (int)len, line);
            (*missing)++;
        }
        line = end ? end + 1 : "";
    }
    print_gone(all, n, state,
               "left out (not in the class graded last: `grader check` runs, or students no "
               "longer submitted):");
}

/* The class summary, from the results that could be read. */
static int merge_summary(const struct batch_opts *o, const char *out, struct results **all,
                         size_t n, struct error *err)
{
    const struct results **ok = xcalloc(n ? n : 1, sizeof(*ok));
    size_t n_ok = 0;
    for (size_t i = 0; i < n; i++)
        if (!all[i]->unreadable)
            ok[n_ok++] = all[i];
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
    int rc = 0;
    if (n_ok && report_summary(ok, n_ok, out, &ro, &ou, &rerr) != 0) {
        fprintf(stderr, "summary: %s\n", rerr.msg);
        /* A summary that could not be written (a full disk) is the grader's failure; a PDF
         * that could not be made is a note unless PDFs are required. */
        if (!ou.md_written || o->pdf_mode > 0) {
            *err = rerr;
            rc = -1;
        }
    }
    if (ou.md_written)
        printf("summary:   %s\n", ou.md_path);
    if (ou.pdf_written)
        printf("           %s\n", ou.pdf_path);
    else if (ou.md_written && o->pdf_mode >= 0)
        printf("           no PDF: %s\n", ou.pdf_note);
    free(ok);
    return rc;
}

/* Keeps the results whose state is MERGE_OK, in order; frees the others. */
static size_t keep_merged(struct results **all, size_t n, const enum merge_state *state)
{
    size_t kept = 0;
    for (size_t j = 0; j < n; j++)
        if (state[j] == MERGE_OK)
            all[kept++] = all[j];
        else
            results_free(all[j]);
    return kept;
}

/* The class's late policy applied again to the results read back: a changed deadline or
 * extension needs no re-grade. */
static int reapply_late(const struct lab *lab, const struct batch_opts *o, struct results **all,
                        size_t n, struct error *err)
{
    struct late_policy late;
    if (late_policy_make(lab, &o->late, &late, err) != 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        late_apply(&late, all[i]->student_id, all[i]);
    late_policy_release(&late);
    return 0;
}

/* The LMS gradebooks (gradebook.h), and a line for each file. */
static int export_lms_gradebooks(const struct lab *lab, const struct batch_opts *o, const char *out,
                                 const char *col, const struct results *const *all, size_t n,
                                 struct error *err)
{
    struct messages msgs;
    struct error merr;
    size_t left_out = 0;
    int rc = -1;
    messages_init(&msgs);
    error_init(&merr);
    if (o->templates_dir)
        messages_load_lang(&msgs, o->templates_dir, o->lang ? o->lang : lab->lang, &merr);
    struct gradebook_opts go = {col, o->canvas_points, &msgs, 0};
    char *canvas = path_join(out, "gradebook-canvas.csv");
    char *moodle = path_join(out, "gradebook-moodle.csv");
    char *sheet = path_join(out, "moodle-worksheet.csv");
    if (export_gradebook_canvas_csv(all, n, &go, canvas, err) != 0 ||
        export_gradebook_moodle_csv(all, n, &go, moodle, &left_out, err) != 0)
        goto out;
    printf("canvas:    %s\n", canvas);
    printf("moodle:    %s", moodle);
    if (left_out)
        printf(" (%zu left out: no ID number, email or username to map them by; give --roster)",
               left_out);
    printf("\n");
    if (gradebook_has_moodle_participants(all, n)) {
        if (export_moodle_worksheet(all, n, &go, sheet, err) != 0)
            goto out;
        printf("           %s (Moodle's offline grading worksheet)\n", sheet);
    }
    rc = 0;
out:
    free(canvas);
    free(moodle);
    free(sheet);
    messages_release(&msgs);
    return rc;
}

int batch_merge(const struct lab *lab, const struct batch_opts *o, int *missing, bool *bad_input,
                struct error *err)
{
    char *out = lab_out(lab, o);
    struct results **all = NULL;
    struct out_lock lock;
    size_t n = 0;
    int rc = -1;
    *missing = 0;
    char *csv = path_join(out, "gradebook.csv");
    /* Canvas matches "Name (assignment id)"; without the id it creates a new assignment. */
    char *col = o->canvas_assignment ? xstrfmt("%s (%s)", lab->title, o->canvas_assignment)
                                     : xstrdup(lab->title);
    struct strbuf class_list = STRBUF_INIT;
    char *class_path = path_join(out, ".class");
    bool known = read_file(class_path, &class_list, NULL) == 0;
    free(class_path);
    if (out_lock_take(&lock, out, 0, 0, "merge", err) != 0)
        goto out;
    list_results(lab, out, known ? class_list.buf : NULL, &all, &n);
    enum merge_state *state = xcalloc(n ? n : 1, sizeof(*state));
    if (o->submissions && merge_check(lab, o, out, all, n, state, missing, bad_input, err) != 0) {
        free(state);
        goto out;
    }
    if (!o->submissions)
        class_check(known ? class_list.buf : NULL, all, n, state, missing);
    /* Only current grades go into the gradebook and the summary. */
    n = keep_merged(all, n, state);
    free(state);
    if (reapply_late(lab, o, all, n, err) != 0 ||
        export_gradebook_csv((const struct results *const *)all, n, csv, err) != 0)
        goto out;
    printf("gradebook: %s (%zu students)\n", csv, n);
    if (export_lms_gradebooks(lab, o, out, col, (const struct results *const *)all, n, err) != 0)
        goto out;
    if (o->pdf_mode >= -1 && merge_summary(o, out, all, n, err) != 0)
        goto out;
    rc = 0;
out:
    out_lock_release(&lock);
    strbuf_release(&class_list);
    for (size_t i = 0; i < n; i++)
        results_free(all[i]);
    free(all);
    free(csv);
    free(col);
    free(out);
    return rc;
}

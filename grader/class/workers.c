/* workers: the builder ahead of the workers, and the workers, each in its lane of the
 * machine's timing coordinator (batch_internal.h, run/turns.h). */
#include "class/batch_internal.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"
#include "run/turns.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static void batch_progress(const struct batch_opts *o, int done, int total, int failing,
                           double started, const char *last)
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

static void batch_tally(struct batch_summary *s, int outcome)
{
    s->graded += (outcome & OUT_WRITTEN) != 0;
    s->failed += (outcome & OUT_FAILING) != 0;
    s->grader_errors += (outcome & OUT_XX) != 0;
    s->not_timed += (outcome & OUT_NOT_TIMED) != 0;
}

/* One build child: student t built (into the cache and its work folder); its compilers hold
 * the cores they run on, so that no CPU series runs beside them (run/turns.h). */
static void build_child(struct batch_run *b, const struct todo *t, struct work_queue *q,
                        pid_t parent)
{
    struct results r;
    struct error err;
    /* A build ends with the grader: it holds the output folder's lock too. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(3);
    work_queue_not_builder(q);
    results_init(&r);
    int rc = batch_grade_one(b, t, true, &r, &err);
    if (rc != 0)
        fprintf(stderr, "\n%s: build: %s\n", t->sub->id, err.msg);
    results_release(&r);
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
static void build_all(struct batch_run *b, struct work_queue *q)
{
    size_t n = b->n;
    int jobs = b->o->jobs > 0 ? b->o->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    size_t next = 0, running = 0, done = 0;
    pid_t *pids = xcalloc(n, sizeof(pid_t));
    pid_t parent = getpid();
    if (jobs < 1)
        jobs = 1;
    while (done < n) {
        while (running < (size_t)jobs && next < n) {
            pid_t pid = fork();
            if (pid == 0)
                build_child(b, &b->todo[next], q, parent);
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

/* The builder builds on every CPU this grader may use, holding those cores shared: any lane's
 * series freezes its compilers until it is over (run/phaselock.h). */
pid_t batch_start_builder(struct batch_run *b, struct work_queue *q)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(3);
        /* Told apart from the workers in ps and top (and by tests). */
        prctl(PR_SET_NAME, "grader-builder");
        turns_place_all(&b->env->turns);
        double t0 = now_seconds();
        build_all(b, q);
        work_queue_set_build_seconds(q, now_seconds() - t0);
        _exit(0);
    }
    work_queue_not_builder(q);
    return pid;
}

/* A worker's word to the parent: student index and outcome (one write, atomic). */
struct worker_msg {
    uint32_t index;
    int32_t outcome;
};

/* One worker: the next student not taken by another, once built, until none is left. With
 * report_fd, tell the parent each outcome; else count and show progress here. */
static void run_worker(struct batch_run *b, struct work_queue *q, int report_fd,
                       struct batch_summary *s, double started)
{
    int done = 0;
    size_t n = work_queue_size(q);
    for (size_t i; (i = work_queue_take(q)) < n;) {
        work_queue_wait_built(q, i);
        int outcome = batch_grade_student(b, &b->todo[i]);
        if (report_fd >= 0) {
            struct worker_msg m = {(uint32_t)i, outcome};
            while (write(report_fd, &m, sizeof(m)) < 0 && errno == EINTR)
                ;
            continue;
        }
        batch_tally(s, outcome);
        batch_progress(b->o, ++done, (int)n, s->failed, started, b->todo[i].sub->id);
    }
}

int batch_default_workers(const struct gpu_probe *gpu, long cpus)
{
    if (!gpu->available || gpu->count < 1)
        return 1;
    bool shared = gpu_probe_room_for_several(gpu) && cpus / gpu->count >= BATCH_CPUS_PER_SHARED_GPU;
    return gpu->count * (shared ? 2 : 1);
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
static void worker_stats_write(const char *path, const struct batch_run *b)
{
    char text[128];
    int len = snprintf(text, sizeof(text), "%.6f %d\n", b->report_seconds, b->no_pdf);
    write_file_atomic(path, text, (size_t)len, NULL);
}

static void worker_stats_add(const char *path, struct batch_run *b)
{
    struct strbuf sb = STRBUF_INIT;
    double sec;
    int no_pdf;
    if (read_file(path, &sb, NULL) == 0 && sscanf(strbuf_str(&sb), "%lf %d", &sec, &no_pdf) == 2) {
        b->report_seconds += sec;
        b->no_pdf += no_pdf;
    }
    strbuf_release(&sb);
    unlink(path);
}

/* Worker w's GPU, as a CUDA_VISIBLE_DEVICES value, and its lane: the runs it starts get the
 * value in their environment (the toolchain's, which every sandboxed command gets), and are
 * pinned to the lane's cores and hold the lane's locks (run/turns.h). */
static void place_worker(struct grade_env *env, int w)
{
    if (!env->gpu.available) {
        turns_place(&env->turns, 0, NULL);
        return;
    }
    int n_gpus = env->gpu.count > 0 ? env->gpu.count : 1;
    char *dev = batch_worker_device(w, n_gpus);
    setenv("CUDA_VISIBLE_DEVICES", dev, 1);
    toolchain_setenv(&env->tc, "CUDA_VISIBLE_DEVICES", dev);
    free(dev);
    grade_env_place(env, w % n_gpus);
}

/* One worker process: grades students from q and reports each on fds[1]. */
static pid_t start_worker(struct batch_run *b, struct work_queue *q, int w, int fds[2])
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
    b->report_seconds = 0;
    b->no_pdf = 0;
    place_worker(b->env, w);
    /* Its own work (comparisons, reports) on its lane's cores, which its sections hold. */
    turns_pin_self(&b->env->turns);
    run_worker(b, q, fds[1], NULL, 0);
    char *stats = worker_stats_path(b->out, w, parent);
    worker_stats_write(stats, b);
    free(stats);
    _exit(0);
}

/* Reads the workers' reports that arrived; false once every writer is gone. */
static bool read_reports(int fd, int *outcome, struct batch_summary *s, const struct batch_run *b,
                         int *done, double started)
{
    struct worker_msg m;
    ssize_t got;
    size_t n = b->n;
    while ((got = read(fd, &m, sizeof(m))) == (ssize_t)sizeof(m)) {
        if (m.index >= n || outcome[m.index] >= 0)
            continue;
        outcome[m.index] = m.outcome;
        batch_tally(s, m.outcome);
        batch_progress(b->o, ++*done, (int)n, s->failed, started, b->todo[m.index].sub->id);
    }
    return !(got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR));
}

/* Waits for the workers, reading their reports as they come, until none is alive. */
static void follow_workers(struct batch_run *b, pid_t *pids, int workers, int fd, int *outcome,
                           struct batch_summary *s, int *done, double started)
{
    for (bool reading = fd >= 0;;) {
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
            reading = read_reports(fd, outcome, s, b, done, started);
        if (!alive)
            break;
        struct pollfd pfd = {fd, POLLIN, 0};
        poll(&pfd, reading ? 1 : 0, 1000);
    }
    if (fd >= 0)
        read_reports(fd, outcome, s, b, done, started);
}

/* Several workers: fork them, then follow their reports as they come. */
static void fork_workers(struct batch_run *b, struct work_queue *q, int workers,
                         struct batch_summary *s, double started)
{
    size_t n = b->n;
    pid_t *pids = xcalloc((size_t)workers, sizeof(pid_t));
    int *outcome = xcalloc(n, sizeof(int));
    int fds[2], done = 0;
    for (size_t i = 0; i < n; i++)
        outcome[i] = -1;
    /* Close-on-exec: no student program may hold the pipe open. */
    if (pipe2(fds, O_CLOEXEC) != 0)
        fds[0] = fds[1] = -1;
    for (int w = 0; w < workers && fds[0] >= 0; w++) {
        pids[w] = start_worker(b, q, w, fds);
        if (pids[w] > 0 && n_worker_pids < MAX_WORKERS) {
            worker_pids[n_worker_pids] = pids[w];
            n_worker_pids = n_worker_pids + 1;
        }
    }
    if (fds[1] >= 0)
        close(fds[1]);
    if (fds[0] >= 0)
        fcntl(fds[0], F_SETFL, O_NONBLOCK);
    follow_workers(b, pids, workers, fds[0], outcome, s, &done, started);
    if (fds[0] >= 0)
        close(fds[0]);
    n_worker_pids = 0;
    for (int w = 0; w < workers; w++) {
        char *stats = worker_stats_path(b->out, w, getpid());
        worker_stats_add(stats, b);
        free(stats);
    }
    /* A student no worker reported (a worker that died) is the grader's error. */
    for (size_t i = 0; i < n; i++)
        if (outcome[i] < 0) {
            fprintf(stderr, "\n%s: grader error: its worker stopped before grading it\n",
                    b->todo[i].sub->id);
            batch_tally(s, OUT_XX);
        }
    free(outcome);
    free(pids);
}

void batch_run_workers(struct batch_run *b, struct work_queue *q, int workers,
                       struct batch_summary *s, double started)
{
    if (workers > 1) {
        fork_workers(b, q, workers, s, started);
        return;
    }
    place_worker(b->env, 0);
    run_worker(b, q, -1, s, started);
}

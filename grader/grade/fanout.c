/*
 * fanout: tasks in child processes, results back in order (fanout.h).
 */
#include "grade/fanout.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

enum task_state { TASK_WAITING, TASK_RUNNING, TASK_DONE, TASK_COLLECTED };

struct task {
    enum task_state state;
    pid_t pid;
    int status; /* waitpid's */
    char *out;
};

static char *error_path(const char *out)
{
    return xstrfmt("%s.err", out);
}

/* The child: the task, its error (as the struct's bytes) where it failed, and _exit. */
static void child_main(const struct fanout *f, size_t i, const char *out, pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(3);
    struct error err;
    error_init(&err);
    int rc = f->work(f->arg, i, out, &err);
    fflush(NULL);
    if (rc != 0) {
        char *ep = error_path(out);
        struct error ignored;
        error_init(&ignored);
        write_file_atomic(ep, &err, sizeof(err), &ignored);
        free(ep);
        _exit(1);
    }
    _exit(0);
}

static int start(const struct fanout *f, struct task *t, size_t i, struct error *err)
{
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return error_set(err, "cannot start a process for %s: %s", f->name(f->arg, i),
                         strerror(errno));
    if (pid == 0)
        child_main(f, i, t->out, parent);
    t->pid = pid;
    t->state = TASK_RUNNING;
    return 0;
}

/* Why a child that did not succeed failed, into err. */
static int child_failed(const struct fanout *f, const struct task *t, size_t i, struct error *err)
{
    const char *name = f->name(f->arg, i);
    if (WIFSIGNALED(t->status))
        return error_set(err, "the process grading %s was killed by signal %d (%s)", name,
                         WTERMSIG(t->status), strsignal(WTERMSIG(t->status)));
    char *ep = error_path(t->out);
    struct strbuf sb = STRBUF_INIT;
    struct error ignored;
    error_init(&ignored);
    if (read_file(ep, &sb, &ignored) == 0 && sb.len == sizeof(struct error)) {
        memcpy(err, sb.buf, sizeof(struct error));
        err->msg[sizeof(err->msg) - 1] = '\0';
        err->file[sizeof(err->file) - 1] = '\0';
        error_prefix(err, "grading %s: ", name);
    } else {
        error_set(err, "the process grading %s ended with status %d and no word of why", name,
                  WIFEXITED(t->status) ? WEXITSTATUS(t->status) : -1);
    }
    unlink(ep);
    free(ep);
    strbuf_release(&sb);
    return -1;
}

/* Waits for one of the tasks' children; marks its task done. NULL when none is left. */
static struct task *reap_one(struct task *tasks, size_t n)
{
    for (;;) {
        int st = 0;
        pid_t pid = waitpid(-1, &st, 0);
        if (pid < 0 && errno == EINTR)
            continue;
        if (pid < 0)
            return NULL;
        for (size_t i = 0; i < n; i++)
            if (tasks[i].state == TASK_RUNNING && tasks[i].pid == pid) {
                tasks[i].state = TASK_DONE;
                tasks[i].status = st;
                return &tasks[i];
            }
    }
}

/* After a failure: the running children stopped, and waited for. */
static void stop_all(struct task *tasks, size_t n)
{
    size_t running = 0;
    for (size_t i = 0; i < n; i++)
        if (tasks[i].state == TASK_RUNNING) {
            kill(tasks[i].pid, SIGTERM);
            running++;
        }
    while (running > 0 && reap_one(tasks, n))
        running--;
}

static bool succeeded(const struct task *t)
{
    return WIFEXITED(t->status) && WEXITSTATUS(t->status) == 0;
}

/* Collects every task that is done and has none before it pending. -1: one failed. */
static int collect_ready(const struct fanout *f, struct task *tasks, size_t *next,
                         struct error *err)
{
    while (*next < f->n && tasks[*next].state == TASK_DONE) {
        struct task *t = &tasks[*next];
        int rc = f->collect(f->arg, *next, t->out, err);
        unlink(t->out);
        t->state = TASK_COLLECTED;
        if (rc != 0)
            return -1;
        (*next)++;
    }
    return 0;
}

int fanout_run(const struct fanout *f, struct error *err)
{
    struct task *tasks = xcalloc(f->n + 1, sizeof(*tasks));
    int jobs = f->jobs < 1 ? 1 : f->jobs, rc = 0;
    size_t started = 0, collected = 0, running = 0;
    for (size_t i = 0; i < f->n; i++)
        tasks[i].out = xstrfmt("%s/task-%zu.out", f->dir, i);
    while (rc == 0 && collected < f->n) {
        while (rc == 0 && started < f->n && running < (size_t)jobs) {
            rc = start(f, &tasks[started], started, err);
            if (rc == 0) {
                started++;
                running++;
            }
        }
        if (rc != 0)
            break;
        struct task *t = reap_one(tasks, f->n);
        if (!t) {
            rc = error_set(err, "lost track of the processes grading side by side: %s",
                           strerror(errno));
            break;
        }
        running--;
        /* A failure stops everything at once: the grading as a whole has failed. */
        rc = succeeded(t) ? collect_ready(f, tasks, &collected, err)
                          : child_failed(f, t, (size_t)(t - tasks), err);
    }
    if (rc != 0)
        stop_all(tasks, f->n);
    for (size_t i = 0; i < f->n; i++) {
        if (tasks[i].state != TASK_COLLECTED)
            unlink(tasks[i].out);
        free(tasks[i].out);
    }
    free(tasks);
    return rc;
}

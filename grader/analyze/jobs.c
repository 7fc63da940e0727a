/* jobs: a small pool of child processes. See jobs.h. */
#include "analyze/jobs.h"

#include "base/alloc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static pid_t start(struct job *j)
{
    posix_spawn_file_actions_t fa;
    pid_t pid = -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, j->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (posix_spawn(&pid, j->argv[0], &fa, NULL, j->argv, environ) != 0)
        pid = -1;
    posix_spawn_file_actions_destroy(&fa);
    return pid;
}

struct pool {
    struct job *jobs;
    pid_t *pids; /* per job: running pid, or 0 */
    size_t running, finished;
};

/* Wait for one child to end; its job's status set. false when waiting failed. */
static bool reap(struct pool *p, size_t n, job_done_fn done, void *arg)
{
    int st;
    pid_t pid = waitpid(-1, &st, 0);
    if (pid < 0)
        return errno == EINTR;
    for (size_t i = 0; i < n; i++) {
        if (p->pids[i] != pid)
            continue;
        p->pids[i] = 0;
        p->running--;
        p->finished++;
        p->jobs[i].status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        if (done)
            done(&p->jobs[i], arg);
    }
    return true;
}

int jobs_run(struct job *jobs, size_t n, int parallel, job_done_fn done, void *arg,
             struct error *err)
{
    struct sigaction sa, old_int, old_term;
    struct pool p = {jobs, xcalloc(n ? n : 1, sizeof(pid_t)), 0, 0};
    size_t next = 0;
    bool stopping = false;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_stop;
    stop_requested = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    while (next < n || p.running > 0) {
        while (!stop_requested && next < n && p.running < (size_t)(parallel > 0 ? parallel : 1)) {
            struct job *j = &jobs[next];
            pid_t pid = start(j);
            if (pid < 0) {
                j->status = -1;
                p.finished++;
                if (done)
                    done(j, arg);
            } else {
                p.pids[next] = pid;
                p.running++;
            }
            next++;
        }
        if (stop_requested && !stopping) {
            stopping = true;
            for (size_t i = 0; i < n; i++)
                if (p.pids[i] > 0)
                    kill(p.pids[i], SIGTERM);
        }
        if (p.running == 0 || !reap(&p, n, done, arg))
            break;
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(p.pids);
    if (stop_requested)
        return error_set(err, "interrupted: %zu of %zu runs not done", n - p.finished, n);
    return 0;
}

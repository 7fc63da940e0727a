/*
 * child: the sandboxed command's process between fork and exec (run/sandbox_internal.h).
 * Async-signal-safe calls only: the grader may be anything at fork time. A step that fails
 * is reported through the report pipe (stage and errno), so that the supervisor tells "could
 * not start" (SB_SETUP_FAILED) from any exit status of the command.
 */
#include "run/sandbox_internal.h"

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const stage_text[] = {
    [STAGE_FDS] = "setting up file descriptors",
    [STAGE_SETSID] = "setsid",
    [STAGE_PDEATHSIG] = "prctl(PR_SET_PDEATHSIG)",
    [STAGE_NO_NEW_PRIVS] = "prctl(PR_SET_NO_NEW_PRIVS)",
    [STAGE_RLIMIT] = "setrlimit",
    [STAGE_CHDIR] = "changing to the working directory",
    [STAGE_EXEC] = "exec",
};

const char *child_stage_text(int stage)
{
    return stage >= 0 && stage <= STAGE_EXEC ? stage_text[stage] : "starting the child";
}

__attribute__((noreturn)) static void child_fail(int report_fd, int stage, int err)
{
    struct child_report rep = {stage, err};
    ssize_t w = write(report_fd, &rep, sizeof(rep));
    (void)w;
    _exit(127);
}

static int move_high(int fd)
{
    return fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 16);
}

/* The go-ahead: arm the parent-death signal before waiting for it, and drop our copy of the go
 * pipe's write end, or a grader that dies before writing it leaves this child blocked in read()
 * forever, holding its own write end open. */
static void wait_for_go(const struct child_plan *p)
{
    close(p->go_write_fd);
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        child_fail(p->report_fd, STAGE_PDEATHSIG, errno);
    if (getppid() != p->parent)
        _exit(127); /* the grader died before PDEATHSIG was armed */
    char go;
    ssize_t n;
    do
        n = read(p->go_fd, &go, 1);
    while (n < 0 && errno == EINTR);
    if (n != 1)
        _exit(127); /* the supervisor went away */
}

/* The descriptors the command gets, in their places (stdin from /dev/null, the output, bwrap's
 * status pipe, the control pipe and the grant socket after it), everything else closed; returns
 * where the report pipe is now (closed on exec). */
static int place_fds(const struct child_plan *p)
{
    /* Move everything we keep out of the way of 0..5 first: any of them may have been
     * given a low number if the grader runs with a closed stdin. */
    int report = move_high(p->report_fd);
    int out = move_high(p->out_fd);
    int null = move_high(p->null_fd);
    int json = move_high(p->json_fd);
    int ctl = move_high(p->ctl_fd);
    int grant = ctl >= 0 ? move_high(p->grant_fd) : -1;
    if (report < 0)
        _exit(127);
    if (out < 0 || null < 0 || (p->json_fd >= 0 && json < 0) || (p->ctl_fd >= 0 && ctl < 0) ||
        (ctl >= 0 && p->grant_fd >= 0 && grant < 0))
        child_fail(report, STAGE_FDS, errno);
    int report_target = 3 + (json >= 0) + (ctl >= 0) + (grant >= 0);
    if (dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
        (json >= 0 && dup2(json, 3) < 0) || (ctl >= 0 && dup2(ctl, p->ctl_target) < 0) ||
        (grant >= 0 && dup2(grant, p->ctl_target + 1) < 0))
        child_fail(report, STAGE_FDS, errno);
    if (dup3(report, report_target, O_CLOEXEC) < 0)
        child_fail(report, STAGE_FDS, errno);
    report = report_target;
    if (syscall(SYS_close_range, (unsigned)report + 1, ~0U, 0) != 0) {
        struct rlimit nf;
        long top =
            getrlimit(RLIMIT_NOFILE, &nf) == 0 && nf.rlim_cur < 65536 ? (long)nf.rlim_cur : 65536;
        for (long fd = report + 1; fd < top; fd++)
            close((int)fd);
    }
    return report;
}

void child_run(const struct child_plan *p)
{
    wait_for_go(p);
    int report = place_fds(p);

    if (setsid() < 0)
        child_fail(report, STAGE_SETSID, errno);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        child_fail(report, STAGE_NO_NEW_PRIVS, errno);
    const struct child_limits *l = &p->limits;
    if (setrlimit(RLIMIT_CORE, &l->core) != 0 || setrlimit(RLIMIT_NOFILE, &l->nofile) != 0 ||
        (l->has_as_limit && setrlimit(RLIMIT_AS, &l->as) != 0) ||
        setrlimit(RLIMIT_FSIZE, &l->fsize) != 0 ||
        (l->has_cpu_limit && setrlimit(RLIMIT_CPU, &l->cpu) != 0))
        child_fail(report, STAGE_RLIMIT, errno);
    if (chdir(p->workdir) != 0)
        child_fail(report, STAGE_CHDIR, errno);
    /* The lane's cores (run/turns.h): every thread the command starts inherits them. A set this
     * process may not use leaves its own, which holds at least the same locks. */
    if (p->cpus)
        (void)sched_setaffinity(0, sizeof(*p->cpus), p->cpus);
    /* Lowering a priority needs no privilege; where even that is refused the command runs as
     * before, at the grader's own. */
    if (p->background) {
        struct sched_param none = {0};
        (void)sched_setscheduler(0, SCHED_IDLE, &none);
    }

    /* Ignored signals stay ignored across exec: a grader that ignores SIGPIPE must not
     * change how `yes | head` behaves in the sandbox. */
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    execve(p->exec_path, p->argv, p->envp);
    if (errno == ENOEXEC && p->sh_argv)
        execve("/bin/sh", p->sh_argv, p->envp);
    child_fail(report, STAGE_EXEC, errno);
}

/*
 * supervisor: one sandboxed run from start to end, and the sandbox's entry points
 * (sandbox_run, sandbox_available; run/sandbox.h).
 *
 * A run: prepare (the clean environment, the program found, bubblewrap's command line, the
 * rlimits), spawn (pipes, the cgroup, fork; the child waits for the go-ahead so that it is in
 * its cgroup before it runs anything, and reports a failed exec), supervise (drain the
 * output, watch the wall clock and, without a cgroup's memory.max, the memory of the run's
 * processes), end it (kill the process group, the cgroup, every escaped descendant; drain;
 * reap), account (CPU time, peak memory) and classify (run/classify.c).
 */
#include "run/sandbox_internal.h"
#include "run/control.h"
#include "run/work.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Everything one run holds; run_cleanup() releases it. */
struct run {
    const struct sandbox_opts *o;
    enum isolation iso;
    struct sandbox_result *r;
    struct error *err;
    char *workdir, *resolved, *bwrap;
    struct argvec env, cmd, sh_argv;
    int out_pipe[2], report_pipe[2], go_pipe[2], json_pipe[2], ctl_pipe[2];
    int ctl_target; /* the control pipe's fd in the child, -1 without one */
    struct sb_control ctl;
    struct grants grants; /* the timing locks, served on the control pipe's requests */
    bool case_expired;    /* the current case's own limit ended the run */
    int null_fd, pidfd, slot;
    struct cgroup cg;
    struct capture cap;
    struct child_plan plan;
    pid_t pid; /* the main child, until reaped */
    double start;
    bool out_open, timed_out;
    struct memwatch mw;
    struct sweep_ctx sweep;
    int wait_status;
    struct rusage ru;
};

static int setup_failed(struct sandbox_result *r, struct error *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int setup_failed(struct sandbox_result *r, struct error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->setup_error, sizeof(r->setup_error), fmt, ap);
    va_end(ap);
    r->status = SB_SETUP_FAILED;
    if (!r->output)
        r->output = xstrdup("");
    return error_set(err, "sandbox: %s", r->setup_error);
}

static void run_init(struct run *run, const struct sandbox_opts *o, enum isolation iso,
                     struct sandbox_result *r, struct error *err)
{
    memset(run, 0, sizeof(*run));
    run->o = o;
    run->iso = iso;
    run->r = r;
    run->err = err;
    for (int i = 0; i < 2; i++)
        run->out_pipe[i] = run->report_pipe[i] = run->go_pipe[i] = run->json_pipe[i] =
            run->ctl_pipe[i] = -1;
    /* The control pipe goes after bubblewrap's status pipe (3) where there is one. */
    run->ctl_target = !o->control ? -1 : iso == ISOLATION_BWRAP ? 4 : 3;
    sb_control_init(&run->ctl, -1, o, 0);
    grants_init(&run->grants);
    run->null_fd = run->pidfd = run->slot = -1;
    run->cg = (struct cgroup)CGROUP_INIT;
    capture_init(&run->cap, o);
    run->pid = -1;
}

/* The command line: bubblewrap's, or the command itself (and how /bin/sh would run it as a
 * script without #!). */
static int run_command_line(struct run *run)
{
    const struct sandbox_opts *o = run->o;
    if (run->iso != ISOLATION_BWRAP) {
        for (const char *const *p = o->argv; *p; p++)
            argvec_push(&run->cmd, *p);
        argvec_push2(&run->sh_argv, "/bin/sh", run->resolved);
        for (const char *const *p = o->argv + 1; *p; p++)
            argvec_push(&run->sh_argv, *p);
        return 0;
    }
    run->bwrap = find_program("bwrap");
    if (!run->bwrap)
        return setup_failed(run->r, run->err, "bubblewrap (bwrap) is not installed or not in PATH");
    if (pipe2(run->json_pipe, O_CLOEXEC) != 0)
        return setup_failed(run->r, run->err, "pipe: %s", strerror(errno));
    if (bwrap_build(o, run->bwrap, run->workdir, 3, &run->cmd, run->err) != 0)
        return setup_failed(run->r, run->err, "%s", run->err->msg);
    return 0;
}

static int run_prepare(struct run *run)
{
    const struct sandbox_opts *o = run->o;
    limits_environment(o, run->workdir, run->ctl_target, &run->env);
    run->resolved =
        limits_resolve_program(o->argv[0], limits_env_get(&run->env, "PATH"), run->workdir);
    if (!run->resolved)
        return setup_failed(run->r, run->err, "%s: %s", o->argv[0],
                            strchr(o->argv[0], '/') ? "no such executable file"
                                                    : "command not found in the sandbox PATH");
    if (run_command_line(run) != 0)
        return -1;
    struct child_plan *plan = &run->plan;
    plan->exec_path = run->iso == ISOLATION_BWRAP ? run->bwrap : run->resolved;
    plan->argv = run->cmd.v;
    plan->sh_argv = run->iso == ISOLATION_BWRAP ? NULL : run->sh_argv.v;
    plan->envp = run->env.v;
    plan->workdir = run->workdir;
    plan->parent = getpid();
    plan->cpus = o->cpus;
    plan->background = o->background;
    limits_plan(o, &plan->limits);
    return 0;
}

static int run_open_pipes(struct run *run)
{
    if (pipe2(run->out_pipe, O_CLOEXEC) != 0 || pipe2(run->report_pipe, O_CLOEXEC) != 0 ||
        pipe2(run->go_pipe, O_CLOEXEC) != 0 ||
        (run->o->control && pipe2(run->ctl_pipe, O_CLOEXEC) != 0))
        return setup_failed(run->r, run->err, "pipe: %s", strerror(errno));
    run->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (run->null_fd < 0)
        return setup_failed(run->r, run->err, "/dev/null: %s", strerror(errno));
    fcntl(run->out_pipe[0], F_SETFL, fcntl(run->out_pipe[0], F_GETFL) | O_NONBLOCK);
    if (run->json_pipe[0] >= 0)
        fcntl(run->json_pipe[0], F_SETFL, fcntl(run->json_pipe[0], F_GETFL) | O_NONBLOCK);
    if (run->ctl_pipe[0] >= 0)
        fcntl(run->ctl_pipe[0], F_SETFL, fcntl(run->ctl_pipe[0], F_GETFL) | O_NONBLOCK);
    run->plan.go_fd = run->go_pipe[0];
    run->plan.go_write_fd = run->go_pipe[1];
    run->plan.report_fd = run->report_pipe[1];
    run->plan.out_fd = run->out_pipe[1];
    run->plan.null_fd = run->null_fd;
    run->plan.json_fd = run->json_pipe[1];
    run->plan.ctl_fd = run->ctl_pipe[1];
    run->plan.ctl_target = run->ctl_target;
    /* Last: it may wait for other runs' timed series to end before this one starts. */
    if (grants_open(&run->grants, run->o, run->ctl_target + 1, run->err) != 0)
        return setup_failed(run->r, run->err, "%s", run->err->msg);
    run->plan.grant_fd = run->grants.pipe[0];
    return 0;
}

static int pidfd_for(pid_t pid)
{
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#else
    (void)pid;
    return -1;
#endif
}

static bool child_has_exited(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof(si));
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == pid;
}

/* After the fork: the child in its cgroup, which limits hold, and the memory watcher where
 * the cgroup does not hold memory. */
static void run_adopt(struct run *run)
{
    const struct sandbox_opts *o = run->o;
    struct sandbox_result *r = run->r;
    sb_close_fd(&run->go_pipe[0]);
    sb_close_fd(&run->report_pipe[1]);
    sb_close_fd(&run->out_pipe[1]);
    sb_close_fd(&run->json_pipe[1]);
    sb_close_fd(&run->ctl_pipe[1]);
    sb_close_fd(&run->grants.pipe[0]);
    sb_close_fd(&run->null_fd);
    sb_control_init(&run->ctl, run->ctl_pipe[0], o, run->start);
    run->ctl_pipe[0] = -1; /* the control's now */
    run->pidfd = pidfd_for(run->pid);
    if (run->cg.dir && !cgroup_attach(&run->cg, run->pid)) {
        /* Not permitted after all: fall back to the process-tree sweep alone. */
        cgroup_destroy(&run->cg);
    }
    r->cgroup_used = run->cg.dir != NULL;
    r->pids_limit_enforced = run->cg.dir && run->cg.pids_limited;
    if (o->memory_limit_bytes > 0) {
        r->memory_limit_bytes = o->memory_limit_bytes;
        r->memory_guard =
            run->cg.dir && run->cg.memory_limited ? MEMORY_GUARD_CGROUP : MEMORY_GUARD_WATCHER;
    }
    r->memory_limit_enforced = r->memory_guard != MEMORY_GUARD_NONE;
    memwatch_start(&run->mw, run->pid,
                   r->memory_guard == MEMORY_GUARD_WATCHER ? o->memory_limit_bytes : 0);
    run->slot = running_register(run->pid, run->cg.kill_fd);
    grants_attach(&run->grants, run->pid, run->cg.dir);
}

/* The go-ahead, then the child's report: nothing (it exec'd) or the step that failed. */
static int run_start(struct run *run)
{
    ssize_t n;
    do
        n = write(run->go_pipe[1], "g", 1);
    while (n < 0 && errno == EINTR);
    sb_close_fd(&run->go_pipe[1]);

    struct child_report rep;
    size_t got = 0;
    for (;;) {
        n = read(run->report_pipe[0], (char *)&rep + got, sizeof(rep) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got == sizeof(rep))
            break;
    }
    sb_close_fd(&run->report_pipe[0]);
    if (got != sizeof(rep))
        return 0;
    int st;
    while (waitpid(run->pid, &st, 0) < 0 && errno == EINTR) {
    }
    running_unregister(run->slot);
    run->slot = -1;
    run->pid = -1;
    return setup_failed(run->r, run->err, "%s %s: %s", child_stage_text(rep.stage),
                        rep.stage == STAGE_EXEC ? run->plan.exec_path : "", strerror(rep.err));
}

static int run_spawn(struct run *run)
{
    if (run_open_pipes(run) != 0)
        return -1;
    sweep_set_subreaper_once();
    cgroup_create(run->o, &run->cg);
    sweep_preexisting_snapshot();
    run->start = now_seconds();
    run->pid = fork();
    if (run->pid < 0)
        return setup_failed(run->r, run->err, "fork: %s", strerror(errno));
    if (run->pid == 0)
        child_run(&run->plan);
    run_adopt(run);
    return run_start(run);
}

/* How long poll() may wait: until the deadline, the next memory sample, or 20 ms without a
 * pidfd to wake it at the exit, or while a control pipe is open (each wake-up that finds the
 * pipe empty tells when the harness's next line was written at the earliest: control.h). */
static int run_poll_ms(const struct run *run, double deadline, double now, bool ctl_open)
{
    int timeout_ms = deadline > 0 ? (int)ceil((deadline - now) * 1000.0) : -1;
    int mw = grants_frozen(&run->grants) ? -1 : memwatch_wait_ms(&run->mw, now);
    if (mw >= 0 && (timeout_ms < 0 || mw < timeout_ms))
        timeout_ms = mw;
    if ((run->pidfd < 0 || ctl_open) && (timeout_ms < 0 || timeout_ms > 20))
        timeout_ms = 20;
    return timeout_ms;
}

/* The deadline now: the run's and its case's, moved on by its waits for timing locks and for
 * a quiet machine, none while it waits (frozen, or blocked on the grant pipe). */
static double run_deadline_now(const struct run *run, double now)
{
    if (grants_frozen(&run->grants))
        return 0;
    double held = grants_paused(&run->grants, now) + grants_settled(&run->grants, now);
    double run_deadline = run->o->wall_limit_s > 0 ? run->start + run->o->wall_limit_s + held : 0;
    return sb_control_deadline(&run->ctl, run_deadline);
}

/* Collect output, watch the clock and the memory, serve the timing locks, notice the exit. */
static void run_supervise(struct run *run)
{
    run->out_open = true;
    bool ctl_open = run->ctl.fd >= 0;
    for (;;) {
        if (run->pidfd < 0 && child_has_exited(run->pid))
            break;
        double now = now_seconds();
        int grant_ms = grants_serve(&run->grants, &run->ctl, now);
        double deadline = run_deadline_now(run, now);
        if (deadline > 0 && deadline - now <= 0) {
            run->timed_out = !child_has_exited(run->pid);
            run->case_expired = run->timed_out && sb_control_case_expired(&run->ctl, now);
            break;
        }
        /* A frozen run holds what it held: no sample of its memory, which would only load the
         * cores of the series it was frozen for (each sample a walk through /proc). */
        if (!grants_frozen(&run->grants) && memwatch_poll(&run->mw, now))
            break;
        struct pollfd fds[3];
        nfds_t nfds = 0;
        int out_idx = -1, pid_idx = -1, ctl_idx = -1;
        if (run->out_open) {
            fds[nfds] = (struct pollfd){run->out_pipe[0], POLLIN, 0};
            out_idx = (int)nfds++;
        }
        if (ctl_open) {
            fds[nfds] = (struct pollfd){run->ctl.fd, POLLIN, 0};
            ctl_idx = (int)nfds++;
        }
        if (run->pidfd >= 0) {
            fds[nfds] = (struct pollfd){run->pidfd, POLLIN, 0};
            pid_idx = (int)nfds++;
        }
        /* The clock read again: a memory sample may have taken a while. */
        double before = now_seconds();
        int wait_ms = run_poll_ms(run, deadline, before, ctl_open);
        if (grant_ms >= 0 && (wait_ms < 0 || wait_ms > grant_ms))
            wait_ms = grant_ms;
        int prc = poll(fds, nfds, wait_ms);
        if (prc < 0 && errno != EINTR)
            sb_sleep_ms(10); /* should not happen; do not spin */
        if (prc >= 0 && ctl_idx >= 0 && !fds[ctl_idx].revents)
            sb_control_idle(&run->ctl, before);
        if (prc <= 0)
            continue;
        if (out_idx >= 0 && fds[out_idx].revents && capture_read(run->out_pipe[0], &run->cap) == 0)
            run->out_open = false;
        if (ctl_idx >= 0 && fds[ctl_idx].revents && !sb_control_read(&run->ctl))
            ctl_open = false;
        if (pid_idx >= 0 && fds[pid_idx].revents)
            break;
    }
    run->r->wall_s = now_seconds() - run->start;
}

/* Whatever happened, nothing of the run survives it. The main child stays a zombie until the
 * end, so its pid (and process group id) cannot be reused meanwhile. */
static void run_end(struct run *run)
{
    pid_t pid = run->pid;
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    /* Its children are re-parented to us only once it has fully exited: sweeping
     * earlier would miss them. */
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    double settle = now_seconds() + SB_SETTLE_S;
    if (run->cg.dir) {
        cgroup_kill_all(run->cg.dir, run->cg.kill_fd);
        cgroup_wait_empty(run->cg.dir, settle);
    }
    run->sweep = (struct sweep_ctx){.keep = pid, .reap = true};
    for (;;) {
        sweep_descendants(&run->sweep, 1000);
        if (run->sweep.remaining == 0 || now_seconds() > settle)
            break;
    }
    double drain_end = now_seconds() + SB_DRAIN_S;
    while (run->out_open && now_seconds() < drain_end) {
        struct pollfd pfd = {run->out_pipe[0], POLLIN, 0};
        if (poll(&pfd, 1, 50) > 0 && capture_read(run->out_pipe[0], &run->cap) == 0)
            run->out_open = false;
    }
    while (wait4(pid, &run->wait_status, 0, &run->ru) < 0 && errno == EINTR) {
    }
    grants_detach(&run->grants);
    running_unregister(run->slot);
    run->slot = -1;
    run->pid = -1;
}

/* CPU time and peak memory: the cgroup's where there is one (every process), else the
 * main child's and the swept descendants'; the watcher's peak where it ran. */
static void run_account(struct run *run)
{
    struct sandbox_result *r = run->r;
    const struct rusage *ru = &run->ru;
    double child_cpu = (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
                       (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
    r->cpu_s = child_cpu + run->sweep.cpu_s;
    r->peak_rss_kb = ru->ru_maxrss > run->sweep.maxrss_kb ? ru->ru_maxrss : run->sweep.maxrss_kb;
    if (r->memory_guard == MEMORY_GUARD_WATCHER) {
        r->memory_peak_bytes = run->mw.peak_bytes;
        if (run->mw.peak_bytes / 1024 > r->peak_rss_kb)
            r->peak_rss_kb = (long)(run->mw.peak_bytes / 1024);
    }
    struct cgroup_usage u;
    cgroup_usage_read(&run->cg, &u);
    if (u.cpu_s >= 0)
        r->cpu_s = u.cpu_s;
    if (u.peak_bytes > 0) {
        r->peak_rss_kb = (long)(u.peak_bytes / 1024);
        if (r->memory_guard == MEMORY_GUARD_CGROUP)
            r->memory_peak_bytes = u.peak_bytes;
    }
    struct run_end e = {.wait_status = run->wait_status,
                        .timed_out = run->timed_out,
                        .memory_exceeded = run->mw.exceeded,
                        .oom_kills = u.oom_kills,
                        .bwrap = run->iso == ISOLATION_BWRAP,
                        .json_fd = run->json_pipe[0],
                        .limits = &run->plan.limits};
    if (classify_run(&e, r) != 0) {
        /* bwrap's own failure: its message is the first line of the output. */
        char msg[sizeof(r->setup_error)];
        bwrap_failure_text(run->cap.sb.buf, WEXITSTATUS(run->wait_status), msg, sizeof(msg));
        setup_failed(r, run->err, "%s", msg);
        free(r->output);
        r->output = NULL;
    }
    r->output_truncated = run->cap.truncated;
    r->output = capture_finish(&run->cap, &r->output_len);
}

static void run_cleanup(struct run *run)
{
    if (run->pid > 0) {
        /* Only reached on a setup failure after fork: do not leave the child behind. */
        kill(run->pid, SIGKILL);
        int st;
        while (waitpid(run->pid, &st, 0) < 0 && errno == EINTR) {
        }
        grants_detach(&run->grants);
    }
    running_unregister(run->slot);
    cgroup_destroy(&run->cg);
    sb_close_fd(&run->pidfd);
    for (int i = 0; i < 2; i++) {
        sb_close_fd(&run->out_pipe[i]);
        sb_close_fd(&run->report_pipe[i]);
        sb_close_fd(&run->go_pipe[i]);
        sb_close_fd(&run->json_pipe[i]);
        sb_close_fd(&run->ctl_pipe[i]);
    }
    run->r->lock_wait_s = grants_paused(&run->grants, now_seconds());
    grants_finish(&run->grants, run->r);
    grants_close(&run->grants);
    sb_control_finish(&run->ctl, run->r, run->case_expired);
    sb_close_fd(&run->null_fd);
    capture_release(&run->cap);
    argvec_clear(&run->env);
    argvec_clear(&run->cmd);
    argvec_clear(&run->sh_argv);
    free(run->resolved);
    free(run->bwrap);
    free(run->workdir);
    if (!run->r->output)
        run->r->output = xstrdup("");
}

static int run_sandboxed(const struct sandbox_opts *o, enum isolation iso, struct sandbox_result *r,
                         struct error *err)
{
    sandbox_result_init(r);
    r->isolation_used = iso;
    if (!o->argv || !o->argv[0] || !o->argv[0][0])
        return setup_failed(r, err, "no command given");
    if (!o->workdir || !dir_exists(o->workdir))
        return setup_failed(r, err, "working directory %s does not exist",
                            o->workdir ? o->workdir : "(none)");
    char *workdir = realpath(o->workdir, NULL);
    if (!workdir)
        return setup_failed(r, err, "working directory %s: %s", o->workdir, strerror(errno));

    struct run run;
    run_init(&run, o, iso, r, err);
    run.workdir = workdir;
    int rc = -1;
    if (run_prepare(&run) == 0 && run_spawn(&run) == 0) {
        run_supervise(&run);
        run_end(&run);
        run_account(&run);
        rc = r->status == SB_SETUP_FAILED ? -1 : 0;
    }
    run_cleanup(&run);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Probing and the public entry points                                      */

static int bwrap_state; /* 0 unknown, 1 works, -1 does not */
static char bwrap_reason[512];

/* Runs `true` through exactly the bwrap setup used for real runs. */
static void bwrap_probe(void)
{
    const char *tmp = getenv("TMPDIR");
    char *templ = xstrfmt("%s/labgrader-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(templ)) {
        snprintf(bwrap_reason, sizeof(bwrap_reason), "cannot create a probe directory: %s",
                 strerror(errno));
        bwrap_state = -1;
        free(templ);
        return;
    }
    static const char *const argv[] = {"true", NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    sandbox_opts_init(&o);
    error_init(&err);
    o.argv = argv;
    o.workdir = templ;
    o.wall_limit_s = 30;
    o.isolation = ISOLATION_BWRAP;
    if (run_sandboxed(&o, ISOLATION_BWRAP, &r, &err) != 0) {
        snprintf(bwrap_reason, sizeof(bwrap_reason), "%s", r.setup_error);
        bwrap_state = -1;
    } else if (r.status != SB_EXITED || r.exit_code != 0) {
        char what[128];
        sandbox_describe(&r, what, sizeof(what));
        snprintf(bwrap_reason, sizeof(bwrap_reason), "a test command %s: %.300s", what, r.output);
        bwrap_state = -1;
    } else {
        bwrap_state = 1;
    }
    sandbox_result_release(&r);
    remove_tree(templ, &err);
    free(templ);
}

static bool bwrap_usable(char *reason, size_t size)
{
    if (bwrap_state == 0)
        bwrap_probe();
    if (reason && size)
        snprintf(reason, size, "%s", bwrap_reason);
    return bwrap_state > 0;
}

enum isolation sandbox_available(void)
{
    const char *env = getenv("LABGRADER_ISOLATION");
    if (env && !strcmp(env, "supervisor"))
        return ISOLATION_SUPERVISOR;
    if (env && !strcmp(env, "bwrap"))
        return ISOLATION_BWRAP;
    return bwrap_usable(NULL, 0) ? ISOLATION_BWRAP : ISOLATION_SUPERVISOR;
}

int sandbox_run(const struct sandbox_opts *o, struct sandbox_result *r, struct error *err)
{
    enum isolation iso = o->isolation;
    if (iso == ISOLATION_AUTO) {
        iso = sandbox_available();
    } else if (iso == ISOLATION_BWRAP) {
        char reason[512];
        if (!bwrap_usable(reason, sizeof(reason))) {
            sandbox_result_init(r);
            r->isolation_used = ISOLATION_BWRAP;
            return setup_failed(r, err,
                                "bubblewrap isolation was requested but does not work "
                                "here: %s",
                                reason);
        }
    }
    /* A section of the grader's own work waits for no run (work.h). */
    work_pause();
    int rc = run_sandboxed(o, iso, r, err);
    work_resume();
    return rc;
}

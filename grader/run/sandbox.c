/*
 * sandbox: the supervisor that runs untrusted commands (student programs and the
 * compiler on student sources).
 *
 * What each level guarantees
 * --------------------------
 * Supervisor (always):
 *   - the child runs in its own session and process group, with PR_SET_NO_NEW_PRIVS,
 *     PR_SET_PDEATHSIG(SIGKILL) (it dies with the grader), RLIMIT_CPU, RLIMIT_FSIZE,
 *     RLIMIT_NOFILE 256 and RLIMIT_CORE 0, default signal dispositions, a clean
 *     environment, stdin from /dev/null and no other inherited descriptor;
 *   - at the wall-clock limit, and also after a normal exit, the process group is
 *     killed, and then every remaining descendant: the grader is a child subreaper
 *     (PR_SET_CHILD_SUBREAPER, set once, process-wide), so processes that left the
 *     group (setsid, double fork) are re-parented to it and killed and reaped here;
 *   - output is drained continuously, so a chatty child never blocks, and only
 *     output_cap bytes are kept.
 *   It does NOT protect files: the command runs with the grader's uid and sees and may
 *   write everything that uid may (as root: everything, including cgroups and other
 *   processes). It does not limit memory or process count without a cgroup.
 * Cgroup v2 (added when our cgroup, or LABGRADER_CGROUP, is writable):
 *   - every process of the run, whatever it does with sessions and parents, is in
 *     labgrader-<pid>-<n> and dies with one write to cgroup.kill (race-free against
 *     fork loops); memory.max and pids.max are set when requested and the controllers
 *     are available (SB_MEMORY_LIMIT when the kernel OOM-killed any process of the
 *     run); CPU time (cpu.stat) and peak memory (memory.peak) cover all processes.
 *     Limits need a parent whose controllers can be enabled for children: a delegated
 *     cgroup (LABGRADER_CGROUP=/sys/fs/cgroup/..., e.g. from systemd Delegate=yes) or
 *     the root; in our own cgroup, which holds our processes, cgroup v2 refuses them.
 *   Only cgroup v2 is used; on v1/hybrid hosts memory and process limits are not
 *   enforced (the kill and accounting still work when the v2 hierarchy is writable).
 * Bubblewrap (namespaces):
 *   - user, mount, pid, ipc, uts, cgroup and (unless opts->network) network
 *     namespaces; all capabilities dropped (bwrap run by root would otherwise keep
 *     them); a read-only system (/usr, /bin, /lib*, a few files of /etc, the CUDA
 *     toolkit), fresh /proc, minimal /dev, a private /tmp; only the workdir and
 *     rw_paths writable; ro_paths visible read-only; nothing else of the host (the
 *     grader's tree, home directories, other students' folders) exists inside;
 *   - the command and everything it started die when bwrap's pid 1 dies, which
 *     --die-with-parent ties to the supervisor.
 *   It does not filter system calls (no seccomp) and shares the kernel, so a kernel
 *   exploit escapes it; /sys is visible (read-only) when opts->gpu is set.
 *
 * Exit statuses through bubblewrap: bwrap reports a command killed by signal N as exit
 * status 128+N, so under bwrap such statuses are read as that signal. bwrap's
 * --json-status-fd reports an exit code only when its setup and the exec succeeded,
 * which is how a bwrap failure is told apart from the command's own exit status 1.
 */
#include "run/sandbox.h"
#include "run/control.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_OUTPUT_CAP ((size_t)64 * 1024)
#define DEFAULT_FILE_LIMIT (1024LL * 1024 * 1024)
#define CHILD_NOFILE 256
/* How long to wait for killed processes to disappear and for the pipe to reach EOF. */
#define SETTLE_S 5.0
#define DRAIN_S 2.0
#define SAFE_PATH "/usr/local/bin:/usr/bin:/bin"

/* ------------------------------------------------------------------------ */
/* Names and descriptions                                                   */

const char *isolation_name(enum isolation i)
{
    switch (i) {
    case ISOLATION_AUTO:
        return "auto";
    case ISOLATION_SUPERVISOR:
        return "supervisor";
    case ISOLATION_BWRAP:
        return "bwrap";
    }
    return "unknown";
}

static const struct {
    int sig;
    const char *name;
    const char *what;
} signal_table[] = {
    {SIGHUP, "SIGHUP", "hangup"},
    {SIGINT, "SIGINT", "interrupt"},
    {SIGQUIT, "SIGQUIT", "quit"},
    {SIGILL, "SIGILL", "illegal instruction"},
    {SIGTRAP, "SIGTRAP", "trace/breakpoint trap"},
    {SIGABRT, "SIGABRT", "aborted"},
    {SIGBUS, "SIGBUS", "bus error"},
    {SIGFPE, "SIGFPE", "floating-point exception"},
    {SIGKILL, "SIGKILL", "killed"},
    {SIGUSR1, "SIGUSR1", "user signal 1"},
    {SIGSEGV, "SIGSEGV", "segmentation fault"},
    {SIGUSR2, "SIGUSR2", "user signal 2"},
    {SIGPIPE, "SIGPIPE", "broken pipe"},
    {SIGALRM, "SIGALRM", "alarm clock"},
    {SIGTERM, "SIGTERM", "terminated"},
    {SIGXCPU, "SIGXCPU", "CPU time limit exceeded"},
    {SIGXFSZ, "SIGXFSZ", "file size limit exceeded"},
    {SIGSYS, "SIGSYS", "bad system call"},
};

const char *signal_name(int sig)
{
    for (size_t i = 0; i < sizeof(signal_table) / sizeof(signal_table[0]); i++)
        if (signal_table[i].sig == sig)
            return signal_table[i].name;
    return "SIG?";
}

const char *signal_description(int sig)
{
    for (size_t i = 0; i < sizeof(signal_table) / sizeof(signal_table[0]); i++)
        if (signal_table[i].sig == sig)
            return signal_table[i].what;
    return NULL;
}

char *sandbox_output_excerpt(const struct sandbox_result *r, size_t max)
{
    if (!r->output || !r->output_len)
        return NULL;
    size_t n = r->output_len > max ? max : r->output_len;
    char first[64] = "", cut[64] = "";
    if (r->output_len > n)
        snprintf(first, sizeof(first), " (first %zu bytes)", n);
    if (r->output_truncated)
        snprintf(cut, sizeof(cut), " (output truncated at %zu KiB)", (r->output_len + 1023) / 1024);
    return xstrfmt("program output%s%s:\n%.*s", first, cut, (int)n, r->output);
}

void sandbox_describe(const struct sandbox_result *r, char *buf, size_t size)
{
    if (!buf || size == 0)
        return;
    switch (r->status) {
    case SB_EXITED:
        snprintf(buf, size, "exited with status %d", r->exit_code);
        return;
    case SB_SIGNALED: {
        const char *what = signal_description(r->term_signal);
        if (what)
            snprintf(buf, size, "killed by %s (%s)", signal_name(r->term_signal), what);
        else
            snprintf(buf, size, "killed by signal %d", r->term_signal);
        return;
    }
    case SB_TIMEOUT:
        snprintf(buf, size,
                 "timed out after %.1f s (wall clock); the whole process group was killed",
                 r->wall_s);
        return;
    case SB_CPU_LIMIT:
        snprintf(buf, size, "CPU time limit exceeded (%.1f s of CPU time used)", r->cpu_s);
        return;
    case SB_FILE_LIMIT:
        snprintf(buf, size, "file size limit exceeded");
        return;
    case SB_MEMORY_LIMIT:
        snprintf(buf, size, "memory limit exceeded");
        return;
    case SB_SETUP_FAILED:
        snprintf(buf, size, "could not start: %s",
                 r->setup_error[0] ? r->setup_error : "unknown error");
        return;
    }
    snprintf(buf, size, "unknown outcome");
}

void sandbox_opts_init(struct sandbox_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->isolation = ISOLATION_AUTO;
}

void sandbox_result_init(struct sandbox_result *r)
{
    memset(r, 0, sizeof(*r));
    r->output = NULL;
    r->isolation_used = ISOLATION_SUPERVISOR;
    r->case_timed_out = -1;
}

void sandbox_result_release(struct sandbox_result *r)
{
    free(r->output);
    r->output = NULL;
    r->output_len = 0;
    free(r->events);
    r->events = NULL;
    r->n_events = 0;
}

/* ------------------------------------------------------------------------ */
/* Small helpers                                                            */

struct argvec {
    char **v;
    size_t n, alloc;
};

static void argvec_push(struct argvec *a, const char *s)
{
    ALLOC_GROW(a->v, a->n + 2, a->alloc);
    a->v[a->n++] = xstrdup(s);
    a->v[a->n] = NULL;
}

static void argvec_push2(struct argvec *a, const char *s1, const char *s2)
{
    argvec_push(a, s1);
    argvec_push(a, s2);
}

static void argvec_push3(struct argvec *a, const char *s1, const char *s2, const char *s3)
{
    argvec_push(a, s1);
    argvec_push(a, s2);
    argvec_push(a, s3);
}

static void argvec_clear(struct argvec *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->alloc = 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static bool path_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

static bool is_executable_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/* True when `path` is `dir` or lies below it (both absolute and normalised). */
static bool path_is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return true;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int write_text_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t n;
    do
        n = write(fd, text, len);
    while (n < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)len ? 0 : -1;
}

/* Value of `key` (a line "key value") in a cgroup file like cpu.stat; -1 when absent. */
static long long read_keyed_value(const char *path, const char *key)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    long long value = -1;
    error_init(&err);
    if (read_file(path, &sb, &err) != 0)
        return -1;
    size_t klen = strlen(key);
    for (const char *line = sb.buf; line && *line;) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
            char *end;
            errno = 0;
            long long v = strtoll(line + klen + 1, &end, 10);
            if (errno == 0 && end != line + klen + 1)
                value = v;
            break;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    strbuf_release(&sb);
    return value;
}

/* A single-number file like memory.peak; -1 when absent or unreadable. */
static long long read_number_file(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    long long value = -1;
    error_init(&err);
    if (read_file(path, &sb, &err) != 0)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(sb.buf, &end, 10);
    if (errno == 0 && end != sb.buf)
        value = v;
    strbuf_release(&sb);
    return value;
}

/* ------------------------------------------------------------------------ */
/* /proc scanning, async-signal-safe (raw syscalls, no allocation), so that
 * sandbox_kill_running() can use it from a signal handler. */

struct proc_info {
    pid_t pid, ppid;
    char state;
    unsigned long long start; /* clock ticks after boot: tells a reused pid apart */
};

static size_t format_uint(char *out, unsigned long v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof(tmp));
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

static bool proc_info_read(pid_t pid, struct proc_info *pi)
{
    char path[48] = "/proc/";
    size_t len = 6;
    len += format_uint(path + len, (unsigned long)pid);
    memcpy(path + len, "/stat", 6);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[1024];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    /* The command name may contain spaces and parentheses: fields start after the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return false;
    p++;
    int field = 2; /* the comm field */
    unsigned long long num = 0;
    pi->pid = pid;
    pi->ppid = 0;
    pi->state = '?';
    pi->start = 0;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        field++;
        if (field == 3) {
            pi->state = *p;
        } else if (field == 4 || field == 22) {
            num = 0;
            for (const char *q = p; *q >= '0' && *q <= '9'; q++)
                num = num * 10 + (unsigned long long)(*q - '0');
            if (field == 4)
                pi->ppid = (pid_t)num;
            else {
                pi->start = num;
                return true;
            }
        }
        while (*p && *p != ' ')
            p++;
    }
    return false;
}

typedef void (*proc_visit_fn)(const struct proc_info *pi, void *ctx);

struct linux_dirent64_head {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
};

/* Calls fn for every process whose parent is `parent`. */
static void proc_for_each_child(pid_t parent, proc_visit_fn fn, void *ctx)
{
    int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    _Alignas(8) char buf[8192];
    for (;;) {
        long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
        if (n <= 0)
            break;
        for (long off = 0; off < n;) {
            struct linux_dirent64_head head;
            memcpy(&head, buf + off, sizeof(head));
            const char *name = buf + off + offsetof(struct linux_dirent64_head, d_type) + 1;
            off += head.d_reclen;
            if (head.d_reclen == 0)
                break;
            unsigned long pid = 0;
            bool numeric = name[0] != '\0';
            for (const char *q = name; *q; q++) {
                if (*q < '0' || *q > '9') {
                    numeric = false;
                    break;
                }
                pid = pid * 10 + (unsigned long)(*q - '0');
            }
            struct proc_info pi;
            if (numeric && proc_info_read((pid_t)pid, &pi) && pi.ppid == parent)
                fn(&pi, ctx);
        }
    }
    close(dfd);
}

/* The grader's own children from before the run: never killed or reaped here (someone
 * else waits for them). Everything else that is our child after the run started is a
 * descendant of the sandboxed command that was re-parented to us. */
#define PREEXISTING_MAX 512
static struct {
    size_t n;
    bool overflow;
    pid_t pid[PREEXISTING_MAX];
    unsigned long long start[PREEXISTING_MAX];
} preexisting;

static bool is_preexisting(const struct proc_info *pi)
{
    if (preexisting.overflow)
        return true; /* cannot tell: leave alone rather than kill a stranger */
    for (size_t i = 0; i < preexisting.n; i++)
        if (preexisting.pid[i] == pi->pid && preexisting.start[i] == pi->start)
            return true;
    return false;
}

static void preexisting_add(const struct proc_info *pi, void *ctx)
{
    (void)ctx;
    if (preexisting.n == PREEXISTING_MAX) {
        preexisting.overflow = true;
        return;
    }
    preexisting.pid[preexisting.n] = pi->pid;
    preexisting.start[preexisting.n] = pi->start;
    preexisting.n++;
}

static void preexisting_snapshot(void)
{
    preexisting.n = 0;
    preexisting.overflow = false;
    proc_for_each_child(getpid(), preexisting_add, NULL);
}

struct sweep_ctx {
    pid_t keep;    /* the main child: reaped last, by the caller */
    bool reap;     /* false in the signal handler */
    int remaining; /* descendants seen in this pass */
    double cpu_s;
    long maxrss_kb;
};

static void sweep_one(const struct proc_info *pi, void *vctx)
{
    struct sweep_ctx *ctx = vctx;
    if (pi->pid == ctx->keep || is_preexisting(pi))
        return;
    if (!ctx->reap && pi->state == 'Z')
        return;
    ctx->remaining++;
    kill(pi->pid, SIGKILL);
    if (!ctx->reap)
        return;
    int st;
    struct rusage ru;
    if (wait4(pi->pid, &st, WNOHANG, &ru) == pi->pid) {
        ctx->cpu_s += (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                      (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
        if (ru.ru_maxrss > ctx->maxrss_kb)
            ctx->maxrss_kb = ru.ru_maxrss;
    }
}

/* Kill (and reap, outside signal handlers) every descendant of the run that was
 * re-parented to us; each pass kills one more level of a tree whose parents died. */
static void sweep_descendants(struct sweep_ctx *ctx, int max_passes)
{
    for (int pass = 0; pass < max_passes; pass++) {
        ctx->remaining = 0;
        proc_for_each_child(getpid(), sweep_one, ctx);
        if (ctx->remaining == 0)
            return;
        sleep_ms(1);
    }
}

/* ------------------------------------------------------------------------ */
/* Running groups, for sandbox_kill_running() from a signal handler.        */

#define MAX_RUNNING 8
static struct {
    atomic_int pgid;         /* 0: free slot */
    atomic_int kill_fd_plus; /* cgroup.kill descriptor + 1; 0: none */
} running[MAX_RUNNING];

static int running_register(pid_t pgid, int kill_fd)
{
    for (int i = 0; i < MAX_RUNNING; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&running[i].pgid, &expected, -1)) {
            atomic_store(&running[i].kill_fd_plus, kill_fd + 1);
            atomic_store(&running[i].pgid, (int)pgid);
            return i;
        }
    }
    return -1;
}

static void running_unregister(int slot)
{
    if (slot < 0)
        return;
    atomic_store(&running[slot].kill_fd_plus, 0);
    atomic_store(&running[slot].pgid, 0);
}

void sandbox_kill_running(void)
{
    int saved_errno = errno;
    bool any = false;
    for (int i = 0; i < MAX_RUNNING; i++) {
        int pgid = atomic_load(&running[i].pgid);
        if (pgid <= 0)
            continue;
        any = true;
        int kfd = atomic_load(&running[i].kill_fd_plus) - 1;
        if (kfd >= 0) {
            ssize_t w = write(kfd, "1", 1);
            (void)w;
        }
        kill(-pgid, SIGKILL);
        kill(pgid, SIGKILL); /* before its setsid() the group does not exist yet */
    }
    if (any) {
        struct sweep_ctx ctx = {.keep = 0, .reap = false};
        sweep_descendants(&ctx, 20);
    }
    errno = saved_errno;
}

/* ------------------------------------------------------------------------ */
/* cgroup v2                                                                */

struct cgroup {
    char *dir; /* NULL: no cgroup for this run */
    int kill_fd;
    bool memory_limited, pids_limited;
};

static unsigned cgroup_counter;

/* Mount point of the cgroup2 hierarchy plus our own cgroup path. Caller frees. */
static char *cgroup_own_dir(void)
{
    struct strbuf cg = STRBUF_INIT, mi = STRBUF_INIT;
    struct error err;
    char *result = NULL, *own = NULL;
    error_init(&err);
    if (read_file("/proc/self/cgroup", &cg, &err) != 0)
        goto out;
    for (char *line = cg.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (strncmp(line, "0::", 3) == 0) {
            own = line + 3;
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!own || read_file("/proc/self/mountinfo", &mi, &err) != 0)
        goto out;
    for (char *line = mi.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *sep = strstr(line, " - ");
        if (sep && strncmp(sep + 3, "cgroup2 ", 8) == 0) {
            /* fields: id parent major:minor root mountpoint ... */
            char *fields[5] = {0};
            char *save = NULL, *tok = strtok_r(line, " ", &save);
            for (int i = 0; tok && i < 5; i++, tok = strtok_r(NULL, " ", &save))
                fields[i] = tok;
            if (fields[3] && fields[4] && !strchr(fields[4], '\\')) {
                const char *root = fields[3];
                const char *rel = own;
                if (strcmp(root, "/") != 0) {
                    if (!path_is_under(own, root))
                        goto next;
                    rel = own + strlen(root);
                }
                result = xstrfmt("%s%s", fields[4], strcmp(rel, "/") == 0 ? "" : rel);
                break;
            }
        }
    next:
        line = nl ? nl + 1 : NULL;
    }
out:
    strbuf_release(&cg);
    strbuf_release(&mi);
    return result;
}

static void cgroup_kill_all(const char *dir, int kill_fd)
{
    if (kill_fd >= 0) {
        ssize_t w = write(kill_fd, "1", 1);
        if (w == 1)
            return;
    }
    /* Kernels before 5.14 have no cgroup.kill: kill the members one by one. */
    char *procs = path_join(dir, "cgroup.procs");
    for (int pass = 0; pass < 100; pass++) {
        struct strbuf sb = STRBUF_INIT;
        struct error err;
        error_init(&err);
        if (read_file(procs, &sb, &err) != 0 || sb.len == 0) {
            strbuf_release(&sb);
            break;
        }
        for (char *p = sb.buf; *p;) {
            char *end;
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0)
                kill((pid_t)pid, SIGKILL);
            p = end;
            while (*p == '\n')
                p++;
        }
        strbuf_release(&sb);
        sleep_ms(1);
    }
    free(procs);
}

static bool cgroup_populated(const char *dir)
{
    char *events = path_join(dir, "cgroup.events");
    long long v = read_keyed_value(events, "populated");
    free(events);
    return v != 0; /* unreadable counts as populated: keep waiting until the deadline */
}

static void cgroup_wait_empty(const char *dir, double deadline)
{
    while (cgroup_populated(dir) && now_seconds() < deadline)
        sleep_ms(1);
}

static void cgroup_remove_dir(const char *dir)
{
    for (int i = 0; i < 200; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            return;
        if (errno != EBUSY)
            return;
        sleep_ms(5);
    }
}

/* Groups left behind by graders that died (SIGKILL, power loss of the node is not our
 * problem): their processes may still run, so kill them and remove the group. */
static void cgroup_remove_stale(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        long pid;
        unsigned n;
        char tail;
        if (sscanf(de->d_name, "labgrader-%ld-%u%c", &pid, &n, &tail) != 2 || pid <= 0)
            continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char *dir = path_join(parent, de->d_name);
        cgroup_kill_all(dir, -1);
        cgroup_wait_empty(dir, now_seconds() + 1.0);
        cgroup_remove_dir(dir);
        free(dir);
    }
    closedir(d);
}

static void cgroup_enable_controller(const char *parent, const char *name)
{
    char *ctl = path_join(parent, "cgroup.subtree_control");
    char *avail = path_join(parent, "cgroup.controllers");
    struct strbuf enabled = STRBUF_INIT, available = STRBUF_INIT;
    struct error err;
    error_init(&err);
    if (read_file(ctl, &enabled, &err) == 0 && read_file(avail, &available, &err) == 0) {
        size_t n = strlen(name);
        bool on = false, can = false;
        for (char *p = enabled.buf; (p = strstr(p, name)); p += n)
            if ((p == enabled.buf || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
                on = true;
        for (char *p = available.buf; (p = strstr(p, name)); p += n)
            if ((p == available.buf || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
                can = true;
        if (!on && can) {
            char *cmd = xstrfmt("+%s", name);
            /* Fails (EBUSY) when the parent holds processes itself; the limit is then
             * simply not enforced, as documented. */
            if (write_text_file(ctl, cmd) != 0) {
                /* nothing to do */
            }
            free(cmd);
        }
    }
    strbuf_release(&enabled);
    strbuf_release(&available);
    free(ctl);
    free(avail);
}

/* Creates the group for one run; cg->dir stays NULL when cgroups are not usable. */
static void cgroup_create(const struct sandbox_opts *o, struct cgroup *cg)
{
    cg->dir = NULL;
    cg->kill_fd = -1;
    cg->memory_limited = false;
    cg->pids_limited = false;

    const char *env = getenv("LABGRADER_CGROUP");
    if (env && (!strcmp(env, "off") || !strcmp(env, "none") || !strcmp(env, "0")))
        return;
    char *parent = env && *env ? xstrdup(env) : cgroup_own_dir();
    if (!parent)
        return;
    char *procs = path_join(parent, "cgroup.procs");
    bool usable = dir_exists(parent) && access(parent, W_OK) == 0 && access(procs, W_OK) == 0;
    free(procs);
    if (!usable) {
        free(parent);
        return;
    }
    /* Once per grader: a group whose processes will not die (D state) must not cost
     * every later run the wait. */
    static bool stale_checked;
    if (!stale_checked) {
        stale_checked = true;
        cgroup_remove_stale(parent);
    }
    if (o->memory_limit_bytes > 0)
        cgroup_enable_controller(parent, "memory");
    if (o->max_processes > 0)
        cgroup_enable_controller(parent, "pids");

    char *dir = xstrfmt("%s/labgrader-%ld-%u", parent, (long)getpid(), cgroup_counter++);
    free(parent);
    if (mkdir(dir, 0755) != 0) {
        free(dir);
        return;
    }
    if (o->memory_limit_bytes > 0) {
        char *max = path_join(dir, "memory.max");
        char *val = xstrfmt("%lld", o->memory_limit_bytes);
        cg->memory_limited = write_text_file(max, val) == 0;
        free(max);
        free(val);
        /* Without this a memory hog swaps instead of hitting the limit. */
        char *swap = path_join(dir, "memory.swap.max");
        if (path_exists(swap) && write_text_file(swap, "0") != 0) {
            /* best effort */
        }
        free(swap);
    }
    if (o->max_processes > 0) {
        char *max = path_join(dir, "pids.max");
        char *val = xstrfmt("%d", o->max_processes);
        /* Fails where the controller is not delegated: not enforced, and recorded so. */
        cg->pids_limited = write_text_file(max, val) == 0;
        free(max);
        free(val);
    }
    char *killp = path_join(dir, "cgroup.kill");
    cg->kill_fd = open(killp, O_WRONLY | O_CLOEXEC);
    free(killp);
    cg->dir = dir;
}

static void cgroup_destroy(struct cgroup *cg)
{
    if (!cg->dir)
        return;
    if (cg->kill_fd >= 0)
        close(cg->kill_fd);
    cg->kill_fd = -1;
    cgroup_remove_dir(cg->dir);
    free(cg->dir);
    cg->dir = NULL;
}

static bool cgroup_attach(struct cgroup *cg, pid_t pid)
{
    char *procs = path_join(cg->dir, "cgroup.procs");
    char *val = xstrfmt("%ld", (long)pid);
    bool ok = write_text_file(procs, val) == 0;
    free(procs);
    free(val);
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Bubblewrap                                                               */

static void bwrap_add_system_dir(struct argvec *a, const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISLNK(st.st_mode)) {
        /* Merged /usr: /bin -> usr/bin. Keep it a symlink when its target is inside /usr,
         * which is bound anyway. */
        char *real = realpath(path, NULL);
        char target[PATH_MAX];
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (real && n > 0 && path_is_under(real, "/usr")) {
            target[n] = '\0';
            argvec_push3(a, "--symlink", target, path);
        } else if (real && dir_exists(real)) {
            argvec_push3(a, "--ro-bind", path, path);
        }
        free(real);
        return;
    }
    if (S_ISDIR(st.st_mode))
        argvec_push3(a, "--ro-bind", path, path);
}

/* Read-only bind of a host path unless /usr already covers it. */
static void bwrap_add_ro_unless_usr(struct argvec *a, const char *path)
{
    if (!path || !path_exists(path))
        return;
    char *real = realpath(path, NULL);
    if (!real)
        return;
    if (!path_is_under(path, "/usr") || !path_is_under(real, "/usr"))
        argvec_push3(a, "--ro-bind", real, path);
    free(real);
}

struct user_bind {
    const char *kind;
    char *path;
    int depth;
};

static int user_bind_cmp(const void *pa, const void *pb)
{
    const struct user_bind *a = pa, *b = pb;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return a < b ? -1 : a > b; /* stable: keep the given order */
}

static int path_depth(const char *p)
{
    int d = 0;
    for (; *p; p++)
        if (*p == '/' && p[1] && p[1] != '/')
            d++;
    return d;
}

static const char *cuda_home(void)
{
    const char *env = getenv("CUDA_HOME");
    if (env && *env && dir_exists(env))
        return env;
    return dir_exists("/usr/local/cuda") ? "/usr/local/cuda" : NULL;
}

static int bwrap_build(const struct sandbox_opts *o, const char *bwrap, const char *workdir,
                       int json_fd, struct argvec *a, struct error *err)
{
    argvec_push(a, bwrap);
    argvec_push(a, "--unshare-all");
    if (o->network)
        argvec_push(a, "--share-net");
    argvec_push(a, "--die-with-parent");
    argvec_push(a, "--new-session");
    /* bwrap started by root hands all capabilities to the command otherwise. */
    argvec_push2(a, "--cap-drop", "ALL");
    char fdbuf[16];
    snprintf(fdbuf, sizeof(fdbuf), "%d", json_fd);
    argvec_push2(a, "--json-status-fd", fdbuf);

    static const char *const system_dirs[] = {"/usr",   "/bin",   "/sbin",  "/lib",
                                              "/lib64", "/lib32", "/libx32"};
    for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
        bwrap_add_system_dir(a, system_dirs[i]);
    static const char *const etc_files[] = {"/etc/alternatives", "/etc/ld.so.cache",
                                            "/etc/ld.so.conf", "/etc/ld.so.conf.d"};
    for (size_t i = 0; i < sizeof(etc_files) / sizeof(etc_files[0]); i++)
        if (path_exists(etc_files[i]))
            argvec_push3(a, "--ro-bind", etc_files[i], etc_files[i]);
    const char *cuda = cuda_home();
    if (cuda) {
        bwrap_add_ro_unless_usr(a, cuda);
        char *real = realpath(cuda, NULL);
        if (real && strcmp(real, cuda) != 0)
            bwrap_add_ro_unless_usr(a, real);
        free(real);
    }
    argvec_push2(a, "--proc", "/proc");
    argvec_push2(a, "--dev", "/dev");
    argvec_push2(a, "--tmpfs", "/tmp");

    if (o->gpu) {
        DIR *d = opendir("/dev");
        if (d) {
            struct dirent *de;
            while ((de = readdir(d))) {
                if (strncmp(de->d_name, "nvidia", 6) != 0)
                    continue;
                char *dev = path_join("/dev", de->d_name);
                argvec_push3(a, "--dev-bind", dev, dev);
                free(dev);
            }
            closedir(d);
        }
        if (dir_exists("/sys"))
            argvec_push3(a, "--ro-bind", "/sys", "/sys");
        if (dir_exists("/proc/driver/nvidia"))
            argvec_push3(a, "--ro-bind", "/proc/driver/nvidia", "/proc/driver/nvidia");
        bwrap_add_ro_unless_usr(a, "/usr/local/nvidia");
    }

    /* The caller's paths, parents before children so that a writable workdir inside a
     * read-only lab folder (or the reverse) ends up as asked. */
    size_t nbinds = 1;
    for (const char *const *p = o->ro_paths; p && *p; p++)
        nbinds++;
    for (const char *const *p = o->rw_paths; p && *p; p++)
        nbinds++;
    struct user_bind *binds = xcalloc(nbinds, sizeof(*binds));
    size_t k = 0;
    int rc = 0;
    binds[k++] = (struct user_bind){"--bind", xstrdup(workdir), path_depth(workdir)};
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        const char *const *list = pass == 0 ? o->rw_paths : o->ro_paths;
        for (const char *const *p = list; p && *p; p++) {
            char *real = realpath(*p, NULL);
            if (!real) {
                rc = error_set(err, "%s path %s: %s", pass == 0 ? "writable" : "read-only", *p,
                               strerror(errno));
                break;
            }
            binds[k++] =
                (struct user_bind){pass == 0 ? "--bind" : "--ro-bind", real, path_depth(real)};
        }
    }
    if (rc == 0) {
        qsort(binds, k, sizeof(*binds), user_bind_cmp);
        for (size_t i = 0; i < k; i++)
            argvec_push3(a, binds[i].kind, binds[i].path, binds[i].path);
        argvec_push2(a, "--chdir", workdir);
        argvec_push(a, "--");
        for (const char *const *p = o->argv; *p; p++)
            argvec_push(a, *p);
    }
    for (size_t i = 0; i < k; i++)
        free(binds[i].path);
    free(binds);
    return rc;
}

/* ------------------------------------------------------------------------ */
/* The child between fork and exec: async-signal-safe calls only.           */

enum child_stage {
    STAGE_FDS,
    STAGE_SETSID,
    STAGE_PDEATHSIG,
    STAGE_NO_NEW_PRIVS,
    STAGE_RLIMIT,
    STAGE_CHDIR,
    STAGE_EXEC,
};

static const char *const stage_text[] = {
    [STAGE_FDS] = "setting up file descriptors",
    [STAGE_SETSID] = "setsid",
    [STAGE_PDEATHSIG] = "prctl(PR_SET_PDEATHSIG)",
    [STAGE_NO_NEW_PRIVS] = "prctl(PR_SET_NO_NEW_PRIVS)",
    [STAGE_RLIMIT] = "setrlimit",
    [STAGE_CHDIR] = "changing to the working directory",
    [STAGE_EXEC] = "exec",
};

struct child_report {
    int stage;
    int err;
};

struct child_plan {
    const char *exec_path;
    char *const *argv;
    char *const *sh_argv; /* how execvp runs a script without #! (ENOEXEC) */
    char *const *envp;
    const char *workdir;
    pid_t parent;
    int go_fd, go_write_fd, report_fd, out_fd, null_fd, json_fd;
    int ctl_fd, ctl_target; /* the control pipe's write end and its number in the child */
    struct rlimit cpu, fsize, nofile, core, as;
    bool has_as_limit;
    bool has_cpu_limit;
};

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

__attribute__((noreturn)) static void child_run(const struct child_plan *p)
{
    /* Arm the parent-death signal before waiting for the go-ahead, and drop our copy of the
     * go pipe's write end: otherwise a grader that dies before writing it leaves this child
     * blocked in read() forever, holding its own write end open. */
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

    /* Move everything we keep out of the way of 0..4 first: any of them may have been
     * given a low number if the grader runs with a closed stdin. */
    int report = move_high(p->report_fd);
    int out = move_high(p->out_fd);
    int null = move_high(p->null_fd);
    int json = move_high(p->json_fd);
    int ctl = move_high(p->ctl_fd);
    if (report < 0)
        _exit(127);
    if (out < 0 || null < 0 || (p->json_fd >= 0 && json < 0) || (p->ctl_fd >= 0 && ctl < 0))
        child_fail(report, STAGE_FDS, errno);
    int report_target = 3 + (json >= 0) + (ctl >= 0);
    if (dup2(null, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 ||
        (json >= 0 && dup2(json, 3) < 0) || (ctl >= 0 && dup2(ctl, p->ctl_target) < 0))
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

    if (setsid() < 0)
        child_fail(report, STAGE_SETSID, errno);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        child_fail(report, STAGE_NO_NEW_PRIVS, errno);
    if (setrlimit(RLIMIT_CORE, &p->core) != 0 || setrlimit(RLIMIT_NOFILE, &p->nofile) != 0 ||
        (p->has_as_limit && setrlimit(RLIMIT_AS, &p->as) != 0) ||
        setrlimit(RLIMIT_FSIZE, &p->fsize) != 0 ||
        (p->has_cpu_limit && setrlimit(RLIMIT_CPU, &p->cpu) != 0))
        child_fail(report, STAGE_RLIMIT, errno);
    if (chdir(p->workdir) != 0)
        child_fail(report, STAGE_CHDIR, errno);

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

/* ------------------------------------------------------------------------ */
/* The supervisor                                                           */

struct capture {
    struct strbuf sb;
    size_t cap;
    bool truncated;
    /* The output's end beyond the cap, when asked for (sandbox_opts.output_tail): a ring of
     * tail_cap bytes, tail_pos the next byte to overwrite, tail_seen every byte past the cap. */
    char *tail;
    size_t tail_cap, tail_pos, tail_seen;
};

/* Bytes past the cap: into the ring, overwriting the oldest. */
static void capture_tail(struct capture *c, const char *buf, size_t n)
{
    c->tail_seen += n;
    if (!c->tail_cap)
        return;
    if (n >= c->tail_cap) {
        buf += n - c->tail_cap;
        n = c->tail_cap;
    }
    size_t first = c->tail_cap - c->tail_pos < n ? c->tail_cap - c->tail_pos : n;
    memcpy(c->tail + c->tail_pos, buf, first);
    memcpy(c->tail, buf + first, n - first);
    c->tail_pos = (c->tail_pos + n) % c->tail_cap;
}

/*
 * The captured text: the head, and when a tail was kept, a marker line and the last bytes
 * from their first full line on (a cut line at the seam must not read as a whole one).
 */
static char *capture_finish(struct capture *c, size_t *len)
{
    if (c->tail_cap && c->tail_seen > 0) {
        size_t kept = c->tail_seen < c->tail_cap ? c->tail_seen : c->tail_cap;
        size_t start = c->tail_seen < c->tail_cap ? 0 : c->tail_pos;
        char *ring = xmalloc(kept + 1);
        for (size_t i = 0; i < kept; i++)
            ring[i] = c->tail[(start + i) % c->tail_cap];
        ring[kept] = '\0';
        char *nl = memchr(ring, '\n', kept);
        size_t skip = nl ? (size_t)(nl - ring) + 1 : kept;
        strbuf_addf(&c->sb, "\n[... %zu bytes of output left out ...]\n",
                    c->tail_seen - (kept - skip));
        strbuf_add(&c->sb, ring + skip, kept - skip);
        free(ring);
        c->tail_seen = 0;
    }
    *len = c->sb.len;
    return strbuf_detach(&c->sb);
}

/* Reads what is available: 1 data read, 0 EOF, -1 nothing now. */
static int capture_read(int fd, struct capture *c)
{
    char buf[65536];
    int got = -1;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return got; /* EAGAIN, or an error we treat like it */
        }
        if (n == 0)
            return 0;
        got = 1;
        size_t keep = 0;
        if (c->sb.len < c->cap)
            keep = c->cap - c->sb.len < (size_t)n ? c->cap - c->sb.len : (size_t)n;
        if (keep)
            strbuf_add(&c->sb, buf, keep);
        if (keep < (size_t)n) {
            c->truncated = true;
            capture_tail(c, buf + keep, (size_t)n - keep);
        }
    }
}

static void env_set(struct argvec *env, const char *entry)
{
    size_t klen = strcspn(entry, "=");
    if (entry[klen] != '=' || klen == 0)
        return;
    for (size_t i = 0; i < env->n; i++) {
        if (strncmp(env->v[i], entry, klen + 1) == 0) {
            free(env->v[i]);
            env->v[i] = xstrdup(entry);
            return;
        }
    }
    argvec_push(env, entry);
}

static const char *env_get(const struct argvec *env, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], key, klen) == 0 && env->v[i][klen] == '=')
            return env->v[i] + klen + 1;
    return NULL;
}

/* argv[0] as the sandbox's PATH finds it; relative names are relative to the workdir. */
static char *resolve_program(const char *name, const char *path, const char *workdir)
{
    if (strchr(name, '/')) {
        char *cand = name[0] == '/' ? xstrdup(name) : path_join(workdir, name);
        if (is_executable_file(cand))
            return cand;
        free(cand);
        return NULL;
    }
    char *copy = xstrdup(path ? path : SAFE_PATH);
    char *result = NULL;
    for (char *dir = copy, *end; dir; dir = end ? end + 1 : NULL) {
        end = strchr(dir, ':');
        if (end)
            *end = '\0';
        char *base = *dir == '/' ? xstrdup(dir) : path_join(workdir, dir);
        char *cand = path_join(base, name);
        free(base);
        if (is_executable_file(cand)) {
            result = cand;
            break;
        }
        free(cand);
    }
    free(copy);
    return result;
}

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

/* The last "exit-code" bwrap wrote to --json-status-fd; false when there is none, i.e.
 * bwrap failed before the command was running. */
static bool bwrap_exit_code(int fd, int *code)
{
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        strbuf_add(&sb, buf, (size_t)n);
    }
    bool found = false;
    const char *key = "\"exit-code\"";
    for (const char *p = sb.buf; p && (p = strstr(p, key)); p += strlen(key)) {
        const char *q = p + strlen(key);
        while (*q == ' ' || *q == ':')
            q++;
        char *end;
        long v = strtol(q, &end, 10);
        if (end != q) {
            *code = (int)v;
            found = true;
        }
    }
    strbuf_release(&sb);
    return found;
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

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void set_subreaper_once(void)
{
    static bool done;
    if (!done && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
        done = true;
}

static bool bwrap_usable(char *reason, size_t size);

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

    int rc = -1;
    struct argvec env = {0}, cmd = {0}, sh_argv = {0};
    char *resolved = NULL, *bwrap = NULL;
    int out_pipe[2] = {-1, -1}, report_pipe[2] = {-1, -1}, go_pipe[2] = {-1, -1};
    int json_pipe[2] = {-1, -1}, null_fd = -1, pidfd = -1, slot = -1;
    int ctl_pipe[2] = {-1, -1};
    bool case_expired = false;
    struct sb_control ctl;
    sb_control_init(&ctl, -1, o, 0);
    struct cgroup cg = {NULL, -1, false, false};
    struct capture cap = {.sb = STRBUF_INIT,
                          .cap = o->output_cap ? o->output_cap : DEFAULT_OUTPUT_CAP};
    if (o->output_tail) {
        cap.tail_cap = o->output_tail;
        cap.tail = xmalloc(cap.tail_cap);
    }
    pid_t pid = -1;

    /* The clean environment. */
    const char *cuda = cuda_home();
    char *cuda_bin = cuda ? path_join(cuda, "bin") : NULL;
    char *path_entry = cuda_bin && dir_exists(cuda_bin) ? xstrfmt("PATH=" SAFE_PATH ":%s", cuda_bin)
                                                        : xstrdup("PATH=" SAFE_PATH);
    free(cuda_bin);
    char *home_entry = xstrfmt("HOME=%s", workdir);
    char *tmp_entry = xstrfmt("TMPDIR=%s", workdir);
    env_set(&env, path_entry);
    env_set(&env, home_entry);
    env_set(&env, tmp_entry);
    env_set(&env, "LANG=C.UTF-8");
    free(path_entry);
    free(home_entry);
    free(tmp_entry);
    for (const char *const *e = o->env; e && *e; e++)
        env_set(&env, *e);
    /* The control pipe goes after bubblewrap's status pipe (3) where there is one. */
    int ctl_target = iso == ISOLATION_BWRAP ? 4 : 3;
    if (o->control) {
        char *ctl_entry = xstrfmt(SB_CONTROL_ENV "=%d", ctl_target);
        env_set(&env, ctl_entry);
        free(ctl_entry);
    }

    resolved = resolve_program(o->argv[0], env_get(&env, "PATH"), workdir);
    if (!resolved) {
        setup_failed(r, err, "%s: %s", o->argv[0],
                     strchr(o->argv[0], '/') ? "no such executable file"
                                             : "command not found in the sandbox PATH");
        goto out;
    }

    if (iso == ISOLATION_BWRAP) {
        bwrap = find_program("bwrap");
        if (!bwrap) {
            setup_failed(r, err, "bubblewrap (bwrap) is not installed or not in PATH");
            goto out;
        }
        if (pipe2(json_pipe, O_CLOEXEC) != 0) {
            setup_failed(r, err, "pipe: %s", strerror(errno));
            goto out;
        }
        if (bwrap_build(o, bwrap, workdir, 3, &cmd, err) != 0) {
            setup_failed(r, err, "%s", err->msg);
            goto out;
        }
    } else {
        for (const char *const *p = o->argv; *p; p++)
            argvec_push(&cmd, *p);
        argvec_push2(&sh_argv, "/bin/sh", resolved);
        for (const char *const *p = o->argv + 1; *p; p++)
            argvec_push(&sh_argv, *p);
    }

    struct child_plan plan;
    memset(&plan, 0, sizeof(plan));
    plan.exec_path = iso == ISOLATION_BWRAP ? bwrap : resolved;
    plan.argv = cmd.v;
    plan.sh_argv = iso == ISOLATION_BWRAP ? NULL : sh_argv.v;
    plan.envp = env.v;
    plan.workdir = workdir;
    plan.parent = getpid();
    long long fsize = o->file_limit_bytes > 0 ? o->file_limit_bytes : DEFAULT_FILE_LIMIT;
    plan.fsize.rlim_cur = plan.fsize.rlim_max = (rlim_t)fsize;
    plan.nofile.rlim_cur = plan.nofile.rlim_max = CHILD_NOFILE;
    plan.core.rlim_cur = plan.core.rlim_max = 0;
    if (o->address_space_bytes > 0) {
        /* Never ask for more than an inherited hard limit allows: setrlimit would fail. */
        struct rlimit inherited;
        rlim_t want = (rlim_t)o->address_space_bytes;
        if (getrlimit(RLIMIT_AS, &inherited) == 0 && inherited.rlim_max != RLIM_INFINITY &&
            inherited.rlim_max < want)
            want = inherited.rlim_max;
        plan.has_as_limit = true;
        plan.as.rlim_cur = plan.as.rlim_max = want;
    }
    if (o->cpu_limit_s > 0) {
        double secs = ceil(o->cpu_limit_s);
        plan.has_cpu_limit = true;
        plan.cpu.rlim_cur = (rlim_t)(secs < 1 ? 1 : secs);
        plan.cpu.rlim_max = plan.cpu.rlim_cur + 1;
    }
    /* Never lower a hard limit the grader itself runs under: setrlimit would fail. */
    struct rlimit cur;
    if (getrlimit(RLIMIT_NOFILE, &cur) == 0 && cur.rlim_max < plan.nofile.rlim_max)
        plan.nofile.rlim_cur = plan.nofile.rlim_max = cur.rlim_max;
    if (getrlimit(RLIMIT_FSIZE, &cur) == 0 && cur.rlim_max < plan.fsize.rlim_max)
        plan.fsize.rlim_cur = plan.fsize.rlim_max = cur.rlim_max;
    if (plan.has_cpu_limit && getrlimit(RLIMIT_CPU, &cur) == 0 &&
        cur.rlim_max < plan.cpu.rlim_max) {
        plan.cpu.rlim_max = cur.rlim_max;
        if (plan.cpu.rlim_cur > cur.rlim_max)
            plan.cpu.rlim_cur = cur.rlim_max;
    }

    if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(report_pipe, O_CLOEXEC) != 0 ||
        pipe2(go_pipe, O_CLOEXEC) != 0 || (o->control && pipe2(ctl_pipe, O_CLOEXEC) != 0)) {
        setup_failed(r, err, "pipe: %s", strerror(errno));
        goto out;
    }
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_fd < 0) {
        setup_failed(r, err, "/dev/null: %s", strerror(errno));
        goto out;
    }
    fcntl(out_pipe[0], F_SETFL, fcntl(out_pipe[0], F_GETFL) | O_NONBLOCK);
    if (json_pipe[0] >= 0)
        fcntl(json_pipe[0], F_SETFL, fcntl(json_pipe[0], F_GETFL) | O_NONBLOCK);
    if (ctl_pipe[0] >= 0)
        fcntl(ctl_pipe[0], F_SETFL, fcntl(ctl_pipe[0], F_GETFL) | O_NONBLOCK);
    plan.go_fd = go_pipe[0];
    plan.go_write_fd = go_pipe[1];
    plan.report_fd = report_pipe[1];
    plan.out_fd = out_pipe[1];
    plan.null_fd = null_fd;
    plan.json_fd = json_pipe[1];
    plan.ctl_fd = ctl_pipe[1];
    plan.ctl_target = ctl_target;

    set_subreaper_once();
    cgroup_create(o, &cg);
    preexisting_snapshot();

    double start = now_seconds();
    pid = fork();
    if (pid < 0) {
        setup_failed(r, err, "fork: %s", strerror(errno));
        goto out;
    }
    if (pid == 0)
        child_run(&plan);

    close_fd(&go_pipe[0]);
    close_fd(&report_pipe[1]);
    close_fd(&out_pipe[1]);
    close_fd(&json_pipe[1]);
    close_fd(&ctl_pipe[1]);
    close_fd(&null_fd);
    sb_control_init(&ctl, ctl_pipe[0], o, start);
    ctl_pipe[0] = -1; /* the control's now */
    pidfd = pidfd_for(pid);
    if (cg.dir && !cgroup_attach(&cg, pid)) {
        /* Not permitted after all: fall back to the process-tree sweep alone. */
        cgroup_destroy(&cg);
    }
    r->cgroup_used = cg.dir != NULL;
    r->memory_limit_enforced = cg.dir && cg.memory_limited;
    r->pids_limit_enforced = cg.dir && cg.pids_limited;
    slot = running_register(pid, cg.kill_fd);

    ssize_t n;
    do
        n = write(go_pipe[1], "g", 1);
    while (n < 0 && errno == EINTR);
    close_fd(&go_pipe[1]);

    struct child_report rep;
    size_t got = 0;
    for (;;) {
        n = read(report_pipe[0], (char *)&rep + got, sizeof(rep) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
        if (got == sizeof(rep))
            break;
    }
    close_fd(&report_pipe[0]);
    if (got == sizeof(rep)) {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
        running_unregister(slot);
        slot = -1;
        pid = -1;
        const char *what = rep.stage >= 0 && rep.stage <= STAGE_EXEC ? stage_text[rep.stage]
                                                                     : "starting the child";
        setup_failed(r, err, "%s %s: %s", what, rep.stage == STAGE_EXEC ? plan.exec_path : "",
                     strerror(rep.err));
        goto out;
    }

    /* Supervise: collect output, watch the clock, notice the exit. */
    double run_deadline = o->wall_limit_s > 0 ? start + o->wall_limit_s : 0;
    bool out_open = true, timed_out = false, ctl_open = ctl.fd >= 0;
    for (;;) {
        if (pidfd < 0 && child_has_exited(pid))
            break;
        int timeout_ms = -1;
        double deadline = sb_control_deadline(&ctl, run_deadline);
        if (deadline > 0) {
            double left = deadline - now_seconds();
            if (left <= 0) {
                timed_out = !child_has_exited(pid);
                case_expired = timed_out && sb_control_case_expired(&ctl, now_seconds());
                break;
            }
            timeout_ms = (int)ceil(left * 1000.0);
        }
        if (pidfd < 0 && (timeout_ms < 0 || timeout_ms > 20))
            timeout_ms = 20;
        struct pollfd fds[3];
        nfds_t nfds = 0;
        int out_idx = -1, pid_idx = -1, ctl_idx = -1;
        if (out_open) {
            fds[nfds] = (struct pollfd){out_pipe[0], POLLIN, 0};
            out_idx = (int)nfds++;
        }
        if (ctl_open) {
            fds[nfds] = (struct pollfd){ctl.fd, POLLIN, 0};
            ctl_idx = (int)nfds++;
        }
        if (pidfd >= 0) {
            fds[nfds] = (struct pollfd){pidfd, POLLIN, 0};
            pid_idx = (int)nfds++;
        }
        int prc = poll(fds, nfds, timeout_ms);
        if (prc < 0 && errno != EINTR)
            sleep_ms(10); /* should not happen; do not spin */
        if (prc <= 0)
            continue;
        if (out_idx >= 0 && fds[out_idx].revents && capture_read(out_pipe[0], &cap) == 0)
            out_open = false;
        if (ctl_idx >= 0 && fds[ctl_idx].revents && !sb_control_read(&ctl))
            ctl_open = false;
        if (pid_idx >= 0 && fds[pid_idx].revents)
            break;
    }
    r->wall_s = now_seconds() - start;

    /* Whatever happened, nothing of the run survives it. The main child stays a zombie
     * until the end, so its pid (and process group id) cannot be reused meanwhile. */
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    /* Its children are re-parented to us only once it has fully exited: sweeping
     * earlier would miss them. */
    siginfo_t si;
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    double settle = now_seconds() + SETTLE_S;
    if (cg.dir) {
        cgroup_kill_all(cg.dir, cg.kill_fd);
        cgroup_wait_empty(cg.dir, settle);
    }
    struct sweep_ctx sweep = {.keep = pid, .reap = true};
    for (;;) {
        sweep_descendants(&sweep, 1000);
        if (sweep.remaining == 0 || now_seconds() > settle)
            break;
    }
    double drain_end = now_seconds() + DRAIN_S;
    while (out_open && now_seconds() < drain_end) {
        struct pollfd pfd = {out_pipe[0], POLLIN, 0};
        if (poll(&pfd, 1, 50) > 0 && capture_read(out_pipe[0], &cap) == 0)
            out_open = false;
    }

    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof(ru));
    while (wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
    }
    running_unregister(slot);
    slot = -1;
    pid = -1;

    double child_cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
                       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
    r->cpu_s = child_cpu + sweep.cpu_s;
    r->peak_rss_kb = ru.ru_maxrss > sweep.maxrss_kb ? ru.ru_maxrss : sweep.maxrss_kb;
    long long oom_kills = 0;
    if (cg.dir) {
        char *stat = path_join(cg.dir, "cpu.stat");
        long long usec = read_keyed_value(stat, "usage_usec");
        free(stat);
        if (usec >= 0)
            r->cpu_s = (double)usec / 1e6;
        char *peak = path_join(cg.dir, "memory.peak");
        long long bytes = read_number_file(peak);
        free(peak);
        if (bytes > 0)
            r->peak_rss_kb = (long)(bytes / 1024);
        if (cg.memory_limited) {
            char *events = path_join(cg.dir, "memory.events");
            oom_kills = read_keyed_value(events, "oom_kill");
            free(events);
        }
    }

    /* What happened, in the command's own terms. */
    bool exited = WIFEXITED(status), signaled = WIFSIGNALED(status);
    int code = exited ? WEXITSTATUS(status) : 0;
    int sig = signaled ? WTERMSIG(status) : 0;
    if (iso == ISOLATION_BWRAP && exited) {
        int bw_code;
        if (bwrap_exit_code(json_pipe[0], &bw_code)) {
            code = bw_code;
            if (code > 128 && code < 128 + NSIG) {
                exited = false;
                signaled = true;
                sig = code - 128;
            }
        } else if (!timed_out) {
            /* bwrap's own failure: its message is the first line of the output. */
            const char *msg = strstr(cap.sb.buf ? cap.sb.buf : "", "bwrap: ");
            if (msg) {
                size_t len = strcspn(msg, "\n");
                setup_failed(r, err, "%.*s", (int)len, msg);
            } else {
                setup_failed(r, err, "bubblewrap failed before starting the command (status %d)",
                             code);
            }
            r->output_truncated = cap.truncated;
            free(r->output);
            r->output = capture_finish(&cap, &r->output_len);
            goto out;
        }
    }

    if (timed_out) {
        r->status = SB_TIMEOUT;
    } else if (oom_kills > 0) {
        /* Any process of the run, not only the main one: a pipeline whose last command
         * exits 0 after its producer was OOM-killed still ran out of memory. */
        r->status = SB_MEMORY_LIMIT;
    } else if (signaled) {
        r->term_signal = sig;
        if (sig == SIGXCPU ||
            (sig == SIGKILL && plan.has_cpu_limit && r->cpu_s >= (double)plan.cpu.rlim_cur))
            r->status = SB_CPU_LIMIT;
        else if (sig == SIGXFSZ)
            r->status = SB_FILE_LIMIT;
        else
            r->status = SB_SIGNALED;
    } else {
        r->status = SB_EXITED;
        r->exit_code = code;
    }
    r->output_truncated = cap.truncated;
    r->output = capture_finish(&cap, &r->output_len);
    rc = 0;

out:
    if (pid > 0) {
        /* Only reached on a setup failure after fork: do not leave the child behind. */
        kill(pid, SIGKILL);
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
        }
    }
    running_unregister(slot);
    cgroup_destroy(&cg);
    close_fd(&pidfd);
    close_fd(&out_pipe[0]);
    close_fd(&out_pipe[1]);
    close_fd(&report_pipe[0]);
    close_fd(&report_pipe[1]);
    close_fd(&go_pipe[0]);
    close_fd(&go_pipe[1]);
    close_fd(&json_pipe[0]);
    close_fd(&json_pipe[1]);
    close_fd(&ctl_pipe[0]);
    close_fd(&ctl_pipe[1]);
    sb_control_finish(&ctl, r, case_expired);
    close_fd(&null_fd);
    strbuf_release(&cap.sb);
    free(cap.tail);
    argvec_clear(&env);
    argvec_clear(&cmd);
    argvec_clear(&sh_argv);
    free(resolved);
    free(bwrap);
    free(workdir);
    if (!r->output)
        r->output = xstrdup("");
    return rc;
}

/* ------------------------------------------------------------------------ */
/* Probing and the public entry points                                      */

static int bwrap_state; /* 0 unknown, 1 works, -1 does not */
static char bwrap_reason[512];

/* Runs `true` through exactly the bwrap setup used for real runs. */
static bool bwrap_usable(char *reason, size_t size)
{
    if (bwrap_state == 0) {
        const char *tmp = getenv("TMPDIR");
        char *templ = xstrfmt("%s/labgrader-probe-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(templ)) {
            snprintf(bwrap_reason, sizeof(bwrap_reason), "cannot create a probe directory: %s",
                     strerror(errno));
            bwrap_state = -1;
        } else {
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
                snprintf(bwrap_reason, sizeof(bwrap_reason), "a test command %s: %.300s", what,
                         r.output);
                bwrap_state = -1;
            } else {
                bwrap_state = 1;
            }
            sandbox_result_release(&r);
            remove_tree(templ, &err);
        }
        free(templ);
    }
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
    return run_sandboxed(o, iso, r, err);
}

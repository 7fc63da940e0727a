/*
 * sandbox_internal: what the sandbox's own modules share; nothing outside grader/run/sandbox*,
 * supervisor, limits, cgroup, bwrap, sweep, procscan, child, capture, classify, memwatch,
 * control and grants includes it (the rest of the grader uses run/sandbox.h).
 *
 * The modules, in the order a run meets them:
 *   limits.c     the clean environment, the program looked up in the sandbox's PATH, rlimits
 *   bwrap.c      bubblewrap's command line, and its exit status read back
 *   cgroup.c     the run's cgroup v2: create, attach, limits, kill, accounting, remove
 *   child.c      the child between fork and exec (async-signal-safe)
 *   supervisor.c spawn, supervise (clock, output, memory), end the run, reap; the entry points
 *   grants.c     the timing locks served to the run, phase by phase (phaselock.c holds them)
 *   capture.c    the output kept: a head up to the cap and an optional tail
 *   memwatch.c   the memory limit without a cgroup: the run's process tree sampled
 *   sweep.c      killing escaped descendants; the running runs, for signal handlers
 *   procscan.c   /proc read without allocating (signal handlers use it)
 *   classify.c   a wait status, bwrap's report and the limits turned into sandbox_status
 *   sandbox_util.c  argument vectors and small file helpers
 * Ownership: each struct here owns its heap fields; its module's release/destroy frees them.
 */
#ifndef LG_SANDBOX_INTERNAL_H
#define LG_SANDBOX_INTERNAL_H

#include "run/sandbox.h"
#include "run/control.h"
#include "run/loadwatch.h"
#include "run/phaselock.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#define SB_DEFAULT_OUTPUT_CAP ((size_t)64 * 1024)
#define SB_DEFAULT_FILE_LIMIT (1024LL * 1024 * 1024)
#define SB_CHILD_NOFILE 256
/* How long to wait for killed processes to disappear and for the pipe to reach EOF. */
#define SB_SETTLE_S 5.0
#define SB_DRAIN_S 2.0
#define SB_SAFE_PATH "/usr/local/bin:/usr/bin:/bin"

/* ------------------------------------------------------------------------ */
/* sandbox_util.c                                                           */

/* A NULL-terminated vector of strings it owns. */
struct argvec {
    char **v;
    size_t n, alloc;
};

void argvec_push(struct argvec *a, const char *s);
void argvec_push2(struct argvec *a, const char *s1, const char *s2);
void argvec_push3(struct argvec *a, const char *s1, const char *s2, const char *s3);
void argvec_clear(struct argvec *a);

void sb_sleep_ms(long ms);
bool sb_path_exists(const char *p);
bool sb_is_executable_file(const char *p);
/* True when `path` is `dir` or lies below it (both absolute and normalised). */
bool sb_path_is_under(const char *path, const char *dir);
/* Writes text into an existing file (cgroup control files); -1 with errno on failure. */
int sb_write_text_file(const char *path, const char *text);
/* Value of `key` (a line "key value") in a file like cpu.stat; -1 when absent. */
long long sb_read_keyed_value(const char *path, const char *key);
/* A single-number file like memory.peak; -1 when absent or unreadable. */
long long sb_read_number_file(const char *path);
void sb_close_fd(int *fd);
/* The CUDA toolkit's folder ($CUDA_HOME, else /usr/local/cuda), or NULL. */
const char *sb_cuda_home(void);

/* ------------------------------------------------------------------------ */
/* procscan.c: async-signal-safe (raw syscalls, no allocation)              */

struct proc_info {
    pid_t pid, ppid;
    char state;
    unsigned long long start; /* clock ticks after boot: tells a reused pid apart */
};

typedef void (*proc_visit_fn)(const struct proc_info *pi, void *ctx);

/* "/proc/<pid>/<leaf>" into out (at least 64 bytes). */
void proc_path(char *out, pid_t pid, const char *leaf);
bool proc_info_read(pid_t pid, struct proc_info *pi);
/* Calls fn for every process whose parent is `parent`. */
void proc_for_each_child(pid_t parent, proc_visit_fn fn, void *ctx);
/* Calls fn for every process of the machine. */
void proc_for_each(proc_visit_fn fn, void *ctx);

/* ------------------------------------------------------------------------ */
/* proctree.c: a run's process tree from /proc (allocates: not for signal handlers)     */

struct proctree {
    pid_t *pid, *ppid;
    char *state; /* /proc's state letter of each */
    size_t n, alloc;
};

void proctree_load(struct proctree *t);
/* Whether pid is root or below it. */
bool proctree_has(const struct proctree *t, pid_t root, pid_t pid);
void proctree_free(struct proctree *t);
/* sig to root and every process below it (SIGSTOP and SIGCONT where no cgroup freezes). */
void proctree_signal(pid_t root, int sig);

/* ------------------------------------------------------------------------ */
/* sweep.c                                                                  */

/* The grader becomes a child subreaper once, so that escaped descendants come back to it. */
void sweep_set_subreaper_once(void);
/* Records the grader's children from before the run: never killed or reaped by the sweep. */
void sweep_preexisting_snapshot(void);
bool sweep_is_preexisting(const struct proc_info *pi);

struct sweep_ctx {
    pid_t keep;    /* the main child: reaped last, by the caller */
    bool reap;     /* false in the signal handler */
    int remaining; /* descendants seen in this pass */
    double cpu_s;
    long maxrss_kb;
};

/* Kill (and reap, outside signal handlers) every descendant of the run that was
 * re-parented to us; each pass kills one more level of a tree whose parents died. */
void sweep_descendants(struct sweep_ctx *ctx, int max_passes);

/* The runs sandbox_kill_running() ends: a slot (-1 when all are taken). */
int running_register(pid_t pgid, int kill_fd);
void running_unregister(int slot);

/* ------------------------------------------------------------------------ */
/* cgroup.c                                                                 */

struct cgroup {
    char *dir; /* NULL: no cgroup for this run */
    int kill_fd;
    bool memory_limited, pids_limited;
};

#define CGROUP_INIT                                                                                \
    {                                                                                              \
        NULL, -1, false, false                                                                     \
    }

/* Creates the group for one run; cg->dir stays NULL when cgroups are not usable. */
void cgroup_create(const struct sandbox_opts *o, struct cgroup *cg);
bool cgroup_attach(struct cgroup *cg, pid_t pid);
void cgroup_kill_all(const char *dir, int kill_fd);
void cgroup_wait_empty(const char *dir, double deadline);
void cgroup_destroy(struct cgroup *cg);

/* What the group accounted for, -1 where unknown: CPU time, peak memory, OOM kills (read only
 * when memory.max was set). */
struct cgroup_usage {
    double cpu_s;
    long long peak_bytes;
    long long oom_kills;
};
void cgroup_usage_read(const struct cgroup *cg, struct cgroup_usage *u);

/* ------------------------------------------------------------------------ */
/* bwrap.c                                                                  */

/* The bubblewrap command line running o->argv with json_fd as --json-status-fd. */
int bwrap_build(const struct sandbox_opts *o, const char *bwrap, const char *workdir, int json_fd,
                struct argvec *a, struct error *err);
/* The last "exit-code" bwrap wrote to --json-status-fd; false when there is none, i.e.
 * bwrap failed before the command was running. */
bool bwrap_exit_code(int fd, int *code);
/* bwrap's own failure from the output's "bwrap: " line, into buf. */
void bwrap_failure_text(const char *output, int status, char *buf, size_t size);

/* ------------------------------------------------------------------------ */
/* limits.c                                                                 */

/* The clean environment: PATH (with the CUDA toolkit's bin), HOME and TMPDIR (the workdir),
 * LANG, then o->env, then where the control pipe is (ctl_target; -1: no control pipe). */
void limits_environment(const struct sandbox_opts *o, const char *workdir, int ctl_target,
                        struct argvec *env);
const char *limits_env_get(const struct argvec *env, const char *key);
/* argv[0] as the sandbox's PATH finds it; relative names are relative to the workdir.
 * Caller frees; NULL when not found. */
char *limits_resolve_program(const char *name, const char *path, const char *workdir);

/* The rlimits of the child, never above a hard limit the grader itself runs under. */
struct child_limits {
    struct rlimit cpu, fsize, nofile, core, as;
    bool has_as_limit;
    bool has_cpu_limit;
};
void limits_plan(const struct sandbox_opts *o, struct child_limits *l);

/* ------------------------------------------------------------------------ */
/* child.c                                                                  */

enum child_stage {
    STAGE_FDS,
    STAGE_SETSID,
    STAGE_PDEATHSIG,
    STAGE_NO_NEW_PRIVS,
    STAGE_RLIMIT,
    STAGE_CHDIR,
    STAGE_EXEC,
};

/* What a child that could not exec writes to the report pipe. */
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
    int grant_fd;           /* the grant pipe's read end (at ctl_target + 1), -1 without */
    const cpu_set_t *cpus;  /* pinned to these CPUs (sandbox_opts.cpus), NULL: inherited */
    bool background;        /* under SCHED_IDLE (sandbox_opts.background) */
    struct child_limits limits;
};

/* "setrlimit", "exec", ... for a report's stage. */
const char *child_stage_text(int stage);
/* Waits for the go-ahead, sets the child up and execs; never returns. */
__attribute__((noreturn)) void child_run(const struct child_plan *p);

/* ------------------------------------------------------------------------ */
/* capture.c                                                                */

struct capture {
    struct strbuf sb;
    size_t cap;
    bool truncated;
    /* The output's end beyond the cap, when asked for (sandbox_opts.output_tail): a ring of
     * tail_cap bytes, tail_pos the next byte to overwrite, tail_seen every byte past the cap. */
    char *tail;
    size_t tail_cap, tail_pos, tail_seen;
};

void capture_init(struct capture *c, const struct sandbox_opts *o);
void capture_release(struct capture *c);
/* Reads what is available: 1 data read, 0 EOF, -1 nothing now. */
int capture_read(int fd, struct capture *c);
/* The captured text (caller frees); the capture is left empty. */
char *capture_finish(struct capture *c, size_t *len);

/* ------------------------------------------------------------------------ */
/* memwatch.c                                                               */

/* The memory limit where no cgroup enforces it: the supervisor samples what the run's whole
 * process tree holds (resident anonymous and shared memory, and swap) and ends the run above
 * the limit. */
struct memwatch {
    long long limit_bytes; /* 0: not watching */
    pid_t root;            /* the main child */
    long long peak_bytes;  /* the most seen at once */
    bool exceeded;
    double next_s;     /* when the next sample is due (now_seconds()) */
    double interval_s; /* grows when sampling gets expensive (a fork bomb) */
};

void memwatch_start(struct memwatch *w, pid_t root, long long limit_bytes);
/* Samples when due; true when the run holds more than the limit (w->exceeded). */
bool memwatch_poll(struct memwatch *w, double now);
/* Milliseconds until the next sample (for poll()); -1 when not watching. */
int memwatch_wait_ms(const struct memwatch *w, double now);

/* ------------------------------------------------------------------------ */
/* grants.c                                                                 */

/* How often a waiting run's locks are tried again (phaselock.h: nothing there blocks): every
 * SB_GRANT_POLL_MS for the first SB_GRANT_EAGER_S of a wait, when a turn is most often handed on,
 * then every SB_GRANT_IDLE_POLL_MS. Every supervisor of a machine that waits so is another
 * process on the cores of the series it waits for, which the load watch counts: looking every
 * 2 ms, and sampling their frozen runs' memory (supervisor.c no longer does), the supervisors of
 * three GPU suites at once made an H200's series look shared (0.3 to 0.7 cores of other
 * processes). Among several waiters one still looks within a millisecond or so. */
#define SB_GRANT_POLL_MS 2
#define SB_GRANT_EAGER_S 0.05
#define SB_GRANT_IDLE_POLL_MS 10

struct grants {
    const struct sandbox_opts *o;
    struct phaselock locks;
    bool locked; /* the run holds timing locks (sandbox_opts.locks) */
    /* Its locks could not be had within timing_wait_s (another process held them all that
     * time): it goes on holding none, and none of its series are timed ("busy"). */
    bool uncoordinated;
    int pipe[2]; /* the grant pipe (a socket pair): [0] goes to the child (as target), [1] here */
    int target;  /* the grant pipe's fd in the child, -1 without a control pipe */
    pid_t root;  /* the run's main process, and its cgroup: what a freeze stops */
    char *cgroup_dir; /* owned: a copy of the run's, which is removed before the grants close */
    bool frozen;
    /* Waiting for a timed turn (frozen), since when; all finished waits; the next notice. */
    bool waiting;
    double wait_since, waited_s, next_notice;
    /* Gave its cores up to another run's series (frozen), since when; all such pauses. */
    bool preempted;
    double preempted_since, preempted_s;
    /* The series being watched (loadwatch.h): its case, name and how many times it ran. */
    struct loadwatch watch;
    bool watching;
    int series_case, attempts;
    char series[16];
    /* A series that shared the machine waits, before it is measured again, for the machine to
     * be quiet: a look at the lane over a short window (quiet), again until one is quiet or
     * the series has waited its bound since its first attempt began (series_since). */
    bool settling;
    struct loadwatch quiet;
    double settle_since, series_since;
    double settled_s; /* all such waits that ended: the run's process waits for the answer */
    struct sb_series_load last_load; /* what the last measurement shared the machine with */
    struct sb_series_load *loads;
    size_t n_loads, alloc_loads;
    struct sb_busy *busy;
    size_t n_busy, alloc_busy;
};

void grants_init(struct grants *g);
/* The locks opened and held in their idle modes (waiting for them), and with a control pipe the
 * grant pipe made. */
int grants_open(struct grants *g, const struct sandbox_opts *o, int target, struct error *err);
/* The run started: its main process and cgroup (NULL: none; copied), for freezing it. */
void grants_attach(struct grants *g, pid_t root, const char *cgroup_dir);
/* The run is over, every process of it reaped: nothing is left to freeze or thaw, and its pid
 * may soon be another process's. A run frozen when it ended (killed, or exiting the moment it
 * was frozen) is never thawed by signals after that. The locks stay held until grants_close. */
void grants_detach(struct grants *g);
/* Serves what the control pipe asked for (sb_control's want_timed, want_idle, series_began and
 * series_ended) and gives the run's cores up while another run waits for them; how soon to come
 * back in milliseconds while something is pending, -1 when nothing is. */
int grants_serve(struct grants *g, struct sb_control *c, double now);
/* Whether the run is frozen (waiting for its turn, or its cores given up): no limit runs. */
bool grants_frozen(const struct grants *g);
/* Seconds the run spent frozen, the pause under way included. */
double grants_paused(const struct grants *g, double now);
/* How long it has waited, in all, for the machine to be quiet before a series was measured
 * again (its process blocked on the answer meanwhile): the run's wall clock stands still, as
 * the case's does, so a loaded machine costs a run time, never its verdict. */
double grants_settled(const struct grants *g, double now);
/* The series' loads and the busy cases handed over to r. */
void grants_finish(struct grants *g, struct sandbox_result *r);
void grants_close(struct grants *g);

/* ------------------------------------------------------------------------ */
/* classify.c                                                               */

/* How a run ended, as the supervisor saw it. */
struct run_end {
    int wait_status;
    bool timed_out, memory_exceeded;
    long long oom_kills; /* cgroup memory.events */
    bool bwrap;          /* the command ran under bubblewrap */
    int json_fd;         /* bwrap's --json-status-fd, read end */
    const struct child_limits *limits;
};

/* Fills r->status, exit_code, term_signal. Returns 0, or -1 when bwrap itself failed before
 * the command ran (a setup failure: the caller reports it). */
int classify_run(const struct run_end *e, struct sandbox_result *r);

#endif

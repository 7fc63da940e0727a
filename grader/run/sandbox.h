/*
 * sandbox: run an untrusted command under a supervisor.
 *
 * The child gets its own session and process group, PR_SET_NO_NEW_PRIVS,
 * rlimits (CPU, file size, open files, no core dumps; never RLIMIT_AS, which
 * CUDA's start-up reservation breaks), a clean environment and a scratch working
 * directory. The wall-clock limit kills the whole process group, grandchildren
 * included. Output (stdout and stderr merged) is captured up to a cap. A memory limit
 * holds everywhere: the cgroup's memory.max where one is delegated, else the supervisor
 * samples the memory of the run's processes and kills the run above the limit.
 * Where bubblewrap works, the command also runs in namespaces: no network, a
 * read-only system, only the scratch directory (and `rw_paths`) writable,
 * `ro_paths` visible, nothing else of the grader's or other students' files,
 * and /dev/nvidia* when `gpu` is set.
 *
 * sandbox_result owns `output`; sandbox_result_release() frees it.
 */
#ifndef LG_SANDBOX_H
#define LG_SANDBOX_H

#include "base/error.h"

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

enum isolation {
    ISOLATION_AUTO,       /* bubblewrap if it works here, else supervisor */
    ISOLATION_SUPERVISOR, /* rlimits, process group, clean env; no namespaces */
    ISOLATION_BWRAP,      /* namespaces through bubblewrap; fail if unavailable */
};

const char *isolation_name(enum isolation i);

/* A timing lock a run holds (phaselock.h, run/turns.h): its file, the mode held while the run
 * is not timing and while it is, and whether, held shared while not timing, it is given up
 * (the run frozen) as soon as another run waits to hold it exclusively: a core's lock is, so
 * that a series never waits for other runs' untimed work; a GPU's is not, since work already
 * sent to the GPU would run on beside the series. */
enum sb_lock_mode { SB_LOCK_NONE, SB_LOCK_SHARED, SB_LOCK_EXCLUSIVE };
struct sb_lock {
    const char *path;
    enum sb_lock_mode idle, timed;
    bool preemptible;
};

/* A timed series as the supervisor saw the machine around it (grants.c, loadwatch.c): how many
 * times it was measured (again while it shared its cores or its GPU) and, for the last time,
 * what else ran beside it. */
struct sb_series_load {
    int case_index;
    char series[16];
    int attempts;
    bool shared;         /* the last measurement shared its cores or its GPU */
    double foreign_cpus; /* other processes on the run's cores (a CPU series), in cores */
    /* Of foreign_cpus, what no process did: the kernel's interrupt handling (irq, softirq) and
     * a hypervisor's steal time, in cores. */
    double irq_cpus, steal_cpus;
    long gpu_pid;      /* another process seen computing on the run's GPU; 0: none */
    int gpu_util;      /* its SM utilisation, percent */
    char gpu_comm[32]; /* its command name */
    /* A CPU series kept as shared: the busiest other process on its cores just after its last
     * measurement (loadwatch_busiest); 0: none seen. */
    long cpu_pid;
    double cpu_pid_cores; /* its load then, in cores */
    char cpu_comm[32];
};

/* A case whose series never got their turn within sandbox_opts.timing_wait_s. */
struct sb_busy {
    int case_index;
    double waited_s;
    char holders[256]; /* who held the turn, as turns_holders() says; "" when unseen */
};

struct sandbox_opts {
    const char *const *argv;     /* argv[0] is looked up in PATH if it has no slash */
    const char *workdir;         /* scratch directory: cwd, writable */
    const char *const *ro_paths; /* NULL-terminated; extra read-only paths (lab headers, ...) */
    const char *const *rw_paths; /* NULL-terminated; extra writable paths */
    const char *const *env;      /* NULL-terminated "K=V" list added to the clean environment */
    double wall_limit_s;         /* 0: none */
    double cpu_limit_s;          /* 0: none */
    long long file_limit_bytes;  /* RLIMIT_FSIZE; 0: default 1 GiB */
    /* All processes of the run together; 0: none. The cgroup's memory.max where delegated,
     * else the supervisor's watcher (memory_guard says which held it). */
    long long memory_limit_bytes;
    int max_processes; /* cgroup pids.max where delegated; 0: none */
    /* RLIMIT_AS; 0: none. Only for programs that never start CUDA (compilers): CUDA
     * reserves ~12 GiB of address space at start-up. Holds where cgroups are not delegated. */
    long long address_space_bytes;
    size_t output_cap; /* bytes kept of the output; 0: 64 KiB */
    bool gpu;          /* expose /dev/nvidia* */
    bool network;      /* keep the network (never for student code) */
    enum isolation isolation;
    /* Bytes kept of the output's end beyond output_cap (0: none): output then holds the
     * start, a "[... N bytes of output left out ...]" line and the end from its first whole
     * line, so what a wrapper prints last (compute-sanitizer's summary) survives a program
     * that floods the output. */
    size_t output_tail;
    /* A control pipe on the run's fd 3 (grader/harness/result.h): each line it sends comes
     * back in the result with the supervisor's own timestamp, and a line "B <i>" starts case
     * i's own wall-clock limit, case_limits_s[i] (wall_limit_s still bounds the whole run). */
    bool control;
    const double *case_limits_s;
    size_t n_case_limits;
    /* With `control`: the timing locks (phaselock.h), held in their idle modes from before the
     * start, and in their timed modes from each "W <i>" line until the next "R <i>". A run that
     * asks waits frozen where its cgroup can freeze it, the wait is not counted against its
     * limits, and one byte on the grant pipe (its fd in LG_GRANT_FD) lets it go on; with no
     * locks, at once. */
    const struct sb_lock *locks;
    size_t n_locks;
    /* The machine's timing coordinator's folder (run/turns.h), where the locks are: processes
     * with a lock open there are other graders' runs, never counted as sharing a series. */
    const char *coord_dir;
    /* A timed turn is waited for at most this long (0: no bound); then the harness is told
     * "busy" and its case is reported as not timed, with who held the turn (sb_busy). */
    double timing_wait_s;
    /* Told, while a run waits for its turn, how long it has and who holds it (NULL: nobody):
     * after 2 s, then every 30 s. */
    void (*on_wait)(void *arg, double waited_s, const char *holders);
    void *on_wait_arg;
    /* The CPUs the command runs on (its lane's cores: run/turns.h); NULL: as inherited. */
    const cpu_set_t *cpus;
    /* The GPU the run computes on (its PCI bus id), whose other users a GPU series is watched
     * for; NULL: none. A series that shared its cores or its GPU is measured again (twice at
     * most) and, still shared, recorded as such (sb_series_load). */
    const char *gpu_key;
    bool cpu_series; /* the run's series are CPU series (watched for load on its cores) */
    /* The command runs under SCHED_IDLE: any thread of normal priority that wakes on one of its
     * cores takes the core at once (another grader's GPU series' timing thread; docs/
     * coordinator.md, "Untimed work in the background"). For untimed work only: no process can
     * take its priority back without privileges. */
    bool background;
};

/* A line a run sent over its control pipe, and when the supervisor read it. */
struct sandbox_event {
    /* Seconds since the run started, by the supervisor's clock: when the line was read (it was
     * written no later), and when the supervisor last found the pipe empty before it (it was
     * written no earlier). A supervisor kept off the CPU reads late: only the two together
     * bound when the line was written. */
    double t_s, t_after_s;
    char line[64];
};

/* What held sandbox_opts.memory_limit_bytes. */
enum memory_guard {
    MEMORY_GUARD_NONE,    /* no limit was asked for */
    MEMORY_GUARD_CGROUP,  /* memory.max of the run's cgroup v2: the kernel's OOM killer */
    MEMORY_GUARD_WATCHER, /* no delegated cgroup: the supervisor sampled the run's resident
                           * anonymous and shared memory and swap every 25 ms or so (more
                           * while sampling is expensive), and killed the run above the limit */
};

enum sandbox_status {
    SB_EXITED,   /* exit_code holds the status */
    SB_SIGNALED, /* term_signal holds the signal */
    SB_TIMEOUT,  /* wall-clock limit hit; the group was killed */
    SB_CPU_LIMIT,
    SB_FILE_LIMIT,   /* SIGXFSZ */
    SB_MEMORY_LIMIT, /* memory_peak_bytes and memory_limit_bytes say how much */
    SB_SETUP_FAILED, /* the supervisor could not start the command: a grader fault */
};

struct sandbox_result {
    enum sandbox_status status;
    int exit_code;
    int term_signal;
    double wall_s, cpu_s;
    long peak_rss_kb;
    char *output;
    size_t output_len;
    bool output_truncated; /* more than output_len bytes were written: the rest was dropped */
    enum isolation isolation_used;
    /* The run's cgroup v2 (cgroup_used), and the limits enforced: pids only by a cgroup
     * (false where the parent is not delegated or lacks the controller, whatever the options
     * asked); memory by a cgroup or, without one, by the supervisor's watcher. */
    bool cgroup_used, memory_limit_enforced, pids_limit_enforced;
    enum memory_guard memory_guard;
    long long memory_limit_bytes; /* the limit that held; 0: none */
    /* The most the run's processes held at once: the cgroup's memory.peak, or the highest
     * of the watcher's samples (a lower bound); 0 when unknown. */
    long long memory_peak_bytes;
    char setup_error[512];
    /* The control pipe's lines, in order (owned); and the case whose own limit ended the run
     * (SB_TIMEOUT), -1 when none did. */
    struct sandbox_event *events;
    size_t n_events;
    int case_timed_out;
    /* The timing locks: seconds the run waited for them (not counted against its limits), and
     * a timed series that began while the run did not hold its timed modes (tampering). */
    double lock_wait_s;
    bool unlocked_series;
    /* Every timed series' load (owned), and the cases whose turn never came (owned). */
    struct sb_series_load *loads;
    size_t n_loads;
    struct sb_busy *busy;
    size_t n_busy;
    /* The run's locks could not be had within timing_wait_s: it ran holding none. */
    bool uncoordinated;
};

void sandbox_opts_init(struct sandbox_opts *o);
void sandbox_result_init(struct sandbox_result *r);
void sandbox_result_release(struct sandbox_result *r);

/* Returns 0 when the command ran (whatever its outcome is), -1 when it could
 * not be started (err set; result status SB_SETUP_FAILED). */
int sandbox_run(const struct sandbox_opts *o, struct sandbox_result *r, struct error *err);

/* What this machine allows; cached after the first probe. */
enum isolation sandbox_available(void);
/* A one-line human description of the result ("killed by SIGSEGV (segmentation fault)"). */
void sandbox_describe(const struct sandbox_result *r, char *buf, size_t size);
/* The start of the captured output (at most max bytes) as a report detail, saying when it was
 * cut here or truncated at the capture cap; NULL when there was no output. Caller frees. */
char *sandbox_output_excerpt(const struct sandbox_result *r, size_t max);
/* "SIGSEGV" for 11; "SIG?" for signals outside the usual set. */
const char *signal_name(int sig);
/* What a signal means, in English ("segmentation fault"); NULL for one not in the table. */
const char *signal_description(int sig);

/* Kill every running sandboxed command: its process group, its cgroup where one is
 * used, and the descendants re-parented to the grader. Async-signal-safe: meant for the
 * grader's SIGINT/SIGTERM handler, which then exits or lets sandbox_run() return
 * (the run then reports SB_SIGNALED with SIGKILL). */
void sandbox_kill_running(void);

#endif

/*
 * loadwatch: what else ran beside one timed series (run/grants.c), seen rather than guessed.
 *
 * A CPU series: the CPU time the kernel accounted on the run's cores (/proc/stat: user, nice,
 * system, irq, softirq and steal, so a hypervisor that took the cores counts too) less the run's
 * own (its cgroup's, or its process tree's) and the supervisor's, over the series' span: other
 * processes' work, in cores. A GPU series: the processes NVML saw computing on the run's GPU
 * (its per-process utilisation samples since the series began) that are not the run's own.
 * Processes this one cannot see (another container's), and other graders' runs (which take
 * their turns through the coordinator), are not counted.
 *
 * struct loadwatch owns nothing.
 */
#ifndef LG_LOADWATCH_H
#define LG_LOADWATCH_H

#include "run/sandbox.h"

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

/* Other processes' load on a CPU series' cores above which the series shared them: a quarter
 * of a core on average, and at least 30 ms of CPU time (the kernel accounts in 10 ms ticks). */
#define LOADWATCH_CPU_SHARE 0.25
#define LOADWATCH_CPU_MIN_S 0.03
/* NVML's per-process samples each cover a period that ends at their timestamp: a process that
 * computed just before the series began (the GPU's last turn) can show in a sample stamped
 * after it. A sample counts from this long after the series began. */
#define LOADWATCH_GPU_SETTLE_S 0.5

struct loadwatch {
    bool cpu;              /* watch the cores */
    const cpu_set_t *cpus; /* the run's cores; NULL: every core */
    const char *gpu_key;   /* watch this GPU (PCI bus id); NULL: none */
    pid_t root;            /* the run's main process */
    const char *cgroup_dir;
    /* The coordinator's folder (run/turns.h): a process whose ancestor has a file of it open is
     * another grader's coordinated run, which takes turns by construction; NULL: none. */
    const char *coord_dir;
    double t0;
    double busy0, own0, self0;  /* seconds of CPU time at the start */
    double irq0, steal0;        /* of busy0: interrupts, and a hypervisor's steal */
    unsigned long long nvml_t0; /* microseconds since the epoch, for NVML's samples */
};

/* The series begins now. */
void loadwatch_begin(struct loadwatch *w);
/* The series ended now: what ran beside it into *load (attempts and case untouched); true when
 * it shared its cores or its GPU. */
bool loadwatch_end(struct loadwatch *w, struct sb_series_load *load);
/* Who: the process, neither the run's nor this one, that used the most CPU on the watched cores
 * over the next window_s seconds (it blocks that long), into load's cpu_pid, cpu_pid_cores and
 * cpu_comm; none when no process used a tick of CPU there. For a series kept as shared, once:
 * two walks through /proc, which the series' own measurements must not pay for. A process's
 * core is its main thread's last one. */
void loadwatch_busiest(const struct loadwatch *w, double window_s, struct sb_series_load *load);

#endif

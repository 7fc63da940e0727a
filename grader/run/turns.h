/*
 * turns: the machine's timing coordinator, as one grader process takes part in it
 * (docs/coordinator.md).
 *
 * Every grader process on a machine takes its turns through the same lock files, whoever
 * started it and whatever its output folder: a student's check, a class's workers, an
 * autograde called over ssh, several labs at once. The files live in one folder of the
 * machine (LABGRADER_COORDINATOR, else /run/lock/labgrader, else /tmp/labgrader), one per CPU
 * core and one per GPU (named by its PCI bus id, which every process sees alike, whatever its
 * CUDA_VISIBLE_DEVICES), each held shared or exclusive through flock(2) (run/phaselock.h).
 *
 * A process works in a lane: a GPU and an equal share of the CPUs it may use (the first GPU
 * the first share, and so on; one lane of every CPU without a GPU). Its runs are pinned to the
 * lane's cores and hold their locks: shared while they do untimed work, exclusive for a CPU
 * series (no other process on those cores), and the GPU's exclusive with the cores shared for
 * a GPU series. So a CPU series in one lane stops nobody in the other lanes.
 *
 * The coordinator's folder is checked once (a real folder, not a link; sticky where others may
 * write to it); where it cannot be used, `problem` says why and what to do, and timed series
 * are reported as not timed rather than timed beside whatever else runs.
 *
 * struct turns owns its strings; struct turns_locks owns its paths and its array.
 */
#ifndef LG_TURNS_H
#define LG_TURNS_H

#include "base/error.h"
#include "run/sandbox.h"

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* How long a run waits for a timed turn before its series are reported as not timed (the
 * machine was busy): the default of --timing-wait. */
#define TURNS_DEFAULT_WAIT_S 600.0

struct turns {
    char *dir;         /* the coordinator's folder; NULL when it cannot be used */
    char *problem;     /* why not, and what to do; NULL when usable */
    cpu_set_t allowed; /* the CPUs this process could use at setup */
    int n_lanes;
    int lane;       /* this process's lane, 0-based */
    cpu_set_t cpus; /* the lane's cores */
    int n_cpus;
    char *gpu;     /* the lane's GPU's key (its PCI bus id, lower case), NULL: none */
    double wait_s; /* a timed turn waited for at most this long */
    /* A moment (now_seconds) no wait may pass: an autograde's answer is due before its runner's
     * limit, so every wait for a turn ends by then. 0: none. */
    double deadline;
    /* Told while any sandboxed command of this process waits for its turn (a compile, a run):
     * how long it has waited and who holds the turn (sandbox.h's on_wait); NULL: nobody. */
    void (*on_wait)(void *arg, double waited_s, const char *holders);
    void *on_wait_arg;
};

void turns_init(struct turns *t);
void turns_release(struct turns *t);

/* The coordinator's folder resolved and checked (created where missing), the CPUs this
 * process may use read, and lane 0 of n_lanes taken. Never fails: an unusable folder is
 * t->problem. */
void turns_setup(struct turns *t, int n_lanes);
/* The folder LABGRADER_COORDINATOR names, or the default; caller frees. */
char *turns_default_dir(void);
/* Takes lane `lane` (wrapped into n_lanes) with the GPU named by gpu_key (NULL: none). */
void turns_place(struct turns *t, int lane, const char *gpu_key);
/* Takes every CPU this process may use, and no GPU (a class's builder: its compilers give
 * their cores up to any lane's series). */
void turns_place_all(struct turns *t);
/* The calling process (its thread, and the processes it starts from now on) kept to its lane's
 * cores where the lane is not every core it may use: the grader's own work (run/work.h) then
 * runs where its sections hold the cores, never beside another lane's series. For a process
 * that works in one lane for good (a class's worker, an autograde); nothing changes with one
 * lane. */
void turns_pin_self(const struct turns *t);
/* The lane that a GPU's key falls in: its rank among the keys given (sorted), 0 when absent. */
int turns_lane_of(const char *gpu_key, char *const *keys, size_t n_keys);

/* What a run does with its locks. */
enum turns_use {
    TURNS_UNTIMED,    /* a build, an untimed run: its cores shared, its GPU shared */
    TURNS_CPU_SERIES, /* a timed CPU run: cores shared, exclusive while its series run */
    TURNS_GPU_SERIES, /* a timed GPU run: GPU shared, exclusive while its series run */
    TURNS_EXCLUSIVE,  /* a measurement of the machine itself (its calibration): the lane's cores
                       * exclusive from start to end, and so every other grader's run of the lane
                       * out of the way (each holds them shared); its GPU lock is not taken, as a
                       * run frozen with its cores given up still holds its GPU's, and waiting for
                       * that while holding the cores would wait for ever */
};

struct turns_locks {
    struct sb_lock *locks;
    char **paths;
    size_t n;
};

/* The locks a run of this lane holds for `use`: GPU first (where `gpu`), then each core in
 * ascending order; empty when the coordinator cannot be used. The cores' locks are
 * preemptible while untimed (phaselock.h). */
void turns_locks_make(const struct turns *t, enum turns_use use, bool gpu, struct turns_locks *out);
void turns_locks_release(struct turns_locks *l);
/* A run's part in the coordinator, into its options: the locks for `use` (into out, released by
 * the caller after the run), the lane's cores to pin it to, its GPU (where `gpu`), the wait's
 * bound and its notices. Without a coordinator (t NULL): no locks, nothing pinned. */
void turns_join(const struct turns *t, enum turns_use use, bool gpu, struct sandbox_opts *o,
                struct turns_locks *out);

/* A run of this process found the turn held past its wait (sandbox_result.uncoordinated, or a
 * case answered "busy"): later runs and compiles wait for it only a moment
 * (turns_wait_bound), so that a grader facing a process that holds the machine for good
 * finishes in seconds, saying so, rather than waiting the bound again for every command.
 * A turn that comes free is taken as usual. */
void turns_note_busy(void);
/* The bound a command waits for its turn: t->wait_s, or a moment once turns_note_busy. */
double turns_wait_bound(const struct turns *t);

/* Holds the lane's cores shared, waiting as long as it takes, for grader work outside any run
 * that must not overlap a series (a PDF): returns the descriptors to close (count in *n; NULL
 * when none). */
int *turns_hold_cores(const struct turns *t, size_t *n);
void turns_let_go(int *fds, size_t n);

/* Who holds the given lock files (flock(2) as /proc/locks lists it), in words for a message:
 * "pid 1234 (alice: grader check labs/lab6 ...)", the first few; NULL when nobody is seen.
 * Caller frees. */
char *turns_holders(const struct sb_lock *locks, size_t n);

#endif

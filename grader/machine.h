/*
 * machine: what this computer is, for reports and for deciding whether GPU
 * variants can run. The GPU is probed by running gpuprobe in a child process,
 * so a broken driver costs a message, never the grader.
 */
#ifndef LG_MACHINE_H
#define LG_MACHINE_H

#include "build.h"
#include "results.h"

#include <stdbool.h>

struct gpu_probe {
    bool available;
    char *reason; /* why not, when !available */
    char *name, *cc, *driver, *runtime;
    long memory_mib;
    long l2_bytes;
    int sms;
    int count;
};

void gpu_probe_init(struct gpu_probe *g);
void gpu_probe_release(struct gpu_probe *g);
/* Runs <harness_dir>/gpuprobe when it exists; fills g (never fails: reasons instead). */
void gpu_probe_run(struct gpu_probe *g, const struct toolchain *tc);

/* Fill m from this machine, the toolchain and the probe (strings are copied). */
void machine_info_collect(struct machine_info *m, const struct toolchain *tc,
                          const struct gpu_probe *g, const struct lab *lab);

#endif

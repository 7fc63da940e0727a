/*
 * machine: what this computer is, for reports and for deciding whether GPU
 * variants can run. The GPU is probed by running gpuprobe in a child process,
 * so a broken driver costs a message, never the grader.
 */
#ifndef LG_MACHINE_H
#define LG_MACHINE_H

#include "run/build.h"

#include <stdbool.h>

/* This machine as a results file records it (results.h); strings owned by the holder. */
struct machine_info {
    char *hostname;
    char *cpu_model;
    int cpu_threads;
    char *gpu_name; /* NULL when no GPU */
    char *gpu_cc;
    long gpu_memory_mib;
    char *driver_version, *cuda_runtime_version;
    char *cc_version, *nvcc_version;
    char *cflags, *nvccflags;
    char *gpu_status;  /* why GPU work is skipped, or "available" */
    char *calibration; /* measured limits of this machine, one line, or NULL */
    char *blas_core;   /* the OpenBLAS kernel every run used ("SkylakeX (forced: ...)") */
};

struct gpu_probe {
    bool available;
    char *reason; /* why not, when !available */
    char *name, *cc, *driver, *runtime;
    long memory_mib;
    long l2_bytes;
    int sms;
    int count;
    /* Each visible device's PCI bus id, lower case ("0000:00:06.0"), in CUDA's order; NULL
     * entries where the probe did not say. */
    char **pci;
    int n_pci;
};

void gpu_probe_init(struct gpu_probe *g);
void gpu_probe_release(struct gpu_probe *g);

/* Whether a GPU has room for several graders' processes at once: 16 GiB or more, or a size the
 * probe did not give. Each GPU process holds a CUDA context (a few hundred MiB) and its buffers
 * at the same time as the others, and a run that cannot allocate would be the student's RE,
 * never the grader's: a student's variants side by side (grade/side.c) and a class's workers
 * sharing a GPU (class/batch.h) both ask. */
#define GPU_ROOM_FOR_SEVERAL_MIB 16384
bool gpu_probe_room_for_several(const struct gpu_probe *g);

/* true (g's reason set) when GPU work is off here before any probe: LABGRADER_NO_GPU, or no
 * CUDA toolkit. */
bool gpu_probe_disabled(struct gpu_probe *g, const struct toolchain *tc);
/* Runs <harness_dir>/gpuprobe when it exists; fills g (never fails: reasons instead). When the
 * GPU answered and output is not NULL, *output gets the probe's output (caller frees), for
 * gpu_probe_from_output in a later process (grade/bootmemo.h). */
void gpu_probe_run(struct gpu_probe *g, const struct toolchain *tc, char **output);
/* g from a successful probe's output; false (g then incomplete: release it) when it is not
 * one. */
bool gpu_probe_from_output(struct gpu_probe *g, const char *output);

/* Fill m from this machine, the toolchain and the probe (strings are copied). */
void machine_info_collect(struct machine_info *m, const struct toolchain *tc,
                          const struct gpu_probe *g, const struct lab *lab);

#endif

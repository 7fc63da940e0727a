/*
 * calibration: this machine's measured limits (build/harness/calibrate), once per machine and
 * cached in the grader's cache, and the OpenBLAS kernel every child runs with.
 *
 * Debian's OpenBLAS does not recognise some CPUs it could run its best kernels on (an AVX-512
 * Xeon or EPYC gets the "Haswell" or even "Prescott" kernels, two to five times slower): the
 * CPU baseline and every "vs CPU" speedup would be wrong by as much. calibration_blas_core()
 * compares the kernel OpenBLAS chose with what the CPU supports; when it chose an older one,
 * grade_env_setup() runs every child (references, calibration, students) with
 * OPENBLAS_CORETYPE set to the right one. A user's own OPENBLAS_CORETYPE is passed through.
 */
#ifndef LG_CALIBRATION_H
#define LG_CALIBRATION_H

#include "spec/spec.h"

#include <stdbool.h>
#include <stdio.h>

struct calibration {
    double cpu_bw_gbs, cpu_sgemm_gflops;
    double gpu_copy_gbs, h2d_pinned_gbs, h2d_pageable_gbs, d2h_pinned_gbs, d2h_pageable_gbs;
    double gpu_sgemm_gflops; /* cuBLAS SGEMM, FP32 (tensor cores off) */
    double gpu_tf32_gflops;  /* cuBLAS SGEMM with TF32 tensor cores allowed; 0: not measured */
    long gpu_l2_bytes;
    long cpu_cache_bytes;   /* the largest CPU cache (sysfs), 0 where unknown */
    char openblas_core[32]; /* the kernel OpenBLAS ran the calibration with */
    bool valid;
};

/* Parse calibrate's "key value" lines into c (valid when the CPU figures are there). */
void calibration_parse(const char *text, struct calibration *c);
/* "CPU memory 25.1 GB/s, OpenBLAS SGEMM 945 GFLOP/s (SkylakeX kernels); ..." in the language
 * of m (NULL: English). Caller frees. */
struct messages;
char *calibration_summary(const struct calibration *c, const struct messages *m);

/*
 * The OPENBLAS_CORETYPE to force, given the kernel OpenBLAS chose and the CPU's flags (the
 * "flags" line of /proc/cpuinfo), or NULL when its choice is as good as the CPU allows.
 */
const char *calibration_blas_core(const char *chosen, const char *cpu_flags);
/* The CPU's flags line from /proc/cpuinfo (caller frees), "" where unreadable. */
char *calibration_cpu_flags(void);
/* The largest cache of the CPU, from sysfs (bytes; 0 when unknown). */
long calibration_cpu_cache_bytes(void);

/*
 * The bus a GPU variant's call crosses: inputs all on the host and outputs all on the device
 * (host-to-device), or the reverse. Returns that transfer's measured bandwidth in GB/s from
 * the kind of host memory involved (pinned only when every host argument is pinned), with
 * *what naming it ("pinned host-to-device"), and in *peak_gbs the fastest the bus went
 * (pinned, same direction): the physical floor for "impossible" times. 0 when the call is
 * not such a copy or the calibration lacks the figure.
 */
double calibration_bus_gbs(const struct calibration *c, const struct exercise_spec *ex,
                           const struct variant_spec *v, const char **what, double *peak_gbs);

#endif

/*
 * harness: the trusted half of every student and reference process.
 *
 * The grader links harness.o + a generated driver (driver.c, which defines
 * lg_invoke and lg_function_name from the lab spec) + the submission's objects
 * into one program, and runs it in a sandbox as `runner job.txt`. The harness
 * allocates and fills the arguments, poisons the outputs, makes the checked
 * calls, writes the outputs for the grader to compare, times the function and
 * writes result.txt. It never sees expected values: the grader compares.
 *
 * GPU work goes through the lg_gpu_* functions: harness_gpu.cu implements them
 * with the CUDA runtime, harness_nogpu.c for CPU-only programs.
 * All symbols start with lg_ so they cannot collide with a student's names.
 */
#ifndef LG_HARNESS_H
#define LG_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Generated per variant from the spec (driver.c). */
extern const char *const lg_function_name;
void lg_invoke(void *const *args);

enum lg_space { LG_SPACE_HOST = 0, LG_SPACE_PINNED = 1, LG_SPACE_DEVICE = 2 };

/* Exit statuses of the runner, read by the grader (grader/run/runner.c). */
enum {
    LG_EXIT_OK = 0,
    LG_EXIT_CUDA = 90,  /* a CUDA error surfaced after the student's call */
    LG_EXIT_NOGPU = 91, /* no usable GPU: the variant is skipped */
    LG_EXIT_SETUP = 92, /* the harness itself failed (job file, allocation): grader fault */
};

/* 0 when a GPU is usable; else -1 with the reason in err. */
int lg_gpu_init(char *err, size_t errsize);
/* Device name, compute capability, memory, driver and runtime versions, one "key value" per line.
 */
void lg_gpu_describe(char *buf, size_t size);
/* Allocate bytes in the given space; NULL on failure (err filled). */
void *lg_gpu_alloc(size_t bytes, int space, char *err, size_t errsize);
void lg_gpu_free(void *p, int space);
int lg_gpu_copy(void *dst, const void *src, size_t bytes, int to_device, char *err, size_t errsize);
/* Queued on the default stream, no host wait: the repoisoning between timed calls, which
 * must not leave the GPU idle (its clocks drop within a millisecond or two). 0 or -1.
 * lg_gpu_poison_sparse_async sets every byte of one element (elem_size bytes) in every stripe
 * of stripe_elems elements of dev (count elements) to byte, at a position within each stripe
 * drawn from seed; lg_gpu_copy_device_async restores an inout. */
int lg_gpu_poison_sparse_async(void *dev, size_t elem_size, size_t count, size_t stripe_elems,
                               int byte, uint64_t seed);
int lg_gpu_copy_device_async(void *dst, const void *src, size_t bytes);
/* Synchronize the device and collect any pending or sticky error. */
int lg_gpu_sync(char *err, size_t errsize);
/* Events around a region on the legacy default stream. */
void lg_gpu_event_start(void);
/* Records the stop event, releases an armed blocking kernel, synchronizes, returns the
 * elapsed milliseconds (<0 on error). */
double lg_gpu_event_stop(void);
/*
 * The blocking kernel (nvbench's method): lg_gpu_block_arm() queues a one-thread kernel
 * that spins on the default stream until lg_gpu_event_stop() releases it (or timeout_ms
 * passes), so the start event, the call's kernels and the stop event reach the GPU back
 * to back and the events measure the GPU's work alone, not the host's launch overhead.
 * 0 when armed, -1 when the kernel could not be set up (timing goes on without it).
 * lg_gpu_block_timed_out(), after the synchronize: the call waited on the blocked stream
 * (it synchronizes inside), so the sample is worthless and blocking must stop.
 */
int lg_gpu_block_arm(double timeout_ms);
int lg_gpu_block_timed_out(void);
/* Evict L2 by writing a buffer twice its size (cold-cache timing). */
void lg_gpu_flush_l2(void);
/* Current and maximum SM clock in MHz (0 when unknown), for throttling detection. */
int lg_gpu_sm_clock_mhz(void);
int lg_gpu_sm_clock_max_mhz(void);

#ifdef __cplusplus
}
#endif

#endif

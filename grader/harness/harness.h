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

/* Generated per variant from the spec (grader/spec/driver.c): the function under test, called
 * with one pointer per argument (to the data for arrays, to the value for scalars, to the
 * result slot for a return value). */
extern const char *const lg_function_name;
void lg_invoke(void *const *args);
typedef void (*lg_invoke_fn)(void *const *args);
/* The paired reference lives in a shared object of its own (job key reference_lib), loaded
 * with its symbols kept local so that no name of the student's can clash with it; it exports
 * this one entry point, generated like lg_invoke. */
#define LG_REF_ENTRY "lg_ref_invoke"

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
/* Device memory that lg_gpu_fence can take out of reach (the CUDA virtual memory management
 * API: its own physical allocation, mapped at an address range of its own); plain device memory
 * where the device or driver has no such API (lg_gpu_fence then answers 1). Freed by
 * lg_gpu_free. */
void *lg_gpu_alloc_fenceable(size_t bytes, char *err, size_t errsize);
/* Take every access to a fenceable allocation away (on: its range unmapped, the memory kept) or
 * give it back (off): a kernel or copy that touches it meanwhile fails with an illegal address.
 * 0; 1 where p cannot be fenced; -1 on a CUDA error. */
int lg_gpu_fence(void *p, int on);
int lg_gpu_copy(void *dst, const void *src, size_t bytes, int to_device, char *err, size_t errsize);
/* Synchronous helpers for the timed pairs (grader/harness/timing.c): draw timed inputs
 * (draw.h) into count elements of dtype, compare two device arrays with numpy's allclose
 * (returns the mismatches and the first one's index, -1 on a CUDA error), and digest a device
 * array (to tell whether a call changed its inputs). */
int lg_gpu_draw(void *dev, int dtype, size_t count, int dist, double p1, double p2, uint64_t seed);
long long lg_gpu_compare(const void *actual, const void *expected, int dtype, size_t count,
                         double rtol, double atol, int equal_nan, long long *first);
uint64_t lg_gpu_digest(const void *dev, size_t bytes);
int lg_gpu_copy_d2d(void *dst, const void *src, size_t bytes);
/* Synchronize the device and collect any pending or sticky error. */
int lg_gpu_sync(char *err, size_t errsize);
/* Events around a region on the legacy default stream. */
void lg_gpu_event_start(void);
/* Records the stop event, releases an armed blocking kernel, waits for the stop event and then
 * for the whole device, returns the elapsed milliseconds (<0 on error). *tail_ms (when not
 * NULL) gets the host-clock time between the two waits: how long the device stayed busy after
 * the stop event, with work on streams the events do not see. */
double lg_gpu_event_stop(double *tail_ms);
/* What that tail is on an idle device (the median of a few): the cost of the wait itself. */
double lg_gpu_idle_tail_ms(void);
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

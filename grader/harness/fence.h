/*
 * fence: while one side of a timed pair runs, what the other side wrote is out of its reach.
 *
 * The two calls of a pair read the same inputs and write outputs of their own (timing.c). The
 * function under test knows where the reference's outputs are (the pairs trade output buffers
 * by order, so it has been handed both), and when it runs second they hold the answer it is
 * asked for. So around every timed call (and warm-up call) of a pair, the other side's output
 * and in-out buffers are fenced: host memory made inaccessible (mprotect), device memory
 * unmapped (harness.h's lg_gpu_fence); its contents are kept and the fence is lifted once the
 * call is done. The same happens around both calls of either order, so that whatever the fence
 * costs is paid alike whichever side goes first (docs/timing.md, "Between the calls of a
 * pair").
 *
 * A host access to a fenced buffer faults. The harness's handler of SIGSEGV writes which
 * buffer it was, whose, and how, as a "timed_fault <series> <pair> <arg> <owner> <access>" line
 * of result.txt (owner "reference": the function's call touched the reference's outputs;
 * "function": the reference's call ran while something touched the function's; access "read"
 * or "write", a write being work the function left running after it returned), then lets the
 * fault kill the process as it would have. A device access fails as an illegal address (a CUDA
 * error named after the timed call).
 *
 * What a fence does not stop: code that lifts it (mprotect is the process's own), or that finds
 * the memory by other means (docs/threat-model.md). The orders' agreement (grade/speed.c) is
 * what such a gain, in one order only, still meets.
 */
#ifndef LG_HARNESS_FENCE_H
#define LG_HARNESS_FENCE_H

#include "case.h"

#include <stdbool.h>

/* Install the fault handler (once a process). */
void lg_fence_init(void);
/* Fence (on) or unfence (off) every buffer the given side writes (student: the function's;
 * else the reference's), naming series and pair for the fault line. Returns how many buffers
 * are fenced now (0 after off; a buffer that cannot be fenced, as pinned memory, is left
 * open); a failure to fence or unfence exits through lg_fail. */
int lg_fence_side(struct lg_case_state *s, bool student, bool on, const char *series, int pair);

#endif

/*
 * Labs 7, 8 and 9 end to end on a GPU machine: tests/e2e/test_newlabs.c with its GPU
 * expectations enforced. Solutions pass in every variant (timed), skeletons fail in every
 * variant with "never written", and the fixtures get the gpu column of
 * tests/fixtures/lab{7,8,9}/EXPECTED: the off-by-one wrong at every size, `+=` on the NaN
 * output, the race without __syncthreads, the histogram without atomics on skewed input, the
 * transpose with swapped dimensions, and the edge tiles without a bounds check caught in the
 * guard zone (RE). Fails when the grader sees no GPU.
 */
#define NEWLABS_REQUIRE_GPU 1
#include "../e2e/test_newlabs.c"

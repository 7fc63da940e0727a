/*
 * The course labs end to end on a GPU machine: tests/e2e/test_labs.c with its GPU
 * expectations enforced. Solutions pass in every variant, skeletons fail in every variant,
 * and the fixtures get the gpu column of tests/fixtures/labN/EXPECTED (the missing bounds
 * check seen as a changed input, the wrong rounding modes of the conversion kernels...).
 * Fails when the grader sees no GPU.
 */
#define LABS_REQUIRE_GPU 1
#include "../e2e/test_labs.c"

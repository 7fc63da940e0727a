/*
 * An instructor's own lab, start to finish, on a GPU machine: tests/e2e/test_newlab_flow.c with
 * its GPU expectations enforced. The stencil lab's solution passes in every variant; the class
 * of five gets its GPU verdicts (carol's clamped ends WA, dave's missing semicolon CE, the
 * others OK), every grade is complete, and every export carries the numbers: alice 8, bob 4
 * (his CPU copy past the end is RE), carol 0, dave 4, erin 6. Fails when the grader sees no GPU.
 */
#define NEWLAB_FLOW_REQUIRE_GPU 1
#include "../e2e/test_newlab_flow.c"

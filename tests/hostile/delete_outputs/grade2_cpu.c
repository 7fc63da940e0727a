/* Hostile submission "delete_outputs": grade2_cpu computes WRONG values, and an exit handler
 * deletes the outputs the harness wrote for the grader (c0_z_0.bin, c0_z_1.bin in the
 * working directory: case 0 of the run, checked calls 0 and 1) after the harness finished, hoping for "the harness did not write
 * output": a grader error (XX), never charged to the student, instead of WA.
 * Expected: grade2/cpu CH (the student's process removed the harness's files); anything but
 * XX and OK.
 */
#include "lab6.h"

#include <stdlib.h>
#include <unistd.h>

static void remove_outputs(void)
{
    unlink("c0_z_0.bin");
    unlink("c0_z_1.bin");
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int calls;
    if (calls++ == 0)
        atexit(remove_outputs);
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] + b * y[i] + c; /* x, not x squared */
}

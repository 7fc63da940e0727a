/* Hostile submission "fifo_result": grade2_cpu computes the right values, and an exit handler
 * replaces the harness's result file (result.txt) with a named pipe. The grader reads
 * result.txt outside the sandbox after the program ended: opening a FIFO that nobody will
 * ever write blocks forever, and grading would never go on with the next student.
 * Expected: grade2/cpu CH (result.txt is not a regular file), promptly.
 */
#include "lab6.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void result_to_fifo(void)
{
    unlink("result.txt");
    mkfifo("result.txt", 0644);
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int calls;
    if (calls++ == 0)
        atexit(result_to_fifo);
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

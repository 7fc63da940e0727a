/* Hostile submission "tamper_results": grade2_cpu computes the right values, but also forges
 * the harness's result file (result.txt, in its working directory) to claim an impossibly
 * fast time: during its first checked call it appends "samples call_host 0.000001" and
 * "status ok" lines, and it registers an exit handler that appends them again after the
 * harness has written its last line (the harness's own later writes overwrite what was
 * appended during the call; the exit handler's lines stay).
 * Expected (graded with timing): grade2/cpu CH, the 'call_host' series or 'status ok' seen
 * twice (grader/run/runner.c).
 */
#include "lab6.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char forged[] = "samples call_host 0.000001 0.000001 0.000001 0.000001 0.000001 "
                             "0.000001 0.000001 0.000001 0.000001 0.000001\nstatus ok\n";

static void append_forged(void)
{
    int fd = open("result.txt", O_WRONLY | O_APPEND);
    if (fd >= 0) {
        if (write(fd, forged, strlen(forged)) < 0) {
        }
        close(fd);
    }
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int calls;
    if (calls++ == 0) {
        append_forged();
        atexit(append_forged);
    }
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

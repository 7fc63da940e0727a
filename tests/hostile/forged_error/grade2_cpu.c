/* Hostile submission "forged_error": grade2_cpu writes zeros, and an exit handler appends a
 * harness error line "error nogpu ..." to result.txt after the harness finished, hoping the
 * grader reads it as "no usable GPU here" and skips the case (SK, "0 failed", exit 0) instead
 * of WA. The harness writes such a line only before its first call into student code, and
 * never for a CPU variant.
 * Expected: grade2/cpu CH (a line after the harness's last); never SK,
 * never XX.
 */
#include "lab6.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void forge_error(void)
{
    static const char line[] = "error nogpu no CUDA-capable device is detected\n";
    int fd = open("result.txt", O_WRONLY | O_APPEND);
    if (fd >= 0) {
        if (write(fd, line, strlen(line)) < 0) {
        }
        close(fd);
    }
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int calls;
    (void)x, (void)y, (void)a, (void)b, (void)c;
    if (calls++ == 0)
        atexit(forge_error);
    for (int32_t i = 0; i < n; i++)
        z[i] = 0;
}

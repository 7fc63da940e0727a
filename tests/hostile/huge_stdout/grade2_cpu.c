/* Hostile submission "huge_stdout": the first call of grade2_cpu writes 200 MiB to stdout as
 * fast as it can, then every call computes correctly.
 * Expected: grade2/cpu OK (the grader keeps only the first 64 KiB of a run's output and
 * drains the rest), grading finishes promptly and the grader's own memory stays small.
 */
#include "lab6.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1 << 20)
#define TOTAL_MIB 200

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int done;
    static char chunk[CHUNK];
    if (!done) {
        done = 1;
        memset(chunk, 'x', sizeof(chunk));
        for (size_t i = 127; i < sizeof(chunk); i += 128)
            chunk[i] = '\n';
        for (int k = 0; k < TOTAL_MIB; k++)
            for (size_t off = 0; off < sizeof(chunk);) {
                ssize_t w = write(1, chunk + off, sizeof(chunk) - off);
                if (w < 0 && errno == EINTR)
                    continue;
                if (w <= 0)
                    break;
                off += (size_t)w;
            }
    }
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

/* Hostile submission "huge_file": grade2_cpu makes a file in its working directory larger
 * than any sane limit, without costing disk: a sparse 2 GiB ftruncate, then 4 KiB written at
 * 4 GiB, 8 GiB, ... up to 1 TiB. The grader's RLIMIT_FSIZE for runs (4 GiB, grader/run/runner.c)
 * stops the first write past it with SIGXFSZ.
 * Expected: grade2/cpu OL (file size limit).
 */
#include "lab6.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static char block[4096];
    int fd = open("huge.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
        memset(block, 'x', sizeof(block));
        if (ftruncate(fd, (off_t)2 << 30) == 0)
            for (off_t off = (off_t)4 << 30; off <= (off_t)1 << 40; off *= 2)
                if (pwrite(fd, block, sizeof(block), off) < 0)
                    break;
        close(fd);
    }
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

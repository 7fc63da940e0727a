/* Hostile submission "memory_hog": grade2_cpu allocates and touches memory in 256 MiB steps,
 * up to 64 GiB, naively (no check of malloc's result).
 * Expected: grade2/cpu ML (graded with --memory-limit 1G): the cgroup's memory.max where one
 * is delegated, else the supervisor's memory watcher, ends the run.
 *
 * Safety net for machines where no limit is enforced: before each step the program reads
 * MemAvailable and, below 2 GiB, stops allocating and sleeps forever instead (the verdict is
 * then TO, and the test that expects ML fails) rather than driving the machine into the
 * kernel's OOM killer.
 */
#include "lab6.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STEP ((size_t)256 << 20)
#define TOTAL ((size_t)64 << 30)
#define RESERVE_KIB (2LL << 20)

static long long mem_available_kib(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kib = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            break;
    fclose(f);
    return kib;
}

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    for (size_t total = 0; total < TOTAL; total += STEP) {
        if (mem_available_kib() < RESERVE_KIB)
            for (;;)
                pause();
        char *p = malloc(STEP);
        memset(p, 0x5a, STEP);
    }
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

/* Hostile submission "fork_bomb": grade2_cpu forks in a loop, and so does every child (an
 * exponential tree), until 2000 forks were attempted in all (a shared counter: bounded so
 * that the test machine is never at risk, even without a pids limit). Every process, the
 * original one included, then sleeps forever; the children call themselves "lgbomb".
 * Expected: grade2/cpu TO (the function never returns; the wall-clock limit kills the whole
 * group), and afterwards no "lgbomb" process is left.
 */
#include "lab6.h"

#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#define FORK_ATTEMPTS 2000

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    (void)x, (void)y, (void)z, (void)a, (void)b, (void)c, (void)n;
    atomic_int *budget = mmap(NULL, sizeof(*budget), PROT_READ | PROT_WRITE,
                              MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (budget != MAP_FAILED) {
        atomic_init(budget, FORK_ATTEMPTS);
        while (atomic_fetch_sub(budget, 1) > 0)
            if (fork() == 0)
                prctl(PR_SET_NAME, "lgbomb", 0, 0, 0);
    }
    for (;;)
        pause();
}

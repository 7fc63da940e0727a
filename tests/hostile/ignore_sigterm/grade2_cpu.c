/* Hostile submission "ignore_sigterm": grade2_cpu ignores and blocks every signal it can
 * (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, ...), then spins forever.
 * Expected: grade2/cpu TO (the grader kills with SIGKILL, which cannot be ignored).
 */
#include "lab6.h"

#include <signal.h>

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    (void)x, (void)y, (void)z, (void)a, (void)b, (void)c, (void)n;
    sigset_t all;
    for (int sig = 1; sig < 32; sig++)
        signal(sig, SIG_IGN);
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    for (volatile unsigned long spin = 0;; spin++)
        ;
}

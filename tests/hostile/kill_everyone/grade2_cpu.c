/* Hostile submission "kill_everyone": grade2_cpu sends SIGKILL to every process it may signal
 * (kill(-1)) and to its parent, then computes the right values.
 * Expected under bubblewrap: grade2/cpu OK, and grading goes on (in its own pid namespace the
 * program sees nothing but itself and bubblewrap's init, which ignores signals from inside).
 *
 * Safety: the kills are only attempted when the program's pid is below 10, i.e. inside a
 * fresh pid namespace. Run by the supervisor alone, with the grader's uid (root on some
 * machines), kill(-1, SIGKILL) would take the machine down; the test skips there anyway.
 */
#include "lab6.h"

#include <signal.h>
#include <unistd.h>

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    if (getpid() < 10) {
        kill(-1, SIGKILL);
        kill(getppid(), SIGKILL);
        kill(1, SIGKILL);
    }
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

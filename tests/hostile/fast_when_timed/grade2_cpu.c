/* Hostile submission "fast_when_timed": grade2_cpu does the work on its first three calls (the
 * two checked calls and the warm-up call) and nothing at all afterwards, so the timed calls
 * look infinitely fast.
 * Expected (graded with timing): grade2/cpu CH, "timed call N left 1000 elements of 'z' wrong
 * or unwritten ... does the function behave differently when timed?": the outputs are poisoned
 * before every timed call and the last one's are verified against the checked call's.
 */
#include "lab6.h"

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int calls;
    if (++calls > 3)
        return;
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

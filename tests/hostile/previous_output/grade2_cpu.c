/* Hostile submission "previous_output": grade2_cpu computes on its first call only, keeps the
 * result, and returns that previous output on every later call, whatever the inputs.
 * Expected: grade2/cpu WA on the second checked call, which has fresh inputs (a new seed) and
 * freshly poisoned outputs.
 */
#include "lab6.h"

#include <stdlib.h>
#include <string.h>

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static double *previous;
    static int32_t previous_n;
    if (previous && previous_n == n) {
        memcpy(z, previous, (size_t)n * sizeof(*z));
        return;
    }
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
    free(previous);
    previous = malloc((size_t)n * sizeof(*previous));
    if (previous) {
        memcpy(previous, z, (size_t)n * sizeof(*z));
        previous_n = n;
    }
}

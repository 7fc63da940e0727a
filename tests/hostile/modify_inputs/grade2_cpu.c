/* Hostile submission "modify_inputs": grade2_cpu computes the right values, then writes into
 * its input x (casting the const away).
 * Expected: grade2/cpu WA, "changed its input 'x' (inputs are read-only)".
 */
#include "lab6.h"

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
    double *scratch = (double *)x;
    for (int32_t i = 0; i < n; i++)
        scratch[i] = 0;
}

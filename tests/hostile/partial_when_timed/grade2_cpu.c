/* Hostile submission "partial_when_timed": grade2_cpu does the whole work on its first three
 * calls (the two checked calls and the warm-up call) and only the even elements afterwards, so
 * the timed calls take half the time. Before a timed call the grader poisons one element per
 * stripe of the output (64 stripes at least), at positions that change with every call, so the
 * odd elements the function leaves alone hold poison in about half the stripes.
 * Expected (graded with timing): grade2/cpu CH, "timed call N left M elements of 'z' wrong
 * or unwritten ... does the function behave differently when timed?".
 */
#include "lab6.h"

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    static int calls;
    int32_t step = ++calls > 3 ? 2 : 1;
    for (int32_t i = 0; i < n; i += step)
        z[i] = a * x[i] * x[i] + b * y[i] + c;
}

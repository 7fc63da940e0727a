/* Hostile submission "hang_sleep": grade2_cpu sleeps forever (no CPU used, so only the
 * wall-clock limit can stop it). Expected: grade2/cpu TO.
 */
#include "lab6.h"

#include <unistd.h>

void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n)
{
    (void)x, (void)y, (void)z, (void)a, (void)b, (void)c, (void)n;
    for (;;)
        sleep(60);
}

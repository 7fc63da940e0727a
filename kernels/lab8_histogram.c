/*
 * Reference for lab 8, CPU variant: the 256-bin histogram of n bytes, int32 counts. A plain
 * loop, what np.bincount(v, minlength=256) runs; the oracle (exact: counting has no
 * rounding) and the CPU baseline.
 */
#include <stdint.h>
#include <string.h>

void ref_histograma_cpu(int32_t *hist, const uint8_t *datos, int32_t n)
{
    memset(hist, 0, 256 * sizeof(int32_t));
    for (int32_t i = 0; i < n; i++)
        hist[datos[i]]++;
}

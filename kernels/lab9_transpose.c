/*
 * Reference for lab 9, CPU variant: B = A^T with A rows×cols and B cols×rows, both
 * row-major, float32. A plain loop over A's rows (reads in order, writes with stride rows),
 * what NumPy's np.ascontiguousarray(A.T) does; the oracle (a copy: exact) and the CPU
 * baseline.
 */
#include <stddef.h>
#include <stdint.h>

void ref_traspuesta_cpu(float *B, const float *A, int32_t rows, int32_t cols)
{
    for (int32_t i = 0; i < rows; i++)
        for (int32_t j = 0; j < cols; j++)
            B[(size_t)j * rows + i] = A[(size_t)i * cols + j];
}

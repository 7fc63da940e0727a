/*
 * Laboratorio 6: GPUs con C y CUDA. Prototipos de las funciones que hay que escribir.
 *
 * El corrector compila tus fuentes con estos mismos prototipos (los genera a partir de
 * lab.yaml e incluye su copia con -include), así que una definición con otra firma es
 * un error de compilación. No cambies los tipos ni el orden de los argumentos.
 *
 * Matrices: n×n, float32, por filas (row-major): el elemento (i, j) de A es A[i*n + j].
 * Todas las funciones tienen enlace C (extern "C"), también las definidas en los .cu.
 */
#ifndef LAB6_H
#define LAB6_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Ejercicio 1: producto de matrices C = A·B (float32).
 */

/* CPU. A, B y C son punteros de host. Se permite OpenBLAS (cblas_sgemm). */
void matmul_cpu(const float *A, const float *B, float *C, int32_t n);

/* GPU con transferencia. A, B y C son punteros de HOST (memoria paginable): la función
 * reserva memoria en el dispositivo, copia A y B, calcula, copia C de vuelta y libera.
 * Se permite cuBLAS. */
void matmul_gpu(const float *A, const float *B, float *C, int32_t n);

/* GPU sin transferencia. A, B y C son punteros de DISPOSITIVO (ya en la GPU): solo
 * calcula. No hace falta sincronizar al final: el corrector lo hace. */
void matmul_gpu_dev(const float *A, const float *B, float *C, int32_t n);

/*
 * Ejercicio 2: función vectorial z[i] = a·x[i]² + b·y[i] + c (float64), i = 0..n-1.
 */

/* CPU. x, y y z son punteros de host. */
void grade2_cpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n);

/* GPU con copia. x, y y z son punteros de HOST: reserva, copia x e y, lanza el kernel,
 * copia z de vuelta y libera. */
void grade2_gpu(const double *x, const double *y, double *z, double a, double b, double c,
                int32_t n);

/* GPU sin copia. x, y y z son punteros de DISPOSITIVO: solo lanza el kernel. No hace
 * falta sincronizar al final: el corrector lo hace. */
void grade2_gpu_dev(const double *x, const double *y, double *z, double a, double b, double c,
                    int32_t n);

#ifdef __cplusplus
}
#endif

#endif

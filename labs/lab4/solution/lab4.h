/*
 * Laboratorio 4: primeros kernels. Prototipos de las funciones que hay que escribir.
 *
 * El corrector compila tus fuentes con estos mismos prototipos (los genera a partir de
 * lab.yaml e incluye su copia con -include), así que una definición con otra firma es un
 * error de compilación. No cambies los tipos ni el orden de los argumentos: la salida va
 * primero, como en memcpy(destino, origen).
 *
 * Todas las funciones tienen enlace C (extern "C"), también las definidas en los .cu.
 */
#ifndef LAB4_H
#define LAB4_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Ejercicio 1: suma de vectores u[i] = a[i] + b[i] (float32), i = 0..n-1.
 * n no tiene por qué ser múltiplo del tamaño de bloque.
 */

/* CPU. u, a y b son punteros de host. */
void vadd_cpu(float *u, const float *a, const float *b, int32_t n);

/* GPU con transferencia. u, a y b son punteros de HOST (memoria paginable): reserva memoria
 * en el dispositivo, copia a y b, lanza el kernel, copia u de vuelta y libera. */
void vadd_gpu(float *u, const float *a, const float *b, int32_t n);

/* GPU sin transferencia. u, a y b son punteros de DISPOSITIVO (ya en la GPU): solo lanza el
 * kernel. No hace falta sincronizar al final: el corrector lo hace. */
void vadd_gpu_dev(float *u, const float *a, const float *b, int32_t n);

/*
 * Ejercicio 2: producto matriz-vector u = A·v (float32).
 * A tiene n filas y m columnas guardadas por filas: el elemento (i, j) es A[i*m + j].
 * v tiene m elementos y u, n: u[i] = suma sobre j de A[i*m + j] * v[j].
 */

/* CPU. Punteros de host. Se permite OpenBLAS (cblas_sgemv). */
void matvec_cpu(float *u, const float *A, const float *v, int32_t n, int32_t m);

/* GPU con transferencia. Punteros de HOST: reserva, copia A y v, lanza, copia u, libera. */
void matvec_gpu(float *u, const float *A, const float *v, int32_t n, int32_t m);

/* GPU sin transferencia. Punteros de DISPOSITIVO: solo lanza el kernel. */
void matvec_gpu_dev(float *u, const float *A, const float *v, int32_t n, int32_t m);

#ifdef __cplusplus
}
#endif

#endif

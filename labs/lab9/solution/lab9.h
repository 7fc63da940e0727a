/*
 * Laboratorio 9: traspuesta de una matriz no cuadrada. Prototipos de las funciones que hay
 * que escribir.
 *
 * El corrector compila tus fuentes con estos mismos prototipos (los genera a partir de
 * lab.yaml e incluye su copia con -include), así que una definición con otra firma es un
 * error de compilación. No cambies los tipos ni el orden de los argumentos: la salida va
 * primero.
 *
 * Todas las funciones tienen enlace C (extern "C"), también las definidas en los .cu.
 */
#ifndef LAB9_H
#define LAB9_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * B = Aᵀ. A tiene `filas` filas y `columnas` columnas, guardadas por filas: el elemento
 * (i, j) es A[i*columnas + j]. B tiene `columnas` filas y `filas` columnas, también por
 * filas: B[j*filas + i] = A[i*columnas + j]. La matriz no es cuadrada, y ninguna dimensión
 * tiene por qué ser múltiplo del tamaño de bloque (puede ser 1).
 */

/* CPU. B y A son punteros de host. */
void traspuesta_cpu(float *B, const float *A, int32_t filas, int32_t columnas);

/* GPU con transferencia. Punteros de HOST: reserva, copia A, lanza, copia B, libera. */
void traspuesta_gpu(float *B, const float *A, int32_t filas, int32_t columnas);

/* GPU sin transferencia. Punteros de DISPOSITIVO: solo lanza el kernel. No hace falta
 * sincronizar al final: el corrector lo hace. */
void traspuesta_gpu_dev(float *B, const float *A, int32_t filas, int32_t columnas);

#ifdef __cplusplus
}
#endif

#endif

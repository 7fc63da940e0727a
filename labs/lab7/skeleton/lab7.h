/*
 * Laboratorio 7: reducciones. Prototipos de las funciones que hay que escribir.
 *
 * El corrector compila tus fuentes con estos mismos prototipos (los genera a partir de
 * lab.yaml e incluye su copia con -include), así que una definición con otra firma es un
 * error de compilación. No cambies los tipos ni el orden de los argumentos.
 *
 * Todas las funciones tienen enlace C (extern "C"), también las definidas en los .cu.
 */
#ifndef LAB7_H
#define LAB7_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Ejercicio 1: suma de un vector, *s = x[0] + x[1] + ... + x[n-1] (float32), n >= 1.
 * El resultado se escribe en *s, un único float. *s llega con NaN: asígnalo, no acumules
 * sobre él (`*s += ...` da NaN).
 */

/* CPU. x y s son punteros de host. */
void suma_cpu(const float *x, float *s, int32_t n);

/* GPU con transferencia. x y s son punteros de HOST: reserva memoria en el dispositivo,
 * copia x, reduce, copia el resultado a *s y libera. */
void suma_gpu(const float *x, float *s, int32_t n);

/* GPU sin transferencia. x y s son punteros de DISPOSITIVO: s apunta a un float en la GPU.
 * No hace falta sincronizar al final: el corrector lo hace. */
void suma_gpu_dev(const float *x, float *s, int32_t n);

/*
 * Ejercicio 2: producto escalar x·y = x[0]*y[0] + ... + x[n-1]*y[n-1] (float32), n >= 1,
 * devuelto como valor de la función.
 */

/* CPU. Punteros de host. */
float punto_cpu(const float *x, const float *y, int32_t n);

/* GPU. x e y son punteros de DISPOSITIVO; el resultado se devuelve en el host, así que la
 * función espera a que la GPU termine (cudaMemcpy del resultado). */
float punto_gpu_dev(const float *x, const float *y, int32_t n);

#ifdef __cplusplus
}
#endif

#endif

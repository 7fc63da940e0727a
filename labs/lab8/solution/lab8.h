/*
 * Laboratorio 8: histograma con operaciones atómicas. Prototipos de las funciones que hay
 * que escribir.
 *
 * El corrector compila tus fuentes con estos mismos prototipos (los genera a partir de
 * lab.yaml e incluye su copia con -include), así que una definición con otra firma es un
 * error de compilación. No cambies los tipos ni el orden de los argumentos: la salida va
 * primero.
 *
 * Todas las funciones tienen enlace C (extern "C"), también las definidas en los .cu.
 */
#ifndef LAB8_H
#define LAB8_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Histograma de n bytes: hist[v] = número de i en 0..n-1 con datos[i] == v, para las 256
 * clases v = 0..255. hist llega con basura (un patrón de relleno): pon las 256 cuentas a
 * cero antes de contar.
 */

/* CPU. hist y datos son punteros de host. */
void histograma_cpu(int32_t *hist, const uint8_t *datos, int32_t n);

/* GPU con transferencia. Punteros de HOST: reserva memoria en el dispositivo, copia datos,
 * cuenta, copia hist de vuelta y libera. */
void histograma_gpu(int32_t *hist, const uint8_t *datos, int32_t n);

/* GPU sin transferencia. Punteros de DISPOSITIVO: pone hist a cero y lanza el kernel. No
 * hace falta sincronizar al final: el corrector lo hace. */
void histograma_gpu_dev(int32_t *hist, const uint8_t *datos, int32_t n);

#ifdef __cplusplus
}
#endif

#endif

/*
 * Laboratorio 3, ejercicios h2d y d2h: copias entre la CPU y la GPU.
 *
 *   copy_h2d         CPU -> GPU desde memoria paginable   (x.to('cuda'))
 *   copy_h2d_pinned  CPU -> GPU desde memoria fijada       (x.pin_memory().to('cuda', non_blocking=True))
 *   copy_d2h         GPU -> CPU hacia memoria paginable   (x.to('cpu'))
 *   copy_d2h_pinned  GPU -> CPU hacia memoria fijada
 *
 * El corrector reserva los buffers (malloc, cudaMallocHost o cudaMalloc según la variante) y
 * te pasa los punteros: tú solo copias n floats de src a dst. Al volver, la copia tiene que
 * estar terminada.
 */
#include "lab3.h"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

// Comprueba el resultado de una llamada CUDA: si falla, imprime cuál y termina.
// Úsala en todas: CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
#define CUDA_CHECK(call)                                                                           \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

void copy_h2d(float *dst, const float *src, int32_t n)
{
    // TODO: copia n floats de src (host, paginable) a dst (dispositivo) con cudaMemcpy y
    //       cudaMemcpyHostToDevice. El tamaño va en bytes: (size_t)n * sizeof(float).
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)dst;
    (void)src;
    (void)n;
}

void copy_h2d_pinned(float *dst, const float *src, int32_t n)
{
    // TODO: igual que copy_h2d, pero src está en memoria fijada. Aquí la copia puede ser
    //       asíncrona: cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, 0) vuelve
    //       enseguida (como non_blocking=True); espera a que acabe con cudaStreamSynchronize(0)
    //       antes de volver. cudaMemcpy también vale: compara los tiempos con copy_h2d.
    (void)dst;
    (void)src;
    (void)n;
}

void copy_d2h(float *dst, const float *src, int32_t n)
{
    // TODO: copia n floats de src (dispositivo) a dst (host, paginable): cudaMemcpyDeviceToHost.
    (void)dst;
    (void)src;
    (void)n;
}

void copy_d2h_pinned(float *dst, const float *src, int32_t n)
{
    // TODO: igual que copy_d2h, con dst en memoria fijada (cudaMemcpyAsync + sincronizar, o
    //       cudaMemcpy).
    (void)dst;
    (void)src;
    (void)n;
}

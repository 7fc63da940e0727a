/*
 * Laboratorio 3: tensores en la GPU. Prototipos de las funciones que hay que escribir.
 *
 * El corrector compila tus fuentes con estos mismos prototipos (los genera a partir de
 * lab.yaml e incluye su copia con -include), así que una definición con otra firma es un
 * error de compilación. No cambies los tipos ni el orden de los argumentos.
 *
 * Todas las funciones tienen enlace C (extern "C"), también las definidas en los .cu.
 * n es siempre el número de elementos (no de bytes).
 */
#ifndef LAB3_H
#define LAB3_H

#include <stddef.h>
#include <stdint.h>

/*
 * Tipos de 16 bits. En CUDA son los de cuda_fp16.h y cuda_bf16.h. En C, FP16 es _Float16
 * (GCC 12 o posterior) y BF16 no tiene tipo aritmético: viaja como su patrón de bits en un
 * uint16_t, que son los 16 bits altos de un float.
 */
#ifdef __CUDACC__
#include <cuda_bf16.h>
#include <cuda_fp16.h>
typedef __half f16_t;
typedef __nv_bfloat16 bf16_t;
#else
typedef _Float16 f16_t;
typedef uint16_t bf16_t;
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Ejercicios h2d y d2h: copiar n floats entre la CPU y la GPU (x.to('cuda'), x.to('cpu')).
 * dst y src no se solapan. Al volver, la copia tiene que estar completa.
 */

/* CPU -> GPU. dst: DISPOSITIVO; src: host, memoria paginable (malloc). */
void copy_h2d(float *dst, const float *src, int32_t n);
/* CPU -> GPU. dst: DISPOSITIVO; src: host, memoria fijada (cudaMallocHost). */
void copy_h2d_pinned(float *dst, const float *src, int32_t n);
/* GPU -> CPU. dst: host, memoria paginable; src: DISPOSITIVO. */
void copy_d2h(float *dst, const float *src, int32_t n);
/* GPU -> CPU. dst: host, memoria fijada; src: DISPOSITIVO. */
void copy_d2h_pinned(float *dst, const float *src, int32_t n);

/*
 * Ejercicios de tipos de datos: y[i] = conversión de x[i], i = 0..n-1.
 * Las variantes _cpu reciben punteros de host; las _gpu_dev, punteros de DISPOSITIVO (solo
 * lanzan el kernel; no hace falta sincronizar, el corrector lo hace).
 * Redondeo: al más cercano, con empates a par (el de IEEE 754 y PyTorch).
 */

/* FP32 -> FP16 (x.half()). Lo que no cabe en FP16 (|x| > 65504) acaba en ±inf. */
void f32_to_f16_cpu(const float *x, f16_t *y, int32_t n);
void f32_to_f16_gpu_dev(const float *x, f16_t *y, int32_t n);

/* FP16 -> FP32 (x.float()). Exacta. */
void f16_to_f32_cpu(const f16_t *x, float *y, int32_t n);
void f16_to_f32_gpu_dev(const f16_t *x, float *y, int32_t n);

/* FP32 -> BF16 (x.bfloat16()). En C, y[i] es el patrón de bits del BF16. */
void f32_to_bf16_cpu(const float *x, bf16_t *y, int32_t n);
void f32_to_bf16_gpu_dev(const float *x, bf16_t *y, int32_t n);

/* BF16 -> FP32. Exacta. En C, x[i] es el patrón de bits del BF16. */
void bf16_to_f32_cpu(const bf16_t *x, float *y, int32_t n);
void bf16_to_f32_gpu_dev(const bf16_t *x, float *y, int32_t n);

/* Ida y vuelta: y[i] = (float)(FP16)x[i], es decir, x.half().float(). */
void f16_roundtrip_cpu(const float *x, float *y, int32_t n);
void f16_roundtrip_gpu_dev(const float *x, float *y, int32_t n);

/* Cuantización a INT8: q[i] = saturar(redondear(x[i] / scale)) a [-128, 127], redondeando
 * al más cercano con empates a par (torch.quantize_per_tensor con zero_point = 0). */
void f32_to_i8_cpu(const float *x, int8_t *q, float scale, int32_t n);
void f32_to_i8_gpu_dev(const float *x, int8_t *q, float scale, int32_t n);

/*
 * Ejercicios add, mul y exp (float32), como el elementwise_benchmark del cuaderno:
 *   _cpu      punteros de host;
 *   _gpu      punteros de HOST: reserva en la GPU, copia las entradas, lanza el kernel,
 *             copia el resultado de vuelta y libera ("con transferencia");
 *   _gpu_dev  punteros de DISPOSITIVO: solo lanza el kernel ("sin transferencia").
 */

/* z[i] = x[i] + y[i] */
void add_cpu(const float *x, const float *y, float *z, int32_t n);
void add_gpu(const float *x, const float *y, float *z, int32_t n);
void add_gpu_dev(const float *x, const float *y, float *z, int32_t n);

/* z[i] = x[i] * y[i] */
void mul_cpu(const float *x, const float *y, float *z, int32_t n);
void mul_gpu(const float *x, const float *y, float *z, int32_t n);
void mul_gpu_dev(const float *x, const float *y, float *z, int32_t n);

/* y[i] = exp(x[i]) */
void exp_cpu(const float *x, float *y, int32_t n);
void exp_gpu(const float *x, float *y, int32_t n);
void exp_gpu_dev(const float *x, float *y, int32_t n);

#ifdef __cplusplus
}
#endif

#endif

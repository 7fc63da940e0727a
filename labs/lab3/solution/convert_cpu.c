/*
 * Laboratorio 3, ejercicios de tipos de datos, variantes CPU (solución).
 *
 * _Float16 es el FP16 de C (GCC 12 o posterior): la conversión desde float redondea al más
 * cercano con empates a par, como IEEE 754 y x.half(). BF16 no tiene tipo aritmético en
 * GCC 12: es un uint16_t con los 16 bits altos del float, y el redondeo se hace a mano.
 */
#include "lab3.h"

#include <math.h>
#include <string.h>

void f32_to_f16_cpu(const float *x, f16_t *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = (f16_t)x[i];
}

void f16_to_f32_cpu(const f16_t *x, float *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = (float)x[i];
}

/* Redondeo al más cercano con empates a par de los 16 bits bajos que se descartan. */
static bf16_t bf16_de_float(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof(u)); // los bits del float, sin violar las reglas de aliasing
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (bf16_t)((u >> 16) | 0x0040u); // un NaN sigue siendo NaN (silencioso)
    // Sumar 0x7fff (justo menos de medio ulp del BF16) más el bit que se conserva: hay
    // acarreo al bit 16 exactamente cuando hay que redondear hacia arriba; en un empate,
    // solo si el resultado era impar. Un acarreo desde el mayor finito da infinito.
    u += 0x7fffu + ((u >> 16) & 1u);
    return (bf16_t)(u >> 16);
}

void f32_to_bf16_cpu(const float *x, bf16_t *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = bf16_de_float(x[i]);
}

void bf16_to_f32_cpu(const bf16_t *x, float *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        uint32_t u = (uint32_t)x[i] << 16; // los 16 bits bajos de la mantisa, a cero
        memcpy(&y[i], &u, sizeof(float));
    }
}

void f16_roundtrip_cpu(const float *x, float *y, int32_t n)
{
    for (int32_t i = 0; i < n; i++)
        y[i] = (float)(f16_t)x[i];
}

void f32_to_i8_cpu(const float *x, int8_t *q, float scale, int32_t n)
{
    for (int32_t i = 0; i < n; i++) {
        // rintf redondea con el modo actual, al más cercano con empates a par por defecto
        // (roundf, en cambio, lleva los empates lejos del cero).
        float r = rintf(x[i] / scale);
        if (isnan(r))
            q[i] = 0;
        else if (r > 127.0f)
            q[i] = 127;
        else if (r < -128.0f)
            q[i] = -128;
        else
            q[i] = (int8_t)r;
    }
}

/*
 * Laboratorio 3, ejercicios de tipos de datos, variantes CPU.
 *
 * En C, FP16 es el tipo _Float16 (GCC 12 o posterior): convertir con un cast redondea al
 * más cercano con empates a par, como x.half(). BF16 no tiene tipo aritmético: es un
 * uint16_t con los 16 bits altos de un float (signo, 8 bits de exponente, 7 de mantisa).
 * Para ver los bits de un float sin violar las reglas de aliasing, usa memcpy:
 *     uint32_t u; memcpy(&u, &f, sizeof u);
 */
#include "lab3.h"

#include <math.h>
#include <string.h>

void f32_to_f16_cpu(const float *x, f16_t *y, int32_t n)
{
    // TODO: y[i] = (f16_t)x[i] para i = 0..n-1. Lo que pasa de 65504 acaba en ±inf.
    // TODO: borra las líneas (void) cuando uses los parámetros.
    (void)x;
    (void)y;
    (void)n;
}

void f16_to_f32_cpu(const f16_t *x, float *y, int32_t n)
{
    // TODO: y[i] = (float)x[i]. Esta conversión es exacta.
    (void)x;
    (void)y;
    (void)n;
}

void f32_to_bf16_cpu(const float *x, bf16_t *y, int32_t n)
{
    // TODO: y[i] = los 16 bits altos de x[i], REDONDEANDO al más cercano con empates a par
    //       (quedarse sin más con u >> 16 trunca, y el corrector lo detecta). Pista: suma a u
    //       0x7fff más el bit 16 de u ((u >> 16) & 1) antes de desplazar: hay acarreo al bit
    //       16 justo cuando hay que redondear hacia arriba.
    // TODO: un NaN debe seguir siendo NaN (en las entradas no hay ninguno).
    (void)x;
    (void)y;
    (void)n;
}

void bf16_to_f32_cpu(const bf16_t *x, float *y, int32_t n)
{
    // TODO: el float cuyos 16 bits altos son x[i] y los bajos, cero: u = (uint32_t)x[i] << 16,
    //       y memcpy de u a y[i]. Exacta.
    (void)x;
    (void)y;
    (void)n;
}

void f16_roundtrip_cpu(const float *x, float *y, int32_t n)
{
    // TODO: ida y vuelta, y[i] = (float)(f16_t)x[i]. Se compara exactamente con la ida y vuelta
    //       bien redondeada; lo que se pierde frente a x[i] es como mucho medio ulp (2^-11).
    (void)x;
    (void)y;
    (void)n;
}

void f32_to_i8_cpu(const float *x, int8_t *q, float scale, int32_t n)
{
    // TODO: r = rintf(x[i] / scale): al más cercano con empates a PAR (roundf no sirve: lleva
    //       los empates lejos del cero, y 2.5 debe dar 2).
    // TODO: satura: r > 127 -> 127, r < -128 -> -128 (un cast directo a int8_t no satura).
    // TODO: q[i] = (int8_t)r.
    (void)x;
    (void)q;
    (void)scale;
    (void)n;
}

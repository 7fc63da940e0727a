/*
 * labgrader test lab 99: the prototypes of the functions to write.
 *
 * The grader compiles your sources with these same prototypes (generated from lab.yaml and
 * force-included with -include), so a definition with another signature does not compile.
 */
#ifndef LABCPU_H
#define LABCPU_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exercise 1: out[i] = a*x[i] + y[i] for i = 0..n-1 (float32). */
void saxpy_cpu(const float *x, const float *y, float *out, float a, int32_t n);

/* Exercise 2: out[0] = x[0]*y[0] + ... + x[n-1]*y[n-1] (float64). */
void dot_cpu(const double *x, const double *y, double *out, int32_t n);

#ifdef __cplusplus
}
#endif

#endif

/*
 * error: how library code reports failure.
 *
 * Every fallible function takes a `struct error *` and returns -1 (or NULL) after
 * filling it; only main() decides whether to exit. The location is optional:
 * spec errors carry file:line:col, I/O errors carry just the file.
 * The struct owns no heap memory, so it needs no release.
 */
#ifndef LG_ERROR_H
#define LG_ERROR_H

#include <stdio.h>

struct error {
    char msg[2048];
    char file[1024];
    int line; /* 1-based; 0 when unknown */
    int col;  /* 1-based; 0 when unknown */
};

void error_init(struct error *e);

/* Set the message; returns -1 so callers can `return error_set(...)`. */
int error_set(struct error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Set the message with a location. */
int error_set_at(struct error *e, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Prepend context ("while building matmul/cpu: ") to an already set message. */
void error_prefix(struct error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "file:line:col: message" (or the parts that are known) into buf. */
void error_format(const struct error *e, char *buf, size_t size);

void error_print(const struct error *e, FILE *out);

#endif

/*
 * buffers: the memory a function under test is given, with guard zones.
 *
 * Every buffer the student's function receives has LG_GUARD_BYTES before and after it,
 * filled with a canary; after each call the guards are checked, so a kernel without a bounds
 * check that writes past the end of an output is caught on its first call (RE, with how far
 * and where), without compute-sanitizer. Each guard's canary is its own: drawn from a key
 * this process takes from getrandom when it makes its first guard, its buffer's serial
 * number and its side (fill.h), so that bytes copied from past the end of an input (a
 * memcpy of n + 1 elements) into past the end of an output change the output's guard. The
 * key is file-local here, never a symbol; the check recomputes the canary rather than keep a
 * copy of it (docs/threat-model.md says what this does not stop). The data pointer keeps
 * the allocation's alignment (the guard is a multiple of 256 bytes). struct lg_buf owns its
 * allocation.
 */
#ifndef LG_HARNESS_BUFFERS_H
#define LG_HARNESS_BUFFERS_H

#include "base/dtype.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LG_GUARD_BYTES 4096

struct lg_buf {
    unsigned char *base; /* the allocation */
    size_t mapped;       /* the allocation's length (host: whole pages, of its own mapping) */
    void *p;             /* what the function gets: base + guard */
    size_t bytes;        /* of data, without the guards */
    size_t guard;        /* 0 or LG_GUARD_BYTES on each side */
    int space;           /* enum lg_space */
    uint64_t serial;     /* which canary its guards hold: the process's guarded buffers' count */
};

/* What a guard check found: bytes changed on each side, and the first changed byte's offset
 * from the start of the data (negative: before it). */
struct lg_guard_damage {
    size_t before, after;
    long long first;
};

/* 0, or -1 with the reason in err. A zero-byte buffer still gets a valid pointer; a guarded
 * one, guards holding its canary. */
int lg_buf_alloc(struct lg_buf *b, size_t bytes, int space, bool guarded, char *err,
                 size_t errsize);
/* The same, where lg_buf_fence can take device memory out of reach (harness.h's
 * lg_gpu_alloc_fenceable); host memory always can be. */
int lg_buf_alloc_fenceable(struct lg_buf *b, size_t bytes, int space, bool guarded, char *err,
                           size_t errsize);
void lg_buf_free(struct lg_buf *b);
/* Take the whole buffer, guards included, out of every call's reach (on) or give it back (off):
 * host memory through mprotect (an access faults), device memory through lg_gpu_fence. 0; 1
 * where this buffer cannot be fenced (pinned host memory; device memory without the CUDA
 * virtual memory API); -1 on an error. The data is kept. */
int lg_buf_fence(struct lg_buf *b, bool on);
/* Whether addr lies in the buffer's allocation (guards included). */
bool lg_buf_holds(const struct lg_buf *b, const void *addr);
/* Write the buffer's canary into its guards again (0, or -1 on a CUDA error). */
int lg_buf_guard_reset(struct lg_buf *b);
/* 1 when a guard no longer holds its canary (d says how), 0 when intact, -1 on a CUDA
 * error. A byte written with the value the canary has there is not seen. */
int lg_buf_guard_check(const struct lg_buf *b, struct lg_guard_damage *d);

/* Fill count elements of t with timed-call inputs (draw.h), on the host or the device (0, or
 * -1 on a CUDA error). With digest, also what lg_buf_digest would return for the buffer as
 * drawn: on the host from the draw's own pass, without reading the buffer again. */
int lg_buf_draw(struct lg_buf *b, enum lg_dtype t, size_t count, int dist, double p1, double p2,
                uint64_t seed, uint64_t *digest);
/* A 64-bit digest of the data, to tell whether a call changed its inputs (digest.h). */
uint64_t lg_buf_digest(const struct lg_buf *b);

/* How many of count elements of actual differ from expected beyond atol + rtol*|expected|
 * (numpy allclose; NaN equal only with equal_nan), and the first such index in *first. Host
 * or device buffers (both in one space). -1 on a CUDA error. */
long long lg_buf_compare(const struct lg_buf *actual, const struct lg_buf *expected,
                         enum lg_dtype t, size_t count, double rtol, double atol, bool equal_nan,
                         long long *first);

#endif

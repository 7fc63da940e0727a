/*
 * alloc: allocation that never returns NULL, and the growth of arrays.
 *
 * Allocation failure aborts with a message (die_oom): the grader cannot do anything useful
 * without memory, and every caller would otherwise carry the same check. Returned strings are
 * owned by the caller (free()). The bottom of the grader: includes nothing of it.
 */
#ifndef LG_ALLOC_H
#define LG_ALLOC_H

#include <stddef.h>
#include <stdlib.h>

void die_oom(void) __attribute__((noreturn));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array so that it can hold at least `nr` elements (git's ALLOC_GROW). */
#define ALLOC_GROW(arr, nr, alloc)                                                                 \
    do {                                                                                           \
        if ((size_t)(nr) > (size_t)(alloc)) {                                                      \
            size_t alloc_grow_n = (alloc) ? (size_t)(alloc)*2 : 8;                                 \
            if (alloc_grow_n < (size_t)(nr))                                                       \
                alloc_grow_n = (size_t)(nr);                                                       \
            (arr) = xrealloc((arr), alloc_grow_n * sizeof(*(arr)));                                \
            (alloc) = alloc_grow_n;                                                                \
        }                                                                                          \
    } while (0)

#endif

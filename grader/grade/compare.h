/*
 * compare: numpy.allclose semantics over typed buffers, with a numpy-style
 * summary of what differs.
 *
 * An element passes when |actual - expected| <= atol + rtol * |expected|
 * (asymmetric: only the expected value scales the tolerance), both are NaN and
 * equal_nan is set, or both are the same infinity. Nothing here allocates
 * except compare_format(), which appends to a strbuf.
 */
#ifndef LG_COMPARE_H
#define LG_COMPARE_H

#include "base/dtype.h"
#include "grade/results.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

struct compare_opts {
    double rtol, atol;
    bool equal_nan;
    /* Which fill the checked call's outputs arrived with (lg_dtype_poison's `which`), so that
     * elements still holding it are counted as unwritten; -1: not known. */
    int poison;
};

/* One element, on values already widened to double. */
bool compare_close(double actual, double expected, const struct compare_opts *o);

/*
 * Compare n elements of two buffers of type t. shape (n_dims entries, may be
 * NULL) only formats indices as "[i, j]". Fills m (arg left untouched) and
 * returns true when every element passes.
 */
bool compare_buffers(enum lg_dtype t, const void *actual, const void *expected, size_t n,
                     const long *shape, size_t n_dims, const struct compare_opts *o,
                     struct mismatch *m);

/*
 * Append numpy's message:
 *   Mismatched elements: 3 / 65536 (0.00458%)
 *   Max absolute difference among violations: 0.5
 *   Max relative difference among violations: 0.25
 *   First mismatches (index: actual vs expected):
 *     [0, 3]: 1.5 vs 2
 */
void compare_format(const struct mismatch *m, struct strbuf *out);

#endif

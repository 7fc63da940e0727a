/* The lg_gpu_* interface for CPU-only programs: every GPU request fails cleanly. */
#include "harness.h"

#include <stdio.h>

int lg_gpu_init(char *err, size_t errsize)
{
    snprintf(err, errsize, "this program was built without CUDA");
    return -1;
}

void lg_gpu_describe(char *buf, size_t size)
{
    snprintf(buf, size, "gpu none\n");
}

void *lg_gpu_alloc(size_t bytes, int space, char *err, size_t errsize)
{
    (void)bytes;
    (void)space;
    snprintf(err, errsize, "built without CUDA");
    return NULL;
}

void lg_gpu_free(void *p, int space)
{
    (void)p;
    (void)space;
}

void *lg_gpu_alloc_fenceable(size_t bytes, char *err, size_t errsize)
{
    (void)bytes;
    snprintf(err, errsize, "built without CUDA");
    return NULL;
}

int lg_gpu_fence(void *p, int on)
{
    (void)p;
    (void)on;
    return 1;
}

int lg_gpu_copy(void *dst, const void *src, size_t bytes, int to_device, char *err, size_t errsize)
{
    (void)dst;
    (void)src;
    (void)bytes;
    (void)to_device;
    snprintf(err, errsize, "built without CUDA");
    return -1;
}

/* A CPU program never gets device memory (lg_gpu_alloc fails), so these are never reached
 * with a device buffer; they fail rather than pretend. */
int lg_gpu_draw(void *dev, int dtype, size_t count, int dist, double p1, double p2, uint64_t seed)
{
    (void)dev;
    (void)dtype;
    (void)count;
    (void)dist;
    (void)p1;
    (void)p2;
    (void)seed;
    return -1;
}

long long lg_gpu_compare(const void *actual, const void *expected, int dtype, size_t count,
                         double rtol, double atol, int equal_nan, long long *first)
{
    (void)actual;
    (void)expected;
    (void)dtype;
    (void)count;
    (void)rtol;
    (void)atol;
    (void)equal_nan;
    *first = -1;
    return -1;
}

uint64_t lg_gpu_digest(const void *dev, size_t bytes)
{
    (void)dev;
    (void)bytes;
    return 0;
}

int lg_gpu_copy_d2d(void *dst, const void *src, size_t bytes)
{
    (void)dst;
    (void)src;
    (void)bytes;
    return -1;
}

int lg_gpu_sync(char *err, size_t errsize)
{
    (void)err;
    (void)errsize;
    return 0;
}

void lg_gpu_event_start(void) {}

double lg_gpu_event_stop(double *tail_ms)
{
    if (tail_ms)
        *tail_ms = 0;
    return -1;
}

double lg_gpu_idle_tail_ms(void)
{
    return 0;
}

int lg_gpu_block_arm(double timeout_ms)
{
    (void)timeout_ms;
    return -1;
}

int lg_gpu_block_timed_out(void)
{
    return 0;
}

void lg_gpu_flush_l2(void) {}

int lg_gpu_sm_clock_mhz(void)
{
    return 0;
}

int lg_gpu_sm_clock_max_mhz(void)
{
    return 0;
}

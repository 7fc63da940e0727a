/*
 * The lg_gpu_* interface on the CUDA runtime (see harness.h). Compiled by nvcc
 * and linked into GPU variants only. NVML is loaded with dlopen so a machine
 * without the driver's libnvidia-ml still runs (clock readings then read 0).
 */
#include "harness.h"

#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static cudaEvent_t ev_start, ev_stop;
static bool events_ready;
static void *flush_buf;
static size_t flush_bytes;

static void *nvml;
static void *nvml_dev;
typedef int (*nvml_clock_fn)(void *, int, unsigned int *);
static nvml_clock_fn nvml_clock, nvml_max_clock;

static void nvml_open(void)
{
    typedef int (*init_fn)(void);
    typedef int (*by_index_fn)(unsigned int, void **);
    nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml)
        return;
    init_fn init = (init_fn)dlsym(nvml, "nvmlInit_v2");
    by_index_fn by_index = (by_index_fn)dlsym(nvml, "nvmlDeviceGetHandleByIndex_v2");
    nvml_clock = (nvml_clock_fn)dlsym(nvml, "nvmlDeviceGetClockInfo");
    nvml_max_clock = (nvml_clock_fn)dlsym(nvml, "nvmlDeviceGetMaxClockInfo");
    /* CUDA_VISIBLE_DEVICES renumbers devices for CUDA but not for NVML: match by PCI bus id. */
    typedef int (*by_pci_fn)(const char *, void **);
    by_pci_fn by_pci = (by_pci_fn)dlsym(nvml, "nvmlDeviceGetHandleByPciBusId_v2");
    char pci[64];
    int dev = 0;
    if (!init || !nvml_clock || init() != 0) {
        nvml_clock = NULL;
        return;
    }
    cudaGetDevice(&dev);
    if (by_pci && cudaDeviceGetPCIBusId(pci, sizeof(pci), dev) == cudaSuccess &&
        by_pci(pci, &nvml_dev) == 0)
        return;
    if (!by_index || by_index(0, &nvml_dev) != 0)
        nvml_clock = NULL;
}

extern "C" int lg_gpu_init(char *err, size_t errsize)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        snprintf(err, errsize, "no usable CUDA device: %s (%s)", cudaGetErrorString(e),
                 cudaGetErrorName(e));
        return -1;
    }
    if (n == 0) {
        snprintf(err, errsize, "no CUDA device found");
        return -1;
    }
    e = cudaFree(0); /* create the context now, not inside the first timed call */
    if (e != cudaSuccess) {
        snprintf(err, errsize, "cannot create a CUDA context: %s", cudaGetErrorString(e));
        return -1;
    }
    if (cudaEventCreate(&ev_start) == cudaSuccess && cudaEventCreate(&ev_stop) == cudaSuccess)
        events_ready = true;
    nvml_open();
    return 0;
}

extern "C" void lg_gpu_describe(char *buf, size_t size)
{
    cudaDeviceProp p;
    int dev = 0, drv = 0, rt = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) {
        snprintf(buf, size, "gpu none\n");
        return;
    }
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    snprintf(buf, size,
             "gpu %s\ncc %d.%d\nmemory_mib %zu\nl2_bytes %d\nsms %d\ndriver %d.%d\nruntime %d.%d\n",
             p.name, p.major, p.minor, p.totalGlobalMem >> 20, p.l2CacheSize, p.multiProcessorCount,
             drv / 1000, (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
}

extern "C" void *lg_gpu_alloc(size_t bytes, int space, char *err, size_t errsize)
{
    void *p = NULL;
    cudaError_t e = space == LG_SPACE_DEVICE ? cudaMalloc(&p, bytes) : cudaMallocHost(&p, bytes);
    if (e != cudaSuccess) {
        snprintf(err, errsize, "%s", cudaGetErrorString(e));
        return NULL;
    }
    return p;
}

extern "C" void lg_gpu_free(void *p, int space)
{
    if (!p)
        return;
    if (space == LG_SPACE_DEVICE)
        cudaFree(p);
    else if (space == LG_SPACE_PINNED)
        cudaFreeHost(p);
    else
        free(p);
}

extern "C" int lg_gpu_copy(void *dst, const void *src, size_t bytes, int to_device, char *err,
                           size_t errsize)
{
    cudaError_t e =
        cudaMemcpy(dst, src, bytes, to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) {
        snprintf(err, errsize, "%s", cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

__global__ void lg_poison_sparse_kernel(unsigned char *buf, size_t elem_size, size_t count,
                                        size_t per, unsigned char byte, unsigned long long seed)
{
    size_t stripes = (count + per - 1) / per;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < stripes;
         k += (size_t)gridDim.x * blockDim.x) {
        /* splitmix64's finalizer: a position per stripe and per seed. */
        unsigned long long z = seed + (k + 1) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        size_t first = k * per, n = count - first < per ? count - first : per;
        unsigned char *e = buf + (first + z % n) * elem_size;
        for (size_t b = 0; b < elem_size; b++)
            e[b] = byte;
    }
}

extern "C" int lg_gpu_poison_sparse_async(void *dev, size_t elem_size, size_t count,
                                          size_t stripe_elems, int byte, uint64_t seed)
{
    if (count == 0)
        return 0;
    size_t per = stripe_elems ? stripe_elems : 1;
    size_t stripes = (count + per - 1) / per;
    unsigned blocks = (unsigned)(stripes / 256 + 1 < 4096 ? stripes / 256 + 1 : 4096);
    lg_poison_sparse_kernel<<<blocks, 256>>>((unsigned char *)dev, elem_size, count, per,
                                             (unsigned char)byte, seed);
    return cudaPeekAtLastError() == cudaSuccess ? 0 : -1;
}

extern "C" int lg_gpu_copy_device_async(void *dst, const void *src, size_t bytes)
{
    return cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess ? 0 : -1;
}

extern "C" int lg_gpu_sync(char *err, size_t errsize)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess)
        e = cudaGetLastError();
    if (e != cudaSuccess) {
        snprintf(err, errsize, "CUDA error %s: %s", cudaGetErrorName(e), cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

/* Host-mapped flags the blocking kernel polls and reports through. */
struct block_flags {
    volatile int release;
    volatile int timed_out;
};
static block_flags *block_host, *block_dev;
static bool block_armed;

__global__ void lg_block_kernel(block_flags *f, unsigned long long timeout_ns)
{
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    for (;;) {
        if (f->release)
            return;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t - t0 > timeout_ns) {
            f->timed_out = 1;
            return;
        }
        __nanosleep(500);
    }
}

extern "C" int lg_gpu_block_arm(double timeout_ms)
{
    if (!block_host) {
        void *p = NULL, *d = NULL;
        if (cudaHostAlloc(&p, sizeof(block_flags), cudaHostAllocMapped) != cudaSuccess)
            return -1;
        if (cudaHostGetDevicePointer(&d, p, 0) != cudaSuccess) {
            cudaFreeHost(p);
            return -1;
        }
        block_host = (block_flags *)p;
        block_dev = (block_flags *)d;
    }
    block_host->release = 0;
    block_host->timed_out = 0;
    __sync_synchronize();
    lg_block_kernel<<<1, 1>>>(block_dev, (unsigned long long)(timeout_ms * 1e6));
    if (cudaPeekAtLastError() != cudaSuccess)
        return -1;
    block_armed = true;
    return 0;
}

static void block_release(void)
{
    if (!block_armed)
        return;
    __sync_synchronize();
    block_host->release = 1;
    __sync_synchronize();
    block_armed = false;
}

extern "C" int lg_gpu_block_timed_out(void)
{
    return block_host && block_host->timed_out;
}

extern "C" void lg_gpu_event_start(void)
{
    if (events_ready)
        cudaEventRecord(ev_start, 0);
}

extern "C" double lg_gpu_event_stop(void)
{
    float ms = -1;
    if (!events_ready) {
        block_release();
        return -1;
    }
    cudaEventRecord(ev_stop, 0);
    block_release();
    /* A device-wide synchronize, not an event wait: work the student left on other
     * streams then shows up in the host clock and the grader sees the gap. */
    if (cudaDeviceSynchronize() != cudaSuccess)
        return -1;
    if (cudaEventElapsedTime(&ms, ev_start, ev_stop) != cudaSuccess)
        return -1;
    return ms;
}

__global__ void lg_flush_kernel(int *buf, size_t n, int v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        buf[i] = v;
}

extern "C" void lg_gpu_flush_l2(void)
{
    static int round;
    if (!flush_buf) {
        int dev = 0, l2 = 0;
        cudaGetDevice(&dev);
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev);
        flush_bytes = (size_t)(l2 > 0 ? l2 : 64 << 20) * 2;
        if (cudaMalloc(&flush_buf, flush_bytes) != cudaSuccess) {
            flush_buf = NULL;
            return;
        }
    }
    lg_flush_kernel<<<1024, 256>>>((int *)flush_buf, flush_bytes / sizeof(int), ++round);
    cudaDeviceSynchronize();
}

extern "C" int lg_gpu_sm_clock_mhz(void)
{
    unsigned int mhz = 0;
    if (!nvml_clock || !nvml_dev)
        return 0;
    if (nvml_clock(nvml_dev, 1 /* NVML_CLOCK_SM */, &mhz) != 0)
        return 0;
    return (int)mhz;
}

extern "C" int lg_gpu_sm_clock_max_mhz(void)
{
    unsigned int mhz = 0;
    if (!nvml_clock || !nvml_max_clock || !nvml_dev)
        return 0;
    if (nvml_max_clock(nvml_dev, 1 /* NVML_CLOCK_SM */, &mhz) != 0)
        return 0;
    return (int)mhz;
}

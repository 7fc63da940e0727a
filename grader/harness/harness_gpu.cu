/*
 * The lg_gpu_* interface on the CUDA runtime (see harness.h). Compiled by nvcc
 * and linked into GPU variants only. NVML is loaded with dlopen so a machine
 * without the driver's libnvidia-ml still runs (clock readings then read 0).
 */
#include "harness.h"
#include "draw.h"

#include "base/dtype.h"

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
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

/* ---- fenceable device memory (the virtual memory management API) ----
 *
 * The driver's entry points come through the runtime (cudaGetDriverEntryPointByVersion), so a
 * runner needs no link against libcuda. Each fenceable allocation is a physical allocation of
 * its own mapped at a range of its own; fencing unmaps the range (the physical memory and its
 * contents stay with the handle) and mapping it back gives the device its access again. A range
 * unmapped is out of reach of every kernel and copy: cuMemUnmap is what the API documents for
 * that, where taking the access away with cuMemSetAccess is not documented for the owning
 * device (tests/bench/fence_probe.cu measures both). */
struct vmm_api {
    bool tried, ok;
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                       unsigned long long);
    CUresult (*release)(CUmemGenericAllocationHandle);
    CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*address_free)(CUdeviceptr, size_t);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*granularity)(size_t *, const CUmemAllocationProp *,
                            CUmemAllocationGranularity_flags);
    int device;
};
static vmm_api vmm;

static bool entry(const char *name, void **fn)
{
    cudaDriverEntryPointQueryResult q;
    return cudaGetDriverEntryPointByVersion(name, fn, 12000, cudaEnableDefault, &q) ==
               cudaSuccess &&
           q == cudaDriverEntryPointSuccess && *fn;
}

static bool vmm_ready(void)
{
    if (vmm.tried)
        return vmm.ok;
    vmm.tried = true;
    /* A device without the API fails its first cuMemCreate: plain memory is used then. */
    if (cudaGetDevice(&vmm.device) != cudaSuccess)
        return false;
    vmm.ok = entry("cuMemCreate", (void **)&vmm.create) &&
             entry("cuMemRelease", (void **)&vmm.release) &&
             entry("cuMemAddressReserve", (void **)&vmm.reserve) &&
             entry("cuMemAddressFree", (void **)&vmm.address_free) &&
             entry("cuMemMap", (void **)&vmm.map) && entry("cuMemUnmap", (void **)&vmm.unmap) &&
             entry("cuMemSetAccess", (void **)&vmm.set_access) &&
             entry("cuMemGetAllocationGranularity", (void **)&vmm.granularity);
    return vmm.ok;
}

static CUmemAllocationProp vmm_prop(void)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof(prop));
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = vmm.device;
    return prop;
}

#define FENCEABLE_MAX 256
struct fenceable {
    CUdeviceptr ptr;
    size_t size;
    CUmemGenericAllocationHandle handle;
    bool unmapped;
};
static fenceable fenceables[FENCEABLE_MAX];

static fenceable *fenceable_of(const void *p)
{
    for (int i = 0; i < FENCEABLE_MAX; i++)
        if (fenceables[i].ptr && fenceables[i].ptr == (CUdeviceptr)p)
            return &fenceables[i];
    return NULL;
}

static fenceable *fenceable_slot(void)
{
    for (int i = 0; i < FENCEABLE_MAX; i++)
        if (!fenceables[i].ptr)
            return &fenceables[i];
    return NULL;
}

static bool vmm_map(fenceable *f)
{
    CUmemAccessDesc rw;
    memset(&rw, 0, sizeof(rw));
    rw.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    rw.location.id = vmm.device;
    rw.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return vmm.map(f->ptr, f->size, 0, f->handle, 0) == CUDA_SUCCESS &&
           vmm.set_access(f->ptr, f->size, &rw, 1) == CUDA_SUCCESS;
}

extern "C" void *lg_gpu_alloc_fenceable(size_t bytes, char *err, size_t errsize)
{
    fenceable *slot = fenceable_slot();
    CUmemAllocationProp prop = vmm_prop();
    size_t gran = 0;
    if (!vmm_ready() || !slot ||
        vmm.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS || !gran)
        return lg_gpu_alloc(bytes, LG_SPACE_DEVICE, err, errsize);
    fenceable f;
    memset(&f, 0, sizeof(f));
    f.size = (bytes + gran - 1) / gran * gran;
    if (vmm.create(&f.handle, f.size, &prop, 0) != CUDA_SUCCESS)
        return lg_gpu_alloc(bytes, LG_SPACE_DEVICE, err, errsize);
    if (vmm.reserve(&f.ptr, f.size, gran, 0, 0) != CUDA_SUCCESS || !vmm_map(&f)) {
        if (f.ptr)
            vmm.address_free(f.ptr, f.size);
        vmm.release(f.handle);
        return lg_gpu_alloc(bytes, LG_SPACE_DEVICE, err, errsize);
    }
    *slot = f;
    return (void *)f.ptr;
}

extern "C" int lg_gpu_fence(void *p, int on)
{
    fenceable *f = fenceable_of(p);
    if (!f)
        return 1;
    if ((bool)on == f->unmapped)
        return 0;
    if (on && vmm.unmap(f->ptr, f->size) != CUDA_SUCCESS)
        return -1;
    if (!on && !vmm_map(f))
        return -1;
    f->unmapped = on;
    return 0;
}

static bool fenceable_free(void *p)
{
    fenceable *f = fenceable_of(p);
    if (!f)
        return false;
    cudaDeviceSynchronize();
    if (!f->unmapped)
        vmm.unmap(f->ptr, f->size);
    vmm.address_free(f->ptr, f->size);
    vmm.release(f->handle);
    memset(f, 0, sizeof(*f));
    return true;
}

extern "C" void lg_gpu_free(void *p, int space)
{
    if (!p)
        return;
    if (space == LG_SPACE_DEVICE && fenceable_free(p))
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

/* ---- the timed pairs' helpers (grader/harness/timing.c) ---- */

extern "C" int lg_gpu_copy_d2d(void *dst, const void *src, size_t bytes)
{
    return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess ? 0 : -1;
}

static unsigned grid_for(size_t n)
{
    size_t blocks = (n + 255) / 256;
    return (unsigned)(blocks > 8192 ? 8192 : blocks < 1 ? 1 : blocks);
}

/* Rounds to nearest and saturates, like lg_dtype_store (grader/base/dtype.c). */
__device__ static double saturate(double v, double lo, double hi)
{
    if (isnan(v))
        return 0;
    v = rint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

__device__ static void store(int dtype, void *buf, size_t i, double v)
{
    switch (dtype) {
    case LG_F64:
        ((double *)buf)[i] = v;
        break;
    case LG_F32:
        ((float *)buf)[i] = (float)v;
        break;
    case LG_F16:
        ((__half *)buf)[i] = __float2half_rn((float)v);
        break;
    case LG_BF16:
        ((__nv_bfloat16 *)buf)[i] = __float2bfloat16_rn((float)v);
        break;
    case LG_I64:
        ((long long *)buf)[i] =
            (long long)saturate(v, -9.2233720368547748e18, 9.2233720368547748e18);
        break;
    case LG_I32:
        ((int *)buf)[i] = (int)saturate(v, -2147483648.0, 2147483647.0);
        break;
    case LG_I16:
        ((short *)buf)[i] = (short)saturate(v, -32768, 32767);
        break;
    case LG_I8:
        ((signed char *)buf)[i] = (signed char)saturate(v, -128, 127);
        break;
    case LG_U8:
        ((unsigned char *)buf)[i] = (unsigned char)saturate(v, 0, 255);
        break;
    default:
        break;
    }
}

__device__ static double load(int dtype, const void *buf, size_t i)
{
    switch (dtype) {
    case LG_F64:
        return ((const double *)buf)[i];
    case LG_F32:
        return ((const float *)buf)[i];
    case LG_F16:
        return __half2float(((const __half *)buf)[i]);
    case LG_BF16:
        return __bfloat162float(((const __nv_bfloat16 *)buf)[i]);
    case LG_I64:
        return (double)((const long long *)buf)[i];
    case LG_I32:
        return ((const int *)buf)[i];
    case LG_I16:
        return ((const short *)buf)[i];
    case LG_I8:
        return ((const signed char *)buf)[i];
    case LG_U8:
        return ((const unsigned char *)buf)[i];
    default:
        return 0;
    }
}

__global__ void lg_draw_kernel(void *buf, int dtype, size_t n, int dist, double p1, double p2,
                               unsigned long long seed, int integer)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        store(dtype, buf, i, lg_draw_value(seed, i, dist, p1, p2, integer));
}

extern "C" int lg_gpu_draw(void *dev, int dtype, size_t count, int dist, double p1, double p2,
                           uint64_t seed)
{
    int integer = dtype != LG_F64 && dtype != LG_F32 && dtype != LG_F16 && dtype != LG_BF16;
    if (count == 0)
        return 0;
    lg_draw_kernel<<<grid_for(count), 256>>>(dev, dtype, count, dist, p1, p2, seed, integer);
    return cudaDeviceSynchronize() == cudaSuccess ? 0 : -1;
}

/* Mismatch count and the smallest mismatching index (atomicMin), in device memory. */
struct compare_result {
    unsigned long long bad;
    unsigned long long first;
};

__global__ void lg_compare_kernel(const void *a, const void *e, int dtype, size_t n, double rtol,
                                  double atol, int equal_nan, compare_result *r)
{
    unsigned long long local = 0, first = ~0ull;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        double x = load(dtype, a, i), y = load(dtype, e, i);
        bool ok = x == y || (isnan(x) || isnan(y) ? equal_nan && isnan(x) && isnan(y)
                                                  : fabs(x - y) <= atol + rtol * fabs(y));
        if (!ok) {
            local++;
            if (i < first)
                first = i;
        }
    }
    if (local) {
        atomicAdd(&r->bad, local);
        atomicMin(&r->first, first);
    }
}

static compare_result *compare_scratch;

extern "C" long long lg_gpu_compare(const void *actual, const void *expected, int dtype,
                                    size_t count, double rtol, double atol, int equal_nan,
                                    long long *first)
{
    compare_result r = {0, ~0ull};
    *first = -1;
    if (!compare_scratch && cudaMalloc(&compare_scratch, sizeof(*compare_scratch)) != cudaSuccess) {
        compare_scratch = NULL;
        return -1;
    }
    if (cudaMemcpy(compare_scratch, &r, sizeof(r), cudaMemcpyHostToDevice) != cudaSuccess)
        return -1;
    if (count)
        lg_compare_kernel<<<grid_for(count), 256>>>(actual, expected, dtype, count, rtol, atol,
                                                    equal_nan, compare_scratch);
    if (cudaMemcpy(&r, compare_scratch, sizeof(r), cudaMemcpyDeviceToHost) != cudaSuccess)
        return -1;
    if (r.bad)
        *first = (long long)r.first;
    return (long long)r.bad;
}

/* An order-independent digest: the sum of each word mixed with its index. */
__global__ void lg_digest_kernel(const unsigned char *p, size_t bytes, unsigned long long *out)
{
    unsigned long long acc = 0;
    size_t words = bytes / 8;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x) {
        unsigned long long w;
        memcpy(&w, p + 8 * i, 8);
        acc += lg_draw_mix(w ^ (i * 0x9e3779b97f4a7c15ull));
    }
    if (blockIdx.x == 0 && threadIdx.x == 0)
        for (size_t i = words * 8; i < bytes; i++)
            acc += lg_draw_mix(((unsigned long long)p[i] << 8) ^ i);
    if (acc)
        atomicAdd(out, acc);
}

extern "C" uint64_t lg_gpu_digest(const void *dev, size_t bytes)
{
    static unsigned long long *sum;
    unsigned long long h = 0;
    if (!sum && cudaMalloc(&sum, sizeof(*sum)) != cudaSuccess) {
        sum = NULL;
        return 0;
    }
    if (cudaMemset(sum, 0, sizeof(*sum)) != cudaSuccess)
        return 0;
    if (bytes)
        lg_digest_kernel<<<grid_for(bytes / 8 + 1), 256>>>((const unsigned char *)dev, bytes, sum);
    if (cudaMemcpy(&h, sum, sizeof(h), cudaMemcpyDeviceToHost) != cudaSuccess)
        return 0;
    return h;
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

extern "C" double lg_now_ms(void); /* harness/clock.h, a C header */

extern "C" double lg_gpu_event_stop(double *tail_ms)
{
    float ms = -1;
    if (tail_ms)
        *tail_ms = 0;
    if (!events_ready) {
        block_release();
        return -1;
    }
    cudaEventRecord(ev_stop, 0);
    block_release();
    /* The stop event first, then the whole device: work the student left on other streams
     * keeps the device busy after its stop event, and the host clock between the two waits
     * measures it (an idle device answers in a microsecond or two). */
    if (cudaEventSynchronize(ev_stop) != cudaSuccess)
        return -1;
    double t_event = lg_now_ms();
    if (cudaDeviceSynchronize() != cudaSuccess)
        return -1;
    if (tail_ms)
        *tail_ms = lg_now_ms() - t_event;
    if (cudaEventElapsedTime(&ms, ev_start, ev_stop) != cudaSuccess)
        return -1;
    return ms;
}

extern "C" double lg_gpu_idle_tail_ms(void)
{
    double t[9];
    if (!events_ready)
        return 0;
    for (int i = 0; i < 9; i++) {
        cudaEventRecord(ev_stop, 0);
        cudaEventSynchronize(ev_stop);
        double t0 = lg_now_ms();
        cudaDeviceSynchronize();
        t[i] = lg_now_ms() - t0;
    }
    for (int i = 1; i < 9; i++) /* insertion sort: the median of nine */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[4];
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

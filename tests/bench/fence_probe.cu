/*
 * tests/bench/fence_probe.cu: what fencing a timed pair's outputs costs on this machine, and
 * whether the device fence holds (grader/harness/fence.h; issue 37). Built and run by
 * tests/gpu/pairs-run.sh:
 *
 *   nvcc -O2 -o build/fence_probe tests/bench/fence_probe.cu -lpthread && build/fence_probe
 *
 * Prints, per buffer size: the host fence (mprotect to PROT_NONE and back) with the process
 * alone, beside sleeping threads and beside spinning ones (the harness's worker threads, or
 * OpenBLAS's, make each change a TLB shootdown); the device fence the harness uses (cuMemUnmap,
 * then cuMemMap and cuMemSetAccess) and the one it does not (cuMemSetAccess to PROT_NONE and
 * back: accepted or refused by the driver); and, in child processes of their own (a fault ends
 * a CUDA context), whether a kernel that reads an unmapped range, or one whose access was
 * taken away, faults. Medians of 50 cycles, microseconds.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define REPS 50

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *x, int n)
{
    qsort(x, (size_t)n, sizeof(double), cmp);
    return x[n / 2];
}

struct vmm {
    CUresult (*create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                       unsigned long long);
    CUresult (*reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
    CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long);
    CUresult (*unmap)(CUdeviceptr, size_t);
    CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
    CUresult (*granularity)(size_t *, const CUmemAllocationProp *,
                            CUmemAllocationGranularity_flags);
};
static struct vmm api;

static void *entry(const char *name)
{
    void *fn = NULL;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
        printf("no driver entry point %s\n", name);
        exit(1);
    }
    return fn;
}

static void api_init(void)
{
    api.create = (CUresult(*)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                              unsigned long long))entry("cuMemCreate");
    api.reserve = (CUresult(*)(CUdeviceptr *, size_t, size_t, CUdeviceptr,
                               unsigned long long))entry("cuMemAddressReserve");
    api.map = (CUresult(*)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                           unsigned long long))entry("cuMemMap");
    api.unmap = (CUresult(*)(CUdeviceptr, size_t))entry("cuMemUnmap");
    api.set_access =
        (CUresult(*)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t))entry("cuMemSetAccess");
    api.granularity = (CUresult(*)(size_t *, const CUmemAllocationProp *,
                                   CUmemAllocationGranularity_flags))entry(
        "cuMemGetAllocationGranularity");
}

static CUmemAccessDesc access_desc(unsigned long long flags)
{
    CUmemAccessDesc d;
    int dev = 0;
    cudaGetDevice(&dev);
    memset(&d, 0, sizeof(d));
    d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = dev;
    d.flags = (CUmemAccess_flags)flags;
    return d;
}

/* A fenceable allocation as the harness makes it (harness_gpu.cu). */
static CUdeviceptr vmm_alloc(size_t bytes, size_t *size, CUmemGenericAllocationHandle *h)
{
    CUmemAllocationProp prop;
    memset(&prop, 0, sizeof(prop));
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    cudaGetDevice(&prop.location.id);
    size_t gran = 0;
    CUdeviceptr p = 0;
    CUmemAccessDesc rw = access_desc(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    if (api.granularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS)
        exit(1);
    *size = (bytes + gran - 1) / gran * gran;
    if (api.create(h, *size, &prop, 0) != CUDA_SUCCESS ||
        api.reserve(&p, *size, gran, 0, 0) != CUDA_SUCCESS ||
        api.map(p, *size, 0, *h, 0) != CUDA_SUCCESS || api.set_access(p, *size, &rw, 1))
        exit(1);
    return p;
}

__global__ void touch(const float *p, float *sink)
{
    if (threadIdx.x == 0)
        *sink = p[blockIdx.x];
}

/* Child: fence an allocation the given way, read it from a kernel, say what happened. */
static int child(const char *how)
{
    size_t size;
    CUmemGenericAllocationHandle h;
    float *sink;
    api_init();
    cudaMalloc((void **)&sink, sizeof(float));
    CUdeviceptr p = vmm_alloc(1 << 20, &size, &h);
    CUresult r;
    if (!strcmp(how, "unmap")) {
        r = api.unmap(p, size);
    } else {
        CUmemAccessDesc none = access_desc(CU_MEM_ACCESS_FLAGS_PROT_NONE);
        r = api.set_access(p, size, &none, 1);
    }
    if (r != CUDA_SUCCESS) {
        printf("  %-8s the driver refused the fence (CUresult %d)\n", how, (int)r);
        return 0;
    }
    touch<<<4, 32>>>((const float *)p, sink);
    cudaError_t e = cudaDeviceSynchronize();
    printf("  %-8s a kernel reading the fenced range: %s\n", how,
           e == cudaSuccess ? "RAN (the fence does not hold)" : cudaGetErrorName(e));
    return 0;
}

static volatile int spin_stop;
static void *spinner(void *arg)
{
    (void)arg;
    while (!spin_stop)
        ;
    return NULL;
}
static void *sleeper(void *arg)
{
    (void)arg;
    while (!spin_stop)
        usleep(1000);
    return NULL;
}

/* A mapping of bytes as the harness makes one (grader/harness/buffers.c): whole pages, and at
 * 2 MiB or more on a huge page with the advice to use them, where huge asks. */
static double host_cycle(size_t bytes, bool huge)
{
    size_t align = huge && bytes >= (2u << 20) ? 2u << 20 : 4096;
    size_t len = (bytes + align - 1) / align * align;
    double t[REPS];
    unsigned char *raw = (unsigned char *)mmap(NULL, len + align, PROT_READ | PROT_WRITE,
                                               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *m = raw + (align - (uintptr_t)raw % align) % align;
    if (align > 4096)
        madvise(m, len, MADV_HUGEPAGE);
    memset(m, 1, len);
    for (int i = 0; i < REPS; i++) {
        double t0 = now_us();
        mprotect(m, len, PROT_NONE);
        mprotect(m, len, PROT_READ | PROT_WRITE);
        t[i] = now_us() - t0;
        m[i * 4096 % len] = 2;
    }
    munmap(raw, len + align);
    return median(t, REPS);
}

static void host_rows(const size_t *sizes, int n_sizes)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int n_threads = cpus > 64 ? 64 : (int)cpus;
    pthread_t th[64];
    char thp[128] = "unknown";
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (f && fgets(thp, sizeof(thp), f))
        thp[strcspn(thp, "\n")] = '\0';
    if (f)
        fclose(f);
    printf("transparent huge pages: %s\n", thp);
    printf("host fence (mprotect none + back), us: 4 KiB pages alone | as the harness maps it "
           "(huge pages from 2 MiB): alone, beside %d sleeping, beside %d spinning threads\n",
           n_threads, n_threads - 1);
    for (int k = 0; k < n_sizes; k++) {
        double small = host_cycle(sizes[k], false), alone = host_cycle(sizes[k], true);
        spin_stop = 0;
        for (int i = 0; i < n_threads; i++)
            pthread_create(&th[i], NULL, sleeper, NULL);
        double sleeping = host_cycle(sizes[k], true);
        spin_stop = 1;
        for (int i = 0; i < n_threads; i++)
            pthread_join(th[i], NULL);
        spin_stop = 0;
        for (int i = 0; i < n_threads - 1; i++)
            pthread_create(&th[i], NULL, spinner, NULL);
        double spinning = host_cycle(sizes[k], true);
        spin_stop = 1;
        for (int i = 0; i < n_threads - 1; i++)
            pthread_join(th[i], NULL);
        printf("  %10zu B  %8.1f | %8.1f  %8.1f  %8.1f\n", sizes[k], small, alone, sleeping,
               spinning);
    }
}

static void device_rows(const size_t *sizes, int n_sizes)
{
    CUmemAccessDesc rw = access_desc(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUmemAccessDesc none = access_desc(CU_MEM_ACCESS_FLAGS_PROT_NONE);
    printf("device fence, us: unmap | map + set access (the harness's) | set access none | "
           "set access back\n");
    for (int k = 0; k < n_sizes; k++) {
        size_t size;
        CUmemGenericAllocationHandle h;
        CUdeviceptr p = vmm_alloc(sizes[k], &size, &h);
        double un[REPS], re[REPS], off[REPS], on[REPS];
        bool access_ok = true;
        for (int i = 0; i < REPS; i++) {
            double t0 = now_us();
            api.unmap(p, size);
            double t1 = now_us();
            api.map(p, size, 0, h, 0);
            api.set_access(p, size, &rw, 1);
            double t2 = now_us();
            access_ok &= api.set_access(p, size, &none, 1) == CUDA_SUCCESS;
            double t3 = now_us();
            api.set_access(p, size, &rw, 1);
            double t4 = now_us();
            un[i] = t1 - t0, re[i] = t2 - t1, off[i] = t3 - t2, on[i] = t4 - t3;
        }
        printf("  %10zu B (%zu mapped)  %8.1f  %8.1f  ", sizes[k], size, median(un, REPS),
               median(re, REPS));
        if (access_ok)
            printf("%8.1f  %8.1f\n", median(off, REPS), median(on, REPS));
        else
            printf("refused by the driver\n");
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--child"))
        return child(argv[2]);
    const size_t sizes[] = {16384, 1 << 20, 4 << 20, 64 << 20};
    int n_sizes = sizeof(sizes) / sizeof(sizes[0]);
    host_rows(sizes, n_sizes);
    if (cudaFree(0) != cudaSuccess) {
        printf("no usable GPU: device rows skipped\n");
        return 0;
    }
    api_init();
    device_rows(sizes, n_sizes);
    printf("does the fence hold (a child process each):\n");
    fflush(stdout);
    const char *hows[] = {"unmap", "access"};
    for (int i = 0; i < 2; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            execl("/proc/self/exe", argv[0], "--child", hows[i], (char *)NULL);
            _exit(127);
        }
        int st = 0;
        waitpid(pid, &st, 0);
    }
    return 0;
}

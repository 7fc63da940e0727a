/*
 * gpuprobe: tells the grader whether a CUDA device is usable here and what it is.
 * Run in a child process so a broken driver cannot take the grader down.
 * Prints "key value" lines; exit 0 with a device, 1 without (reason on "error").
 */
#include <cuda_runtime.h>
#include <stdio.h>

int main(void)
{
    int n = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    printf("runtime %d.%d\n", rt / 1000, (rt % 1000) / 10);
    if (drv)
        printf("driver_api %d.%d\n", drv / 1000, (drv % 1000) / 10);
    if (e != cudaSuccess) {
        printf("error %s (%s)\n", cudaGetErrorString(e), cudaGetErrorName(e));
        return 1;
    }
    if (n == 0) {
        printf("error no CUDA device found\n");
        return 1;
    }
    printf("count %d\n", n);
    for (int d = 0; d < n; d++) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
            continue;
        printf("device %d\n", d);
        printf("name %s\n", p.name);
        printf("cc %d.%d\n", p.major, p.minor);
        printf("memory_mib %zu\n", p.totalGlobalMem >> 20);
        printf("sms %d\n", p.multiProcessorCount);
        printf("l2_bytes %d\n", p.l2CacheSize);
        char pci[64];
        if (cudaDeviceGetPCIBusId(pci, (int)sizeof(pci), d) == cudaSuccess)
            printf("pci %s\n", pci);
    }
    return 0;
}

/*
 * hostwait: how long the host thread that times a GPU kernel waits for a CPU (the kernel's
 * run_delay, /proc/thread-self/schedstat) around each timed call, on a quiet machine and beside
 * CPU load. A GPU series has its GPU to itself but shares its lane's cores with other graders'
 * untimed work (docs/coordinator.md); a pair whose host thread waited for a core reads slower
 * for a reason that is not the code's (docs/benchmarks.md, fifth session: one answer of twenty
 * lost half a point so). What a quiet machine's calls wait (waking from a blocking wait, a core
 * leaving its idle state) is the floor any rule that drops such pairs must stay above.
 *
 *   nvcc -O2 -o /tmp/hostwait tests/bench/hostwait.cu && /tmp/hostwait spin && /tmp/hostwait block
 *
 * Prints, per mode, the kernel's time and the distribution of the host thread's wait per call.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CALLS 3000
#define N (1 << 20)

static double run_delay_us(void)
{
    unsigned long long exec_ns = 0, wait_ns = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f)
        return -1;
    int got = fscanf(f, "%llu %llu", &exec_ns, &wait_ns);
    fclose(f);
    return got == 2 ? wait_ns / 1e3 : -1;
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* About 50 us on an H200: a call as short as lab 6's matmul at n1024 on the device. */
__global__ void work(float *x, int n, int reps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float v = x[i];
    for (int r = 0; r < reps; r++)
        v = v * 1.0001f + 0.5f;
    x[i] = v;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(const double *s, int n, double p)
{
    return s[(int)(p * (n - 1))];
}

int main(int argc, char **argv)
{
    int block = argc > 1 && !strcmp(argv[1], "block");
    int reps = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 400;
    if (block)
        cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync);
    float *x;
    cudaEvent_t a, b;
    if (cudaMalloc(&x, N * sizeof(float)) != cudaSuccess) {
        fprintf(stderr, "hostwait: no GPU\n");
        return 1;
    }
    cudaMemset(x, 0, N * sizeof(float));
    cudaEventCreateWithFlags(&a, block ? cudaEventBlockingSync : cudaEventDefault);
    cudaEventCreateWithFlags(&b, block ? cudaEventBlockingSync : cudaEventDefault);
    static double wait[CALLS], kern[CALLS], host[CALLS];
    for (int i = -100; i < CALLS; i++) {
        double w0 = run_delay_us(), h0 = now_us();
        cudaEventRecord(a);
        work<<<N / 256, 256>>>(x, N, reps);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        double h1 = now_us(), w1 = run_delay_us();
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        if (i < 0)
            continue;
        wait[i] = w1 - w0;
        kern[i] = ms * 1e3;
        host[i] = h1 - h0;
    }
    int over20 = 0, over50 = 0, over100 = 0, over10pct = 0;
    for (int i = 0; i < CALLS; i++) {
        over20 += wait[i] > 20;
        over50 += wait[i] > 50;
        over100 += wait[i] > 100;
        over10pct += wait[i] > 0.1 * host[i];
    }
    qsort(wait, CALLS, sizeof(double), cmp);
    qsort(kern, CALLS, sizeof(double), cmp);
    qsort(host, CALLS, sizeof(double), cmp);
    printf("%s: kernel (events) median %.1f us, p99 %.1f, max %.1f; host per call median %.1f us, "
           "p99 %.1f, max %.1f\n",
           block ? "blocking sync" : "spin", pct(kern, CALLS, 0.5), pct(kern, CALLS, 0.99),
           kern[CALLS - 1], pct(host, CALLS, 0.5), pct(host, CALLS, 0.99), host[CALLS - 1]);
    printf("  wait for a CPU per call (us): median %.1f, p90 %.1f, p99 %.1f, p99.9 %.1f, max %.1f; "
           "calls over 20 us %d, over 50 us %d, over 100 us %d, over 10%% of the call %d (of %d)\n",
           pct(wait, CALLS, 0.5), pct(wait, CALLS, 0.9), pct(wait, CALLS, 0.99),
           pct(wait, CALLS, 0.999), wait[CALLS - 1], over20, over50, over100, over10pct, CALLS);
    return 0;
}

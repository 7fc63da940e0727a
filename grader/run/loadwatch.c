#include "run/loadwatch.h"
#include "run/sandbox_internal.h"

#include "base/alloc.h"
#include "base/util.h"

#include <dirent.h>
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* ---- CPU time ---- */

static double ticks_s(unsigned long long ticks)
{
    static long hz;
    if (!hz)
        hz = sysconf(_SC_CLK_TCK) > 0 ? sysconf(_SC_CLK_TCK) : 100;
    return (double)ticks / (double)hz;
}

/* What /proc/stat accounts to a set of cores, seconds: every kind of busy time, and of it what
 * the kernel spent on interrupts (irq, softirq) and what a hypervisor took (steal). */
struct cores_time {
    double busy, irq, steal;
};

/* The time /proc/stat accounts to the cores in cpus (every core when NULL). */
static struct cores_time cores_time(const cpu_set_t *cpus)
{
    FILE *f = fopen("/proc/stat", "re");
    char line[512];
    unsigned long long total = 0, irq = 0, steal = 0;
    while (f && fgets(line, sizeof(line), f)) {
        unsigned long long v[8] = {0};
        int cpu;
        if (strncmp(line, "cpu", 3) || line[3] < '0' || line[3] > '9')
            continue;
        if (sscanf(line + 3, "%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1],
                   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) < 9)
            continue;
        if (cpus && (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, cpus)))
            continue;
        /* user nice system [idle iowait] irq softirq steal */
        total += v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        irq += v[5] + v[6];
        steal += v[7];
    }
    if (f)
        fclose(f);
    return (struct cores_time){ticks_s(total), ticks_s(irq), ticks_s(steal)};
}

/* What /proc/<pid>/stat says of a process's CPU. */
struct cpu_sample {
    pid_t pid;
    unsigned long long start; /* tells a reused pid apart */
    unsigned long long ticks; /* utime + stime */
    int processor;
};

/* One process's stat line: CPU ticks, start and last CPU; false when it is gone. */
static bool sample_process(pid_t pid, struct cpu_sample *out)
{
    char path[64], buf[1024];
    proc_path(path, pid, "stat");
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    if (!p)
        return false;
    /* Fields after the comm, from the state (field 3): utime and stime are 14 and 15,
     * starttime 22, processor 39. */
    unsigned long long v[40] = {0};
    int field = 3;
    for (char *tok, *save = NULL, *rest = (char *)p + 1; field < 40; rest = NULL, field++) {
        if (!(tok = strtok_r(rest, " ", &save)))
            return false;
        if (field != 3)
            v[field] = strtoull(tok, NULL, 10);
    }
    *out = (struct cpu_sample){pid, v[22], v[14] + v[15], (int)v[39]};
    return true;
}

/* Its command name; "" when it is gone. */
static void comm_of(pid_t pid, char *out, size_t size)
{
    char path[64];
    proc_path(path, pid, "comm");
    FILE *f = fopen(path, "re");
    out[0] = '\0';
    if (f) {
        if (!fgets(out, (int)size, f))
            out[0] = '\0';
        out[strcspn(out, "\n")] = '\0';
        fclose(f);
    }
}

/* utime + stime of one process, seconds; 0 when it is gone. */
static double process_cpu_s(pid_t pid)
{
    struct cpu_sample c;
    return sample_process(pid, &c) ? ticks_s(c.ticks) : 0;
}

/* The run's own CPU time: its cgroup's, else its process tree's. */
static double own_cpu_s(const struct loadwatch *w)
{
    if (w->cgroup_dir) {
        char *stat = xstrfmt("%s/cpu.stat", w->cgroup_dir);
        long long usec = sb_read_keyed_value(stat, "usage_usec");
        free(stat);
        if (usec >= 0)
            return (double)usec / 1e6;
    }
    struct proctree t;
    double sum = 0;
    proctree_load(&t);
    for (size_t i = 0; i < t.n; i++)
        if (proctree_has(&t, w->root, t.pid[i]))
            sum += process_cpu_s(t.pid[i]);
    proctree_free(&t);
    return sum;
}

static double self_cpu_s(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* ---- NVML: loaded at run time, so that a machine without the driver still grades ---- */

struct nvml_sample {
    unsigned int pid;
    unsigned long long ts;
    unsigned int sm, mem, enc, dec;
};
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_by_pci_fn)(const char *, void **);
typedef int (*nvml_util_fn)(void *, struct nvml_sample *, unsigned int *, unsigned long long);

static struct {
    int state; /* 0 not tried, 1 usable, -1 not */
    nvml_by_pci_fn by_pci;
    nvml_util_fn util;
} nvml;

static bool nvml_ready(void)
{
    if (nvml.state)
        return nvml.state > 0;
    nvml.state = -1;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    nvml_init_fn init = h ? (nvml_init_fn)dlsym(h, "nvmlInit_v2") : NULL;
    nvml.by_pci = h ? (nvml_by_pci_fn)dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2") : NULL;
    nvml.util = h ? (nvml_util_fn)dlsym(h, "nvmlDeviceGetProcessUtilization") : NULL;
    if (init && nvml.by_pci && nvml.util && init() == 0)
        nvml.state = 1;
    return nvml.state > 0;
}

static unsigned long long epoch_us(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (unsigned long long)tv.tv_sec * 1000000ull + (unsigned long long)tv.tv_usec;
}

/* Whether pid or an ancestor has a file of the coordinator's folder open: a grader's run. */
static bool coordinated(const struct proctree *t, pid_t pid, const char *coord_dir)
{
    size_t len = coord_dir ? strlen(coord_dir) : 0;
    for (int depth = 0; len && depth < 16 && pid > 1; depth++) {
        char path[64];
        proc_path(path, pid, "fd");
        DIR *d = opendir(path);
        struct dirent *de;
        while (d && (de = readdir(d)) != NULL) {
            char *fd = xstrfmt("%s/%s", path, de->d_name), target[512];
            ssize_t n = readlink(fd, target, sizeof(target) - 1);
            free(fd);
            if (n > (ssize_t)len && !strncmp(target, coord_dir, len) && target[len] == '/') {
                closedir(d);
                return true;
            }
        }
        if (d)
            closedir(d);
        pid_t parent = 0;
        for (size_t i = 0; i < t->n && !parent; i++)
            if (t->pid[i] == pid)
                parent = t->ppid[i];
        pid = parent;
    }
    return false;
}

/* The busiest process on the GPU since `since` that is neither the run's nor invisible here. */
static void gpu_foreign(const struct loadwatch *w, unsigned long long since,
                        struct sb_series_load *load)
{
    void *dev = NULL;
    unsigned int n = 0;
    if (!w->gpu_key || !nvml_ready() || nvml.by_pci(w->gpu_key, &dev) != 0)
        return;
    /* NVML_ERROR_NOT_FOUND: no process computed there since `since`. */
    if (nvml.util(dev, NULL, &n, since) != 7 /* NVML_ERROR_INSUFFICIENT_SIZE */ || n == 0)
        return;
    struct nvml_sample *s = xcalloc(n + 8, sizeof(*s));
    unsigned int got = n + 8;
    struct proctree t;
    proctree_load(&t);
    if (nvml.util(dev, s, &got, since) == 0)
        for (unsigned int i = 0; i < got; i++) {
            char path[64];
            pid_t pid = (pid_t)s[i].pid;
            proc_path(path, pid, "stat");
            if (s[i].sm == 0 ||
                s[i].ts < since + (unsigned long long)(LOADWATCH_GPU_SETTLE_S * 1e6) ||
                access(path, F_OK) != 0 || proctree_has(&t, w->root, pid) ||
                (int)s[i].sm <= load->gpu_util || coordinated(&t, pid, w->coord_dir))
                continue;
            load->gpu_pid = pid;
            load->gpu_util = (int)s[i].sm;
            comm_of(pid, load->gpu_comm, sizeof(load->gpu_comm));
        }
    proctree_free(&t);
    free(s);
}

void loadwatch_begin(struct loadwatch *w)
{
    w->t0 = now_seconds();
    w->nvml_t0 = epoch_us();
    if (w->cpu) {
        struct cores_time c = cores_time(w->cpus);
        w->busy0 = c.busy;
        w->irq0 = c.irq;
        w->steal0 = c.steal;
        w->own0 = own_cpu_s(w);
        w->self0 = self_cpu_s();
    }
}

bool loadwatch_end(struct loadwatch *w, struct sb_series_load *load)
{
    double span = now_seconds() - w->t0;
    load->foreign_cpus = 0;
    load->irq_cpus = 0;
    load->steal_cpus = 0;
    load->gpu_pid = 0;
    load->gpu_util = 0;
    load->gpu_comm[0] = '\0';
    bool shared = false;
    if (w->cpu && span > 0) {
        struct cores_time c = cores_time(w->cpus);
        double foreign = (c.busy - w->busy0) - (own_cpu_s(w) - w->own0) - (self_cpu_s() - w->self0);
        if (foreign < 0)
            foreign = 0;
        load->foreign_cpus = foreign / span;
        load->irq_cpus = fmax(0, c.irq - w->irq0) / span;
        load->steal_cpus = fmax(0, c.steal - w->steal0) / span;
        shared = foreign >= LOADWATCH_CPU_MIN_S && load->foreign_cpus > LOADWATCH_CPU_SHARE;
    }
    gpu_foreign(w, w->nvml_t0, load);
    shared = shared || load->gpu_pid > 0;
    load->shared = shared;
    return shared;
}

/* ---- who: the busiest other process on the cores ---- */

static int by_pid(const void *a, const void *b)
{
    pid_t x = ((const struct cpu_sample *)a)->pid, y = ((const struct cpu_sample *)b)->pid;
    return (x > y) - (x < y);
}

/* Every process of the machine, sorted by pid. Caller frees. */
static struct cpu_sample *sample_all(size_t *n)
{
    struct cpu_sample *all = NULL;
    size_t alloc = 0;
    *n = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d)) != NULL;) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        ALLOC_GROW(all, *n + 1, alloc);
        *n += sample_process((pid_t)pid, &all[*n]);
    }
    if (d)
        closedir(d);
    if (*n)
        qsort(all, *n, sizeof(*all), by_pid);
    return all;
}

void loadwatch_busiest(const struct loadwatch *w, double window_s, struct sb_series_load *load)
{
    size_t n0, n1;
    struct cpu_sample *s0 = sample_all(&n0);
    struct timespec pause = {(time_t)window_s, (long)((window_s - (double)(time_t)window_s) * 1e9)};
    nanosleep(&pause, NULL);
    struct cpu_sample *s1 = sample_all(&n1);
    struct proctree t;
    proctree_load(&t);
    unsigned long long best = 0;
    load->cpu_pid = 0;
    for (size_t i = 0; i < n1; i++) {
        const struct cpu_sample *now = &s1[i];
        const struct cpu_sample *then = bsearch(now, s0, n0, sizeof(*s0), by_pid);
        unsigned long long before = then && then->start == now->start ? then->ticks : 0;
        if (now->ticks <= before + best || now->pid == getpid() ||
            proctree_has(&t, w->root, now->pid) ||
            (w->cpus && (now->processor < 0 || now->processor >= CPU_SETSIZE ||
                         !CPU_ISSET(now->processor, w->cpus))))
            continue;
        best = now->ticks - before;
        load->cpu_pid = now->pid;
    }
    if (load->cpu_pid > 0) {
        load->cpu_pid_cores = window_s > 0 ? ticks_s(best) / window_s : 0;
        comm_of((pid_t)load->cpu_pid, load->cpu_comm, sizeof(load->cpu_comm));
    }
    proctree_free(&t);
    free(s0);
    free(s1);
}

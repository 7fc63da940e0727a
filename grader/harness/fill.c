/* fill: the counter-based draw on the host, in parallel (fill.h). */
#include "fill.h"

#include "draw.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <unistd.h>

/* Below this many elements per thread, starting threads costs more than it saves. */
#define MIN_PER_THREAD (1u << 18)
#define MAX_THREADS 32

struct chunk {
    enum lg_dtype t;
    void *p;
    size_t lo, hi;
    int dist;
    double p1, p2;
    uint64_t seed;
};

static void fill_range(const struct chunk *c)
{
    int integer = !lg_dtype_is_float(c->t);
    switch (c->t) {
    case LG_F64:
        for (size_t i = c->lo; i < c->hi; i++)
            ((double *)c->p)[i] = lg_draw_value(c->seed, i, c->dist, c->p1, c->p2, 0);
        break;
    case LG_F32:
        for (size_t i = c->lo; i < c->hi; i++)
            ((float *)c->p)[i] = (float)lg_draw_value(c->seed, i, c->dist, c->p1, c->p2, 0);
        break;
    default:
        for (size_t i = c->lo; i < c->hi; i++)
            lg_dtype_store(c->t, c->p, i,
                           lg_draw_value(c->seed, i, c->dist, c->p1, c->p2, integer));
        break;
    }
}

static void *fill_thread(void *arg)
{
    fill_range(arg);
    return NULL;
}

/* The CPUs this process may run on (a Slurm allocation or taskset may give fewer than the
 * machine has). */
static int usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void lg_host_fill(enum lg_dtype t, void *p, size_t count, int dist, double p1, double p2,
                  uint64_t seed)
{
    size_t n_threads = count / MIN_PER_THREAD, cpus = (size_t)usable_cpus();
    if (n_threads > cpus)
        n_threads = cpus;
    if (n_threads > MAX_THREADS)
        n_threads = MAX_THREADS;
    if (n_threads < 2) {
        fill_range(&(struct chunk){t, p, 0, count, dist, p1, p2, seed});
        return;
    }
    struct chunk chunks[MAX_THREADS];
    pthread_t tid[MAX_THREADS];
    bool started[MAX_THREADS] = {false};
    for (size_t k = 0; k < n_threads; k++) {
        chunks[k] = (struct chunk){
            t, p, count * k / n_threads, count * (k + 1) / n_threads, dist, p1, p2, seed};
        /* The first chunk is this thread's own; a thread that cannot start (a process
         * limit) leaves its chunk to this thread too. */
        if (k > 0)
            started[k] = pthread_create(&tid[k], NULL, fill_thread, &chunks[k]) == 0;
    }
    fill_range(&chunks[0]);
    for (size_t k = 1; k < n_threads; k++) {
        if (started[k])
            pthread_join(tid[k], NULL);
        else
            fill_range(&chunks[k]);
    }
}

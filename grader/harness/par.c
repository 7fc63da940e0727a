/* par: parallel loops for the harness's passes over large buffers (par.h). */
#include "par.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <unistd.h>

struct worker {
    lg_par_fn *fn;
    void *ctx;
    size_t count, n_parts, first, stride;
};

/* Parts first, first + stride, ...: a static share, so that no part is claimed twice. */
static void run_share(const struct worker *w)
{
    for (size_t k = w->first; k < w->n_parts; k += w->stride)
        w->fn(w->ctx, w->count * k / w->n_parts, w->count * (k + 1) / w->n_parts, k);
}

static void *worker_main(void *arg)
{
    run_share(arg);
    return NULL;
}

/* The CPUs this process may run on (a Slurm allocation, taskset or the grader's own pinning
 * may give fewer than the machine has). */
static size_t usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return (size_t)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (size_t)n : 1;
}

size_t lg_par_parts(size_t count, size_t min_per_part)
{
    size_t n = min_per_part ? count / min_per_part : count;
    if (n > LG_PAR_MAX_PARTS)
        n = LG_PAR_MAX_PARTS;
    return n ? n : 1;
}

void lg_par_for(size_t count, size_t n_parts, lg_par_fn *fn, void *ctx)
{
    if (n_parts == 0)
        return;
    if (n_parts > LG_PAR_MAX_PARTS)
        n_parts = LG_PAR_MAX_PARTS;
    size_t n_threads = usable_cpus();
    if (n_threads > n_parts)
        n_threads = n_parts;
    struct worker w[LG_PAR_MAX_PARTS];
    pthread_t tid[LG_PAR_MAX_PARTS];
    bool started[LG_PAR_MAX_PARTS] = {false};
    for (size_t t = 0; t < n_threads; t++) {
        w[t] = (struct worker){fn, ctx, count, n_parts, t, n_threads};
        if (t > 0)
            started[t] = pthread_create(&tid[t], NULL, worker_main, &w[t]) == 0;
    }
    run_share(&w[0]);
    for (size_t t = 1; t < n_threads; t++) {
        if (started[t])
            pthread_join(tid[t], NULL);
        else
            run_share(&w[t]);
    }
}

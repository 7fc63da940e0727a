/* queue: students handed out to workers, builds ahead of them (queue.h). */
#include "class/queue.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* How often a waiting worker looks at its student's build: the wait ends on the builder's
 * end at once (the pipe), on the build within this. */
#define WAIT_POLL_MS 20

struct shared {
    atomic_size_t next;
    _Atomic double build_s;
    atomic_int built[]; /* one per student */
};

struct work_queue {
    struct shared *sh;
    size_t n, mapped;
    int alive[2]; /* the builder holds the write end: EOF on the read end once it is gone */
};

struct work_queue *work_queue_create(size_t n)
{
    struct work_queue *q = calloc(1, sizeof(*q));
    if (!q)
        return NULL;
    q->n = n;
    q->mapped = sizeof(struct shared) + (n ? n : 1) * sizeof(atomic_int);
    void *m = mmap(NULL, q->mapped, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    /* Close-on-exec: no compiler or student program may keep the builder alive. */
    if (m == MAP_FAILED || pipe2(q->alive, O_CLOEXEC) != 0) {
        if (m != MAP_FAILED)
            munmap(m, q->mapped);
        free(q);
        return NULL;
    }
    q->sh = m;
    atomic_init(&q->sh->next, 0);
    atomic_init(&q->sh->build_s, 0.0);
    for (size_t i = 0; i < n; i++)
        atomic_init(&q->sh->built[i], 0);
    return q;
}

void work_queue_free(struct work_queue *q)
{
    if (!q)
        return;
    munmap(q->sh, q->mapped);
    for (int k = 0; k < 2; k++)
        if (q->alive[k] >= 0)
            close(q->alive[k]);
    free(q);
}

size_t work_queue_size(const struct work_queue *q)
{
    return q->n;
}

size_t work_queue_take(struct work_queue *q)
{
    size_t i = atomic_fetch_add(&q->sh->next, 1);
    return i < q->n ? i : q->n;
}

void work_queue_not_builder(struct work_queue *q)
{
    if (q->alive[1] >= 0)
        close(q->alive[1]);
    q->alive[1] = -1;
}

void work_queue_mark_built(struct work_queue *q, size_t i)
{
    if (i < q->n)
        atomic_store(&q->sh->built[i], 1);
}

void work_queue_set_build_seconds(struct work_queue *q, double s)
{
    atomic_store(&q->sh->build_s, s);
}

double work_queue_build_seconds(const struct work_queue *q)
{
    return atomic_load(&q->sh->build_s);
}

bool work_queue_wait_built(struct work_queue *q, size_t i)
{
    for (;;) {
        if (i >= q->n || atomic_load(&q->sh->built[i]))
            return i < q->n;
        struct pollfd p = {q->alive[0], POLLIN, 0};
        int r = poll(&p, 1, WAIT_POLL_MS);
        if (r < 0 && errno != EINTR)
            return false;
        /* Nothing is ever written: readable means the last write end closed. */
        if (r > 0)
            return atomic_load(&q->sh->built[i]) != 0;
    }
}

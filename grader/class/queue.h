/*
 * queue: the students of a batch, handed out one at a time to whichever worker is free, and
 * the builds that run ahead of them (class/batch.c).
 *
 * A worker stuck on a student (a hang waits out its limit) no longer holds back the students
 * a fixed share would have given it; and the builds of later students run while earlier ones
 * are graded, instead of every build before the first run. The queue lives in memory shared
 * by the processes forked after work_queue_create: the builder marks each student built, and
 * the workers take the next index and wait for its build. If the builder is gone (it ended,
 * or was killed), nobody waits: a worker then builds what it grades itself (grade/buildcache.c).
 *
 * The creator owns the queue (work_queue_free); forked processes only use it.
 */
#ifndef LG_CLASS_QUEUE_H
#define LG_CLASS_QUEUE_H

#include <stdbool.h>
#include <stddef.h>

struct work_queue;

/* A queue of n students, none taken or built; NULL when shared memory cannot be had. */
struct work_queue *work_queue_create(size_t n);
void work_queue_free(struct work_queue *q);

size_t work_queue_size(const struct work_queue *q);
/* The next student to grade (0, 1, ... across every process), or n once all are taken. */
size_t work_queue_take(struct work_queue *q);

/* Every process but the builder calls this once the builder is forked (or could not be): the
 * parent, and the builder's own children. From then on the builder's end, however it ends,
 * releases every wait. */
void work_queue_not_builder(struct work_queue *q);

/* The builder: student i is built (or failed to build: grading says how). */
void work_queue_mark_built(struct work_queue *q, size_t i);
/* Seconds the builder spent, from its start to its last build; set by the builder at its end. */
void work_queue_set_build_seconds(struct work_queue *q, double s);
double work_queue_build_seconds(const struct work_queue *q);

/* Waits until student i is built or the builder is gone. true: built. */
bool work_queue_wait_built(struct work_queue *q, size_t i);

#endif

/*
 * lock: one grader at a time on a lab's output folder (out/<lab>). Two graders there would
 * remove each other's working copies, replace each other's results and stamp a student with
 * what the other one saw; this makes the second one stop at once, with a message naming the
 * first (its pid, host, command and start time).
 *
 * out/<lab>/.lock is held with flock(2): exclusively by a whole-class `grade` and by `merge`,
 * shared by shards (--shard K/N), which also hold out/<lab>/.lock-shard-K-of-N exclusively,
 * so that the shards of one class run side by side (grader slurm) but never the same shard
 * twice, nor a shard beside a whole-class grade. The kernel lets go of a lock when its holder
 * dies, however it dies (kill -9, a power cut of the node for NFS's lock manager): a stale
 * lock is simply taken, and the note it left (who held it) says a grader stopped without
 * finishing. Holders write who they are into the file they hold exclusively and empty it when
 * they let go. The descriptors are close-on-exec: no student program ever holds one.
 *
 * struct out_lock owns its descriptors and note; out_lock_release() lets go of everything.
 */
#ifndef LG_LOCK_H
#define LG_LOCK_H

#include "base/error.h"

struct out_lock {
    int lab_fd, shard_fd; /* -1 when not held */
    char *file;           /* the file holding this grader's note */
    /* Set when the lock was taken over from a grader that stopped without letting go:
     * "grade (pid 123 on node7, started ...)". NULL otherwise. */
    char *stale_holder;
};

void out_lock_init(struct out_lock *l);
/*
 * Take the lock of lab_out (created if needed) for `command` ("grade", "merge"); shard_n 0
 * for the whole lab. Never waits for another grader: -1 with err naming the holder and what
 * to do when the folder is in use.
 */
int out_lock_take(struct out_lock *l, const char *lab_out, int shard_k, int shard_n,
                  const char *command, struct error *err);
void out_lock_release(struct out_lock *l);

#endif

/*
 * presence: whether other graders take part in the machine's timing coordinator (turns.h) now,
 * so that this process's untimed work gives the CPU up to their timing (docs/coordinator.md,
 * "Untimed work in the background").
 *
 * A grader that joins the coordinator holds `<folder>/graders` shared (flock(2)) for the rest of
 * its life. A process forked from it (a check's variants graded side by side, a class's worker)
 * takes a hold of its own the first time it asks, since what it inherited is its parent's. Any
 * other holder, read from /proc/locks, is another grader whose GPU series may run beside this
 * process's builds and untimed runs.
 *
 * The state is the process's own, one folder at a time (joining another lets the first go);
 * it holds one descriptor and no heap.
 */
#ifndef LG_PRESENCE_H
#define LG_PRESENCE_H

#include <stdbool.h>

/* The name of the file held, inside the coordinator's folder. */
#define PRESENCE_FILE "graders"

/* This process holds dir's presence file shared from now on (again in a forked child). Does
 * nothing where the file cannot be opened or locked: presence_others then says false. */
void presence_join(const char *dir);
/* Whether any process but this one holds the presence file of the folder joined; false when
 * none was joined or /proc/locks cannot be read. One read of /proc/locks. */
bool presence_others(void);
/* Lets the hold go (a process that leaves the coordinator); joined again by presence_join. */
void presence_leave(void);

#endif

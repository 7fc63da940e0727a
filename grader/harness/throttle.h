/*
 * throttle: which GPU timing samples to drop because the GPU was throttling when they were
 * taken. nvbench's rule: a sample whose SM clock is under 75% of the device's maximum is
 * discarded, and the harness pauses 50 ms for the GPU to recover before the next one.
 *
 * A machine that throttles all the time (or a clock reading that never reflects the work)
 * must not starve the timing: once more samples have been dropped than kept, and at least
 * LG_THROTTLE_MIN_DROPS of them, dropping stops, every later sample counts, and the grader
 * flags the machine instead.
 *
 * Header-only so that the harness (linked into every student program) and the unit tests
 * share it without another object to link. struct lg_throttle holds no resources.
 */
#ifndef LG_THROTTLE_H
#define LG_THROTTLE_H

#include <stdbool.h>

#define LG_THROTTLE_THRESHOLD 0.75
#define LG_THROTTLE_MIN_DROPS 5
#define LG_THROTTLE_RECOVERY_MS 50

struct lg_throttle {
    int max_mhz; /* the device's maximum SM clock; 0: unknown, nothing is dropped */
    int kept, dropped;
    bool gave_up; /* dropping stopped: the machine throttles throughout */
};

static inline void lg_throttle_init(struct lg_throttle *t, int max_mhz)
{
    t->max_mhz = max_mhz > 0 ? max_mhz : 0;
    t->kept = 0;
    t->dropped = 0;
    t->gave_up = false;
}

/* Whether the sample just taken, at an SM clock of clock_mhz (0: unknown), counts. */
static inline bool lg_throttle_keep(struct lg_throttle *t, int clock_mhz)
{
    bool slow = t->max_mhz > 0 && clock_mhz > 0 && clock_mhz < LG_THROTTLE_THRESHOLD * t->max_mhz;
    if (slow && !t->gave_up) {
        if (t->dropped >= LG_THROTTLE_MIN_DROPS && t->dropped >= t->kept) {
            t->gave_up = true;
        } else {
            t->dropped++;
            return false;
        }
    }
    t->kept++;
    return true;
}

#endif

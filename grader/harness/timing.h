/*
 * timing: the function timed against its reference, call by call, on inputs neither has seen.
 *
 * Each timed pair draws a fresh set of inputs outside the timed region (draw.h, on the device
 * for device arrays), times the function and the paired reference on it (in an order drawn at
 * random for each block of two pairs, the other order for the second), then, outside the
 * timed region again, checks the function's outputs against the reference's (on the device
 * for device outputs), its guard zones, and, when it ran first, that it left its inputs
 * alone. A function that caches results (by pointer, by content, by
 * call count), computes lazily, on a stream of its own, only where it finds poison, or not at
 * all when it believes it is timed, fails the check of the pair it cheated in. Pairs come in
 * blocks of two, one of each order; the speedup is taken from each order's pairs apart
 * (base/stats.h's stats_paired_ratio_ordered); sampling stops when its 95% interval is within
 * the job's target_ci, or the budget is spent (stop.h).
 *
 * Without a paired reference (the reference's own runs), the function is timed alone on the
 * same fresh inputs, and sampling stops on the relative standard error.
 *
 * Lines written (result.h): "series", "samples", "order", "checks" (the time spent checking
 * the pairs, and drawing their inputs), "tail" (GPU: the device's
 * busy time after the stop events, already charged to the event samples), "clock", "throttle",
 * "blocking", "timed_mismatch", "timed_guard", "timed_modified", "timed_fault" (fence.h),
 * "precision_mismatch"; grader/run/runlog.c reads them.
 */
#ifndef LG_HARNESS_TIMING_H
#define LG_HARNESS_TIMING_H

#include "case.h"

#include <stdint.h>

/* The control pipe also gets "P <case> warmup" before a series' warm-up ("P <case> checks" is
 * case.c's, before the checked calls), "S" and "E" around the series: the supervisor times each
 * stage of the case from them (run/runner.h's enum run_stage). */
/* Time the case's call, and with transfers where the job asks and device arrays exist.
 * seed: unpredictable by the student (getrandom), mixed into every timed input set. */
void lg_case_time(struct lg_case_state *s, uint64_t seed);
/* After the case's turn (its "R"): where its last series timed the function alone (one call
 * against the reference's time measured once on this machine, as a pair would have cost more
 * than the series' budget), the reference now runs on the same inputs, untimed, and the call is
 * checked as a pair's would be ("timed_mismatch", "timed_guard", "timed_modified" lines). */
void lg_case_verify_alone(struct lg_case_state *s);
/* The precision check, where the job gives one (job key "probe": spec.h's precision_check):
 * one pair, untimed, on inputs from the check's distributions, the function's outputs against
 * the reference's with the case's tolerance. false (and "precision_mismatch <arg> <count>
 * <first>" written) when they disagree: the case is not timed then. */
bool lg_case_precision(struct lg_case_state *s, uint64_t seed);

#endif

/*
 * points: the points a report or the console prints, rounded to hundredths so that every
 * printed figure adds up with its neighbours: each case's points sum to its exercise's
 * printed points, the exercises' to the printed score, and likewise every maximum.
 *
 * A lab's points rarely divide evenly (4 points over 15 cases is 0.2667 a case): printed one
 * by one, 0.27 + 0.27 would sit under an exercise total of 0.53. So the printed values are
 * apportioned by largest remainder (Hamilton's method), level by level: the score and the
 * maximum are the exact ones rounded; each level's parts are the exact parts rounded down,
 * and the hundredths left go to the parts with the largest remainders (the first on a tie).
 * A case that earned its points prints the same value as earned and as its maximum, so a
 * full case never reads as one that lost a hundredth. Only the printing changes: grades,
 * results.json and the gradebooks keep the exact points.
 *
 * struct shown_points owns its arrays; shown_points_release() frees them.
 */
#ifndef LG_REPORT_POINTS_H
#define LG_REPORT_POINTS_H

#include "grade/results.h"

#include <stdbool.h>
#include <stddef.h>

struct shown_exercise {
    long points, max;             /* hundredths */
    long perf, perf_max;          /* the speed points' part of them */
    long *case_points, *case_max; /* every case, variant by variant, in results order */
    size_t n_cases;
};

struct shown_points {
    long score, max;
    struct shown_exercise *ex; /* one per results exercise */
    size_t n_ex;
};

void shown_points_of(const struct results *r, struct shown_points *sp);
void shown_points_release(struct shown_points *sp);
/* A case's printed points and maximum; false when cr is not one of r's cases. */
bool shown_case(const struct shown_points *sp, const struct results *r,
                const struct case_result *cr, long *points, long *max);

/* Largest-remainder rounding of n exact values to hundredths summing to total (hundredths). */
void apportion(const double *exact, size_t n, long total, long *out);
/* Exact points as hundredths, rounded to the nearest. */
long hundredths(double points);
/* Hundredths as report text: "6", "5.5", "0.27". Caller frees. */
char *fmt_hundredths(long h);

#endif

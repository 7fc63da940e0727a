/*
 * trace: where a run's time goes, for the people who tune the grader (LABGRADER_TRACE=1).
 * Each point prints the seconds since the first point and what just finished to stderr;
 * nothing is printed (and almost nothing done) when the variable is unset. Not a report: the
 * numbers users read are results.json's phases and case walls.
 */
#ifndef LG_BASE_TRACE_H
#define LG_BASE_TRACE_H

#include <stdbool.h>

bool trace_enabled(void);
void trace_point(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif

/*
 * util: checked number parsing, picking a line out of a tool's output, clocks and dates, the
 * CPUs this process may run on.
 * Returned strings are owned by the caller (free()).
 */
#ifndef LG_UTIL_H
#define LG_UTIL_H

#include <stdbool.h>
#include <stddef.h>

/* Whole-string number parsing: false on junk, overflow or empty input. */
bool parse_long(const char *s, long *out);
bool parse_double(const char *s, double *out);

/* The first line of text that contains `needle`, else (or when needle is NULL) its first
 * non-empty line; NULL when text has none. For `tool --version` outputs. Caller frees. */
char *text_pick_line(const char *text, const char *needle);

/* Wall-clock seconds from CLOCK_MONOTONIC. */
double now_seconds(void);
/* ISO 8601 local date-time, e.g. 2026-11-22T14:03:00+01:00. */
void iso_datetime(char *buf, size_t size);

/* The CPUs this process may run on (its affinity mask: what Slurm or taskset gave it), else
 * the machine's online CPUs; at least 1. */
int cpus_usable(void);

#endif

/*
 * isotime: points in time as LMSs write them (ISO 8601, RFC 3339) and lengths
 * of time as instructors write them ("15m", "2d").
 *   "2026-03-02T23:59:00+01:00", "2026-03-02T22:59:00Z", "2026-03-02 23:59",
 *   "2018-07-01T14:22:32.365935-07:00" (Gradescope; fractions are dropped).
 * Without an offset the time is the machine's local time.
 */
#ifndef LG_ISOTIME_H
#define LG_ISOTIME_H

#include <stdbool.h>
#include <stddef.h>

/* Unix seconds of s; false when s is not such a time. */
bool iso_time_parse(const char *s, long long *out);
/* t as "2026-03-02T22:59:00Z" (UTC) into buf (at least 21 bytes). */
void iso_time_format(long long t, char *buf, size_t size);
/* Seconds of "90" (minutes), "30s", "15m", "2h", "1d", "1.5d"; false when not one. */
bool duration_parse(const char *s, double *seconds);

#endif

#include "base/isotime.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* n digits at *p as a number; advances *p. */
static bool digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)(*p)[i]))
            return false;
        v = v * 10 + ((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return true;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static long long days_from_civil(int y, int m, int d)
{
    y -= m <= 2;
    long long era = (y >= 0 ? y : y - 399) / 400;
    long long yoe = y - era * 400;
    long long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* "Z", "+01:00", "-0700", or nothing (local time: *local set). */
static bool offset(const char *p, long long *seconds, bool *local)
{
    int h, m = 0;
    *seconds = 0;
    *local = false;
    if (!*p) {
        *local = true;
        return true;
    }
    if ((*p == 'Z' || *p == 'z') && !p[1])
        return true;
    if (*p != '+' && *p != '-')
        return false;
    int sign = *p++ == '-' ? -1 : 1;
    if (!digits(&p, 2, &h))
        return false;
    if (*p == ':')
        p++;
    if (*p && !digits(&p, 2, &m))
        return false;
    if (*p || h > 23 || m > 59)
        return false;
    *seconds = sign * (h * 3600LL + m * 60LL);
    return true;
}

bool iso_time_parse(const char *s, long long *out)
{
    int y, mo, d, h = 0, mi = 0, sec = 0;
    const char *p = s;
    long long off;
    bool local;
    if (!s || !digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
        !digits(&p, 2, &d))
        return false;
    if (*p == 'T' || *p == 't' || *p == ' ') {
        p++;
        if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi))
            return false;
        if (*p == ':' && (p++, !digits(&p, 2, &sec)))
            return false;
        if (*p == '.' || *p == ',')
            for (p++; isdigit((unsigned char)*p); p++)
                ;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60 ||
        !offset(p, &off, &local))
        return false;
    if (local) {
        struct tm tm;
        memset(&tm, 0, sizeof(tm));
        tm.tm_year = y - 1900;
        tm.tm_mon = mo - 1;
        tm.tm_mday = d;
        tm.tm_hour = h;
        tm.tm_min = mi;
        tm.tm_sec = sec;
        tm.tm_isdst = -1;
        *out = (long long)mktime(&tm);
        return true;
    }
    *out = days_from_civil(y, mo, d) * 86400LL + h * 3600LL + mi * 60LL + sec - off;
    return true;
}

void iso_time_format(long long t, char *buf, size_t size)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

bool duration_parse(const char *s, double *seconds)
{
    char *end;
    if (!s || !*s)
        return false;
    double v = strtod(s, &end);
    if (end == s || v < 0 || v != v)
        return false;
    double unit = 60; /* a bare number: minutes */
    if (*end == 's')
        unit = 1;
    else if (*end == 'm')
        unit = 60;
    else if (*end == 'h')
        unit = 3600;
    else if (*end == 'd')
        unit = 86400;
    else if (*end)
        return false;
    if (*end && end[1])
        return false;
    *seconds = v * unit;
    return true;
}

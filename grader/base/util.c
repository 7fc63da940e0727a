#include "base/util.h"

#include "base/alloc.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bool parse_long(const char *s, long *out)
{
    char *end;
    if (!s || !*s)
        return false;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool parse_double(const char *s, double *out)
{
    char *end;
    if (!s || !*s)
        return false;
    errno = 0;
    double v = strtod(s, &end);
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
        return false;
    if (*end)
        return false;
    *out = v;
    return true;
}

char *text_pick_line(const char *text, const char *needle)
{
    const char *first = NULL;
    size_t first_len = 0;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
            len--;
        if (len > 0) {
            if (!first) {
                first = line;
                first_len = len;
            }
            if (!needle)
                break;
            char *l = xstrndup(line, len);
            bool hit = strstr(l, needle) != NULL;
            free(l);
            if (hit)
                return xstrndup(line, len);
        }
        line = nl ? nl + 1 : NULL;
    }
    return first ? xstrndup(first, first_len) : NULL;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void iso_datetime(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    long e;
    /* Reproducible reports (golden tests) pin the date like other reproducible builds do. */
    if (epoch && parse_long(epoch, &e)) {
        t = (time_t)e;
        gmtime_r(&t, &tm);
        strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
        return;
    }
    localtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%S%z", &tm);
}

int cpus_usable(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

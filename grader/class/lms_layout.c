#include "class/lms_layout.h"

#include "base/alloc.h"
#include "class/names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

bool parse_moodle(const char *s, char **name, char **id, char **rest)
{
    const char *marker = strstr(s, "_assignsubmission_");
    if (!marker || marker == s)
        return false;
    const char *us = marker - 1;
    while (us > s && *us != '_')
        us--;
    if (us == s || !all_digits(us + 1, (size_t)(marker - us - 1)))
        return false;
    const char *plugin = marker + strlen("_assignsubmission_");
    const char *p = plugin;
    while (*p >= 'a' && *p <= 'z')
        p++;
    if (p == plugin || (*p != '_' && *p != '\0')) /* some versions leave the last '_' out */
        return false;
    *name = xstrndup(s, (size_t)(us - s));
    *id = xstrndup(us + 1, (size_t)(marker - us - 1));
    *rest = xstrdup(*p ? p + 1 : p);
    return true;
}

/*
 * Canvas: "name_id_fileid_original" or "name_LATE_id_fileid_original". The
 * original loses Canvas's resubmission suffix ("x-1.c" -> "x.c", *resub = 1).
 */
bool parse_canvas(const char *s, char **name, char **id, char **target, long *resub, long *fileid)
{
    const char *u1 = strchr(s, '_');
    if (!u1 || u1 == s)
        return false;
    const char *p = u1 + 1;
    if (!strncmp(p, "LATE_", 5) || !strncmp(p, "late_", 5))
        p += 5;
    const char *u2 = strchr(p, '_');
    if (!u2 || !all_digits(p, (size_t)(u2 - p)))
        return false;
    const char *u3 = strchr(u2 + 1, '_');
    if (!u3 || !all_digits(u2 + 1, (size_t)(u3 - u2 - 1)) || !u3[1])
        return false;
    const char *orig = u3 + 1;
    long fid = 0;
    for (const char *q = u2 + 1; q < u3 && fid < 100000000000L; q++)
        fid = fid * 10 + (*q - '0');

    size_t n = strlen(orig);
    const char *dot = strrchr(orig, '.');
    size_t stem = dot && dot != orig ? (size_t)(dot - orig) : n;
    size_t d = stem;
    while (d > 0 && isdigit((unsigned char)orig[d - 1]))
        d--;
    long r = 0;
    if (d < stem && d >= 2 && orig[d - 1] == '-' && stem - d <= 6) {
        for (size_t i = d; i < stem; i++)
            r = r * 10 + (orig[i] - '0');
        *target = xstrfmt("%.*s%s", (int)(d - 1), orig, orig + stem);
    } else {
        *target = xstrdup(orig);
    }
    *name = xstrndup(s, (size_t)(u1 - s));
    *id = xstrndup(p, (size_t)(u2 - p));
    *resub = r;
    *fileid = fid;
    return true;
}

char *lms_flat_key(const char *name)
{
    char *a, *b, *c;
    long r, f;
    if (parse_moodle(name, &a, &b, &c) || parse_canvas(name, &a, &b, &c, &r, &f)) {
        free(a);
        free(c);
        return b;
    }
    return xstrdup(name);
}

bool looks_moodle(const char *name)
{
    char *a, *b, *c;
    if (!parse_moodle(name, &a, &b, &c))
        return false;
    free(a);
    free(b);
    free(c);
    return true;
}

bool looks_canvas(const char *name)
{
    char *a, *b, *c;
    long r, f;
    if (!parse_canvas(name, &a, &b, &c, &r, &f))
        return false;
    free(a);
    free(b);
    free(c);
    return true;
}

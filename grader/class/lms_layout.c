#include "class/lms_layout.h"

#include "base/alloc.h"
#include "class/names.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void lms_name_release(struct lms_name *n)
{
    free(n->name);
    free(n->id);
    free(n->target);
    memset(n, 0, sizeof(*n));
}

bool parse_moodle(const char *s, struct lms_name *out)
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
    memset(out, 0, sizeof(*out));
    out->name = xstrndup(s, (size_t)(us - s));
    out->id = xstrndup(us + 1, (size_t)(marker - us - 1));
    out->target = xstrdup(*p ? p + 1 : p);
    out->kind = (size_t)(p - plugin) == strlen("onlinetext") && !strncmp(plugin, "onlinetext", 10)
                    ? LMS_ONLINE_TEXT
                    : LMS_FILES;
    return true;
}

/* The length of the run of digits at s. */
static size_t digits_at(const char *s)
{
    size_t n = 0;
    while (isdigit((unsigned char)s[n]))
        n++;
    return n;
}

/* "x-1.c" -> "x.c", *resub 1: Canvas's suffix for a file uploaded again. */
static char *drop_resubmission(const char *orig, long *resub)
{
    size_t n = strlen(orig);
    const char *dot = strrchr(orig, '.');
    size_t stem = dot && dot != orig ? (size_t)(dot - orig) : n;
    size_t d = stem;
    while (d > 0 && isdigit((unsigned char)orig[d - 1]))
        d--;
    *resub = 0;
    if (d < stem && d >= 2 && orig[d - 1] == '-' && stem - d <= 6) {
        for (size_t i = d; i < stem; i++)
            *resub = *resub * 10 + (orig[i] - '0');
        return xstrfmt("%.*s%s", (int)(d - 1), orig, orig + stem);
    }
    return xstrdup(orig);
}

/* What follows Canvas's name at q: "[late_]<user id>_" then "<file id>_<file>",
 * "text.html" or "link.html". */
static bool canvas_tail(const char *q, struct lms_name *out)
{
    bool late = !strncasecmp(q, "late_", 5);
    if (late)
        q += 5;
    size_t d1 = digits_at(q);
    if (d1 == 0 || q[d1] != '_')
        return false;
    const char *rest = q + d1 + 1;
    size_t d2 = digits_at(rest);
    enum lms_part kind = LMS_FILES;
    if (!strcmp(rest, "text.html"))
        kind = LMS_ONLINE_TEXT;
    else if (!strcmp(rest, "link.html"))
        kind = LMS_URL;
    else if (d2 == 0 || rest[d2] != '_' || !rest[d2 + 1])
        return false;
    out->id = xstrndup(q, d1);
    out->late = late;
    out->kind = kind;
    if (kind == LMS_FILES) {
        out->fileid = 0;
        for (size_t i = 0; i < d2 && out->fileid < 100000000000L; i++)
            out->fileid = out->fileid * 10 + (rest[i] - '0');
        out->target = drop_resubmission(rest + d2 + 1, &out->resub);
    } else {
        out->target = xstrdup(kind == LMS_URL ? "link.html" : "onlinetext.html");
    }
    return true;
}

bool parse_canvas(const char *s, struct lms_name *out)
{
    memset(out, 0, sizeof(*out));
    /* The first "_<digits>_" ends the name: Canvas removes that pattern from names. Under
     * anonymous grading there is no name at all. */
    for (const char *p = s; p; p = strchr(p + 1, '_')) {
        const char *q = p == s && *p != '_' ? s : p + 1;
        if (q == s && !isdigit((unsigned char)*s) && strncasecmp(s, "late_", 5))
            continue;
        if (canvas_tail(q, out)) {
            out->name = xstrndup(s, q == s ? 0 : (size_t)(p - s));
            return true;
        }
        lms_name_release(out);
    }
    return false;
}

bool looks_moodle(const char *name)
{
    struct lms_name n;
    if (!parse_moodle(name, &n))
        return false;
    lms_name_release(&n);
    return true;
}

bool looks_canvas(const char *name)
{
    struct lms_name n;
    if (!parse_canvas(name, &n))
        return false;
    lms_name_release(&n);
    return true;
}

char *lms_flat_key(const char *name)
{
    struct lms_name n;
    if (parse_moodle(name, &n) || parse_canvas(name, &n)) {
        char *id = n.id;
        n.id = NULL;
        lms_name_release(&n);
        return id;
    }
    return xstrdup(name);
}

char *classroom_slug(const char *folder_name)
{
    static const char suffix[] = "-submissions";
    size_t n = strlen(folder_name), k = strlen(suffix);
    if (n <= k || strcmp(folder_name + n - k, suffix))
        return NULL;
    return xstrndup(folder_name, n - k);
}

char *classroom_login(const char *repo, const char *slug)
{
    size_t k = strlen(slug);
    if (strncmp(repo, slug, k) || repo[k] != '-' || !repo[k + 1])
        return NULL;
    return xstrdup(repo + k + 1);
}

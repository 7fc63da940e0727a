#include "class/names.h"

#include "base/alloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_ROSTER_WORDS 8

void name_list_add(struct name_list *l, char *owned)
{
    ALLOC_GROW(l->v, l->n + 1, l->alloc);
    l->v[l->n++] = owned;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void name_list_sort(struct name_list *l)
{
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), cmp_str);
}

void name_list_release(struct name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

/* C0 controls, DEL and C1 controls (U+0080..U+009F, C2 80..C2 9F in UTF-8): what
 * can move a terminal's cursor or hide in a file name. */
static size_t control_len(const unsigned char *p)
{
    if (*p < 0x20 || *p == 0x7F)
        return 1;
    if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F)
        return 2;
    return 0;
}

bool has_control_chars(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (control_len(p))
            return true;
    return false;
}

char *printable(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_grow(&sb, 0);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (sb.len >= 200) {
            strbuf_addstr(&sb, "...");
            break;
        }
        size_t n = control_len(p);
        if (n == 0) {
            strbuf_addch(&sb, (char)*p);
            continue;
        }
        for (size_t i = 0; i < n; i++)
            strbuf_addf(&sb, "\\x%02x", p[i]);
        p += n - 1;
    }
    return strbuf_detach(&sb);
}

bool is_junk(const char *name)
{
    return !strcmp(name, "__MACOSX") || !strcmp(name, ".DS_Store") || !strcmp(name, ".git");
}

bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

size_t archive_suffix(const char *name)
{
    static const char *const suffixes[] = {".zip",  ".tar",    ".tar.gz", ".tgz", ".tar.bz2",
                                           ".tbz2", ".tar.xz", ".txz",    ".7z"};
    size_t n = strlen(name), best = 0;
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        size_t k = strlen(suffixes[i]);
        if (n > k && k > best && !strcasecmp(name + n - k, suffixes[i]))
            best = k;
    }
    return best;
}

/*
 * An id that is safe as one path component: bytes outside `keep` become '_'
 * (a whole UTF-8 sequence becomes one '_'), never empty, never hidden (so
 * never "." or "..").
 */
char *sanitize_id(const char *s, const char *extra)
{
    struct strbuf sb = STRBUF_INIT;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p == '.' || *p == '_' || *p == '-' || (extra && strchr(extra, *p))) {
            strbuf_addch(&sb, (char)*p);
            continue;
        }
        strbuf_addch(&sb, '_');
        if (*p >= 0xC0)
            while ((p[1] & 0xC0) == 0x80)
                p++;
    }
    if (sb.len == 0)
        strbuf_addch(&sb, '_');
    if (sb.buf[0] == '.')
        sb.buf[0] = '_';
    return strbuf_detach(&sb);
}

/* Latin letters U+00C0..U+017F without their accents, lower case. */
static const char *const latin_fold[192] = {
    "a", "a", "a",  "a",  "a", "a", "ae", "c",  "e",  "e", "e", "e", "i",  "i",  "i", "i", "d", "n",
    "o", "o", "o",  "o",  "o", "",  "o",  "u",  "u",  "u", "u", "y", "th", "ss", "a", "a", "a", "a",
    "a", "a", "ae", "c",  "e", "e", "e",  "e",  "i",  "i", "i", "i", "d",  "n",  "o", "o", "o", "o",
    "o", "",  "o",  "u",  "u", "u", "u",  "y",  "th", "y", "a", "a", "a",  "a",  "a", "a", "c", "c",
    "c", "c", "c",  "c",  "c", "c", "d",  "d",  "d",  "d", "e", "e", "e",  "e",  "e", "e", "e", "e",
    "e", "e", "g",  "g",  "g", "g", "g",  "g",  "g",  "g", "h", "h", "h",  "h",  "i", "i", "i", "i",
    "i", "i", "i",  "i",  "i", "i", "ij", "ij", "j",  "j", "k", "k", "k",  "l",  "l", "l", "l", "l",
    "l", "l", "l",  "l",  "l", "n", "n",  "n",  "n",  "n", "n", "n", "n",  "n",  "o", "o", "o", "o",
    "o", "o", "oe", "oe", "r", "r", "r",  "r",  "r",  "r", "s", "s", "s",  "s",  "s", "s", "s", "s",
    "t", "t", "t",  "t",  "t", "t", "u",  "u",  "u",  "u", "u", "u", "u",  "u",  "u", "u", "u", "u",
    "w", "w", "y",  "y",  "y", "z", "z",  "z",  "z",  "z", "z", "s",
};

/* A name reduced to what survives every LMS's mangling: [a-z0-9], accents folded. */
void name_key_add(struct strbuf *out, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) && *p < 0x80) {
            strbuf_addch(out, (char)tolower(*p));
        } else if (*p >= 0xC3 && *p <= 0xC5 && (p[1] & 0xC0) == 0x80) {
            unsigned cp = ((unsigned)(*p & 0x1F) << 6) | (p[1] & 0x3F);
            if (cp >= 0xC0 && cp < 0x180)
                strbuf_addstr(out, latin_fold[cp - 0xC0]);
            p++;
        }
    }
}

static bool is_safe_id(const char *s)
{
    if (!*s || *s == '.')
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!(isalnum(*p) && *p < 0x80) && *p != '.' && *p != '_' && *p != '-')
            return false;
    return true;
}

char *readable_id(const char *name)
{
    struct strbuf sb = STRBUF_INIT;
    bool dash = false; /* a separator seen since the last letter */
    if (is_safe_id(name))
        return xstrdup(name);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        const char *add = NULL;
        char one[2] = {0, 0};
        if (*p < 0x80 && (isalnum(*p) || *p == '.' || *p == '_')) {
            one[0] = (char)tolower(*p);
            add = one;
        } else if (*p >= 0xC3 && *p <= 0xC5 && (p[1] & 0xC0) == 0x80) {
            unsigned cp = ((unsigned)(*p & 0x1F) << 6) | (p[1] & 0x3F);
            p++;
            if (cp >= 0xC0 && cp < 0x180)
                add = latin_fold[cp - 0xC0];
        } else {
            while (*p >= 0xC0 && (p[1] & 0xC0) == 0x80)
                p++; /* one separator for a whole UTF-8 sequence */
        }
        if (!add || !*add) {
            dash = sb.len > 0;
            continue;
        }
        if (dash)
            strbuf_addch(&sb, '-');
        dash = false;
        strbuf_addstr(&sb, add);
    }
    if (sb.len == 0 || sb.buf[0] == '.') {
        strbuf_release(&sb);
        return sanitize_id(name, NULL);
    }
    return strbuf_detach(&sb);
}

char *name_key(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    name_key_add(&sb, s);
    return strbuf_detach(&sb);
}

/* "María Núñez" -> "marianunez", "nunezmaria": Canvas files say "nunezmaria". */
void name_rotations(const char *name, struct name_list *keys)
{
    struct name_list words = {0};
    char *copy = xstrdup(name), *save = NULL;
    for (char *w = strtok_r(copy, " \t,;", &save); w && words.n < MAX_ROSTER_WORDS;
         w = strtok_r(NULL, " \t,;", &save))
        name_list_add(&words, xstrdup(w));
    for (size_t r = 0; r < words.n; r++) {
        struct strbuf sb = STRBUF_INIT;
        for (size_t k = 0; k < words.n; k++)
            name_key_add(&sb, words.v[(r + k) % words.n]);
        if (sb.len)
            name_list_add(keys, strbuf_detach(&sb));
        else
            strbuf_release(&sb);
    }
    name_list_release(&words);
    free(copy);
}

#include "class/collect.h"

#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARKER ".labgrader-unpack"
#define STAGING "staging"
#define STUDENTS "students"
/* Inside a student's folder while it is flattened; a hidden name, so never a lone entry. */
#define SCRATCH ".labgrader-tmp"
#define MAX_FLATTEN 4
#define MAX_DEPTH 64 /* folders in an archive entry's path */
#define MAX_ROSTER_WORDS 8

void submission_set_init(struct submission_set *s)
{
    memset(s, 0, sizeof(*s));
}

void submission_set_release(struct submission_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].id);
        free(s->items[i].name);
        free(s->items[i].dir);
    }
    free(s->items);
    for (size_t i = 0; i < s->n_warnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    memset(s, 0, sizeof(*s));
}

void collect_limits_init(struct collect_limits *l)
{
    l->max_total_bytes = 200LL << 20;
    l->max_file_bytes = 20LL << 20;
    l->max_files = 2000;
}

/* ---- small helpers ---- */

struct name_list {
    char **v;
    size_t n, alloc;
};

static void name_list_add(struct name_list *l, char *owned)
{
    ALLOC_GROW(l->v, l->n + 1, l->alloc);
    l->v[l->n++] = owned;
}

static void name_list_release(struct name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof(*l));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void add_warning(struct submission_set *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void add_warning(struct submission_set *s, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    s->warnings = xrealloc(s->warnings, (s->n_warnings + 1) * sizeof(*s->warnings));
    s->warnings[s->n_warnings++] = strbuf_detach(&sb);
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

static bool has_control_chars(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (control_len(p))
            return true;
    return false;
}

/* A name as it may be shown in a message: control characters as \xNN, at most ~200 bytes. */
static char *printable(const char *s)
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

static bool is_junk(const char *name)
{
    return !strcmp(name, "__MACOSX") || !strcmp(name, ".DS_Store") || !strcmp(name, ".git");
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Length of the archive suffix of name (".zip", ".tar.gz", ...), 0 if none. */
static size_t archive_suffix(const char *name)
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
static char *sanitize_id(const char *s, const char *extra)
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

/* ---- LMS file names ---- */

/* Moodle: "Full Name_12345_assignsubmission_file_" (a folder, rest "") or
 * "Full Name_12345_assignsubmission_file_x.c" (flat download, rest "x.c"). */
static bool parse_moodle(const char *s, char **name, char **id, char **rest)
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
static bool parse_canvas(const char *s, char **name, char **id, char **target, long *resub,
                         long *fileid)
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

/* ---- budgets ---- */

struct budget {
    long long bytes;
    long files;
};

struct bucket {
    char *key;
    struct budget b;
};

/* What an archive being unpacked may still write. */
struct quota {
    const char *label;                /* the archive, as the user knows it */
    const struct collect_limits *lim; /* one submission's */
    struct budget *single;            /* a student's own archive: that student's budget */
    /* The class archive: one budget per top-level entry (a student), and the whole. */
    bool bucketed;
    const char *wrapper; /* a lone top-level folder holding everything, or NULL */
    struct bucket *buckets;
    size_t n_buckets, buckets_alloc;
    struct budget whole;
    struct collect_limits whole_lim;
};

static struct budget *bucket_for(struct quota *q, const char *key)
{
    for (size_t i = 0; i < q->n_buckets; i++)
        if (!strcmp(q->buckets[i].key, key))
            return &q->buckets[i].b;
    ALLOC_GROW(q->buckets, q->n_buckets + 1, q->buckets_alloc);
    struct bucket *b = &q->buckets[q->n_buckets++];
    b->key = xstrdup(key);
    memset(&b->b, 0, sizeof(b->b));
    return &b->b;
}

static int refuse(struct error *err, const char *where, const char *entry, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int refuse(struct error *err, const char *where, const char *entry, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (!entry)
        return error_set_at(err, where, 0, 0, "refused: %s", why);
    char *shown = printable(entry);
    error_set_at(err, where, 0, 0, "entry '%s' refused: %s", shown, why);
    free(shown);
    return -1;
}

static int charge_file(struct budget *b, const struct collect_limits *lim, const char *where,
                       const char *entry, const char *scope, struct error *err)
{
    if (b->files + 1 > lim->max_files)
        return refuse(err, where, entry, "%s holds more than %ld files", scope, lim->max_files);
    b->files++;
    return 0;
}

static int charge_bytes(struct budget *b, const struct collect_limits *lim, long long file_bytes,
                        long long add, const char *where, const char *entry, const char *scope,
                        struct error *err)
{
    if (file_bytes + add > lim->max_file_bytes)
        return refuse(err, where, entry, "larger than the limit of %lld bytes per file",
                      lim->max_file_bytes);
    if (b->bytes + add > lim->max_total_bytes)
        return refuse(err, where, entry, "%s exceeds the limit of %lld bytes in total", scope,
                      lim->max_total_bytes);
    b->bytes += add;
    return 0;
}

/* ---- safe directory work (everything relative to directory fds, no symlinks followed) ---- */

static int open_dir_at(int dirfd, const char *name)
{
    return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* mkdir if needed, then open it; refuses a symlink or a file in the way. */
static int make_dir_at(int dirfd, const char *name)
{
    if (mkdirat(dirfd, name, 0755) != 0 && errno != EEXIST)
        return -1;
    return open_dir_at(dirfd, name);
}

static int list_dir(int dirfd, const char *label, struct name_list *out, struct error *err)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return error_set_at(err, label, 0, 0, "cannot open folder: %s", strerror(errno));
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return error_set_at(err, label, 0, 0, "cannot open folder: %s", strerror(e));
    }
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            name_list_add(out, xstrdup(de->d_name));
    closedir(d);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof(*out->v), cmp_str);
    return 0;
}

/* Bytes of the regular files below dirfd, and its files and folders. */
static int measure_tree(int dirfd, const char *label, struct budget *b, struct error *err)
{
    struct name_list names = {0};
    int rc = list_dir(dirfd, label, &names, err);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        struct stat st;
        if (fstatat(dirfd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            b->files++;
            b->bytes += st.st_size;
        } else if (S_ISDIR(st.st_mode)) {
            int fd = open_dir_at(dirfd, names.v[i]);
            b->files++;
            if (fd < 0)
                continue;
            char *sub = path_join(label, names.v[i]);
            rc = measure_tree(fd, sub, b, err);
            free(sub);
            close(fd);
        }
    }
    name_list_release(&names);
    return rc;
}

/* ---- the collector ---- */

enum origin { ORIGIN_FOLDER, ORIGIN_MOODLE, ORIGIN_CANVAS, ORIGIN_ARCHIVE };

struct part {
    char *entry;  /* name at the top level of the source */
    char *target; /* a single file: its name in the student's folder; NULL: a folder */
    long resub, fileid;
    bool dropped;
};

struct student {
    char *id;     /* final id */
    char *raw_id; /* as found: LMS number or folder name */
    char *name;
    char *label; /* the first source entry, as the user knows it */
    enum origin origin;
    struct part *parts;
    size_t n_parts, parts_alloc;
    char *dir;
};

struct collector {
    const struct collect_limits *lim;
    struct submission_set *set;
    char *unpack;       /* absolute */
    char *students_dir; /* unpack/students, absolute */
    int root_fd;        /* where the students are listed */
    char *root_label;
    bool owned;       /* the root is our own unpacked copy: move, do not copy */
    dev_t unpack_dev; /* the unpack folder, should it lie inside a submitted folder */
    ino_t unpack_ino;
    struct student *st;
    size_t n_st, st_alloc;
};

static bool is_unpack_dir(const struct collector *c, const struct stat *st)
{
    return st->st_dev == c->unpack_dev && st->st_ino == c->unpack_ino;
}

static void student_release(struct student *s)
{
    free(s->id);
    free(s->raw_id);
    free(s->name);
    free(s->label);
    for (size_t i = 0; i < s->n_parts; i++) {
        free(s->parts[i].entry);
        free(s->parts[i].target);
    }
    free(s->parts);
    free(s->dir);
}

/* ---- unpacking archives ---- */

/*
 * libarchive converts UTF-8 entry names to the current locale's charset and
 * fails (no name at all) in the "C" locale the grader runs in. A UTF-8 locale
 * for this thread only, while reading, keeps the names.
 */
struct utf8_scope {
    locale_t loc, old;
};

static void utf8_scope_enter(struct utf8_scope *u)
{
    u->loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (!u->loc)
        u->loc = newlocale(LC_CTYPE_MASK, "en_US.UTF-8", (locale_t)0);
    u->old = u->loc ? uselocale(u->loc) : (locale_t)0;
}

static void utf8_scope_leave(struct utf8_scope *u)
{
    if (u->loc) {
        uselocale(u->old);
        freelocale(u->loc);
    }
}

static struct archive *archive_open(const char *path, const char *label, struct error *err)
{
    struct archive *a = archive_read_new();
    if (!a)
        die_oom();
    archive_read_support_format_zip(a);
    archive_read_support_format_tar(a);
    archive_read_support_format_gnutar(a);
    archive_read_support_format_7zip(a);
    /* Built-in decompressors only: _all would also run external programs. */
    archive_read_support_filter_gzip(a);
    archive_read_support_filter_bzip2(a);
    archive_read_support_filter_xz(a);
    if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
        error_set_at(err, label, 0, 0, "cannot read as an archive: %s",
                     archive_error_string(a) ? archive_error_string(a) : "unknown error");
        archive_read_free(a);
        return NULL;
    }
    return a;
}

static const char *entry_name(struct archive_entry *e)
{
    const char *s = archive_entry_pathname(e);
    return s ? s : archive_entry_pathname_utf8(e);
}

/*
 * Split an entry name (modified in place) into its components, or say why the
 * entry is refused. Backslashes count as separators: "..\\x" is as dangerous
 * to a Windows user's unzip as "../x" is here.
 */
static const char *entry_components(char *name, struct name_list *comps)
{
    for (char *p = name; *p; p++)
        if (*p == '\\')
            *p = '/';
    if (has_control_chars(name))
        return "its name has control characters";
    if (name[0] == '/')
        return "it has an absolute path";
    if (isalpha((unsigned char)name[0]) && name[1] == ':')
        return "it has an absolute path (drive letter)";
    char *save = NULL;
    for (char *t = strtok_r(name, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
        if (!strcmp(t, "."))
            continue;
        if (!strcmp(t, ".."))
            return "its path has a '..' component";
        name_list_add(comps, xstrdup(t));
    }
    return NULL;
}

/* The student a top-level file of a class archive belongs to. */
static char *flat_key(const char *name)
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

static bool looks_moodle(const char *name)
{
    char *a, *b, *c;
    if (!parse_moodle(name, &a, &b, &c))
        return false;
    free(a);
    free(b);
    free(c);
    return true;
}

static bool looks_canvas(const char *name)
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

/*
 * First pass over the class archive, headers only: is everything inside one
 * top-level folder (someone zipped the folder of submissions)? Then that
 * folder is the root, and the students are one level down. A lone folder with
 * plain files right inside is one student's, not a wrapper.
 */
static int survey_wrapper(const char *path, const char *label, long max_entries, char **wrapper,
                          struct error *err)
{
    struct utf8_scope u;
    struct name_list tops = {0};
    bool top_is_file = false; /* or a plain file right inside the top folder */
    long count = 0;
    *wrapper = NULL;
    utf8_scope_enter(&u);
    struct archive *a = archive_open(path, label, err);
    if (!a) {
        utf8_scope_leave(&u);
        return -1;
    }
    struct archive_entry *e;
    while (archive_read_next_header(a, &e) >= ARCHIVE_WARN && ++count <= max_entries) {
        const char *raw = entry_name(e);
        if (!raw)
            continue;
        char *name = xstrdup(raw);
        struct name_list comps = {0};
        if (!entry_components(name, &comps) && comps.n > 0 && comps.v[0][0] != '.' &&
            !is_junk(comps.v[0])) {
            bool dir = comps.n > 1 || archive_entry_filetype(e) == AE_IFDIR;
            bool seen = false;
            for (size_t i = 0; i < tops.n && !seen; i++)
                seen = !strcmp(tops.v[i], comps.v[0]);
            if (!seen)
                name_list_add(&tops, xstrdup(comps.v[0]));
            if (!dir)
                top_is_file = true;
            if (comps.n == 2 && archive_entry_filetype(e) != AE_IFDIR && comps.v[1][0] != '.' &&
                !is_junk(comps.v[1]) && !looks_moodle(comps.v[1]) && !looks_canvas(comps.v[1]) &&
                !archive_suffix(comps.v[1]))
                top_is_file = true; /* a student's own file: the folder is a student */
        }
        name_list_release(&comps);
        free(name);
        if (tops.n > 1)
            break;
    }
    archive_read_free(a);
    utf8_scope_leave(&u);
    if (tops.n == 1 && !top_is_file && !looks_moodle(tops.v[0]))
        *wrapper = xstrdup(tops.v[0]);
    name_list_release(&tops);
    return 0;
}

static int extract_data(struct archive *a, int fd, struct quota *q, struct budget *b,
                        const char *entry, struct error *err)
{
    char buf[65536];
    long long written = 0;
    for (;;) {
        la_ssize_t n = archive_read_data(a, buf, sizeof(buf));
        if (n == 0)
            return 0;
        if (n < 0)
            return refuse(err, q->label, entry, "cannot be read: %s",
                          archive_error_string(a) ? archive_error_string(a) : "unknown error");
        /* Bytes are charged as they come out of the decompressor: sizes in headers lie. */
        if (charge_bytes(b, q->lim, written, n, q->label, entry, "the submission", err) != 0)
            return -1;
        if (q->bucketed &&
            charge_bytes(&q->whole, &q->whole_lim, 0, n, q->label, entry, "the archive", err) != 0)
            return -1;
        written += n;
        for (const char *p = buf; n > 0;) {
            ssize_t w = write(fd, p, (size_t)n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return refuse(err, q->label, entry, "cannot be written: %s", strerror(errno));
            p += w;
            n -= w;
        }
    }
}

static int extract_entry(struct archive *a, struct archive_entry *e, const char *raw, int dest_fd,
                         struct quota *q, struct error *err)
{
    char *name = xstrdup(raw);
    struct name_list comps = {0};
    int rc = -1, dirfd = -1;
    const char *why = entry_components(name, &comps);
    mode_t type = archive_entry_filetype(e);

    if (why) {
        refuse(err, q->label, raw, "%s", why);
        goto out;
    }
    for (size_t i = 0; i < comps.n; i++)
        if (is_junk(comps.v[i])) {
            rc = 0; /* Finder and git leftovers: not part of anyone's work */
            goto out;
        }
    if (archive_entry_hardlink(e)) {
        refuse(err, q->label, raw, "it is a hard link");
        goto out;
    }
    if (type == AE_IFLNK) {
        refuse(err, q->label, raw, "it is a symbolic link");
        goto out;
    }
    /* Some zip writers record no file type at all: such an entry is a plain file. */
    if (type != 0 && type != AE_IFREG && type != AE_IFDIR) {
        refuse(err, q->label, raw, "it is a device, FIFO or socket");
        goto out;
    }
    if (comps.n == 0) {
        if (type == AE_IFDIR) {
            rc = 0;
            goto out;
        }
        refuse(err, q->label, raw, "it has no file name");
        goto out;
    }

    struct budget *b = q->single;
    if (q->bucketed) {
        size_t top = q->wrapper && !strcmp(comps.v[0], q->wrapper) ? 1 : 0;
        if (comps.n <= top) {
            rc = 0; /* the wrapper folder itself */
            goto out;
        }
        char *key = comps.n > top + 1 ? xstrdup(comps.v[top]) : flat_key(comps.v[top]);
        b = bucket_for(q, key);
        free(key);
    }

    if (comps.n > MAX_DEPTH) {
        refuse(err, q->label, raw, "its path is more than %d folders deep", MAX_DEPTH);
        goto out;
    }
    /* Folders count as files: a million empty folders fill a disk's inodes too. */
    if (charge_file(b, q->lim, q->label, raw, "the submission", err) != 0)
        goto out;
    if (q->bucketed &&
        charge_file(&q->whole, &q->whole_lim, q->label, raw, "the archive", err) != 0)
        goto out;

    size_t n_dirs = type == AE_IFDIR ? comps.n : comps.n - 1;
    dirfd = dup(dest_fd);
    if (dirfd < 0) {
        refuse(err, q->label, raw, "%s", strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < n_dirs; i++) {
        int next = make_dir_at(dirfd, comps.v[i]);
        if (next < 0) {
            refuse(err, q->label, raw, "cannot create folder '%s': %s", comps.v[i],
                   strerror(errno));
            goto out;
        }
        close(dirfd);
        dirfd = next;
    }
    if (type == AE_IFDIR) {
        rc = 0;
        goto out;
    }

    const char *file = comps.v[comps.n - 1];
    int fd = openat(dirfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST)
            refuse(err, q->label, raw, "another entry of the same name was already unpacked");
        else
            refuse(err, q->label, raw, "cannot create: %s", strerror(errno));
        goto out;
    }
    rc = extract_data(a, fd, q, b, raw, err);
    if (close(fd) != 0 && rc == 0)
        rc = refuse(err, q->label, raw, "cannot be written: %s", strerror(errno));
    if (rc != 0)
        unlinkat(dirfd, file, 0);
out:
    if (dirfd >= 0)
        close(dirfd);
    name_list_release(&comps);
    free(name);
    return rc;
}

/*
 * Unpack the archive at path into dest_fd, refusing anything unsafe (see
 * collect.h). -2: not an archive libarchive can open at all (nothing written).
 */
static int extract_archive(const char *path, int dest_fd, struct quota *q, struct error *err)
{
    struct utf8_scope u;
    int rc = 0;
    long index = 0;
    utf8_scope_enter(&u);
    struct archive *a = archive_open(path, q->label, err);
    if (!a) {
        utf8_scope_leave(&u);
        return -2;
    }
    for (;;) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        index++;
        if (r < ARCHIVE_WARN) {
            rc = error_set_at(err, q->label, 0, 0, "cannot read entry %ld: %s", index,
                              archive_error_string(a) ? archive_error_string(a) : "unknown error");
            break;
        }
        const char *raw = entry_name(e);
        if (!raw) {
            rc = error_set_at(err, q->label, 0, 0,
                              "entry %ld refused: its name is not valid UTF-8 text", index);
            break;
        }
        char *copy = xstrdup(raw); /* the entry owns raw; keep it for messages */
        rc = extract_entry(a, e, copy, dest_fd, q, err);
        free(copy);
        if (rc != 0)
            break;
    }
    archive_read_free(a);
    utf8_scope_leave(&u);
    return rc;
}

/* ---- placing files ---- */

/* Copy one regular file, counting what is written against the student's budget. */
static int copy_limited(int src_dirfd, const char *src_name, int dst_dirfd, const char *dst_name,
                        const char *label, const struct collect_limits *lim, struct budget *b,
                        struct error *err)
{
    /* O_NONBLOCK: should a FIFO be swapped in after the check, the open must not hang. */
    int in = openat(src_dirfd, src_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (in < 0)
        return error_set_at(err, label, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(in);
        return refuse(err, label, NULL, "not a regular file");
    }
    if (charge_file(b, lim, label, NULL, "the submission", err) != 0) {
        close(in);
        return -1;
    }
    int out =
        openat(dst_dirfd, dst_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        return error_set_at(err, label, 0, 0, "cannot copy: %s", strerror(e));
    }
    char buf[65536];
    long long written = 0;
    int rc = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0) {
            rc = error_set_at(err, label, 0, 0, "cannot read: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (charge_bytes(b, lim, written, n, label, NULL, "the submission", err) != 0) {
            rc = -1;
            break;
        }
        written += n;
        for (char *p = buf; n > 0 && rc == 0;) {
            ssize_t w = write(out, p, (size_t)n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                rc = error_set_at(err, label, 0, 0, "cannot copy: %s", strerror(errno));
            else {
                p += w;
                n -= w;
            }
        }
        if (rc)
            break;
    }
    close(in);
    if (close(out) != 0 && rc == 0)
        rc = error_set_at(err, label, 0, 0, "cannot copy: %s", strerror(errno));
    if (rc != 0)
        unlinkat(dst_dirfd, dst_name, 0);
    return rc;
}

/* Copy a submitted folder (not ours: symbolic links and special files are skipped). */
static int copy_tree(struct collector *c, int src_fd, int dst_fd, const char *label,
                     struct budget *b, struct error *err)
{
    struct name_list names = {0};
    int rc = list_dir(src_fd, label, &names, err);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        const char *name = names.v[i];
        char *child = path_join(label, name);
        struct stat st;
        if (is_junk(name)) {
            free(child);
            continue;
        }
        if (has_control_chars(name)) {
            char *shown = printable(child);
            rc = error_set_at(err, shown, 0, 0, "refused: its name has control characters");
            free(shown);
        } else if (fstatat(src_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = error_set_at(err, child, 0, 0, "cannot read: %s", strerror(errno));
        } else if (S_ISLNK(st.st_mode)) {
            add_warning(c->set, "%s: symbolic link skipped (submissions may not hold links)",
                        child);
        } else if (S_ISDIR(st.st_mode) && is_unpack_dir(c, &st)) {
            /* never copy our own output into itself */
        } else if (S_ISDIR(st.st_mode)) {
            if (charge_file(b, c->lim, child, NULL, "the submission", err) != 0) {
                free(child);
                rc = -1;
                break;
            }
            int s = open_dir_at(src_fd, name);
            int d = s < 0 ? -1 : make_dir_at(dst_fd, name);
            if (s < 0 || d < 0)
                rc = error_set_at(err, child, 0, 0, "cannot copy folder: %s", strerror(errno));
            else
                rc = copy_tree(c, s, d, child, b, err);
            if (s >= 0)
                close(s);
            if (d >= 0)
                close(d);
        } else if (S_ISREG(st.st_mode)) {
            rc = copy_limited(src_fd, name, dst_fd, name, child, c->lim, b, err);
        } else {
            add_warning(c->set, "%s: skipped (not a regular file or folder)", child);
        }
        free(child);
    }
    name_list_release(&names);
    return rc;
}

/* Move our own unpacked tree into dst, merging folders; a name already taken stays out. */
static int move_tree(struct collector *c, int src_fd, int dst_fd, const char *label,
                     struct error *err)
{
    struct name_list names = {0};
    int rc = list_dir(src_fd, label, &names, err);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        const char *name = names.v[i];
        char *child = path_join(label, name);
        struct stat ds, ss;
        if (fstatat(dst_fd, name, &ds, AT_SYMLINK_NOFOLLOW) != 0) {
            if (renameat(src_fd, name, dst_fd, name) != 0)
                rc = error_set_at(err, child, 0, 0, "cannot move: %s", strerror(errno));
        } else if (fstatat(src_fd, name, &ss, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(ss.st_mode) &&
                   S_ISDIR(ds.st_mode)) {
            int s = open_dir_at(src_fd, name), d = open_dir_at(dst_fd, name);
            if (s < 0 || d < 0)
                rc = error_set_at(err, child, 0, 0, "cannot open folder: %s", strerror(errno));
            else
                rc = move_tree(c, s, d, child, err);
            if (s >= 0)
                close(s);
            if (d >= 0)
                close(d);
        } else {
            add_warning(c->set, "%s: left out: a file of the same name is already there", child);
        }
        free(child);
    }
    name_list_release(&names);
    return rc;
}

/* ---- finding the students ---- */

static struct student *find_student(struct collector *c, const char *id)
{
    for (size_t i = 0; i < c->n_st; i++)
        if (!strcmp(c->st[i].id, id))
            return &c->st[i];
    return NULL;
}

static int duplicate_error(const char *id, const char *a, const char *b, struct error *err)
{
    char *sa = printable(a), *sb = printable(b);
    error_set(err, "two submissions map to student id '%s': '%s' and '%s'", id, sa, sb);
    free(sa);
    free(sb);
    return -1;
}

/*
 * The student an entry belongs to: a new one, or the one an LMS already gave
 * this id (Moodle's file and online-text folders; Canvas's files of one user).
 * Takes ownership of id, raw_id and name.
 */
static struct student *student_for(struct collector *c, enum origin origin, char *id, char *raw_id,
                                   char *name, const char *entry, struct error *err)
{
    char *label = path_join(c->root_label, entry);
    struct student *s = find_student(c, id);
    if (s) {
        if (s->origin == origin && (origin == ORIGIN_MOODLE || origin == ORIGIN_CANVAS)) {
            free(id);
            free(raw_id);
            free(name);
            free(label);
            return s;
        }
        duplicate_error(id, s->label, label, err);
        free(id);
        free(raw_id);
        free(name);
        free(label);
        return NULL;
    }
    ALLOC_GROW(c->st, c->n_st + 1, c->st_alloc);
    s = &c->st[c->n_st++];
    memset(s, 0, sizeof(*s));
    s->id = id;
    s->raw_id = raw_id;
    s->name = name;
    s->label = label;
    s->origin = origin;
    return s;
}

static void add_part(struct student *s, const char *entry, char *target, long resub, long fileid)
{
    ALLOC_GROW(s->parts, s->n_parts + 1, s->parts_alloc);
    struct part *p = &s->parts[s->n_parts++];
    p->entry = xstrdup(entry);
    p->target = target;
    p->resub = resub;
    p->fileid = fileid;
    p->dropped = false;
}

static bool valid_target(const char *t)
{
    return t[0] && t[0] != '.' && !strchr(t, '/') && !has_control_chars(t);
}

static int scan_entry(struct collector *c, const char *entry, struct error *err)
{
    struct stat st;
    char *label = path_join(c->root_label, entry);
    char *a = NULL, *b = NULL, *t = NULL;
    long resub = 0, fileid = 0;
    struct student *s;
    int rc = 0;

    if (has_control_chars(entry)) {
        char *shown = printable(label);
        rc = error_set_at(err, shown, 0, 0, "refused: its name has control characters");
        free(shown);
    } else if (fstatat(c->root_fd, entry, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        rc = error_set_at(err, label, 0, 0, "cannot read: %s", strerror(errno));
    } else if (S_ISLNK(st.st_mode)) {
        add_warning(c->set, "%s: symbolic link skipped (submissions may not hold links)", label);
    } else if (S_ISDIR(st.st_mode) && is_unpack_dir(c, &st)) {
        /* our own output, inside the submissions folder */
    } else if (S_ISDIR(st.st_mode)) {
        if (parse_moodle(entry, &a, &b, &t)) {
            free(t);
            s = student_for(c, ORIGIN_MOODLE, xstrdup(b), b, a, entry, err);
        } else {
            s = student_for(c, ORIGIN_FOLDER, sanitize_id(entry, NULL), xstrdup(entry),
                            xstrdup(entry), entry, err);
        }
        if (s)
            add_part(s, entry, NULL, 0, 0);
        else
            rc = -1;
    } else if (S_ISREG(st.st_mode)) {
        enum origin o;
        if (parse_moodle(entry, &a, &b, &t) && t[0]) {
            o = ORIGIN_MOODLE;
        } else {
            free(a);
            free(b);
            free(t);
            a = b = t = NULL;
            if (parse_canvas(entry, &a, &b, &t, &resub, &fileid)) {
                o = ORIGIN_CANVAS;
            } else if (archive_suffix(entry)) {
                o = ORIGIN_ARCHIVE;
                a = xstrndup(entry, strlen(entry) - archive_suffix(entry));
                b = xstrdup(a);
                t = xstrdup(entry);
            } else {
                add_warning(c->set, "%s: ignored (not a student's folder, archive or LMS file)",
                            label);
                free(label);
                return 0;
            }
        }
        if (!valid_target(t)) {
            add_warning(c->set, "%s: ignored (no usable file name in it)", label);
            free(a);
            free(b);
            free(t);
        } else {
            s = student_for(c, o, o == ORIGIN_ARCHIVE ? sanitize_id(b, NULL) : xstrdup(b), b, a,
                            entry, err);
            if (s)
                add_part(s, entry, t, resub, fileid);
            else {
                free(t);
                rc = -1;
            }
        }
    } else {
        add_warning(c->set, "%s: skipped (not a regular file or folder)", label);
    }
    free(label);
    return rc;
}

static int scan_root(struct collector *c, struct error *err)
{
    struct name_list names = {0};
    int rc = list_dir(c->root_fd, c->root_label, &names, err);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        if (names.v[i][0] == '.' || is_junk(names.v[i]))
            continue;
        rc = scan_entry(c, names.v[i], err);
    }
    name_list_release(&names);
    return rc;
}

/* Canvas keeps every upload: of the files that restore to one name, the newest stays. */
static void drop_older_resubmissions(struct collector *c, struct student *s)
{
    for (size_t i = 0; i < s->n_parts; i++)
        for (size_t j = 0; j < s->n_parts; j++) {
            struct part *p = &s->parts[i], *q = &s->parts[j];
            if (i == j || p->dropped || q->dropped || !p->target || !q->target ||
                strcmp(p->target, q->target))
                continue;
            bool p_newer = p->resub != q->resub ? p->resub > q->resub : p->fileid > q->fileid;
            struct part *old = p_newer ? q : p, *kept = p_newer ? p : q;
            old->dropped = true;
            add_warning(c->set, "%s/%s: left out: %s is a newer upload of %s", c->root_label,
                        old->entry, kept->entry, kept->target);
        }
}

/* ---- roster ---- */

struct roster_row {
    char *id, *name;
    struct name_list keys; /* the name's key in every word rotation */
};

struct roster {
    struct roster_row *rows;
    size_t n, alloc;
};

static void roster_release(struct roster *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->rows[i].id);
        free(r->rows[i].name);
        name_list_release(&r->rows[i].keys);
    }
    free(r->rows);
    memset(r, 0, sizeof(*r));
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
static void name_key_add(struct strbuf *out, const char *s)
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

static char *name_key(const char *s)
{
    struct strbuf sb = STRBUF_INIT;
    name_key_add(&sb, s);
    return strbuf_detach(&sb);
}

/* "María Núñez" -> "marianunez", "nunezmaria": Canvas files say "nunezmaria". */
static void name_rotations(const char *name, struct name_list *keys)
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

/* One CSV record (RFC 4180 quoting) from *pp; false at the end of the text. */
static bool csv_record(const char **pp, const char *end, char delim, struct name_list *fields)
{
    const char *p = *pp;
    if (p >= end)
        return false;
    for (;;) {
        struct strbuf f = STRBUF_INIT;
        if (p < end && *p == '"') {
            p++;
            while (p < end) {
                if (*p == '"' && p + 1 < end && p[1] == '"') {
                    strbuf_addch(&f, '"');
                    p += 2;
                } else if (*p == '"') {
                    p++;
                    break;
                } else {
                    strbuf_addch(&f, *p++);
                }
            }
        }
        while (p < end && *p != delim && *p != '\n' && *p != '\r')
            strbuf_addch(&f, *p++);
        name_list_add(fields, strbuf_detach(&f));
        if (p < end && *p == delim) {
            p++;
            continue;
        }
        if (p < end && *p == '\r')
            p++;
        if (p < end && *p == '\n')
            p++;
        break;
    }
    *pp = p;
    return true;
}

static void trim(char *s)
{
    size_t n = strlen(s), i = 0;
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    while (s[i] && isspace((unsigned char)s[i]))
        i++;
    memmove(s, s + i, n - i + 1);
}

static int find_column(const struct name_list *header, const char *const *names)
{
    for (size_t k = 0; names[k]; k++)
        for (size_t i = 0; i < header->n; i++)
            if (!strcasecmp(header->v[i], names[k]))
                return (int)i;
    return -1;
}

static char guess_delimiter(const char *p, const char *end)
{
    int commas = 0, semis = 0, tabs = 0;
    bool quoted = false;
    for (; p < end && (quoted || (*p != '\n' && *p != '\r')); p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (!quoted && *p == ',')
            commas++;
        else if (!quoted && *p == ';')
            semis++;
        else if (!quoted && *p == '\t')
            tabs++;
    }
    if (semis > commas && semis >= tabs)
        return ';';
    if (tabs > commas)
        return '\t';
    return ',';
}

static int roster_load(const char *path, struct roster *ro, struct error *err)
{
    static const char *const id_cols[] = {"student_id", "id",          "id number",
                                          "idnumber",   "sis user id", NULL};
    static const char *const name_cols[] = {"name", "full name", "fullname", "student", NULL};
    static const char *const first_cols[] = {"first name", "firstname", "given name", NULL};
    static const char *const last_cols[] = {"last name", "lastname", "surname", "family name",
                                            NULL};
    struct strbuf text = STRBUF_INIT;
    struct name_list header = {0}, fields = {0};
    int rc = -1;
    long line = 1;

    if (read_file(path, &text, err) != 0)
        return -1;
    const char *p = text.buf, *end = text.buf + text.len;
    if (text.len >= 3 && !memcmp(p, "\xEF\xBB\xBF", 3))
        p += 3;
    char delim = guess_delimiter(p, end);
    if (!csv_record(&p, end, delim, &header)) {
        error_set_at(err, path, 1, 0, "the roster is empty");
        goto out;
    }
    for (size_t i = 0; i < header.n; i++)
        trim(header.v[i]);
    int id_col = find_column(&header, id_cols);
    int name_col = find_column(&header, name_cols);
    int first_col = find_column(&header, first_cols), last_col = find_column(&header, last_cols);
    if (id_col < 0) {
        error_set_at(err, path, 1, 0,
                     "no id column in the header (one of: student_id, id, ID number, SIS User ID)");
        goto out;
    }
    if (name_col < 0 && (first_col < 0 || last_col < 0)) {
        error_set_at(err, path, 1, 0,
                     "no name column in the header (name, full name, student, or first name "
                     "and last name)");
        goto out;
    }
    while (csv_record(&p, end, delim, &fields)) {
        line++;
        for (size_t i = 0; i < fields.n; i++)
            trim(fields.v[i]);
        const char *id = (size_t)id_col < fields.n ? fields.v[id_col] : "";
        /* Blank lines, and Canvas's "Points Possible" row, have no id. */
        if (*id) {
            char *name;
            if (name_col >= 0)
                name = xstrdup((size_t)name_col < fields.n ? fields.v[name_col] : "");
            else
                name = xstrfmt("%s %s", (size_t)first_col < fields.n ? fields.v[first_col] : "",
                               (size_t)last_col < fields.n ? fields.v[last_col] : "");
            trim(name);
            for (size_t i = 0; i < ro->n; i++)
                if (!strcmp(ro->rows[i].id, id)) {
                    char *shown = printable(id);
                    error_set_at(err, path, (int)line, 0, "id '%s' appears twice", shown);
                    free(shown);
                    free(name);
                    goto out;
                }
            ALLOC_GROW(ro->rows, ro->n + 1, ro->alloc);
            struct roster_row *row = &ro->rows[ro->n++];
            memset(row, 0, sizeof(*row));
            row->id = xstrdup(id);
            row->name = name;
            name_rotations(name, &row->keys);
        }
        name_list_release(&fields);
    }
    rc = 0;
out:
    name_list_release(&fields);
    name_list_release(&header);
    strbuf_release(&text);
    return rc;
}

static const struct roster_row *roster_match(struct collector *c, const struct roster *ro,
                                             const struct student *s)
{
    for (size_t i = 0; i < ro->n; i++)
        if (!strcmp(ro->rows[i].id, s->raw_id) || !strcmp(ro->rows[i].id, s->id))
            return &ro->rows[i];
    char *key = name_key(s->name);
    const struct roster_row *found = NULL;
    size_t matches = 0;
    for (size_t i = 0; key[0] && i < ro->n; i++)
        for (size_t k = 0; k < ro->rows[i].keys.n; k++)
            if (!strcmp(ro->rows[i].keys.v[k], key)) {
                found = &ro->rows[i];
                matches++;
                break;
            }
    free(key);
    if (matches == 1)
        return found;
    if (matches > 1)
        add_warning(c->set, "%s: %zu roster entries have this name; kept as id '%s'", s->label,
                    matches, s->id);
    else
        add_warning(c->set, "%s: not in the roster; kept as id '%s'", s->label, s->id);
    return NULL;
}

/* ---- putting each student's files in place ---- */

static int place_parts(struct collector *c, struct student *s, int sfd, struct budget *b,
                       struct error *err)
{
    for (size_t i = 0; i < s->n_parts; i++) {
        struct part *p = &s->parts[i];
        char *label = path_join(c->root_label, p->entry);
        int rc = 0;
        if (p->dropped) {
            free(label);
            continue;
        }
        if (!p->target) {
            int src = open_dir_at(c->root_fd, p->entry);
            if (src < 0)
                rc = error_set_at(err, label, 0, 0, "cannot open folder: %s", strerror(errno));
            else if (c->owned)
                rc = move_tree(c, src, sfd, label, err);
            else
                rc = copy_tree(c, src, sfd, label, b, err);
            if (src >= 0)
                close(src);
        } else {
            struct stat st;
            if (fstatat(sfd, p->target, &st, AT_SYMLINK_NOFOLLOW) == 0)
                add_warning(c->set, "%s: left out: %s is already there", label, p->target);
            else if (c->owned) {
                if (renameat(c->root_fd, p->entry, sfd, p->target) != 0)
                    rc = error_set_at(err, label, 0, 0, "cannot move: %s", strerror(errno));
            } else {
                rc = copy_limited(c->root_fd, p->entry, sfd, p->target, label, c->lim, b, err);
            }
        }
        free(label);
        if (rc != 0)
            return -1;
    }
    return 0;
}

static bool ignorable_for_flatten(const char *name)
{
    /* Moodle adds onlinetext.html next to the files when both plugins are on. */
    return name[0] == '.' || is_junk(name) || !strcmp(name, "onlinetext.html");
}

/* A lone archive is unpacked, a lone folder lifted up: what students hand in wrapped. */
static int flatten(struct collector *c, struct student *s, int sfd, const char *sdir,
                   struct budget *b, struct error *err)
{
    char *label = xstrdup(s->label);
    char *scratch = path_join(sdir, SCRATCH);
    int rc = 0;
    for (int depth = 0; rc == 0 && depth < MAX_FLATTEN; depth++) {
        struct name_list names = {0};
        const char *only = NULL;
        size_t count = 0;
        struct stat st;
        if (list_dir(sfd, label, &names, err) != 0) {
            rc = -1;
            break;
        }
        for (size_t i = 0; i < names.n; i++)
            if (!ignorable_for_flatten(names.v[i])) {
                only = names.v[i];
                count++;
            }
        bool is_dir = false, is_archive = false;
        if (count == 1 && fstatat(sfd, only, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            is_dir = S_ISDIR(st.st_mode);
            is_archive = S_ISREG(st.st_mode) && archive_suffix(only);
        }
        if (!is_dir && !is_archive) {
            name_list_release(&names);
            break;
        }
        char *inner = path_join(label, only);
        if (remove_tree(scratch, err) != 0) {
            rc = -1;
        } else if (is_dir) {
            if (renameat(sfd, only, sfd, SCRATCH) != 0)
                rc = error_set_at(err, inner, 0, 0, "cannot move: %s", strerror(errno));
        } else {
            char *archive = path_join(sdir, only);
            int tfd = make_dir_at(sfd, SCRATCH);
            struct error xerr;
            struct quota q;
            memset(&q, 0, sizeof(q));
            q.label = inner;
            q.lim = c->lim;
            q.single = b;
            if (tfd < 0)
                rc = error_set_at(err, scratch, 0, 0, "cannot create: %s", strerror(errno));
            else {
                error_init(&xerr);
                rc = extract_archive(archive, tfd, &q, &xerr);
                if (rc == -1 && err)
                    *err = xerr;
            }
            if (tfd >= 0)
                close(tfd);
            if (rc == -2) {
                /* A damaged or unknown archive is the student's problem, not the class's:
                 * it stays as handed in, and grading will find its sources missing. */
                char msg[2048];
                error_format(&xerr, msg, sizeof(msg));
                add_warning(c->set, "not unpacked: %s", msg);
                rc = remove_tree(scratch, err);
                free(archive);
                free(label);
                label = inner;
                name_list_release(&names);
                break;
            }
            if (rc == 0 && unlinkat(sfd, only, 0) != 0)
                rc = error_set_at(err, archive, 0, 0, "cannot remove: %s", strerror(errno));
            free(archive);
        }
        if (rc == 0) {
            int tfd = open_dir_at(sfd, SCRATCH);
            if (tfd < 0)
                rc = error_set_at(err, scratch, 0, 0, "cannot open: %s", strerror(errno));
            else {
                rc = move_tree(c, tfd, sfd, inner, err);
                close(tfd);
            }
            if (rc == 0)
                rc = remove_tree(scratch, err);
        }
        free(label);
        label = inner;
        name_list_release(&names);
    }
    free(scratch);
    free(label);
    return rc;
}

static int materialize(struct collector *c, int students_fd, struct student *s, struct error *err)
{
    struct budget b = {0, 0};
    int rc = -1;
    if (mkdirat(students_fd, s->id, 0755) != 0)
        return error_set_at(err, c->students_dir, 0, 0, "cannot create folder %s: %s", s->id,
                            strerror(errno));
    int sfd = open_dir_at(students_fd, s->id);
    if (sfd < 0)
        return error_set_at(err, c->students_dir, 0, 0, "cannot open folder %s: %s", s->id,
                            strerror(errno));
    s->dir = path_join(c->students_dir, s->id);
    if (place_parts(c, s, sfd, &b, err) != 0)
        goto out;
    if (c->owned) {
        /* Unpacked per top-level entry; a student may have had several (Moodle, Canvas). */
        memset(&b, 0, sizeof(b));
        if (measure_tree(sfd, s->dir, &b, err) != 0)
            goto out;
        if (b.files > c->lim->max_files) {
            rc = refuse(err, s->label, NULL, "the submission holds more than %ld files",
                        c->lim->max_files);
            goto out;
        }
        if (b.bytes > c->lim->max_total_bytes) {
            rc = refuse(err, s->label, NULL,
                        "the submission exceeds the limit of %lld bytes in total",
                        c->lim->max_total_bytes);
            goto out;
        }
    }
    rc = flatten(c, s, sfd, s->dir, &b, err);
out:
    close(sfd);
    return rc;
}

/* ---- the unpack folder ---- */

static bool path_within(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    return !strncmp(inner, outer, n) && (inner[n] == '/' || inner[n] == '\0' || n == 1);
}

/* Make it ours and empty: new, empty, or marked by an earlier run. */
static int prepare_unpack(const char *dir, int *fd_out, char **abs_out, struct error *err)
{
    struct name_list names = {0};
    bool marked = false;
    int rc = -1, fd = -1;
    char *abs = NULL;
    if (mkdir_p(dir, err) != 0)
        return -1;
    if (!(abs = path_abs(dir, err)))
        return -1;
    fd = open(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        error_set_at(err, abs, 0, 0, "cannot open: %s", strerror(errno));
        goto out;
    }
    if (list_dir(fd, abs, &names, err) != 0)
        goto out;
    for (size_t i = 0; i < names.n; i++)
        marked |= !strcmp(names.v[i], MARKER);
    if (names.n > 0 && !marked) {
        error_set_at(err, abs, 0, 0,
                     "not empty, and not a folder an earlier collection made; give a new or "
                     "empty folder to unpack submissions into");
        goto out;
    }
    for (size_t i = 0; i < names.n; i++) {
        if (!strcmp(names.v[i], MARKER))
            continue;
        char *p = path_join(abs, names.v[i]);
        int r = remove_tree(p, err);
        free(p);
        if (r != 0)
            goto out;
    }
    if (!marked) {
        int m = openat(fd, MARKER, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (m < 0) {
            error_set_at(err, abs, 0, 0, "cannot mark as ours: %s", strerror(errno));
            goto out;
        }
        static const char note[] = "labgrader unpacks submissions here; it empties this folder "
                                   "on every collection.\n";
        ssize_t w = write(m, note, sizeof(note) - 1);
        close(m);
        if (w != (ssize_t)(sizeof(note) - 1)) {
            error_set_at(err, abs, 0, 0, "cannot mark as ours");
            goto out;
        }
    }
    rc = 0;
out:
    name_list_release(&names);
    if (rc == 0) {
        *fd_out = fd;
        *abs_out = abs;
    } else {
        if (fd >= 0)
            close(fd);
        free(abs);
    }
    return rc;
}

static int cmp_student(const void *a, const void *b)
{
    return strcmp(((const struct student *)a)->id, ((const struct student *)b)->id);
}

static bool limits_valid(const struct collect_limits *l)
{
    return l->max_total_bytes > 0 && l->max_file_bytes > 0 && l->max_files > 0;
}

static int unpack_class_archive(struct collector *c, const char *src, int unpack_fd,
                                int *staging_fd, struct error *err)
{
    struct quota q;
    char *wrapper = NULL;
    int rc = -1;
    memset(&q, 0, sizeof(q));
    q.label = src;
    q.lim = c->lim;
    q.bucketed = true;
    q.whole_lim.max_total_bytes = c->lim->max_total_bytes * COLLECT_CLASS_FACTOR;
    q.whole_lim.max_file_bytes = c->lim->max_file_bytes;
    q.whole_lim.max_files = c->lim->max_files * COLLECT_CLASS_FACTOR;
    *staging_fd = make_dir_at(unpack_fd, STAGING);
    if (*staging_fd < 0)
        return error_set_at(err, c->unpack, 0, 0, "cannot create %s: %s", STAGING, strerror(errno));
    if (survey_wrapper(src, src, q.whole_lim.max_files + 16, &wrapper, err) != 0)
        goto out;
    q.wrapper = wrapper;
    if (extract_archive(src, *staging_fd, &q, err) != 0)
        goto out;
    if (wrapper) {
        c->root_fd = open_dir_at(*staging_fd, wrapper);
        c->root_label = path_join(src, wrapper);
    } else {
        c->root_fd = dup(*staging_fd);
        c->root_label = xstrdup(src);
    }
    if (c->root_fd < 0) {
        error_set_at(err, src, 0, 0, "cannot open what was unpacked: %s", strerror(errno));
        goto out;
    }
    c->owned = true;
    rc = 0;
out:
    for (size_t i = 0; i < q.n_buckets; i++)
        free(q.buckets[i].key);
    free(q.buckets);
    free(wrapper);
    return rc;
}

int collect_submissions(const char *src, const char *unpack_dir, const char *roster,
                        const struct collect_limits *lim, struct submission_set *out,
                        struct error *err)
{
    struct collect_limits defaults;
    struct collector c;
    struct roster ro;
    struct stat st;
    char *src_abs = NULL;
    int unpack_fd = -1, staging_fd = -1, students_fd = -1, rc = -1;

    memset(&c, 0, sizeof(c));
    memset(&ro, 0, sizeof(ro));
    c.root_fd = -1;
    if (!lim) {
        collect_limits_init(&defaults);
        lim = &defaults;
    }
    if (!src || !unpack_dir)
        return error_set(err, "collect: a source and an unpack folder are needed");
    if (!limits_valid(lim))
        return error_set(err, "collect: limits must be positive");
    c.lim = lim;
    c.set = out;
    if (stat(src, &st) != 0)
        return error_set_at(err, src, 0, 0, "cannot read: %s", strerror(errno));
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
        return error_set_at(err, src, 0, 0, "neither a folder nor an archive");
    if (!(src_abs = path_abs(src, err)))
        return -1;
    {
        /* Emptying the unpack folder must never touch the source. (The other way round,
         * an unpack folder inside the source, is skipped while scanning.) */
        char *u = realpath(unpack_dir, NULL);
        bool clash = u && path_within(src_abs, u);
        free(u);
        if (clash) {
            error_set_at(err, unpack_dir, 0, 0,
                         "the submissions are inside the unpack folder, which is emptied "
                         "first; give another unpack folder");
            goto out;
        }
    }
    if (roster && roster_load(roster, &ro, err) != 0)
        goto out;
    if (prepare_unpack(unpack_dir, &unpack_fd, &c.unpack, err) != 0)
        goto out;
    {
        struct stat us;
        if (fstat(unpack_fd, &us) != 0) {
            error_set_at(err, c.unpack, 0, 0, "cannot read: %s", strerror(errno));
            goto out;
        }
        c.unpack_dev = us.st_dev;
        c.unpack_ino = us.st_ino;
    }

    if (S_ISDIR(st.st_mode)) {
        c.root_fd = open(src_abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        c.root_label = xstrdup(src);
        if (c.root_fd < 0) {
            error_set_at(err, src, 0, 0, "cannot open: %s", strerror(errno));
            goto out;
        }
    } else if (unpack_class_archive(&c, src, unpack_fd, &staging_fd, err) != 0) {
        goto out;
    }

    if (scan_root(&c, err) != 0)
        goto out;
    for (size_t i = 0; i < c.n_st; i++) {
        struct student *s = &c.st[i];
        if (s->origin == ORIGIN_CANVAS)
            drop_older_resubmissions(&c, s);
        if (ro.n == 0)
            continue;
        const struct roster_row *row = roster_match(&c, &ro, s);
        if (row) {
            free(s->id);
            s->id = sanitize_id(row->id, "@");
            /* A roster row without a name leaves the submission's own (found by fuzzing). */
            if (row->name[0]) {
                free(s->name);
                s->name = xstrdup(row->name);
            }
        }
    }
    if (c.n_st > 1)
        qsort(c.st, c.n_st, sizeof(*c.st), cmp_student);
    for (size_t i = 1; i < c.n_st; i++)
        if (!strcmp(c.st[i - 1].id, c.st[i].id)) {
            duplicate_error(c.st[i].id, c.st[i - 1].label, c.st[i].label, err);
            goto out;
        }

    c.students_dir = path_join(c.unpack, STUDENTS);
    students_fd = make_dir_at(unpack_fd, STUDENTS);
    if (students_fd < 0) {
        error_set_at(err, c.students_dir, 0, 0, "cannot create: %s", strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < c.n_st; i++)
        if (materialize(&c, students_fd, &c.st[i], err) != 0)
            goto out;
    if (staging_fd >= 0) {
        /* What no student claimed (stray files) goes with it. */
        char *staging = path_join(c.unpack, STAGING);
        int r = remove_tree(staging, err);
        free(staging);
        if (r != 0)
            goto out;
    }
    for (size_t i = 0; i < c.n_st; i++) {
        struct student *s = &c.st[i];
        ALLOC_GROW(out->items, out->n + 1, out->alloc);
        struct submission *sub = &out->items[out->n++];
        sub->id = s->id;
        sub->name = s->name;
        sub->dir = s->dir;
        s->id = s->name = s->dir = NULL;
    }
    rc = 0;
out:
    for (size_t i = 0; i < c.n_st; i++)
        student_release(&c.st[i]);
    free(c.st);
    if (c.root_fd >= 0)
        close(c.root_fd);
    if (students_fd >= 0)
        close(students_fd);
    if (staging_fd >= 0)
        close(staging_fd);
    if (unpack_fd >= 0)
        close(unpack_fd);
    free(c.root_label);
    free(c.unpack);
    free(c.students_dir);
    free(src_abs);
    roster_release(&ro);
    return rc;
}

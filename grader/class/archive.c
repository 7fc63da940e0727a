#include "class/archive.h"

#include "base/alloc.h"
#include "class/lms_layout.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void quota_release(struct quota *q)
{
    for (size_t i = 0; i < q->n_buckets; i++)
        free(q->buckets[i].key);
    free(q->buckets);
    q->buckets = NULL;
    q->n_buckets = q->buckets_alloc = 0;
}

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

/*
 * First pass over the class archive, headers only: is everything inside one
 * top-level folder (someone zipped the folder of submissions)? Then that
 * folder is the root, and the students are one level down. A lone folder with
 * plain files right inside is one student's, not a wrapper.
 */
int survey_wrapper(const char *path, const char *label, long max_entries, char **wrapper,
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
            return budget_refuse(
                b, SUBMISSION_BAD_ENTRY, 0, err, q->label, entry, "cannot be read: %s",
                archive_error_string(a) ? archive_error_string(a) : "unknown error");
        /* Bytes are charged as they come out of the decompressor: sizes in headers lie. */
        int rc = charge_bytes(b, q->lim, written, n, q->label, entry, "the submission", err);
        if (rc == 0 && q->bucketed)
            rc = charge_bytes(&q->whole, &q->whole_lim, 0, n, q->label, entry, "the archive", err);
        if (rc != 0)
            return rc;
        written += n;
        for (const char *p = buf; n > 0;) {
            ssize_t w = write(fd, p, (size_t)n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return error_set_at(err, q->label, 0, 0, "%s: cannot be written: %s", entry,
                                    strerror(errno));
            p += w;
            n -= w;
        }
    }
}

/*
 * Why the entry named raw (split into comps) may not be unpacked, or NULL. *skip:
 * nothing to unpack, and nothing wrong (Finder and git leftovers, the root folder).
 */
static const char *entry_refusal(struct archive_entry *e, const char *why,
                                 const struct name_list *comps, bool *skip)
{
    mode_t type = archive_entry_filetype(e);
    *skip = false;
    if (why)
        return why;
    for (size_t i = 0; i < comps->n; i++)
        if (is_junk(comps->v[i])) {
            *skip = true; /* Finder and git leftovers: not part of anyone's work */
            return NULL;
        }
    if (archive_entry_hardlink(e))
        return "it is a hard link";
    if (type == AE_IFLNK)
        return "it is a symbolic link";
    /* Some zip writers record no file type at all: such an entry is a plain file. */
    if (type != 0 && type != AE_IFREG && type != AE_IFDIR)
        return "it is a device, FIFO or socket";
    if (comps->n == 0) {
        *skip = type == AE_IFDIR;
        return *skip ? NULL : "it has no file name";
    }
    return NULL;
}

/* The budget an entry is charged to; NULL for the wrapper folder itself (nothing to do). */
static struct budget *entry_budget(struct quota *q, const struct name_list *comps)
{
    if (!q->bucketed)
        return q->single;
    size_t top = q->wrapper && !strcmp(comps->v[0], q->wrapper) ? 1 : 0;
    if (comps->n <= top)
        return NULL;
    char *key = comps->n > top + 1 ? xstrdup(comps->v[top]) : lms_flat_key(comps->v[top]);
    struct budget *b = bucket_for(q, key);
    free(key);
    return b;
}

/* Create the entry's folders (and the entry, a file, with its data) below dest_fd. */
static int write_entry(struct archive *a, struct archive_entry *e, const struct name_list *comps,
                       const char *raw, int dest_fd, struct quota *q, struct budget *b,
                       struct error *err)
{
    bool is_dir = archive_entry_filetype(e) == AE_IFDIR;
    size_t n_dirs = is_dir ? comps->n : comps->n - 1;
    int rc = -1, dirfd = dup(dest_fd);
    if (dirfd < 0)
        return error_set_at(err, q->label, 0, 0, "%s", strerror(errno));
    for (size_t i = 0; i < n_dirs; i++) {
        int next = make_dir_at(dirfd, comps->v[i]);
        if (next < 0) {
            /* A file of that name came first: the archive's doing. */
            if (errno == ENOTDIR || errno == ELOOP || errno == EEXIST)
                rc = budget_refuse(b, SUBMISSION_BAD_ENTRY, 0, err, q->label, raw,
                                   "'%s' is both a file and a folder", comps->v[i]);
            else
                rc = refuse(err, q->label, raw, "cannot create folder '%s': %s", comps->v[i],
                            strerror(errno));
            close(dirfd);
            return rc;
        }
        close(dirfd);
        dirfd = next;
    }
    if (is_dir) {
        close(dirfd);
        return 0;
    }
    const char *file = comps->v[comps->n - 1];
    int fd = openat(dirfd, file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        if (errno == EEXIST || errno == ELOOP || errno == EISDIR)
            rc = budget_refuse(b, SUBMISSION_BAD_ENTRY, 0, err, q->label, raw,
                               "another entry of the same name was already unpacked");
        else
            rc = refuse(err, q->label, raw, "cannot create: %s", strerror(errno));
        close(dirfd);
        return rc;
    }
    rc = extract_data(a, fd, q, b, raw, err);
    if (rc == 0 && archive_entry_mtime_is_set(e)) {
        /* When the student last changed it: lateness may be judged from it. */
        struct timespec times[2] = {{archive_entry_mtime(e), 0}, {archive_entry_mtime(e), 0}};
        futimens(fd, times);
    }
    if (close(fd) != 0 && rc == 0)
        rc = refuse(err, q->label, raw, "cannot be written: %s", strerror(errno));
    if (rc != 0)
        unlinkat(dirfd, file, 0);
    close(dirfd);
    return rc;
}

/*
 * The budget of the student an entry of a class archive belongs to, from its raw name
 * alone (it may be refused): NULL when the name does not say (then the whole archive
 * is refused).
 */
static struct budget *raw_bucket(struct quota *q, const char *raw)
{
    struct name_list parts = {0};
    if (raw[0] == '/' || raw[0] == '\\' || (isalpha((unsigned char)raw[0]) && raw[1] == ':'))
        return NULL; /* an absolute path names nobody */
    char *copy = xstrdup(raw), *save = NULL;
    struct budget *b = NULL;
    for (char *t = strtok_r(copy, "/\\", &save); t; t = strtok_r(NULL, "/\\", &save))
        if (strcmp(t, "."))
            name_list_add(&parts, xstrdup(t));
    size_t top = q->wrapper && parts.n > 0 && !strcmp(parts.v[0], q->wrapper) ? 1 : 0;
    if (parts.n > top && strcmp(parts.v[top], "..")) {
        char *key = parts.n > top + 1 ? xstrdup(parts.v[top]) : lms_flat_key(parts.v[top]);
        if (!has_control_chars(key))
            b = bucket_for(q, key);
        free(key);
    }
    name_list_release(&parts);
    free(copy);
    return b;
}

static int extract_entry(struct archive *a, struct archive_entry *e, const char *raw, int dest_fd,
                         struct quota *q, struct error *err)
{
    char *name = xstrdup(raw);
    struct name_list comps = {0};
    bool skip;
    int rc = -1;
    const char *why = entry_refusal(e, entry_components(name, &comps), &comps, &skip);
    struct budget *b = NULL;

    if (why) {
        struct budget *rb = q->bucketed ? raw_bucket(q, raw) : q->single;
        rc = rb ? budget_refuse(rb, SUBMISSION_BAD_ENTRY, 0, err, q->label, raw, "%s", why)
                : refuse(err, q->label, raw, "%s", why);
        goto out;
    }
    /* Nothing more of a student already refused is written. */
    if (skip || !(b = entry_budget(q, &comps)) || b->problem != SUBMISSION_OK) {
        rc = 0;
        goto out;
    }
    if (comps.n > ARCHIVE_MAX_DEPTH) {
        rc = budget_refuse(b, SUBMISSION_TOO_DEEP, ARCHIVE_MAX_DEPTH, err, q->label, raw,
                           "its path is more than %d folders deep", ARCHIVE_MAX_DEPTH);
        goto out;
    }
    /* Folders count as files: a million empty folders fill a disk's inodes too. */
    if ((rc = charge_file(b, q->lim, q->label, raw, "the submission", err)) != 0)
        goto out;
    if (q->bucketed &&
        (rc = charge_file(&q->whole, &q->whole_lim, q->label, raw, "the archive", err)) != 0)
        goto out;
    rc = write_entry(a, e, &comps, raw, dest_fd, q, b, err);
out:
    name_list_release(&comps);
    free(name);
    return rc;
}

/* After one entry: go on (0), or stop with rc. A student refused in a class archive
 * costs only that student; the archive as a whole over its limits costs everyone. */
static int after_entry(const struct quota *q, int rc)
{
    if (rc == SAFE_REFUSED && q->bucketed)
        return q->whole.problem == SUBMISSION_OK ? 0 : -1;
    return rc;
}

int extract_archive(const char *path, int dest_fd, struct quota *q, struct error *err)
{
    struct utf8_scope u;
    int rc = 0;
    long index = 0;
    utf8_scope_enter(&u);
    struct archive *a = archive_open(path, q->label, err);
    if (!a) {
        utf8_scope_leave(&u);
        return ARCHIVE_UNREADABLE;
    }
    for (;;) {
        struct archive_entry *e;
        int r = archive_read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            break;
        index++;
        const char *why = r < ARCHIVE_WARN ? archive_error_string(a) : NULL;
        const char *raw = r < ARCHIVE_WARN ? NULL : entry_name(e);
        if (!raw) {
            /* A student's own damaged archive is that student's problem; a damaged class
             * archive cannot say whose entry it was. */
            error_set_at(err, q->label, 0, 0, "entry %ld cannot be read: %s", index,
                         why ? why : "its name is not valid UTF-8 text");
            rc = q->single ? budget_refuse(q->single, SUBMISSION_BAD_ENTRY, 0, err, q->label, NULL,
                                           "entry %ld cannot be read", index)
                           : -1;
            break;
        }
        char *copy = xstrdup(raw); /* the entry owns raw; keep it for messages */
        rc = after_entry(q, extract_entry(a, e, copy, dest_fd, q, err));
        free(copy);
        if (rc != 0)
            break;
    }
    archive_read_free(a);
    utf8_scope_leave(&u);
    return rc;
}

#include "class/collect.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "class/archive.h"
#include "class/lms_layout.h"
#include "class/names.h"
#include "class/roster.h"
#include "class/safedir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MARKER ".labgrader-unpack"
#define STAGING "staging"
#define STUDENTS "students"
/* Inside a student's folder while it is flattened; a hidden name, so never a lone entry. */
#define SCRATCH ".labgrader-tmp"
#define MAX_FLATTEN 4

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
    bool owned; /* the root is our own unpacked copy: move, do not copy */
    int unpack_fd, staging_fd, students_fd; /* -1 until opened */
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

/* The roster's row for a student: by id, else by name; a warning when none or several. */
static const struct roster_row *roster_match(struct collector *c, const struct roster *ro,
                                             const struct student *s)
{
    size_t matches;
    const struct roster_row *row = roster_find_id(ro, s->raw_id, s->id);
    if (row)
        return row;
    row = roster_find_name(ro, s->name, &matches);
    if (row)
        return row;
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
    quota_release(&q);
    free(wrapper);
    return rc;
}

/* src exists, is a folder or a file, and lies outside the unpack folder. */
static int check_source(const char *src, const char *unpack_dir, struct stat *st, char **src_abs,
                        struct error *err)
{
    if (stat(src, st) != 0)
        return error_set_at(err, src, 0, 0, "cannot read: %s", strerror(errno));
    if (!S_ISDIR(st->st_mode) && !S_ISREG(st->st_mode))
        return error_set_at(err, src, 0, 0, "neither a folder nor an archive");
    if (!(*src_abs = path_abs(src, err)))
        return -1;
    /* Emptying the unpack folder must never touch the source. (The other way round,
     * an unpack folder inside the source, is skipped while scanning.) */
    char *u = realpath(unpack_dir, NULL);
    bool clash = u && path_within(*src_abs, u);
    free(u);
    if (clash)
        return error_set_at(err, unpack_dir, 0, 0,
                            "the submissions are inside the unpack folder, which is emptied "
                            "first; give another unpack folder");
    return 0;
}

/* The unpack folder made ours and empty, and where the students are listed opened. */
static int open_root(struct collector *c, const char *src, const char *src_abs, bool is_dir,
                     const char *unpack_dir, struct error *err)
{
    struct stat us;
    if (prepare_unpack(unpack_dir, &c->unpack_fd, &c->unpack, err) != 0)
        return -1;
    if (fstat(c->unpack_fd, &us) != 0)
        return error_set_at(err, c->unpack, 0, 0, "cannot read: %s", strerror(errno));
    c->unpack_dev = us.st_dev;
    c->unpack_ino = us.st_ino;
    if (!is_dir)
        return unpack_class_archive(c, src, c->unpack_fd, &c->staging_fd, err);
    c->root_fd = open(src_abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    c->root_label = xstrdup(src);
    if (c->root_fd < 0)
        return error_set_at(err, src, 0, 0, "cannot open: %s", strerror(errno));
    return 0;
}

/* Final ids and names (roster), sorted; two students with one id are an error. */
static int settle_ids(struct collector *c, const struct roster *ro, struct error *err)
{
    for (size_t i = 0; i < c->n_st; i++) {
        struct student *s = &c->st[i];
        if (s->origin == ORIGIN_CANVAS)
            drop_older_resubmissions(c, s);
        if (ro->n == 0)
            continue;
        const struct roster_row *row = roster_match(c, ro, s);
        if (row) {
            free(s->id);
            free(s->name);
            s->id = sanitize_id(row->id, "@");
            s->name = xstrdup(row->name);
        }
    }
    if (c->n_st > 1)
        qsort(c->st, c->n_st, sizeof(*c->st), cmp_student);
    for (size_t i = 1; i < c->n_st; i++)
        if (!strcmp(c->st[i - 1].id, c->st[i].id))
            return duplicate_error(c->st[i].id, c->st[i - 1].label, c->st[i].label, err);
    return 0;
}

/* Every student's folder under unpack/students; what no student claimed goes. */
static int materialize_all(struct collector *c, struct error *err)
{
    c->students_dir = path_join(c->unpack, STUDENTS);
    c->students_fd = make_dir_at(c->unpack_fd, STUDENTS);
    if (c->students_fd < 0)
        return error_set_at(err, c->students_dir, 0, 0, "cannot create: %s", strerror(errno));
    for (size_t i = 0; i < c->n_st; i++)
        if (materialize(c, c->students_fd, &c->st[i], err) != 0)
            return -1;
    if (c->staging_fd >= 0) {
        /* What no student claimed (stray files) goes with it. */
        char *staging = path_join(c->unpack, STAGING);
        int r = remove_tree(staging, err);
        free(staging);
        if (r != 0)
            return -1;
    }
    return 0;
}

static void hand_over(struct collector *c, struct submission_set *out)
{
    for (size_t i = 0; i < c->n_st; i++) {
        struct student *s = &c->st[i];
        ALLOC_GROW(out->items, out->n + 1, out->alloc);
        struct submission *sub = &out->items[out->n++];
        sub->id = s->id;
        sub->name = s->name;
        sub->dir = s->dir;
        s->id = s->name = s->dir = NULL;
    }
}

static void collector_release(struct collector *c)
{
    for (size_t i = 0; i < c->n_st; i++)
        student_release(&c->st[i]);
    free(c->st);
    if (c->root_fd >= 0)
        close(c->root_fd);
    if (c->students_fd >= 0)
        close(c->students_fd);
    if (c->staging_fd >= 0)
        close(c->staging_fd);
    if (c->unpack_fd >= 0)
        close(c->unpack_fd);
    free(c->root_label);
    free(c->unpack);
    free(c->students_dir);
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
    int rc = -1;

    memset(&c, 0, sizeof(c));
    memset(&ro, 0, sizeof(ro));
    c.root_fd = c.unpack_fd = c.staging_fd = c.students_fd = -1;
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
    if (check_source(src, unpack_dir, &st, &src_abs, err) != 0)
        goto out;
    if (roster && roster_load(roster, &ro, err) != 0)
        goto out;
    if (open_root(&c, src, src_abs, S_ISDIR(st.st_mode), unpack_dir, err) != 0 ||
        scan_root(&c, err) != 0 || settle_ids(&c, &ro, err) != 0 || materialize_all(&c, err) != 0)
        goto out;
    hand_over(&c, out);
    rc = 0;
out:
    collector_release(&c);
    free(src_abs);
    roster_release(&ro);
    return rc;
}

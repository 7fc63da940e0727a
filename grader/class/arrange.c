/*
 * arrange: one student's files put in place under unpack/students/<id>: copied
 * (or moved, from our own unpacked class archive), archives unpacked wherever
 * they sit, a lone wrapping folder lifted up, the lab's source files lifted from
 * wherever they are, and a submission with nothing but online text or a URL
 * told apart. What the submission did wrong is recorded in the student's budget
 * and costs only that student (collect.h); -1 is for the grader's own failures.
 */
#include "base/alloc.h"
#include "base/fs.h"
#include "class/collect.h"
#include "class/collector.h"
#include "class/names.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Inside a student's folder while it is flattened; a hidden name, so never a lone entry. */
#define SCRATCH ".labgrader-tmp"
#define MAX_FLATTEN 4
#define MAX_NESTED_ARCHIVES 3 /* archives inside archives inside archives */
#define MAX_WALK_DEPTH 32     /* folders below a student's top, when looking through it */

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
            rc = budget_refuse(b, SUBMISSION_BAD_ENTRY, 0, err, child, NULL,
                               "its name has control characters");
        } else if (fstatat(src_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = error_set_at(err, child, 0, 0, "cannot read: %s", strerror(errno));
        } else if (S_ISLNK(st.st_mode)) {
            collector_warn(c, "%s: symbolic link skipped (submissions may not hold links)", child);
        } else if (S_ISDIR(st.st_mode) && collector_is_unpack_dir(c, &st)) {
            /* never copy our own output into itself */
        } else if (S_ISDIR(st.st_mode)) {
            rc = charge_file(b, c->lim, child, NULL, "the submission", err);
            int s = rc == 0 ? open_dir_at(src_fd, name) : -1;
            int d = s < 0 ? -1 : make_dir_at(dst_fd, name);
            if (rc == 0 && (s < 0 || d < 0))
                rc = error_set_at(err, child, 0, 0, "cannot copy folder: %s", strerror(errno));
            else if (rc == 0)
                rc = copy_tree(c, s, d, child, b, err);
            if (s >= 0)
                close(s);
            if (d >= 0)
                close(d);
        } else if (S_ISREG(st.st_mode)) {
            rc = copy_limited(src_fd, name, dst_fd, name, child, c->lim, b, err);
        } else {
            collector_warn(c, "%s: skipped (not a regular file or folder)", child);
        }
        free(child);
    }
    name_list_release(&names);
    return rc;
}

/* Move our own tree into dst, merging folders; a name already taken stays out. */
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
            collector_warn(c, "%s: left out: a file of the same name is already there", child);
        }
        free(child);
    }
    name_list_release(&names);
    return rc;
}

/* ---- placing the parts the LMS gave ---- */

static int place_file(struct collector *c, const struct part *p, int sfd, const char *label,
                      struct budget *b, struct error *err)
{
    struct stat st;
    if (fstatat(sfd, p->target, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        collector_warn(c, "%s: left out: %s is already there", label, p->target);
        return 0;
    }
    if (!c->owned)
        return copy_limited(c->root_fd, p->entry, sfd, p->target, label, c->lim, b, err);
    if (renameat(c->root_fd, p->entry, sfd, p->target) != 0)
        return error_set_at(err, label, 0, 0, "cannot move: %s", strerror(errno));
    return 0;
}

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
            rc = place_file(c, p, sfd, label, b, err);
        }
        free(label);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* A class archive's student refused while it was unpacked: the bucket of one of its
 * top-level entries holds the refusal. */
static bool refused_in_archive(const struct collector *c, struct student *s)
{
    for (size_t i = 0; i < s->n_parts; i++) {
        char *key =
            s->parts[i].target ? lms_flat_key(s->parts[i].entry) : xstrdup(s->parts[i].entry);
        for (size_t k = 0; k < c->n_refused; k++)
            if (!strcmp(c->refused[k].key, key)) {
                s->budget = c->refused[k].b;
                free(key);
                return true;
            }
        free(key);
    }
    return false;
}

/* Our own unpacked copy was charged per top-level entry: the student as a whole counts. */
static int check_whole(struct collector *c, struct student *s, int sfd, struct error *err)
{
    struct budget b;
    memset(&b, 0, sizeof(b));
    if (measure_tree(sfd, s->dir, &b, err) != 0)
        return -1;
    s->budget.files = b.files;
    s->budget.bytes = b.bytes;
    if (b.files > c->lim->max_files)
        return budget_refuse(&s->budget, SUBMISSION_TOO_MANY_FILES, c->lim->max_files, err,
                             s->label, NULL, "the submission holds more than %ld files",
                             c->lim->max_files);
    if (b.bytes > c->lim->max_total_bytes)
        return budget_refuse(
            &s->budget, SUBMISSION_TOO_LARGE, c->lim->max_total_bytes, err, s->label, NULL,
            "the submission exceeds the limit of %lld bytes in total", c->lim->max_total_bytes);
    return 0;
}

/* ---- archives inside the submission ---- */

/* Unpack archive `name` in dirfd into a new folder beside it, and remove the archive.
 * A damaged or unknown archive stays as handed in, with a warning. */
static int unpack_one(struct collector *c, struct student *s, int dirfd, const char *dir,
                      const char *name, struct error *err)
{
    char *stem = xstrndup(name, strlen(name) - archive_suffix(name));
    struct stat st;
    char *folder =
        fstatat(dirfd, stem, &st, AT_SYMLINK_NOFOLLOW) == 0 ? xstrfmt("%s.d", name) : xstrdup(stem);
    char *archive = path_join(dir, name);
    struct quota q;
    struct error xerr;
    int rc, tfd = make_dir_at(dirfd, folder);
    memset(&q, 0, sizeof(q));
    q.label = archive;
    q.lim = c->lim;
    q.single = &s->budget;
    error_init(&xerr);
    if (tfd < 0)
        rc = error_set_at(err, archive, 0, 0, "cannot create %s: %s", folder, strerror(errno));
    else if ((rc = extract_archive(archive, tfd, &q, &xerr)) == ARCHIVE_UNREADABLE) {
        char msg[2048];
        error_format(&xerr, msg, sizeof(msg));
        collector_warn(c, "not unpacked: %s", msg);
        char *path = path_join(dir, folder);
        rc = remove_tree(path, err);
        free(path);
    } else if (rc == 0) {
        if (unlinkat(dirfd, name, 0) != 0)
            rc = error_set_at(err, archive, 0, 0, "cannot remove: %s", strerror(errno));
    } else if (err) {
        *err = xerr;
    }
    if (tfd >= 0)
        close(tfd);
    free(stem);
    free(folder);
    free(archive);
    return rc;
}

/* Unpack every archive below dirfd; what comes out is looked through again, nesting
 * levels deep at most. *found: some archive was unpacked. */
static int unpack_all(struct collector *c, struct student *s, int dirfd, const char *dir, int depth,
                      bool *found, struct error *err)
{
    struct name_list names = {0};
    int rc = list_dir(dirfd, dir, &names, err);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        const char *name = names.v[i];
        struct stat st;
        if (name[0] == '.' || is_junk(name) || fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
            continue;
        if (S_ISREG(st.st_mode) && archive_suffix(name)) {
            rc = unpack_one(c, s, dirfd, dir, name, err);
            *found |= rc == 0;
        } else if (S_ISDIR(st.st_mode) && depth < MAX_WALK_DEPTH) {
            int sub = open_dir_at(dirfd, name);
            char *path = path_join(dir, name);
            if (sub < 0)
                rc = error_set_at(err, path, 0, 0, "cannot open: %s", strerror(errno));
            else
                rc = unpack_all(c, s, sub, path, depth + 1, found, err);
            if (sub >= 0)
                close(sub);
            free(path);
        }
    }
    name_list_release(&names);
    return rc;
}

static int unpack_nested(struct collector *c, struct student *s, int sfd, struct error *err)
{
    for (int level = 0; level < MAX_NESTED_ARCHIVES; level++) {
        bool found = false;
        int rc = unpack_all(c, s, sfd, s->dir, 0, &found, err);
        if (rc != 0 || !found)
            return rc;
    }
    return 0;
}

/* ---- lifting ---- */

static bool ignorable_for_flatten(const char *name)
{
    /* Moodle adds onlinetext.html next to the files when both plugins are on. */
    return name[0] == '.' || is_junk(name) || !strcmp(name, "onlinetext.html") ||
           !strcmp(name, "link.html");
}

/* The one entry of dirfd that matters, when it is a folder; NULL otherwise. */
static char *lone_folder(int dirfd, const char *label, struct error *err, int *rc)
{
    struct name_list names = {0};
    const char *only = NULL;
    size_t count = 0;
    struct stat st;
    char *found = NULL;
    *rc = list_dir(dirfd, label, &names, err);
    for (size_t i = 0; *rc == 0 && i < names.n; i++)
        if (!ignorable_for_flatten(names.v[i])) {
            only = names.v[i];
            count++;
        }
    if (count == 1 && fstatat(dirfd, only, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
        found = xstrdup(only);
    name_list_release(&names);
    return found;
}

/* Move the content of folder `rel` (below sfd) up to sfd; the folder goes if left empty. */
static int lift_folder(struct collector *c, int sfd, const char *sdir, const char *rel,
                       struct error *err)
{
    char *label = path_join(sdir, rel);
    int fd = openat(sfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int rc = fd < 0 ? error_set_at(err, label, 0, 0, "cannot open: %s", strerror(errno))
                    : move_tree(c, fd, sfd, label, err);
    if (fd >= 0)
        close(fd);
    if (rc == 0)
        unlinkat(sfd, rel, AT_REMOVEDIR); /* fails, harmlessly, when something stayed */
    free(label);
    return rc;
}

/* A lone folder is lifted up, a few levels: what students hand in wrapped. */
static int flatten(struct collector *c, struct student *s, int sfd, struct error *err)
{
    char *scratch = path_join(s->dir, SCRATCH);
    int rc = 0;
    for (int depth = 0; rc == 0 && depth < MAX_FLATTEN; depth++) {
        char *only = lone_folder(sfd, s->dir, err, &rc);
        if (!only)
            break;
        /* Renamed first: the folder may hold an entry of its own name. */
        if ((rc = remove_tree(scratch, err)) == 0 && renameat(sfd, only, sfd, SCRATCH) != 0)
            rc = error_set_at(err, s->dir, 0, 0, "cannot move %s: %s", only, strerror(errno));
        if (rc == 0)
            rc = lift_folder(c, sfd, s->dir, SCRATCH, err);
        if (rc == 0)
            rc = remove_tree(scratch, err);
        free(only);
    }
    free(scratch);
    return rc;
}

/* Every file named `name` below dirfd (not at its top): relative paths into found. */
static int find_named(int dirfd, const char *rel, const char *name, int depth,
                      struct name_list *found, struct error *err)
{
    struct name_list names = {0};
    int rc = list_dir(dirfd, rel, &names, err);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        struct stat st;
        const char *n = names.v[i];
        if (n[0] == '.' || is_junk(n) || fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        char *path = *rel ? xstrfmt("%s/%s", rel, n) : xstrdup(n);
        if (S_ISREG(st.st_mode) && *rel && !strcmp(n, name)) {
            name_list_add(found, path);
            continue;
        }
        if (S_ISDIR(st.st_mode) && depth < MAX_WALK_DEPTH) {
            int sub = open_dir_at(dirfd, n);
            if (sub >= 0) {
                rc = find_named(sub, path, name, depth + 1, found, err);
                close(sub);
            }
        }
        free(path);
    }
    name_list_release(&names);
    return rc;
}

static bool at_top(int sfd, const char *name)
{
    struct stat st;
    return fstatat(sfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* The folders the lab's source files are in, when not at the top; two files of one name
 * in different folders is the student's problem (both named). */
static int source_folders(struct collector *c, struct student *s, int sfd, struct name_list *dirs,
                          struct error *err)
{
    for (size_t i = 0; c->sources && c->sources[i]; i++) {
        struct name_list found = {0};
        const char *want = c->sources[i];
        int rc = at_top(sfd, want) ? 0 : find_named(sfd, "", want, 0, &found, err);
        if (rc == 0 && found.n > 1) {
            s->problem_what = xstrfmt("%s, %s", found.v[0], found.v[1]);
            rc = budget_refuse(&s->budget, SUBMISSION_AMBIGUOUS, 0, err, s->label, NULL,
                               "two files named %s: %s and %s; keep one", want, found.v[0],
                               found.v[1]);
        } else if (rc == 0 && found.n == 1) {
            char *slash = strrchr(found.v[0], '/');
            char *dir = xstrndup(found.v[0], (size_t)(slash - found.v[0]));
            bool seen = false;
            for (size_t k = 0; k < dirs->n && !seen; k++)
                seen = !strcmp(dirs->v[k], dir);
            if (seen)
                free(dir);
            else
                name_list_add(dirs, dir);
        }
        name_list_release(&found);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int deeper_first(const void *a, const void *b)
{
    size_t la = strlen(*(char *const *)a), lb = strlen(*(char *const *)b);
    return la < lb ? 1 : la > lb ? -1 : strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lab's sources, found anywhere: their folders' contents lifted to the top, with
 * the headers beside them. */
static int lift_sources(struct collector *c, struct student *s, int sfd, struct error *err)
{
    struct name_list dirs = {0};
    int rc = source_folders(c, s, sfd, &dirs, err);
    /* Deepest first: lifting a folder must not move another one still to be lifted (a
     * folder's path is longer than its parent's). */
    if (dirs.n > 1)
        qsort(dirs.v, dirs.n, sizeof(*dirs.v), deeper_first);
    for (size_t i = 0; rc == 0 && i < dirs.n; i++) {
        collector_warn(c, "%s: the lab's sources were found in %s/: taken from there", s->label,
                       dirs.v[i]);
        rc = lift_folder(c, sfd, s->dir, dirs.v[i], err);
    }
    name_list_release(&dirs);
    return rc;
}

/* ---- what is left ---- */

/* Newest modification time of the regular files below dirfd, and whether any is a file
 * the student wrote (not the LMS's online text page). */
static void survey_files(int dirfd, int depth, long long *newest, bool *has_files)
{
    struct name_list names = {0};
    struct error ignored;
    if (list_dir(dirfd, "", &names, &ignored) != 0)
        return;
    for (size_t i = 0; i < names.n; i++) {
        struct stat st;
        const char *n = names.v[i];
        if (n[0] == '.' || fstatat(dirfd, n, &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            if (depth > 0 || (strcmp(n, "onlinetext.html") && strcmp(n, "link.html")))
                *has_files = true;
            if ((long long)st.st_mtime > *newest)
                *newest = (long long)st.st_mtime;
        } else if (S_ISDIR(st.st_mode) && depth < MAX_WALK_DEPTH) {
            int sub = open_dir_at(dirfd, n);
            if (sub >= 0) {
                survey_files(sub, depth + 1, newest, has_files);
                close(sub);
            }
        }
    }
    name_list_release(&names);
}

/* Nothing but the LMS's page of online text or a URL: nothing to compile. */
static void check_online_only(struct student *s, bool has_files)
{
    bool text = false, url = false;
    if (has_files || s->budget.problem != SUBMISSION_OK)
        return;
    for (size_t i = 0; i < s->n_parts; i++) {
        text |= s->parts[i].kind == LMS_ONLINE_TEXT;
        url |= s->parts[i].kind == LMS_URL;
    }
    if (text || url) {
        s->budget.problem = url && !text ? SUBMISSION_URL : SUBMISSION_ONLINE_TEXT;
        snprintf(s->budget.what, sizeof(s->budget.what), "%s",
                 url && !text ? "link.html" : "onlinetext.html");
    }
}

/* A refused submission keeps nothing: grading must not see half of it. */
static int empty_folder(struct student *s, struct error *err)
{
    struct name_list names = {0};
    int fd = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = fd < 0 ? error_set_at(err, s->dir, 0, 0, "cannot open: %s", strerror(errno))
                    : list_dir(fd, s->dir, &names, err);
    if (fd >= 0)
        close(fd);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        char *p = path_join(s->dir, names.v[i]);
        rc = remove_tree(p, err);
        free(p);
    }
    name_list_release(&names);
    return rc;
}

/* The steps after placing: each may find the submission at fault (SAFE_REFUSED). */
static int tidy(struct collector *c, struct student *s, int sfd, struct error *err)
{
    int rc = c->owned ? check_whole(c, s, sfd, err) : 0;
    if (rc == 0)
        rc = unpack_nested(c, s, sfd, err);
    if (rc == 0)
        rc = flatten(c, s, sfd, err);
    if (rc == 0)
        rc = lift_sources(c, s, sfd, err);
    return rc;
}

int arrange_student(struct collector *c, struct student *s, struct error *err)
{
    struct error local;
    int rc = 0;
    if (mkdirat(c->students_fd, s->id, 0755) != 0)
        return error_set_at(err, c->students_dir, 0, 0, "cannot create folder %s: %s", s->id,
                            strerror(errno));
    int sfd = open_dir_at(c->students_fd, s->id);
    if (sfd < 0)
        return error_set_at(err, c->students_dir, 0, 0, "cannot open folder %s: %s", s->id,
                            strerror(errno));
    s->dir = path_join(c->students_dir, s->id);
    error_init(&local);
    if (s->budget.problem == SUBMISSION_OK && !(c->owned && refused_in_archive(c, s))) {
        rc = place_parts(c, s, sfd, &s->budget, &local);
        if (rc == 0)
            rc = tidy(c, s, sfd, &local);
    }
    if (rc == SAFE_REFUSED || s->budget.problem != SUBMISSION_OK) {
        char msg[2048];
        error_format(&local, msg, sizeof(msg));
        if (local.msg[0])
            collector_warn(c, "%s: not graded: %s", s->id, msg);
        rc = empty_folder(s, err);
    } else if (rc != 0 && err) {
        *err = local;
    }
    if (rc == 0) {
        bool has_files = false;
        survey_files(sfd, 0, &s->submitted_at, &has_files);
        check_online_only(s, has_files);
        if (s->budget.problem == SUBMISSION_ONLINE_TEXT || s->budget.problem == SUBMISSION_URL)
            rc = empty_folder(s, err);
    }
    close(sfd);
    return rc;
}

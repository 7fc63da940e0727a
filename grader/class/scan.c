/*
 * scan: finding the students in a collect_submissions() source and naming them (collector.h):
 * each top-level entry read as a folder, an LMS download's file or folder, or a GitHub
 * Classroom clone, and given to the student it belongs to; the class archive's refused
 * students; Canvas's older uploads left out.
 */
#include "class/collector.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "class/collect.h"
#include "class/names.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- finding the students ---- */

static struct student *find_student(struct collector *c, const char *id)
{
    for (size_t i = 0; i < c->n_st; i++)
        if (!strcmp(c->st[i].id, id))
            return &c->st[i];
    return NULL;
}

int collector_duplicate_error(const char *id, const char *a, const char *b, struct error *err)
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
    if (s && s->origin == origin && (origin == ORIGIN_MOODLE || origin == ORIGIN_CANVAS)) {
        free(id);
        free(raw_id);
        free(name);
        free(label);
        return s;
    }
    if (s) {
        collector_duplicate_error(id, s->label, label, err);
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

/* Takes ownership of target (NULL: a folder). */
static void add_part(struct student *s, const char *entry, char *target, const struct lms_name *n)
{
    ALLOC_GROW(s->parts, s->n_parts + 1, s->parts_alloc);
    struct part *p = &s->parts[s->n_parts++];
    memset(p, 0, sizeof(*p));
    p->entry = xstrdup(entry);
    p->target = target;
    if (n) {
        p->resub = n->resub;
        p->fileid = n->fileid;
        p->kind = n->kind;
        s->late |= n->late;
    }
}

static bool valid_target(const char *t)
{
    return t[0] && t[0] != '.' && !strchr(t, '/') && !has_control_chars(t);
}

/* A top-level entry whose name has control characters: its owner, if the name says who,
 * is refused; anything else is left out. */
static int scan_bad_name(struct collector *c, const char *entry, bool is_dir, struct error *err)
{
    struct lms_name n;
    char *shown = printable(entry);
    char *label = path_join(c->root_label, shown);
    bool lms = parse_moodle(entry, &n) || parse_canvas(entry, &n);
    struct student *s = NULL;
    if (lms && !has_control_chars(n.id))
        s = student_for(c, looks_moodle(entry) ? ORIGIN_MOODLE : ORIGIN_CANVAS, xstrdup(n.id),
                        xstrdup(n.id), printable(n.name), shown, err);
    else if (is_dir)
        s = student_for(c, ORIGIN_FOLDER, readable_id(shown), xstrdup(shown), xstrdup(shown), shown,
                        err);
    else
        collector_warn(c, "%s: ignored (its name has control characters)", label);
    if (lms)
        lms_name_release(&n);
    if (s && s->budget.problem == SUBMISSION_OK)
        budget_refuse(&s->budget, SUBMISSION_BAD_ENTRY, 0, NULL, label, NULL,
                      "its name has control characters");
    free(shown);
    free(label);
    return s || (!is_dir && !lms) ? 0 : -1;
}

static int scan_dir(struct collector *c, const char *entry, struct error *err)
{
    struct lms_name n;
    struct student *s;
    char *login = c->slug ? classroom_login(entry, c->slug) : NULL;
    if (parse_moodle(entry, &n)) {
        s = student_for(c, ORIGIN_MOODLE, xstrdup(n.id), xstrdup(n.id), xstrdup(n.name), entry,
                        err);
        if (s)
            add_part(s, entry, NULL, &n);
        lms_name_release(&n);
    } else if (login) {
        s = student_for(c, ORIGIN_GITHUB, readable_id(login), xstrdup(login), xstrdup(login), entry,
                        err);
        if (s)
            add_part(s, entry, NULL, NULL);
    } else {
        s = student_for(c, ORIGIN_FOLDER, readable_id(entry), xstrdup(entry), xstrdup(entry), entry,
                        err);
        if (s)
            add_part(s, entry, NULL, NULL);
    }
    free(login);
    return s ? 0 : -1;
}

static int scan_file(struct collector *c, const char *entry, struct error *err)
{
    struct lms_name n;
    enum origin o;
    memset(&n, 0, sizeof(n));
    if (parse_moodle(entry, &n) && n.target[0]) {
        o = ORIGIN_MOODLE;
    } else {
        if (n.id)
            lms_name_release(&n);
        if (parse_canvas(entry, &n)) {
            o = ORIGIN_CANVAS;
        } else if (archive_suffix(entry)) {
            char *stem = xstrndup(entry, strlen(entry) - archive_suffix(entry));
            memset(&n, 0, sizeof(n));
            o = ORIGIN_ARCHIVE;
            n.id = readable_id(stem);
            n.name = stem;
            n.target = xstrdup(entry);
        } else {
            char *label = path_join(c->root_label, entry);
            collector_warn(c, "%s: ignored (not a student's folder, archive or LMS file)", label);
            free(label);
            return 0;
        }
    }
    if (!valid_target(n.target)) {
        char *label = path_join(c->root_label, entry);
        collector_warn(c, "%s: ignored (no usable file name in it)", label);
        free(label);
        lms_name_release(&n);
        return 0;
    }
    struct student *s =
        student_for(c, o, xstrdup(n.id), xstrdup(n.id), xstrdup(n.name), entry, err);
    if (s)
        add_part(s, entry, xstrdup(n.target), &n);
    lms_name_release(&n);
    return s ? 0 : -1;
}

static int scan_entry(struct collector *c, const char *entry, struct error *err)
{
    struct stat st;
    char *label = path_join(c->root_label, entry);
    int rc = 0;
    if (fstatat(c->root_fd, entry, &st, AT_SYMLINK_NOFOLLOW) != 0)
        rc = error_set_at(err, label, 0, 0, "cannot read: %s", strerror(errno));
    else if (has_control_chars(entry) && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
        rc = scan_bad_name(c, entry, S_ISDIR(st.st_mode), err);
    else if (S_ISLNK(st.st_mode))
        collector_warn(c, "%s: symbolic link skipped (submissions may not hold links)", label);
    else if (S_ISDIR(st.st_mode) && collector_is_unpack_dir(c, &st))
        ; /* our own output, inside the submissions folder */
    else if (S_ISDIR(st.st_mode))
        rc = scan_dir(c, entry, err);
    else if (S_ISREG(st.st_mode))
        rc = scan_file(c, entry, err);
    else
        collector_warn(c, "%s: skipped (not a regular file or folder)", label);
    free(label);
    return rc;
}

/* Whether every folder among names is a git clone "<slug>-<login>" of one slug (GitHub
 * Classroom, cloned without its "<slug>-submissions" folder): then the slug. */
static char *common_clone_slug(struct collector *c, const struct name_list *names)
{
    char *prefix = NULL;
    size_t clones = 0;
    for (size_t i = 0; i < names->n; i++) {
        const char *n = names->v[i];
        char *git = xstrfmt("%s/.git", n);
        struct stat st;
        bool dir = fstatat(c->root_fd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
        bool clone = dir && fstatat(c->root_fd, git, &st, AT_SYMLINK_NOFOLLOW) == 0;
        free(git);
        if (n[0] == '.' || is_junk(n) || !dir)
            continue;
        if (!clone) {
            free(prefix);
            return NULL;
        }
        if (!prefix) {
            prefix = xstrdup(n);
        } else {
            size_t k = 0;
            while (prefix[k] && prefix[k] == n[k])
                k++;
            prefix[k] = '\0';
        }
        clones++;
    }
    char *dash = prefix ? strrchr(prefix, '-') : NULL;
    char *slug =
        clones >= 2 && dash && dash != prefix ? xstrndup(prefix, (size_t)(dash - prefix)) : NULL;
    free(prefix);
    return slug;
}

int collector_scan(struct collector *c, struct error *err)
{
    struct name_list names = {0};
    if (c->only)
        return scan_entry(c, c->only, err);
    int rc = list_dir(c->root_fd, c->root_label, &names, err);
    if (rc == 0) {
        c->slug = classroom_slug(path_base(c->root_label));
        if (!c->slug)
            c->slug = common_clone_slug(c, &names);
    }
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        if (names.v[i][0] == '.' || is_junk(names.v[i]))
            continue;
        rc = scan_entry(c, names.v[i], err);
    }
    name_list_release(&names);
    return rc;
}

/* Whether some part of some student is the class archive's entry `key`. */
static bool key_claimed(const struct collector *c, const char *key)
{
    for (size_t i = 0; i < c->n_st; i++)
        for (size_t k = 0; k < c->st[i].n_parts; k++) {
            const struct part *p = &c->st[i].parts[k];
            char *pk = p->target ? lms_flat_key(p->entry) : xstrdup(p->entry);
            bool same = !strcmp(pk, key);
            free(pk);
            if (same)
                return true;
        }
    return false;
}

/* A student of the class archive refused before anything of theirs was written still
 * gets a row: the refusal is their grade. */
int collector_add_refused(struct collector *c, struct error *err)
{
    for (size_t i = 0; i < c->n_refused; i++) {
        const char *key = c->refused[i].key;
        struct lms_name n;
        struct student *s;
        if (key_claimed(c, key))
            continue;
        /* The entry's own name says whose it was (a Moodle folder), else the key is the id. */
        if (parse_moodle(key, &n)) {
            s = student_for(c, ORIGIN_MOODLE, xstrdup(n.id), xstrdup(n.id), xstrdup(n.name), key,
                            err);
            lms_name_release(&n);
        } else {
            s = student_for(c, ORIGIN_FOLDER, readable_id(key), xstrdup(key), xstrdup(key), key,
                            err);
        }
        if (!s)
            return -1;
        s->budget = c->refused[i].b;
    }
    return 0;
}

/* Canvas keeps every upload: of the files that restore to one name, the newest stays. */
void collector_drop_older(struct collector *c, struct student *s)
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
            collector_warn(c, "%s/%s: left out: %s is a newer upload of %s", c->root_label,
                           old->entry, kept->entry, kept->target);
        }
}

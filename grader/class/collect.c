#include "class/collect.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "class/collector.h"
#include "class/names.h"

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

void submission_set_init(struct submission_set *s)
{
    memset(s, 0, sizeof(*s));
}

static void submission_release(struct submission *sub)
{
    free(sub->id);
    free(sub->name);
    free(sub->dir);
    lms_ids_release(&sub->ids);
    free(sub->group);
    for (size_t i = 0; i < sub->n_members; i++) {
        free(sub->members[i].id);
        free(sub->members[i].name);
        lms_ids_release(&sub->members[i].ids);
    }
    free(sub->members);
    free(sub->problem_what);
}

void submission_set_release(struct submission_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        submission_release(&s->items[i]);
    free(s->items);
    for (size_t i = 0; i < s->n_warnings; i++)
        free(s->warnings[i]);
    free(s->warnings);
    memset(s, 0, sizeof(*s));
}

const char *submission_problem_code(enum submission_problem p)
{
    switch (p) {
    case SUBMISSION_OK:
        return "ok";
    case SUBMISSION_TOO_MANY_FILES:
        return "too_many_files";
    case SUBMISSION_TOO_LARGE:
        return "too_large";
    case SUBMISSION_FILE_TOO_LARGE:
        return "file_too_large";
    case SUBMISSION_TOO_DEEP:
        return "too_deep";
    case SUBMISSION_BAD_ENTRY:
        return "bad_entry";
    case SUBMISSION_ONLINE_TEXT:
        return "online_text";
    case SUBMISSION_URL:
        return "url";
    case SUBMISSION_AMBIGUOUS:
        return "ambiguous";
    }
    return "ok";
}

void collector_warn(struct collector *c, const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    struct submission_set *s = c->set;
    s->warnings = xrealloc(s->warnings, (s->n_warnings + 1) * sizeof(*s->warnings));
    s->warnings[s->n_warnings++] = strbuf_detach(&sb);
}

bool collector_is_unpack_dir(const struct collector *c, const struct stat *st)
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
    free(s->problem_what);
    free(s->group);
}

/* ---- roster ---- */

/* Moodle names a team submission's folders "<group>-<full name>": the roster's name
 * after some "-" (exactly one row), and the group before it. */
static const struct roster_row *match_team_prefix(const struct roster *ro, struct student *s)
{
    for (const char *dash = strchr(s->name, '-'); dash; dash = strchr(dash + 1, '-')) {
        size_t matches;
        const struct roster_row *row = roster_find_name(ro, dash + 1, &matches);
        if (row) {
            free(s->group);
            s->group = xstrndup(s->name, (size_t)(dash - s->name));
            return row;
        }
    }
    return NULL;
}

/* The roster's row for a student: by any id, else by name; a warning when none or
 * several. */
static const struct roster_row *roster_match(struct collector *c, const struct roster *ro,
                                             struct student *s)
{
    size_t matches = 0;
    const struct roster_row *row = roster_find_value(ro, s->raw_id);
    if (!row)
        row = roster_find_value(ro, s->id);
    if (!row)
        row = roster_find_name(ro, s->name, &matches);
    if (!row && s->origin == ORIGIN_MOODLE)
        row = match_team_prefix(ro, s);
    if (row)
        return row;
    if (matches > 1)
        collector_warn(c, "%s: %zu roster entries have this name; kept as id '%s'", s->label,
                       matches, s->id);
    else
        collector_warn(c, "%s: not in the roster; kept as id '%s'", s->label, s->id);
    return NULL;
}

/* A roster that matched nobody was most likely keyed on something the submissions do not
 * carry (Moodle's participant numbers are per assignment): say what it has. */
static void warn_unmatched_roster(struct collector *c, const struct roster *ro, const char *path,
                                  size_t matched)
{
    if (ro->n == 0 || c->n_st == 0 || matched > 0)
        return;
    collector_warn(c,
                   "%s: the roster matched none of the %zu submissions (neither by id nor by "
                   "name): check that its id column holds the ids the submissions carry, or "
                   "that its names are the students' full names",
                   path, c->n_st);
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

/* The students refused while the class archive was unpacked, kept for arrange.c. */
static void keep_refused(struct collector *c, struct quota *q)
{
    for (size_t i = 0; i < q->n_buckets; i++) {
        struct bucket *b = &q->buckets[i];
        if (b->b.problem == SUBMISSION_OK)
            continue;
        collector_warn(c, "%s: %s: not graded: entry '%s' refused: %s", q->label, b->key, b->b.what,
                       b->b.why);
        c->refused = xrealloc(c->refused, (c->n_refused + 1) * sizeof(*c->refused));
        c->refused[c->n_refused].key = xstrdup(b->key);
        c->refused[c->n_refused++].b = b->b;
    }
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
    if ((rc = extract_archive(src, *staging_fd, &q, err)) != 0) {
        rc = -1;
        goto out;
    }
    rc = -1;
    keep_refused(c, &q);
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
    if (c->only) {
        /* One student's folder: its parent is the root, and it the only entry looked at. */
        char *parent = xstrdup(src_abs);
        *strrchr(parent, '/') = '\0';
        c->root_fd = open(*parent ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        c->root_label = xstrdup(*parent ? parent : "/");
        free(parent);
    } else {
        c->root_fd = open(src_abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        c->root_label = xstrdup(src);
    }
    if (c->root_fd < 0)
        return error_set_at(err, src, 0, 0, "cannot open: %s", strerror(errno));
    return 0;
}

/* Final ids and names (roster), sorted; two students with one id are an error. */
static int settle_ids(struct collector *c, const struct roster *ro, const char *roster_path,
                      struct error *err)
{
    size_t matched = 0;
    for (size_t i = 0; i < c->n_st; i++) {
        struct student *s = &c->st[i];
        if (s->origin == ORIGIN_CANVAS)
            collector_drop_older(c, s);
        if (ro->n == 0)
            continue;
        const struct roster_row *row = roster_match(c, ro, s);
        if (row) {
            free(s->id);
            s->id = sanitize_id(row->id, "@");
            /* A roster row without a name leaves the submission's own (found by fuzzing). */
            if (row->name[0]) {
                free(s->name);
                s->name = xstrdup(row->name);
            }
            s->row = row;
            matched++;
        }
    }
    for (size_t i = 0; i < ro->warnings.n; i++)
        collector_warn(c, "%s", ro->warnings.v[i]);
    warn_unmatched_roster(c, ro, roster_path, matched);
    if (c->n_st > 1)
        qsort(c->st, c->n_st, sizeof(*c->st), cmp_student);
    for (size_t i = 1; i < c->n_st; i++)
        if (!strcmp(c->st[i - 1].id, c->st[i].id))
            return collector_duplicate_error(c->st[i].id, c->st[i - 1].label, c->st[i].label, err);
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
        if (arrange_student(c, &c->st[i], err) != 0)
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

static const char *const origin_names[] = {"folder", "moodle", "canvas", "archive", "github"};

/* What the LMS says of the student (its own ids), then what the roster adds. */
static void fill_identity(const struct collector *c, const struct student *s,
                          struct submission *sub)
{
    const struct roster_row *row = s->row;
    (void)c;
    if (row)
        lms_ids_copy(&sub->ids, &row->ids);
    char **own = s->origin == ORIGIN_CANVAS   ? &sub->ids.canvas_id
                 : s->origin == ORIGIN_MOODLE ? &sub->ids.moodle_participant
                 : s->origin == ORIGIN_GITHUB ? &sub->ids.github
                                              : NULL;
    if (own) {
        free(*own);
        *own = xstrdup(s->raw_id);
    }
    const char *group = row && row->group ? row->group : s->group;
    sub->group = group ? xstrdup(group) : NULL;
}

static void hand_over(struct collector *c, const struct roster *ro, struct submission_set *out)
{
    for (size_t i = 0; i < c->n_st; i++) {
        struct student *s = &c->st[i];
        ALLOC_GROW(out->items, out->n + 1, out->alloc);
        struct submission *sub = &out->items[out->n++];
        memset(sub, 0, sizeof(*sub));
        sub->id = s->id;
        sub->name = s->name;
        sub->dir = s->dir;
        s->id = s->name = s->dir = NULL;
        fill_identity(c, s, sub);
        /* The roster rows of the student's group: every one of them gets the grade. */
        roster_members(ro, sub->group, &sub->members, &sub->n_members);
        sub->problem = s->budget.problem;
        sub->problem_limit = s->budget.limit;
        sub->problem_what = s->problem_what     ? xstrdup(s->problem_what)
                            : s->budget.problem ? xstrdup(s->budget.what)
                                                : NULL;
        sub->origin = origin_names[s->origin];
        sub->late_marked = s->late;
        sub->submitted_at = s->submitted_at;
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
    for (size_t i = 0; i < c->n_refused; i++)
        free(c->refused[i].key);
    free(c->refused);
    free(c->root_label);
    free(c->unpack);
    free(c->students_dir);
    free(c->slug);
    free(c->only);
}

int collect_submissions_opts(const char *src, const char *unpack_dir, const struct collect_opts *o,
                             struct submission_set *out, struct error *err)
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
    collect_limits_init(&defaults);
    c.lim = o && o->lim ? o->lim : &defaults;
    c.sources = o ? o->sources : NULL;
    if (!src || !unpack_dir)
        return error_set(err, "collect: a source and an unpack folder are needed");
    if (!limits_valid(c.lim))
        return error_set(err, "collect: limits must be positive");
    c.set = out;
    if (check_source(src, unpack_dir, &st, &src_abs, err) != 0)
        goto out;
    if (o && o->one) {
        if (!S_ISDIR(st.st_mode)) {
            error_set_at(err, src, 0, 0, "not a folder (one student's submission)");
            goto out;
        }
        c.only = xstrdup(path_base(src_abs));
    }
    if (o && o->roster && roster_load(o->roster, &ro, err) != 0)
        goto out;
    if (open_root(&c, src, src_abs, S_ISDIR(st.st_mode), unpack_dir, err) != 0 ||
        collector_scan(&c, err) != 0 || collector_add_refused(&c, err) != 0 ||
        settle_ids(&c, &ro, o ? o->roster : NULL, err) != 0 || materialize_all(&c, err) != 0)
        goto out;
    hand_over(&c, &ro, out);
    rc = 0;
out:
    collector_release(&c);
    free(src_abs);
    roster_release(&ro);
    return rc;
}

int collect_submissions(const char *src, const char *unpack_dir, const char *roster,
                        const struct collect_limits *lim, struct submission_set *out,
                        struct error *err)
{
    struct collect_opts o = {roster, lim, NULL, false};
    return collect_submissions_opts(src, unpack_dir, &o, out, err);
}

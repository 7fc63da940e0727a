/*
 * collector: the state of one collect_submissions() run, shared by collect.c (the
 * unpack folder, the roster, the run from start to end), scan.c (finding the students in
 * the source and naming them) and arrange.c (putting each student's files in place).
 * Internal to class/collect: nothing else includes it. The collector owns every student
 * and string below it.
 */
#ifndef LG_COLLECTOR_H
#define LG_COLLECTOR_H

#include "class/archive.h"
#include "class/lms_layout.h"
#include "class/roster.h"
#include "class/safedir.h"

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

struct submission_set;

enum origin { ORIGIN_FOLDER, ORIGIN_MOODLE, ORIGIN_CANVAS, ORIGIN_ARCHIVE, ORIGIN_GITHUB };

struct part {
    char *entry;  /* name at the top level of the source */
    char *target; /* a single file: its name in the student's folder; NULL: a folder */
    long resub, fileid;
    enum lms_part kind;
    bool dropped;
};

struct student {
    char *id;     /* final id */
    char *raw_id; /* as found: LMS number, login or folder name */
    char *name;
    char *label; /* the first source entry, as the user knows it */
    enum origin origin;
    struct part *parts;
    size_t n_parts, parts_alloc;
    char *dir;
    struct budget budget; /* what was written, and the first problem */
    char *problem_what;   /* set by problems found after writing (the two paths) */
    bool late;
    long long submitted_at;
    const struct roster_row *row; /* the roster's, or NULL */
    char *group;                  /* a Moodle team prefix, when the roster has no group */
};

struct collector {
    const struct collect_limits *lim;
    const char *const *sources; /* file names the lab asks for, or NULL */
    struct submission_set *set;
    char *unpack;       /* absolute */
    char *students_dir; /* unpack/students, absolute */
    int root_fd;        /* where the students are listed */
    char *root_label;
    bool owned;       /* the root is our own unpacked copy: move, do not copy */
    dev_t unpack_dev; /* the unpack folder, should it lie inside a submitted folder */
    ino_t unpack_ino;
    int unpack_fd, staging_fd, students_fd; /* -1 until opened */
    char *slug;                             /* GitHub Classroom's assignment slug, or NULL */
    char *only;             /* collect_opts.one: the one entry of the root that is the student */
    struct bucket *refused; /* class archive: the students refused while unpacking */
    size_t n_refused;
    struct student *st;
    size_t n_st, st_alloc;
};

void collector_warn(struct collector *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
bool collector_is_unpack_dir(const struct collector *c, const struct stat *st);

/* Finding the students (scan.c). collector_scan: every entry of the root (or collect_opts.one)
 * given to the student it belongs to; collector_add_refused: a row for each student of the
 * class archive refused before anything of theirs was written; collector_drop_older: of a
 * Canvas student's uploads that restore to one name, the newest stays. -1 with err set when
 * the grader cannot go on. */
int collector_scan(struct collector *c, struct error *err);
int collector_add_refused(struct collector *c, struct error *err);
void collector_drop_older(struct collector *c, struct student *s);
/* "two submissions map to student id ...": err set, -1. */
int collector_duplicate_error(const char *id, const char *a, const char *b, struct error *err);

/* Put s's files in unpack/students/<id> (arrange.c). 0, or -1 when the grader cannot
 * write (err set); whatever is the submission's fault is recorded in s->budget. */
int arrange_student(struct collector *c, struct student *s, struct error *err);

#endif

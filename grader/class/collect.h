/*
 * collect: gather a class's submissions, one folder per student, from a folder
 * of folders or an LMS export zip (Moodle, Canvas, GitHub Classroom clones),
 * without trusting anything in them.
 *
 * Everything collect writes goes under unpack_dir, which it owns: it must be
 * empty or made by an earlier collect (it holds a .labgrader-unpack marker),
 * and its old contents are removed first. Each student ends up in
 * unpack_dir/students/<id>, a copy (folder sources) or the unpacked files
 * (archives): grading never touches the original submissions, and nothing a
 * submission holds can point outside (symbolic links are skipped with a
 * warning; archive entries that are links, devices, absolute paths or hold
 * a ".." component are refused).
 *
 * Layouts recognised at the top level of the folder or zip (lms_layout.h has
 * the names each LMS writes):
 *   <anything>/                   a student; id = readable_id(name) (names.h:
 *                                 "Daniel Núñez" -> "daniel-nunez")
 *   Moodle's download             folders or flat files, merged per participant
 *                                 number (the id); online text kept as onlinetext.html
 *   Canvas's download             files grouped by Canvas user id (the id), newest
 *                                 upload of each file kept; online text and URLs
 *   <slug>-submissions/<slug>-<login>/   GitHub Classroom: id = the login (also
 *                                 when every folder is a git clone "<slug>-<login>")
 *   alice.zip (.tar, .tar.gz, .tgz, ...)  a student's archive; id = alice
 * A zip holding just one folder is looked into. Inside a student's folder,
 * archives are unpacked wherever they are (nested ones too, a few levels), a
 * lone folder is lifted up, and the source files the lab asks for are found
 * wherever they are (their folder is lifted to the top); two files of one such
 * name in different folders is a problem naming both. "__MACOSX", ".DS_Store"
 * and ".git" are left out everywhere.
 *
 * A hostile or broken submission costs only its owner. Limits apply to each
 * student's submission as written to disk (bytes counted as they are written,
 * never taken from archive headers): total bytes, bytes per file, number of
 * files (folders count as files), archive depth. Exceeding one, an entry that is
 * a link or a device or has a control character or ".." in its name, a lab file
 * found in two places, or a submission of online text or a URL only: the
 * student gets a problem (what, and the limit or the file) and an empty
 * folder, and collecting goes on. A class export archive as a whole may hold up
 * to COLLECT_CLASS_FACTOR times one submission's total bytes and files; beyond
 * that, or an entry no student can be told from, the archive is refused.
 *
 * roster (optional) is a CSV (roster.h: ids, names, groups, every identity
 * column). A submission takes the roster's id and name when its id, folder name,
 * LMS id or GitHub login equals any id of a roster row, else when its name
 * matches a roster name ignoring case, accents, punctuation and word order
 * ("nunezmaria" matches "María Núñez"; a Moodle team submission's "<group>-"
 * prefix is stripped). A roster row with a group brings the group's members.
 * Roster ids keep '@' (emails). Submissions not in the roster keep their own id,
 * with a warning; a roster that matches nobody gets a warning naming its columns.
 *
 * Two submissions with the same id are an error naming both.
 * submission_set owns every string in it.
 */
#ifndef LG_COLLECT_H
#define LG_COLLECT_H

#include "base/error.h"
#include "class/safedir.h" /* struct collect_limits, enum submission_problem */
#include "grade/results_lms.h"

#include <stdbool.h>
#include <stddef.h>

#define COLLECT_CLASS_FACTOR 64

struct submission {
    char *id;           /* stable student id: roster id, LMS id number, login or folder name */
    char *name;         /* display name ("María Núñez") */
    char *dir;          /* absolute folder holding that student's files */
    struct lms_ids ids; /* what the LMS and the roster say of the student */
    char *group;        /* group or team, NULL when none */
    struct lms_member *members; /* the group's members from the roster (all of them) */
    size_t n_members;
    /* Why nothing of this submission can be graded (its folder is then empty):
     * SUBMISSION_OK, or the problem with the limit exceeded and the file(s) involved. */
    enum submission_problem problem;
    long long problem_limit;
    char *problem_what;
    const char *origin;     /* "folder", "moodle", "canvas", "archive", "github" (static) */
    bool late_marked;       /* the LMS marked it late (Canvas) */
    long long submitted_at; /* Unix time of the newest file it holds; 0: none */
};

struct submission_set {
    struct submission *items;
    size_t n, alloc;
    char **warnings; /* what was skipped or guessed, one line each, for the user */
    size_t n_warnings;
};

struct collect_opts {
    const char *roster;               /* CSV or NULL */
    const struct collect_limits *lim; /* NULL: collect_limits_init's */
    const char *const *sources;       /* file names the lab asks for, NULL-terminated, or NULL */
    bool one; /* src is one student's own folder (a Gradescope submission), not a class */
};

void submission_set_init(struct submission_set *s);
void submission_set_release(struct submission_set *s);

/* A problem's stable code, as results.json's lms.problem records it ("too_many_files"). */
const char *submission_problem_code(enum submission_problem p);

/*
 * src: a folder with one sub-folder per student, or an LMS export zip. Zips are
 * unpacked safely into unpack_dir (required, also for folders: see above).
 * On success *out (initialised by the caller) holds the set sorted by id, plus
 * warnings. -1 only when the class cannot be collected at all (err set).
 */
int collect_submissions_opts(const char *src, const char *unpack_dir, const struct collect_opts *o,
                             struct submission_set *out, struct error *err);
/* The same with roster and limits only (NULL for the defaults). */
int collect_submissions(const char *src, const char *unpack_dir, const char *roster,
                        const struct collect_limits *lim, struct submission_set *out,
                        struct error *err);

#endif

/*
 * collect: gather a class's submissions, one folder per student, from a folder
 * of folders or an LMS export zip (Moodle or Canvas), without trusting anything
 * in them.
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
 * Layouts recognised at the top level of the folder or zip:
 *   <anything>/                           a student; id = the name sanitized to
 *                                         [A-Za-z0-9._-], name = the folder name
 *   Full Name_12345_assignsubmission_file_/    Moodle (also _onlinetext_): the
 *                                         same id's folders are merged
 *   Full Name_12345_assignsubmission_file_x.c  Moodle, flat download
 *   nunezmaria_12345_678901_x-1.c          Canvas (also name_LATE_id_...): files
 *                                         grouped by id; "-1", "-2" resubmission
 *                                         suffixes dropped ("x.c")
 *   alice.zip (.tar, .tar.gz, .tgz, ...)  a student's archive; id = alice
 * A zip holding just one folder is looked into. Inside a student's folder, a
 * lone archive is unpacked and a lone folder is lifted up, a few levels deep.
 * "__MACOSX", ".DS_Store" and ".git" are left out everywhere.
 *
 * Limits apply to each student's submission as written to disk (bytes counted
 * as they are written, never taken from archive headers): total bytes, bytes
 * per file, number of files (folders count as files). Archive entries may be
 * at most 64 folders deep. A class export archive as a whole may hold up
 * to COLLECT_CLASS_FACTOR times one submission's total bytes and files.
 * Exceeding a limit is an error naming the archive or folder and the entry.
 *
 * roster (optional) is a CSV (comma, semicolon or tab separated; a UTF-8 BOM is
 * fine) whose header names an id column (student_id, id, ID number, SIS User
 * ID; the first present wins) and a name column (name, full name, student; or
 * first name + last name/surname). A submission takes the roster's id and name
 * when its own id or folder name equals a roster id, else when its name
 * matches a roster name ignoring case, accents, punctuation and word order
 * ("nunezmaria" matches "María Núñez"). Roster ids keep '@' (emails) besides
 * [A-Za-z0-9._-]. Submissions not in the roster keep their own id, with a
 * warning.
 *
 * Two submissions with the same id are an error naming both.
 * submission_set owns every string in it.
 */
#ifndef LG_COLLECT_H
#define LG_COLLECT_H

#include "base/error.h"
#include "class/safedir.h" /* struct collect_limits, collect_limits_init */

#include <stddef.h>

#define COLLECT_CLASS_FACTOR 64

struct submission {
    char *id;   /* stable student id: LMS id number, roster id, or the folder name */
    char *name; /* display name ("María Núñez") */
    char *dir;  /* absolute folder holding that student's files */
};

struct submission_set {
    struct submission *items;
    size_t n, alloc;
    char **warnings; /* what was skipped or guessed, one line each, for the user */
    size_t n_warnings;
};

void submission_set_init(struct submission_set *s);
void submission_set_release(struct submission_set *s);

/*
 * src: a folder with one sub-folder per student, or an LMS export zip. Zips are
 * unpacked safely into unpack_dir (required, also for folders: see above).
 * roster: NULL or a CSV, see above. lim: NULL for the defaults. On success
 * *out (initialised by the caller) holds the set sorted by id, plus warnings.
 */
int collect_submissions(const char *src, const char *unpack_dir, const char *roster,
                        const struct collect_limits *lim, struct submission_set *out,
                        struct error *err);

#endif

/*
 * lms_layout: the file and folder names LMS downloads give submissions, parsed
 * (docs/exports.md cites the LMS code that makes them).
 *   Moodle  "Full Name_12345_assignsubmission_file_"       a folder (also _onlinetext_)
 *           "Full Name_12345_assignsubmission_file_x.c"    flat download
 *           12345 is Moodle's participant number, per assignment; a team submission's
 *           name starts with "<group name>-".
 *   Canvas  "nunezmaria_12345_678901_x-1.c"   <name>_<user id>_<file id>_<file>
 *           "nunezmaria_late_12345_678901_x.c" (and LATE_), "nunezmaria_12345_text.html"
 *           (online text), "nunezmaria_12345_link.html" (URL); the name may hold '_'
 *           but never "_<digits>_", and is absent under anonymous grading.
 *   GitHub Classroom  "<assignment slug>-submissions/<assignment slug>-<username>/"
 *
 * struct lms_name owns its strings; lms_name_release frees them.
 */
#ifndef LG_LMS_LAYOUT_H
#define LG_LMS_LAYOUT_H

#include <stdbool.h>

enum lms_part {
    LMS_FILES,       /* a folder of files, or one file */
    LMS_ONLINE_TEXT, /* the LMS's online text (HTML), not a file the student uploaded */
    LMS_URL,         /* a URL handed in instead of files */
};

struct lms_name {
    char *name;   /* "Full Name", "nunezmaria", "" (anonymous) */
    char *id;     /* Moodle's participant number, Canvas's user id */
    char *target; /* a file's name in the student's folder; "" for a folder */
    enum lms_part kind;
    bool late;   /* Canvas marked it late */
    long resub;  /* Canvas's resubmission suffix ("x-1.c": 1, target "x.c") */
    long fileid; /* Canvas's file id: newer uploads have larger ones */
};

void lms_name_release(struct lms_name *n);

/* Each fills *out (released by the caller) on success only. */
bool parse_moodle(const char *s, struct lms_name *out);
bool parse_canvas(const char *s, struct lms_name *out);

bool looks_moodle(const char *name);
bool looks_canvas(const char *name);

/* The student a top-level file of a class archive belongs to: its LMS id, or the name. */
char *lms_flat_key(const char *name);

/*
 * GitHub Classroom: the assignment slug of a folder of clones ("hw1" for
 * "hw1-submissions"), or NULL. A repository "hw1-ana-lopez" then belongs to
 * "ana-lopez" (github_login).
 */
char *classroom_slug(const char *folder_name);
/* The GitHub login in a repository's name ("hw1-ana" -> "ana"), or NULL when it does not
 * start with "<slug>-". */
char *classroom_login(const char *repo, const char *slug);

#endif

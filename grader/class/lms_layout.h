/*
 * lms_layout: the file and folder names LMS downloads give submissions, parsed.
 *   Moodle  "Full Name_12345_assignsubmission_file_"      (a folder)
 *           "Full Name_12345_assignsubmission_file_x.c"   (flat download)
 *   Canvas  "nunezmaria_12345_678901_x-1.c" (also "name_LATE_12345_...")
 * Every out-parameter is a new string the caller frees (set only on success).
 */
#ifndef LG_LMS_LAYOUT_H
#define LG_LMS_LAYOUT_H

#include <stdbool.h>

/* Moodle: *name "Full Name", *id "12345", *rest "" (a folder) or "x.c" (a file). */
bool parse_moodle(const char *s, char **name, char **id, char **rest);

/*
 * Canvas: "name_id_fileid_original" or "name_LATE_id_fileid_original". *target
 * is the original without Canvas's resubmission suffix ("x-1.c" -> "x.c",
 * *resub = 1); *fileid is Canvas's file id (newer uploads have larger ones).
 */
bool parse_canvas(const char *s, char **name, char **id, char **target, long *resub, long *fileid);

bool looks_moodle(const char *name);
bool looks_canvas(const char *name);

/* The student a top-level file of a class archive belongs to: its LMS id, or the name. */
char *lms_flat_key(const char *name);

#endif

/*
 * roster: a class list in CSV (comma, semicolon or tab separated; RFC 4180
 * quoting; a UTF-8 BOM is fine), as LMSs and spreadsheets export it. The
 * header names id columns and a name column (name, full name, student; or
 * first name + last name/surname). A row's id is its first non-empty one of:
 * student_id, id, ID number, idnumber, SIS User ID, identifier (GitHub
 * Classroom), Email address, email, Username, github_username, SIS Login ID;
 * every one of them (and a group, groups or team column) is kept, for matching
 * submissions and for the exports (a student_id is also the ID number, when the roster has
 * no ID number column). "ID" is Canvas's user id when the roster is a
 * Canvas gradebook export (it has SIS User ID or SIS Login ID). Rows without an
 * id (blank lines, Canvas's "Points Possible" row) are skipped; an id given
 * twice is an error naming the line; an id column empty in every row gets a
 * warning.
 *
 * struct roster owns every string in it; roster_release frees them.
 */
#ifndef LG_ROSTER_H
#define LG_ROSTER_H

#include "base/error.h"
#include "class/names.h"
#include "grade/results_lms.h"

#include <stddef.h>

struct roster_row {
    char *id, *name;
    struct lms_ids ids;    /* every identity column the roster has */
    char *group;           /* NULL: none */
    struct name_list keys; /* the name's key in every word rotation (names.h) */
};

struct roster {
    struct roster_row *rows;
    size_t n, alloc;
    struct name_list warnings; /* one line each, for the user */
};

void roster_release(struct roster *r);
/* Fill ro (zeroed by the caller) from the CSV at path. */
int roster_load(const char *path, struct roster *ro, struct error *err);

/* The row with value (may be NULL) as its id or as any of its identity columns (emails,
 * usernames and GitHub logins ignoring case), or NULL. */
const struct roster_row *roster_find_value(const struct roster *ro, const char *value);
/* The row whose name matches name ignoring case, accents, punctuation and word order,
 * when exactly one does; *matches says how many did. */
const struct roster_row *roster_find_name(const struct roster *ro, const char *name,
                                          size_t *matches);
/* The row of a student graded before (grader merge --roster): by the id they were graded
 * under or any of their LMS ids (roster_find_value), else by name (roster_find_name, which
 * sets *matches); NULL when none, or when several rows have the name. */
const struct roster_row *roster_find_student(const struct roster *ro, const char *id,
                                             const struct lms_ids *ids, const char *name,
                                             size_t *matches);
/* Every row of group as a member (its id as collection makes ids: names.h's sanitize_id),
 * appended to *members; nothing for a NULL group. */
void roster_members(const struct roster *ro, const char *group, struct lms_member **members,
                    size_t *n);

#endif

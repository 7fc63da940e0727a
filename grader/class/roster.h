/*
 * roster: a class list in CSV (comma, semicolon or tab separated; RFC 4180
 * quoting; a UTF-8 BOM is fine), as LMSs and spreadsheets export it. The
 * header names an id column (student_id, id, ID number, SIS User ID; the first
 * present wins) and a name column (name, full name, student; or first name +
 * last name/surname). Rows without an id (blank lines, Canvas's "Points
 * Possible" row) are skipped; an id given twice is an error naming the line.
 *
 * struct roster owns every string in it; roster_release frees them.
 */
#ifndef LG_ROSTER_H
#define LG_ROSTER_H

#include "base/error.h"
#include "class/names.h"

#include <stddef.h>

struct roster_row {
    char *id, *name;
    struct name_list keys; /* the name's key in every word rotation (names.h) */
};

struct roster {
    struct roster_row *rows;
    size_t n, alloc;
};

void roster_release(struct roster *r);
/* Fill ro (zeroed by the caller) from the CSV at path. */
int roster_load(const char *path, struct roster *ro, struct error *err);

/* The row whose id is one of the given ids (either may be NULL), or NULL. */
const struct roster_row *roster_find_id(const struct roster *ro, const char *id1, const char *id2);
/* The row whose name matches name ignoring case, accents, punctuation and word order,
 * when exactly one does; *matches says how many did. */
const struct roster_row *roster_find_name(const struct roster *ro, const char *name,
                                          size_t *matches);

#endif

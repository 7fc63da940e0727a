/*
 * table: the terminal view of a results struct. The first screen answers what a
 * student asks first: the score, what cost points (one line per cause: the
 * failures, the cases not run here grouped by why, the grader's errors) and what
 * to try next (overview.h); then one table per exercise, a line per variant and
 * case; then a closing line. Colours only when the stream is a terminal and
 * NO_COLOR is unset (https://no-color.org).
 *
 * Sentences go through messages_get() (templates/<lang>/messages.po), so the
 * console speaks the report's language (--lang). In the student view a hidden
 * case is never a row: its id and size are hints; only how many there are, and
 * how they went, is printed.
 */
#ifndef LG_TABLE_H
#define LG_TABLE_H

#include "base/messages.h"
#include "grade/results.h"

#include <stdbool.h>
#include <stdio.h>

struct table_opts {
    bool color;
    bool student_view;           /* hidden cases as counts only, unless the lab shows them */
    const struct messages *msgs; /* the console's language; NULL: English. Borrowed */
};

/* No colour, the student view, English. */
void table_opts_init(struct table_opts *o);

bool table_use_color(FILE *f);
/* The first screen, then the exercises' tables. */
void table_print(FILE *f, const struct results *r, const struct table_opts *o);
/* The machine, "lab6: 7.50 / 10.00 points — 12 passed, 1 failed, ..." and what it implies. */
void table_print_summary(FILE *f, const struct results *r, const struct table_opts *o);

#endif

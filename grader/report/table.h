/*
 * table: the terminal view of a results struct — one table per exercise, a
 * line per variant and case, and a closing summary. Colours only when the
 * stream is a terminal and NO_COLOR is unset (https://no-color.org).
 */
#ifndef LG_TABLE_H
#define LG_TABLE_H

#include "grade/results.h"

#include <stdbool.h>
#include <stdio.h>

bool table_use_color(FILE *f);
void table_print(FILE *f, const struct results *r, bool color);
/* "12 passed, 1 failed, 4 skipped, 0 grader errors" and the score line. */
void table_print_summary(FILE *f, const struct results *r, bool color);

#endif

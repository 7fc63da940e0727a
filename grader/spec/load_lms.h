/*
 * load_lms: the lab keys for the systems grades go to (labs/README.md): `late:`
 * (the late policy) and `gradescope:` (how Gradescope shows the lab). Called by
 * load.c's top level; the values land in struct lab (spec.h), which owns them.
 */
#ifndef LG_LOAD_LMS_H
#define LG_LOAD_LMS_H

#include "spec/loader.h"

/* The keys this file adds to the top level. */
#define LOAD_LMS_TOP_KEYS "late", "gradescope"

/* The defaults (Gradescope's hidden visibility, leaderboard on), then the keys of m that
 * are present. -1 with the loader's error (file:line:col) on a bad value. */
int load_lms_keys(struct loader *ld, const yaml_node_t *m, struct lab *lab);

#endif

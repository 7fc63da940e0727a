/*
 * memspace: what a report makes of where a variant keeps its array arguments
 * (host, pinned or device memory): whether it runs on device pointers, whether
 * it is itself a copy between host and device, and which two variants differ
 * only in pageable against pinned host memory. All from results.h's arg_memory,
 * never from the text of `memory`.
 */
#ifndef LG_REPORT_MEMSPACE_H
#define LG_REPORT_MEMSPACE_H

#include "base/template.h"
#include "grade/results.h"
#include "report/phrases.h"

#include <stdbool.h>

/* Every array argument in device memory. */
bool variant_all_device(const struct variant_result *vr);

/*
 * A variant that is itself a transfer (a copy between host and device memory):
 * some arguments on the device, some on the host. Its "time with transfers" is a
 * round trip, not the same call with copies around it, so no overhead applies.
 */
bool variant_is_transfer(const struct variant_result *vr);

/*
 * Whether two variants differ only in pageable against pinned host memory: every
 * argument in the same place, except host in one where the other has pinned.
 * Returns 1 when a is the pageable one, -1 when b is, 0 otherwise.
 */
int pageable_pinned_pair(const struct variant_result *a, const struct variant_result *b);

/* m.memory: where the arguments live, in the report's language (strings.txt's mem.*): one
 * name when they all live in one place ("del dispositivo"), else each argument's ("dst del
 * dispositivo, src del host, fijada"). */
void set_variant_memory(const struct strings *s, struct tpl_value *m,
                        const struct variant_result *vr);

#endif

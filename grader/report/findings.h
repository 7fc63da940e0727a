/*
 * findings: which of a case's findings a report shows, the same rule for the
 * console and the report.
 *
 * Every finding is shown except a roofline one (results.h's roofline_first and
 * roofline_count: the case's memory traffic, arithmetic or transfer rate as a
 * share of this machine's measured peak) where the share says nothing. A share
 * of the peak means something only for a call that does enough work to reach
 * it: one long enough that the call's fixed costs (the call itself, a kernel
 * launch, the timer's resolution: microseconds) are under 1% of it, or one that
 * moves more data than any cache holds (256 MB, the bound grading itself uses
 * for the last-level caches of large CPUs), so that the rate is the memory's
 * and not a cache's ("114% of the memory bandwidth" for 1000 elements that live
 * in L1). So a roofline finding is shown for a case whose timed call took at
 * least ROOFLINE_MIN_MS or moved at least ROOFLINE_MIN_BYTES, and always for the
 * variant's slowest timed case (its largest), so every variant keeps one.
 */
#ifndef LG_REPORT_FINDINGS_H
#define LG_REPORT_FINDINGS_H

#include "grade/results.h"

#include <stdbool.h>
#include <stddef.h>

#define ROOFLINE_MIN_MS 1.0
#define ROOFLINE_MIN_BYTES 256e6

/* Whether finding i (0-based) of case cr of variant vr is worth showing. The slowest case is
 * chosen among the variant's cases that are not hidden when hide_hidden is set. */
bool finding_shown(const struct variant_result *vr, const struct case_result *cr, size_t i,
                   bool hide_hidden);

/* Whether the case's roofline findings are worth showing (the rule above). */
bool roofline_meaningful(const struct variant_result *vr, const struct case_result *cr,
                         bool hide_hidden);

#endif

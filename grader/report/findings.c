#include "report/findings.h"

#include <math.h>

/* Bytes the timed call moved, from its rate and time; 0 where either is unknown. */
static double bytes_moved(const struct case_result *cr)
{
    if (!cr->time.valid || !(cr->gbps > 0) || !isfinite(cr->gbps))
        return 0;
    return cr->gbps * 1e9 * cr->time.median_ms / 1e3;
}

bool roofline_meaningful(const struct variant_result *vr, const struct case_result *cr,
                         bool hide_hidden)
{
    if (!cr->time.valid)
        return false;
    if (cr->time.median_ms >= ROOFLINE_MIN_MS || bytes_moved(cr) >= ROOFLINE_MIN_BYTES)
        return true;
    for (size_t c = 0; c < vr->n_cases; c++) {
        const struct case_result *o = &vr->cases[c];
        if (o == cr || !o->time.valid || (o->hidden && hide_hidden))
            continue;
        if (o->time.median_ms > cr->time.median_ms)
            return false; /* not the slowest */
    }
    return true;
}

bool finding_shown(const struct variant_result *vr, const struct case_result *cr, size_t i,
                   bool hide_hidden)
{
    bool roofline = cr->roofline_first > 0 && i + 1 >= cr->roofline_first &&
                    i + 1 < cr->roofline_first + cr->roofline_count;
    return !roofline || roofline_meaningful(vr, cr, hide_hidden);
}

#include "report/clock.h"

#include "harness/throttle.h"

bool clock_tally_add(struct clock_tally *t, const struct case_result *cr)
{
    const struct gpu_clock *k[2] = {&cr->clock, &cr->ref_clock};
    bool hit = false;
    for (int i = 0; i < 2; i++) {
        if (k[i]->max_mhz > 0) {
            t->lo = t->lo == 0 || k[i]->min_mhz < t->lo ? k[i]->min_mhz : t->lo;
            t->hi = k[i]->max_mhz > t->hi ? k[i]->max_mhz : t->hi;
        }
        t->limit = k[i]->limit_mhz > t->limit ? k[i]->limit_mhz : t->limit;
        t->dropped += k[i]->dropped;
        t->throttled += k[i]->throttled;
        hit = hit || k[i]->dropped > 0 || k[i]->throttled;
    }
    return hit;
}

void set_clock_range(struct tpl_value *m, const struct clock_tally *t)
{
    if (t->hi == 0)
        return;
    tpl_set_num(m, "gpu_clock_min", t->lo);
    tpl_set_num(m, "gpu_clock_max", t->hi);
    tpl_set_num(m, "gpu_clock_limit", t->limit);
    tpl_set_bool(m, "has_gpu_clock_limit", t->limit > 0);
    tpl_set_num(m, "throttle_threshold_pct", (int)(LG_THROTTLE_THRESHOLD * 100 + 0.5));
}

void set_gpu_clock(struct tpl_value *m, const struct results *r)
{
    struct clock_tally t = {0};
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r->exercises[e].variants[v];
            for (size_t c = 0; c < vr->n_cases; c++)
                clock_tally_add(&t, &vr->cases[c]);
        }
    tpl_set_bool(m, "gpu_clock", t.hi > 0);
    set_clock_range(m, &t);
    tpl_set_num(m, "gpu_clock_dropped", t.dropped);
    tpl_set_bool(m, "has_gpu_clock_dropped", t.dropped > 0);
    tpl_set_bool(m, "gpu_clock_throttled", t.throttled > 0);
}

/* profile_diag: the profile's data (grade/profile.h): names of its enums, the diagnosis of the
 * student's main kernel against the reference's, and the cross-check of ncu's kernel time
 * against the grader's own. Pure functions of numbers: no run, no words. */
#include "grade/profile.h"

#include "base/alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = {"ran", "skipped", "failed"};
static const char *const reason_names[PROFILE_REASON_COUNT] = {
    "none",        "no_gpu",      "no_ncu",  "no_permission", "no_kernel",
    "unsupported", "tool_failed", "no_case", "not_passed",    "no_reference",
};

const char *profile_status_name(enum profile_status s)
{
    return (unsigned)s <= PROFILE_FAILED ? status_names[s] : "failed";
}

int profile_status_parse(const char *name)
{
    for (int i = 0; name && i <= PROFILE_FAILED; i++)
        if (!strcmp(status_names[i], name))
            return i;
    return -1;
}

const char *profile_reason_name(enum profile_reason r)
{
    return (unsigned)r < PROFILE_REASON_COUNT ? reason_names[r] : "tool_failed";
}

int profile_reason_parse(const char *name)
{
    for (int i = 0; name && i < PROFILE_REASON_COUNT; i++)
        if (!strcmp(reason_names[i], name))
            return i;
    return -1;
}

void variant_profile_init(struct variant_profile *p)
{
    memset(p, 0, sizeof(*p));
    ncu_profile_init(&p->student.prof);
    ncu_profile_init(&p->reference.prof);
}

static void side_release(struct profile_side *s)
{
    free(s->detail);
    ncu_profile_release(&s->prof);
}

void variant_profile_free(struct variant_profile *p)
{
    if (!p)
        return;
    free(p->case_id);
    side_release(&p->student);
    side_release(&p->reference);
    free(p);
}

int profile_main_kernel(const struct ncu_profile *p)
{
    int best = -1;
    for (size_t i = 0; i < p->n_kernels; i++) {
        double t = p->kernels[i].total_ns;
        if (!isnan(t) && (best < 0 || t > p->kernels[best].total_ns))
            best = (int)i;
    }
    return best;
}

double profile_kernel_ms(const struct ncu_profile *p)
{
    double sum = NAN;
    for (size_t i = 0; i < p->n_kernels; i++)
        if (!isnan(p->kernels[i].total_ns))
            sum = (isnan(sum) ? 0 : sum) + p->kernels[i].total_ns;
    return sum / 1e6;
}

double profile_sectors_per_request(const struct ncu_kernel *k, bool stores)
{
    double sectors = k->m[stores ? NCU_ST_SECTORS : NCU_LD_SECTORS];
    double requests = k->m[stores ? NCU_ST_REQUESTS : NCU_LD_REQUESTS];
    if (isnan(sectors) || isnan(requests) || requests <= 0)
        return NAN;
    return sectors / requests;
}

/* The worse of loads and stores; *stores says which. */
static double worst_ratio(const struct ncu_kernel *k, bool *stores)
{
    double ld = profile_sectors_per_request(k, false), st = profile_sectors_per_request(k, true);
    *stores = !isnan(st) && (isnan(ld) || st > ld);
    return *stores ? st : ld;
}

static void diagnose_access(const struct ncu_kernel *k, const struct ncu_kernel *r,
                            struct profile_diagnosis *d)
{
    d->sectors_per_request = worst_ratio(k, &d->stores);
    d->ref_sectors_per_request = r ? profile_sectors_per_request(r, d->stores) : NAN;
    double s = d->sectors_per_request, ref = d->ref_sectors_per_request;
    if (!isnan(s) && s > PROFILE_SECTORS_PER_REQUEST && (isnan(ref) || s > 1.5 * ref))
        d->causes |= PROFILE_UNCOALESCED;
}

/* The resource that allows the fewest blocks per SM. */
static int occupancy_limiter(const struct ncu_kernel *k)
{
    static const enum ncu_metric limits[] = {NCU_LIMIT_REGISTERS, NCU_LIMIT_SMEM, NCU_LIMIT_WARPS,
                                             NCU_LIMIT_BLOCKS};
    int best = -1;
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        double v = k->m[limits[i]];
        if (!isnan(v) && (best < 0 || v < k->m[best]))
            best = (int)limits[i];
    }
    return best;
}

static void diagnose_occupancy(const struct ncu_kernel *k, struct profile_diagnosis *d)
{
    double theory = k->m[NCU_OCC_THEORETICAL], achieved = k->m[NCU_OCC_ACHIEVED];
    if (!isnan(theory) && theory < PROFILE_OCCUPANCY_LOW_PCT) {
        d->causes |= PROFILE_LOW_OCCUPANCY;
        d->limiter = occupancy_limiter(k);
    } else if (!isnan(theory) && !isnan(achieved) && achieved < 0.5 * theory) {
        d->causes |= PROFILE_LOW_ACHIEVED;
    }
}

static void diagnose_bound(const struct ncu_kernel *k, struct profile_diagnosis *d)
{
    double dram = k->m[NCU_DRAM_PCT], sm = k->m[NCU_SM_PCT];
    if (!isnan(dram) && dram >= PROFILE_BUSY_PCT)
        d->causes |= PROFILE_MEMORY_BOUND;
    if (!isnan(sm) && sm >= PROFILE_BUSY_PCT)
        d->causes |= PROFILE_COMPUTE_BOUND;
    if (!isnan(dram) && !isnan(sm) && dram < PROFILE_BUSY_PCT && sm < PROFILE_BUSY_PCT)
        d->causes |= PROFILE_LATENCY_BOUND;
}

void profile_diagnose(const struct ncu_profile *stu, const struct ncu_profile *ref,
                      struct profile_diagnosis *d)
{
    memset(d, 0, sizeof(*d));
    d->limiter = -1;
    d->sectors_per_request = d->ref_sectors_per_request = NAN;
    d->kernel = profile_main_kernel(stu);
    d->ref_kernel = ref ? profile_main_kernel(ref) : -1;
    if (d->kernel < 0)
        return;
    const struct ncu_kernel *k = &stu->kernels[d->kernel];
    const struct ncu_kernel *r = d->ref_kernel >= 0 ? &ref->kernels[d->ref_kernel] : NULL;
    diagnose_access(k, r, d);
    diagnose_occupancy(k, d);
    diagnose_bound(k, d);
    if ((d->causes & PROFILE_UNCOALESCED) && k->excess_line.file)
        d->line = PROFILE_LINE_EXCESS;
    else if (k->hot_line.file && k->hot_line.share >= PROFILE_HOT_LINE_SHARE)
        d->line = PROFILE_LINE_HOT;
}

double profile_tolerance_ms(double event_ms, long launches)
{
    return 0.05 * event_ms + 0.005 * (double)(launches > 0 ? launches : 1);
}

void profile_crosscheck(double ncu_ms, double event_ms, long launches, struct profile_crosscheck *x)
{
    memset(x, 0, sizeof(*x));
    x->ncu_ms = ncu_ms;
    x->event_ms = event_ms;
    x->launches = launches;
    if (isnan(ncu_ms) || isnan(event_ms) || event_ms <= 0 || ncu_ms <= 0)
        return;
    x->done = true;
    x->agree = fabs(ncu_ms - event_ms) <= profile_tolerance_ms(event_ms, launches);
}

/* select: which cases run, under which limits, in which folders (grading.h). */
#include "grade/grading.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/messages.h"

#include <string.h>

static bool case_listed(const char *list, const char *id)
{
    size_t n = strlen(id);
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, id, n))
            return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

const char *grading_case_skipped(const struct grading *g, const struct case_spec *c)
{
    if (g->o->cases && !case_listed(g->o->cases, c->id))
        return messages_get(g->o->messages, "not selected (--case)");
    if (c->hidden && !g->o->hidden)
        return messages_get(g->o->messages, "hidden case: run only when the instructor grades");
    /* A kit's hidden case is withheld (spec.h): there is nothing to run. */
    if (c->withheld)
        return messages_get(g->o->messages, "hidden case, not in this kit: it runs only when the "
                                            "instructor grades");
    if (c->slow && !g->o->full)
        return messages_get(g->o->messages, "slow case: run with --full (make check ARGS=--full)");
    return NULL;
}

/* How many times the reference's own time a case may take: generous for a slow but honest
 * first attempt, tight enough that a hang is over in seconds rather than the spec's limit. */
#define LIMIT_TIMES_REFERENCE 20
#define LIMIT_MARGIN_S 10

double grading_case_timeout(const struct grading *g, const struct exercise_spec *ex,
                            const struct variant_spec *v, const struct case_spec *c)
{
    double spec = c->timeout_s > 0 ? c->timeout_s : ex->timeout_s;
    if (g->o->timeout_s > 0)
        return g->o->timeout_s;
    const struct ref_timing *rt = NULL;
    struct error ignored;
    error_init(&ignored);
    if (!g->o->no_timing)
        rt = reference_time((struct grading *)g, ex, v, c, &ignored);
    if (!rt || !rt->ok || rt->case_wall_s <= 0)
        return spec;
    double derived = LIMIT_MARGIN_S + LIMIT_TIMES_REFERENCE * rt->case_wall_s;
    return derived < spec ? derived : spec;
}

struct timing_spec grading_timing(const struct grading *g, const struct exercise_spec *ex)
{
    struct timing_spec t = ex->timing;
    if (g->env->grade_mode)
        return t;
    if (t.budget_s > QUICK_BUDGET_S)
        t.budget_s = QUICK_BUDGET_S;
    if (t.max_samples > QUICK_MAX_PAIRS)
        t.max_samples = QUICK_MAX_PAIRS;
    if (t.min_samples > t.max_samples)
        t.min_samples = t.max_samples;
    return t;
}

char *grading_fresh_dir(const struct grading *g, const char *name, struct error *err)
{
    char *d = xstrfmt("%s/run/%s", g->work, name);
    remove_tree(d, NULL);
    if (mkdir_p(d, err) != 0) {
        free(d);
        return NULL;
    }
    return d;
}

/* mutate: plan, grade and classify the mutants of a lab's solution. See mutate.h. */
#include "analyze/mutate.h"

#include "analyze/mutcases.h"
#include "analyze/mutequiv.h"
#include "analyze/mutplan.h"
#include "analyze/mutrun.h"
#include "analyze/tokens.h"
#include "base/alloc.h"

#include <string.h>

/* Totals, and per variant: a mutant reached by several variants counts in each. */
static void tally(struct mutate_result *r)
{
    for (size_t i = 0; i < r->n_recs; i++) {
        const struct mut_record *rec = &r->recs[i];
        size_t *total[] = {&r->killed,     &r->ce,      &r->survived,
                           &r->equivalent, &r->not_run, &r->errors};
        (*total[rec->status])++;
        for (size_t k = 0; k < rec->n_targets; k++) {
            struct mut_target *t = &r->targets[rec->targets[k]];
            t->total += rec->status <= MUT_EQUIVALENT;
            t->killed += rec->status == MUT_KILLED;
            t->ce += rec->status == MUT_KILLED_CE;
            t->survived += rec->status == MUT_SURVIVED;
            t->equivalent += rec->status == MUT_EQUIVALENT;
        }
    }
}

int mutate_run(const struct lab *lab, const struct mutate_opts *o, struct mutate_result *r,
               struct error *err)
{
    struct mutrun m;
    char why[512];
    mutate_result_release(r);
    r->lab_dir = xstrdup(lab->dir);
    if (!tokens_available(why, sizeof(why)))
        return error_set(err, "%s", why);
    if (o->only && !lab_exercise(lab, o->only))
        return error_set(err, "no exercise '%s' in %s", o->only, lab->path);
    int rc = mutrun_init(&m, lab, o, r, err);
    if (rc == 0)
        rc = mutrun_baseline(&m, err);
    if (rc == 0)
        rc = mutplan_build(r, lab, m.solution, r->gpu, o->only, err);
    if (rc == 0)
        rc = mutrun_mutants(&m, err);
    if (rc == 0)
        rc = mutequiv_apply(r, lab->dir, err);
    if (rc == 0 && !o->no_extra)
        rc = mutcases_run(&m, err);
    if (rc == 0)
        tally(r);
    mutrun_release(&m);
    return rc;
}

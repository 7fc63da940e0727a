/* mutresult: a mutation run's options and results. See mutresult.h. */
#include "analyze/mutresult.h"

#include "base/alloc.h"

#include <string.h>

const char *mut_status_id(enum mut_status s)
{
    static const char *const ids[] = {"killed", "ce", "survived", "equivalent", "not_run", "error"};
    return (unsigned)s < sizeof(ids) / sizeof(ids[0]) ? ids[s] : "";
}

void mutate_opts_init(struct mutate_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->out = "reports";
}

void mutate_result_init(struct mutate_result *r)
{
    memset(r, 0, sizeof(*r));
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void record_release(struct mut_record *rec)
{
    mutant_release(&rec->m);
    free(rec->targets);
    free(rec->kill_exercise);
    free(rec->kill_variant);
    free(rec->kill_case);
    free(rec->diff);
    free(rec->note);
    for (size_t i = 0; i < rec->n_extra; i++)
        free(rec->extra[i].sizes);
    free(rec->extra);
}

void mutate_result_release(struct mutate_result *r)
{
    for (size_t i = 0; i < r->n_recs; i++)
        record_release(&r->recs[i]);
    free(r->recs);
    free(r->lab_dir);
    free_strings(r->files, r->n_files);
    free_strings(r->texts, r->n_files);
    free(r->targets);
    free(r->gpu_note);
    free_strings(r->extra_sizes, r->n_extra_sizes);
    free_strings(r->warnings, r->n_warnings);
    memset(r, 0, sizeof(*r));
}

void mutate_warn(struct mutate_result *r, char *msg)
{
    r->warnings = xrealloc(r->warnings, (r->n_warnings + 1) * sizeof(*r->warnings));
    r->warnings[r->n_warnings++] = msg;
}

size_t mutate_counted(const struct mutate_result *r)
{
    return r->killed + r->survived;
}

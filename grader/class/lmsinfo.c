#include "class/lmsinfo.h"

#include "base/alloc.h"
#include "base/isotime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char **lab_source_names(const struct lab *lab)
{
    char **names = xcalloc(1, sizeof(*names));
    size_t n = 0;
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            const struct impl_spec *im = &lab->exercises[e].variants[v].student;
            for (size_t i = 0; i < im->n_sources; i++) {
                const char *slash = strrchr(im->sources[i], '/');
                const char *base = slash ? slash + 1 : im->sources[i];
                bool seen = false;
                for (size_t k = 0; k < n && !seen; k++)
                    seen = !strcmp(names[k], base);
                if (seen)
                    continue;
                names = xrealloc(names, (n + 2) * sizeof(*names));
                names[n++] = xstrdup(base);
                names[n] = NULL;
            }
        }
    return names;
}

void lab_source_names_free(char **names)
{
    for (size_t i = 0; names && names[i]; i++)
        free(names[i]);
    free(names);
}

static const char *const origin_sources[][2] = {
    {"canvas", "canvas"}, {"moodle", "moodle"}, {"github", "files"},
    {"folder", "files"},  {"archive", "files"},
};

void lmsinfo_record(const struct submission *sub, struct results *r)
{
    struct results_lms *l = &r->lms;
    results_lms_release(l);
    lms_ids_copy(&l->ids, &sub->ids);
    l->group = sub->group ? xstrdup(sub->group) : NULL;
    l->members = sub->n_members ? xcalloc(sub->n_members, sizeof(*l->members)) : NULL;
    for (size_t i = 0; i < sub->n_members; i++) {
        l->members[i].id = xstrdup(sub->members[i].id);
        l->members[i].name = sub->members[i].name ? xstrdup(sub->members[i].name) : NULL;
        lms_ids_copy(&l->members[i].ids, &sub->members[i].ids);
    }
    l->n_members = sub->n_members;
    l->late.marked = sub->late_marked;
    if (sub->submitted_at > 0) {
        char buf[40];
        iso_time_format(sub->submitted_at, buf, sizeof(buf));
        l->late.submitted_at = xstrdup(buf);
        const char *src = "files";
        for (size_t i = 0; sub->origin && i < sizeof(origin_sources) / sizeof(*origin_sources); i++)
            if (!strcmp(sub->origin, origin_sources[i][0]))
                src = origin_sources[i][1];
        l->late.source = xstrdup(src);
    }
    if (sub->problem != SUBMISSION_OK)
        l->problem = xstrdup(submission_problem_code(sub->problem));
}

/* Why nothing was graded, in the report's language. */
static char *refusal_text(const struct submission *sub, const struct messages *m)
{
    const char *what = sub->problem_what ? sub->problem_what : "";
    long long lim = sub->problem_limit;
    switch (sub->problem) {
    case SUBMISSION_TOO_MANY_FILES:
        return xstrfmt(messages_get(m, "submission too large: more than %lld files and folders "
                                       "(the limit); nothing was graded"),
                       lim);
    case SUBMISSION_TOO_LARGE:
        return xstrfmt(messages_get(m, "submission too large: more than %lld bytes in all (the "
                                       "limit); nothing was graded"),
                       lim);
    case SUBMISSION_FILE_TOO_LARGE:
        return xstrfmt(messages_get(m, "submission too large: %s is over the limit of %lld "
                                       "bytes per file; nothing was graded"),
                       what, lim);
    case SUBMISSION_TOO_DEEP:
        return xstrfmt(messages_get(m, "submission refused: %s is nested more than %lld folders "
                                       "deep; nothing was graded"),
                       what, lim);
    case SUBMISSION_BAD_ENTRY:
        return xstrfmt(messages_get(m, "submission refused: %s is a link, a device, or has a "
                                       "control character or '..' in its name; nothing was "
                                       "graded"),
                       what);
    case SUBMISSION_ONLINE_TEXT:
        return xstrdup(messages_get(m, "handed in as online text, not as files: nothing to "
                                       "compile"));
    case SUBMISSION_URL:
        return xstrdup(messages_get(m, "handed in as a URL, not as files: nothing to compile"));
    case SUBMISSION_AMBIGUOUS:
        return xstrfmt(messages_get(m, "two files of a name the lab asks for, in different "
                                       "folders (%s): keep one"),
                       what);
    case SUBMISSION_OK:
        break;
    }
    return NULL;
}

void lmsinfo_mark_refused(const struct submission *sub, const struct messages *m, struct results *r)
{
    char *why = refusal_text(sub, m);
    bool limit = sub->problem == SUBMISSION_TOO_MANY_FILES ||
                 sub->problem == SUBMISSION_TOO_LARGE ||
                 sub->problem == SUBMISSION_FILE_TOO_LARGE || sub->problem == SUBMISSION_TOO_DEEP;
    if (!why)
        return;
    for (size_t e = 0; e < r->n_exercises; e++) {
        struct exercise_result *ex = &r->exercises[e];
        ex->perf_points = 0;
        for (size_t v = 0; v < ex->n_variants; v++)
            for (size_t c = 0; c < ex->variants[v].n_cases; c++) {
                struct case_result *cr = &ex->variants[v].cases[c];
                cr->verdict = limit ? V_OUTPUT : V_MISSING;
                free(cr->message);
                free(cr->detail);
                cr->message = xstrdup(why);
                cr->detail = NULL;
                cr->points = 0;
            }
    }
    results_tally(r);
    free(r->lms.problem);
    r->lms.problem = xstrdup(submission_problem_code(sub->problem));
    free(why);
}

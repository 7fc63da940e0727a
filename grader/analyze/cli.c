/* The analyze commands' runs. See cli.h. */
#include "analyze/cli.h"

#include "analyze/mutate.h"
#include "analyze/mutreport.h"
#include "analyze/simreport.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <stdio.h>
#include <string.h>

enum { EXIT_OK = 0, EXIT_USAGE = 2, EXIT_GRADER = 3 };

/* Up to `most` members' ids, then how many more. */
static void print_members(const struct sim_result *r, const size_t *members, size_t n, size_t most)
{
    for (size_t j = 0; j < n && j < most; j++)
        printf("%s%s", j ? ", " : "", r->subs[members[j]].id);
    if (n > most)
        printf(" and %zu more", n - most);
    putchar('\n');
}

static void print_findings(const struct sim_result *r, const char *outdir)
{
    size_t shown = r->n_reported < 20 ? r->n_reported : 20;
    for (size_t i = 0; i < r->n_groups; i++) {
        const struct sim_group *g = &r->groups[i];
        if (g->kind == SIM_GROUP_SHARED)
            printf("  group %zu: %zu submissions hold %u tokens of code in common%s: ", i + 1, g->n,
                   g->shared_tokens, g->matches_solution ? " (the instructor's solution)" : "");
        else
            printf("  group %zu: %zu submissions linked by pairs of %.0f%% to %.0f%%: ", i + 1,
                   g->n, 100 * g->min_similarity, 100 * g->max_similarity);
        print_members(r, g->members, g->n, 8);
    }
    for (size_t i = 0; i < r->n_solmatches && i < 20; i++)
        printf("  %s matches the instructor's solution: %u tokens in %zu fragments\n",
               r->subs[r->solmatches[i].sub].id, r->solmatches[i].held, r->solmatches[i].n_frags);
    if (r->n_solmatches > 20)
        printf("  ... and %zu more matching the instructor's solution\n", r->n_solmatches - 20);
    for (size_t i = 0; i < shown; i++) {
        const struct sim_pair *p = &r->pairs[i];
        printf(
            "  %-16s %-16s %3.0f%%  (a in b %.0f%%, b in a %.0f%%), longest fragment %u tokens\n",
            r->subs[p->a].id, r->subs[p->b].id, 100 * p->similarity, 100 * p->a_in_b,
            100 * p->b_in_a, p->frags[0].tokens);
    }
    if (r->n_reported > shown)
        printf("  ... and %zu more\n", r->n_reported - shown);
    printf("similarity: %s/similarity.md, similarity.html, similarity.json, similarity.csv\n",
           outdir);
}

int analyze_similarity(const struct lab *lab, struct analyze_similarity *a,
                       const char *templates_dir)
{
    struct sim_result r;
    struct error err;
    char *outdir = xstrfmt("%s/%s", a->out, lab->id);
    a->o.work_dir = a->work;
    a->o.progress = a->quiet ? NULL : stderr;
    error_init(&err);
    sim_result_init(&r);
    int status = EXIT_GRADER;
    if (sim_run(lab, &a->o, &r, &err) != 0) {
        error_print(&err, stderr);
        if (!dir_exists(a->o.submissions) && !file_exists(a->o.submissions))
            status = EXIT_USAGE;
    } else if (sim_report_write(&r, lab, outdir, templates_dir, a->lang, &err) != 0) {
        error_print(&err, stderr);
    } else {
        for (size_t i = 0; i < r.n_warnings && !a->quiet; i++)
            fprintf(stderr, "similarity: %s\n", r.warnings[i]);
        printf("%s: %zu submissions, %zu pair%s at or above %.0f%%, %zu group%s, %zu matching the "
               "instructor's solution\n",
               lab->id, r.n_subs, r.n_reported, r.n_reported == 1 ? "" : "s", 100 * a->o.threshold,
               r.n_groups, r.n_groups == 1 ? "" : "s", r.n_solmatches);
        print_findings(&r, outdir);
        status = EXIT_OK;
    }
    sim_result_release(&r);
    free(outdir);
    return status;
}

int analyze_mutate(const struct lab *lab, struct analyze_mutate *a, const char *templates_dir)
{
    struct mutate_result r;
    struct error err;
    a->o.progress = a->quiet ? NULL : stderr;
    error_init(&err);
    mutate_result_init(&r);
    int status = EXIT_GRADER;
    char *dir = xstrfmt("%s/%s/mutate", a->o.out, lab->id), *md = NULL, *note = NULL;
    struct mutreport_opts ro = {templates_dir, a->lang, a->pdf_mode};
    if (mutate_run(lab, &a->o, &r, &err) != 0 ||
        mutreport_write(&r, lab, dir, &ro, &md, &note, &err) != 0) {
        error_print(&err, stderr);
    } else {
        if (note)
            printf("report: %s (no PDF: %s)\n", md, note);
        else
            printf("report: %s%s\n", md, a->pdf_mode < 0 ? "" : " and report.pdf");
        mutreport_print(stdout, &r, lab);
        status = EXIT_OK;
    }
    free(md);
    free(note);
    free(dir);
    mutate_result_release(&r);
    return status;
}

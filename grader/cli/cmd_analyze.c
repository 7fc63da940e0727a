/* grader similarity, grader mutate and grade's --similarity step: the option table's values
 * into the analyze stage's structs (analyze/cli.h). */
#include "cli/cli.h"

#include "analyze/cli.h"
#include "base/alloc.h"

/* The similarity check of c's --submissions, with c's options (0: the defaults). */
static int similarity(struct cli *c, const struct lab *lab)
{
    struct analyze_similarity a = {0};
    const struct cli_args *o = &c->a;
    char *out = xstrdup(o->out ? o->out : "reports"), *work = cli_work_folder(out);
    sim_opts_init(&a.o);
    a.o.submissions = o->submissions;
    a.o.roster = o->roster;
    a.o.threshold = o->threshold > 0 ? o->threshold : a.o.threshold;
    a.o.min_match = o->min_match > 0 ? o->min_match : a.o.min_match;
    a.o.k = o->kgram > 0 ? o->kgram : a.o.k;
    a.o.window = o->window > 0 ? o->window : a.o.window;
    a.o.max_common = o->max_common;
    a.o.group_tokens = o->group_tokens;
    a.o.solution_tokens = o->solution_tokens;
    a.out = out;
    a.work = work;
    a.lang = o->lang;
    a.quiet = o->quiet;
    int status = analyze_similarity(lab, &a, c->home.templates_dir);
    free(out);
    free(work);
    return status;
}

static int load(struct cli *c, struct lab *lab)
{
    int status = cli_load_lab(c, lab, c->a.pos[0]);
    return status ? status : cli_home(c);
}

int cmd_similarity(struct cli *c)
{
    struct lab lab;
    if (!c->a.submissions) {
        cli_error(c, "%s",
                  cli_tr(c, "--submissions DIR (a folder per student, or an LMS zip) is "
                            "required"));
        return EXIT_USAGE;
    }
    if (c->a.threshold > 1) {
        cli_error(c, cli_tr(c, "--threshold is a similarity from 0 to 1, not %g"), c->a.threshold);
        return EXIT_USAGE;
    }
    int status = load(c, &lab);
    if (status == 0)
        status = similarity(c, &lab);
    lab_release(&lab);
    return status;
}

int cli_grade_similarity(struct cli *c, int grade_status)
{
    struct lab lab;
    if (grade_status == EXIT_USAGE)
        return grade_status;
    if (c->a.shard[1] > 0) {
        cli_error(c, "%s",
                  cli_tr(c, "--similarity skipped for a shard: run grader similarity once every "
                            "shard is graded"));
        return grade_status;
    }
    int status = load(c, &lab);
    if (status == 0)
        status = similarity(c, &lab);
    lab_release(&lab);
    return status == EXIT_PASS ? grade_status : status;
}

int cmd_mutate(struct cli *c)
{
    struct lab lab;
    struct analyze_mutate a = {0};
    int status = load(c, &lab);
    if (status == 0)
        status = cli_check_selection(c, &lab, c->a.only, NULL, true, true);
    if (status == 0) {
        mutate_opts_init(&a.o);
        a.o.out = c->a.out ? c->a.out : a.o.out;
        a.o.grader = c->a.grader;
        a.o.jobs = c->a.jobs;
        a.o.only = c->a.only;
        a.o.timeout_s = c->a.timeout_s;
        a.o.no_slow = c->a.no_slow;
        a.o.no_extra = c->a.no_extra;
        a.o.cpu_only = c->a.cpu_only;
        a.o.keep = c->a.keep;
        a.lang = c->a.lang;
        a.pdf_mode = c->a.pdf_mode;
        a.quiet = c->a.quiet;
        status = analyze_mutate(&lab, &a, c->home.templates_dir);
    }
    lab_release(&lab);
    return status;
}

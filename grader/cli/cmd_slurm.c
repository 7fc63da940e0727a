/*
 * grader slurm: the class graded as a Slurm job array (class/slurm.h writes and submits the
 * scripts). Everything the scripts will need is checked here, on the login node, so that a
 * typo fails now rather than in every task an hour from now: the lab, --only, the values of
 * the grade options passed to every shard (the parser checked those), and what sbatch takes.
 */
#include "cli/cli.h"

#include "class/slurm.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

static bool lab_uses_gpu(const struct lab *lab)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        if (exercise_has_gpu(&lab->exercises[e]))
            return true;
    return false;
}

static char *self_path(struct error *err)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        error_set(err, "slurm: cannot find this program's path (/proc/self/exe): %s",
                  strerror(errno));
        return NULL;
    }
    exe[n] = '\0';
    return xstrdup(exe);
}

/* The paths the scripts carry, absolute. */
struct slurm_paths {
    char *grader, *subs, *roster, *out;
};

static void paths_release(struct slurm_paths *p)
{
    free(p->grader);
    free(p->subs);
    free(p->roster);
    free(p->out);
}

/* 0, or the exit status with the reason printed. */
static int resolve_paths(const struct cli *c, struct slurm_paths *p)
{
    struct error err;
    const char *out = c->a.out ? c->a.out : "reports";
    error_init(&err);
    if (!(p->subs = path_abs(c->a.submissions, &err))) {
        error_prefix(&err, "--submissions: ");
        error_print(&err, stderr);
        return EXIT_USAGE;
    }
    if (c->a.roster && !(p->roster = path_abs(c->a.roster, &err))) {
        error_prefix(&err, "--roster: ");
        error_print(&err, stderr);
        return EXIT_USAGE;
    }
    if (mkdir_p(out, &err) != 0 || !(p->out = path_abs(out, &err)) ||
        !(p->grader = self_path(&err))) {
        error_print(&err, stderr);
        return EXIT_GRADER;
    }
    return 0;
}

static void fill_opts(struct cli *c, const struct lab *lab, const struct slurm_paths *p,
                      struct slurm_opts *o)
{
    const struct cli_args *a = &c->a;
    slurm_opts_init(o);
    o->grader = p->grader;
    o->lab = lab->dir;
    o->lab_id = lab->id;
    o->submissions = p->subs;
    o->roster = p->roster;
    o->out = p->out;
    o->shards = a->shards;
    o->cpus_per_task = a->cpus_per_task;
    o->partition = a->partition;
    o->time = a->time;
    o->mem = a->mem;
    o->account = a->account;
    o->node_local_scratch = a->node_local_scratch;
    o->dry_run = a->dry_run;
    o->extra_args = a->pass;
    o->canvas_assignment = a->canvas_assignment;
    o->sbatch = a->sbatch;
    if (a->gpus_per_task < 0) {
        o->gpus_per_task = lab_uses_gpu(lab) ? 1 : 0;
    } else {
        o->gpus_per_task = a->gpus_per_task;
        if (a->gpus_per_task == 0 && lab_uses_gpu(lab))
            cli_error(c,
                      cli_tr(c, "warning: %s has GPU exercises; with --gpus-per-task 0 their GPU "
                                "variants are skipped"),
                      lab->id);
    }
}

static int submit(struct cli *c, const struct lab *lab)
{
    struct slurm_paths p = {NULL, NULL, NULL, NULL};
    struct slurm_opts o;
    struct error err;
    int status = resolve_paths(c, &p);
    error_init(&err);
    if (status == 0) {
        fill_opts(c, lab, &p, &o);
        /* Option values the scripts cannot carry are the user's to fix (status 2). */
        struct strbuf g = STRBUF_INIT, m = STRBUF_INIT;
        if (slurm_write_scripts(&o, &g, &m, &err) != 0) {
            error_print(&err, stderr);
            status = EXIT_USAGE;
        } else if (slurm_submit(&o, stdout, &err) != 0) {
            error_print(&err, stderr);
            status = EXIT_GRADER;
        }
        strbuf_release(&g);
        strbuf_release(&m);
    }
    paths_release(&p);
    return status;
}

int cmd_slurm(struct cli *c)
{
    struct lab lab;
    if (!c->a.submissions) {
        cli_error(c, "%s",
                  cli_tr(c, "--submissions DIR (a folder per student, or an LMS zip) is "
                            "required"));
        return EXIT_USAGE;
    }
    int status = cli_load_lab(c, &lab, c->a.pos[0]);
    if (status == 0)
        status = cli_check_selection(c, &lab, c->a.only, NULL, true, true);
    if (status == 0)
        status = submit(c, &lab);
    lab_release(&lab);
    return status;
}

/* grader gradescope and grader autograde: the Gradescope autograder (class/gradescope.h). */
#include "cli/cli.h"

#include "class/gradescope.h"

#include <stdlib.h>

/* They need the grader's parts: its harness, headers, templates and source tree. */
static int with_paths(struct cli *c, char **root, struct grader_paths *p)
{
    int status = cli_home(c);
    if (status != 0)
        return status;
    *root = home_repo_root();
    *p = (struct grader_paths){c->home.harness_dir, c->home.include_dir, c->home.templates_dir,
                               *root};
    return 0;
}

int cmd_gradescope(struct cli *c)
{
    const struct cli_args *a = &c->a;
    struct gradescope_args g = {
        .lab_arg = a->pos[0],
        .out = a->out,
        .policy = a->gpu_policy,
        .lang = a->lang,
        .remote_host = a->remote_host,
        .remote_dir = a->remote_dir,
        .remote_key = a->remote_key,
        .known_hosts = a->known_hosts,
        .no_slow = a->no_slow,
        .no_timing = a->no_timing,
        .time_limit_s = a->time_limit_s,
    };
    struct grader_paths p;
    char *root = NULL;
    int status = with_paths(c, &root, &p);
    if (status == 0)
        status = gradescope_make(&g, &p);
    free(root);
    return status;
}

int cmd_autograde(struct cli *c)
{
    const struct cli_args *a = &c->a;
    struct autograde_args g = {
        .lab_arg = a->pos[0],
        .root = a->root,
        .lang = a->lang,
        .policy = a->gpu_policy,
        .setup = a->setup,
        .stdin_tar = a->stdin_tar,
        .no_slow = a->no_slow,
        .no_timing = a->no_timing,
        .timing_wait_s = a->timing_wait_s,
        .time_limit_s = a->time_limit_s,
    };
    struct grader_paths p;
    char *root = NULL;
    int status = with_paths(c, &root, &p);
    if (status == 0)
        status = autograde_run(&g, &p);
    free(root);
    return status;
}

/* The subcommands that grade nothing: validate, header, machine, version, help. */
#include "cli/cli.h"

#include "grade/grade.h"
#include "grade/results.h"
#include "run/machine.h"
#include "run/sandbox.h"
#include "spec/driver.h"
#include "base/alloc.h"
#include "base/strbuf.h"

#include <string.h>

#ifndef LG_VERSION
#define LG_VERSION "0.0.0"
#endif

/* "1 exercise", "3 variants": a count and its noun, the plural where it is one. */
static const char *counted(size_t n, const char *one, const char *more)
{
    return n == 1 ? one : more;
}

/* "lab.yaml: ok (lab 95: 1 exercise, 3 variants, 4 cases: 1 hidden, 1 slow)". */
static void say_valid(const struct lab *lab)
{
    size_t cases = 0, variants = 0, hidden = 0, slow = 0;
    for (size_t e = 0; e < lab->n_exercises; e++) {
        cases += lab->exercises[e].n_cases;
        variants += lab->exercises[e].n_variants;
        for (size_t k = 0; k < lab->exercises[e].n_cases; k++) {
            hidden += lab->exercises[e].cases[k].hidden;
            slow += lab->exercises[e].cases[k].slow;
        }
    }
    printf("%s: ok (lab %ld: %zu %s, %zu %s, %zu %s", lab->path, lab->number, lab->n_exercises,
           counted(lab->n_exercises, "exercise", "exercises"), variants,
           counted(variants, "variant", "variants"), cases, counted(cases, "case", "cases"));
    if (hidden || slow)
        printf(": %zu hidden, %zu slow", hidden, slow);
    printf(")\n");
}

int cmd_validate(struct cli *c)
{
    int status = EXIT_PASS;
    for (size_t i = 0; i < c->a.n_pos; i++) {
        struct lab lab;
        if (cli_load_lab(c, &lab, c->a.pos[i]) != 0)
            status = EXIT_USAGE;
        else
            say_valid(&lab);
        lab_release(&lab);
    }
    return status;
}

int cmd_header(struct cli *c)
{
    struct lab lab;
    struct strbuf sb = STRBUF_INIT;
    if (cli_load_lab(c, &lab, c->a.pos[0]) != 0) {
        lab_release(&lab);
        return EXIT_USAGE;
    }
    driver_prototypes_header(&lab, false, &sb);
    fputs(strbuf_str(&sb), stdout);
    strbuf_release(&sb);
    lab_release(&lab);
    return EXIT_PASS;
}

static void print_machine(const struct machine_info *m)
{
    printf("host:       %s\ncpu:        %s (%d threads)\n", m->hostname, m->cpu_model,
           m->cpu_threads);
    if (m->gpu_name)
        printf("gpu:        %s (compute capability %s, %ld MiB)\n", m->gpu_name, m->gpu_cc,
               m->gpu_memory_mib);
    else
        printf("gpu:        none: %s\n", m->gpu_status);
    printf("driver:     %s\ncuda:       %s\ncc:         %s\nnvcc:       %s\nisolation:  %s\n",
           m->driver_version ? m->driver_version : "-",
           m->cuda_runtime_version ? m->cuda_runtime_version : "-",
           m->cc_version ? m->cc_version : "-", m->nvcc_version ? m->nvcc_version : "-",
           isolation_name(sandbox_available()));
}

int cmd_machine(struct cli *c)
{
    struct grade_env env;
    struct error err;
    struct machine_info m;
    int status = cli_home(c);
    if (status != 0)
        return status;
    error_init(&err);
    grade_env_init(&env);
    if (grade_env_setup(&env, c->home.harness_dir, c->home.include_dir,
                        "/tmp/labgrader-machine-cache", ISOLATION_AUTO, &err) != 0) {
        error_print(&err, stderr);
        grade_env_release(&env);
        return EXIT_GRADER;
    }
    memset(&m, 0, sizeof(m));
    machine_info_collect(&m, &env.tc, &env.gpu, NULL);
    print_machine(&m);
    /* results_release() is what frees a machine_info's strings. */
    struct results tmp;
    results_init(&tmp);
    tmp.machine = m;
    results_release(&tmp);
    grade_env_release(&env);
    return EXIT_PASS;
}

int cmd_version(struct cli *c)
{
    (void)c;
    printf("labgrader %s\n", LG_VERSION);
    return EXIT_PASS;
}

int cmd_help(struct cli *c)
{
    if (c->a.man)
        return cli_print_man(c, stdout);
    if (c->a.n_pos == 0) {
        cli_print_overview(c, stdout);
        return EXIT_PASS;
    }
    const struct cli_command *cmd = cli_command_find(c->a.pos[0]);
    if (!cmd) {
        struct strbuf names = STRBUF_INIT;
        for (const struct cli_command *k = cli_commands; k->name; k++)
            strbuf_addf(&names, "%s%s", names.len ? ", " : "", k->name);
        cli_error(c, cli_tr(c, "no command '%s' (the commands: %s)"), c->a.pos[0],
                  strbuf_str(&names));
        strbuf_release(&names);
        return EXIT_USAGE;
    }
    cli_print_help(c, cmd, stdout);
    return EXIT_PASS;
}

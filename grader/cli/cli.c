/* The context every subcommand gets: its arguments, its messages, labgrader's data (cli.h). */
#include "cli/cli.h"

#include "class/batch.h"
#include "run/sandbox.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <signal.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

void cli_args_init(struct cli_args *a)
{
    memset(a, 0, sizeof(*a));
    a->sanitize = -1;
    a->shards = 4;
    a->gpus_per_task = -1;
}

void cli_args_release(struct cli_args *a)
{
    free(a->pos);
    free(a->pass);
    cli_args_init(a);
}

void cli_init(struct cli *c, const struct cli_command *cmd)
{
    memset(c, 0, sizeof(*c));
    c->cmd = cmd;
    cli_args_init(&c->a);
    messages_init(&c->msgs);
}

void cli_release(struct cli *c)
{
    cli_args_release(&c->a);
    messages_release(&c->msgs);
    free(c->msgs_lang);
    if (c->home_found)
        home_release(&c->home);
    memset(c, 0, sizeof(*c));
}

void cli_error(const struct cli *c, const char *fmt, ...)
{
    va_list ap;
    if (c->cmd)
        fprintf(stderr, "grader %s: ", c->cmd->name);
    else
        fputs("grader: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

const char *cli_tr(const struct cli *c, const char *msgid)
{
    return messages_get(&c->msgs, msgid);
}

void cli_set_lang(struct cli *c, const char *lang)
{
    struct error err;
    if (!lang || (c->msgs_lang && !strcmp(c->msgs_lang, lang)))
        return;
    if (!c->home_found) {
        error_init(&err);
        if (home_find(&c->home, &err) != 0) {
            home_release(&c->home);
            return; /* no templates: English; a subcommand that needs them says why */
        }
        c->home_found = true;
    }
    messages_release(&c->msgs);
    free(c->msgs_lang);
    c->msgs_lang = xstrdup(lang);
    error_init(&err);
    if (messages_load_lang(&c->msgs, c->home.templates_dir, lang, &err) != 0) {
        cli_error(c, "warning: %s%s%s", err.file, err.file[0] ? ": " : "", err.msg);
        cli_error(c, "the grader's messages stay in English");
    }
}

int cli_home(struct cli *c)
{
    struct error err;
    if (c->home_found)
        return 0;
    error_init(&err);
    if (home_find(&c->home, &err) != 0) {
        home_release(&c->home);
        error_print(&err, stderr);
        return EXIT_GRADER;
    }
    c->home_found = true;
    return 0;
}

enum isolation cli_isolation(const char *name)
{
    if (name && !strcmp(name, "bwrap"))
        return ISOLATION_BWRAP;
    if (name && !strcmp(name, "supervisor"))
        return ISOLATION_SUPERVISOR;
    return ISOLATION_AUTO;
}

/* Variants side by side: half the CPUs, at most 4. A GPU variant's start is mostly its CUDA
 * context (0.4 s on the H100), which overlaps well; CPU variants' checked calls share the
 * cores, so a machine of two runs them one after another. */
#define PARALLEL_MAX 4

int cli_parallel_auto(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN) / 2;
    return cpus < 1 ? 1 : cpus > PARALLEL_MAX ? PARALLEL_MAX : (int)cpus;
}

char *cli_work_folder(const char *out)
{
    const char *w = getenv("LABGRADER_WORK");
    return w && *w ? xstrdup(w) : xstrfmt("%s/.work", out);
}

static void on_signal(int sig)
{
    sandbox_kill_running();
    /* Several GPU workers: they stop with us (they hold no results worth finishing). */
    batch_kill_workers(sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_catch_signals(void)
{
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
}

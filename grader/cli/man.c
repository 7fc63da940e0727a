/*
 * man: `grader help --man`, the manual page (man(7) source) rendered from
 * templates/man/grader.1 with the command and option tables as data, so that it lists
 * exactly what the parser takes. `make` writes it to build/grader.1.
 */
#include "cli/cli.h"

#include "cli/options.h"
#include "base/alloc.h"
#include "base/template.h"

#include <string.h>

#ifndef LG_VERSION
#define LG_VERSION "0.0.0"
#endif

/* Text for troff: no request at a line's start, dashes and backslashes as themselves. */
static void man_escape(struct strbuf *out, const char *s)
{
    if (*s == '.' || *s == '\'')
        strbuf_addstr(out, "\\&");
    for (; *s; s++) {
        if (*s == '\\')
            strbuf_addstr(out, "\\e");
        else if (*s == '-')
            strbuf_addstr(out, "\\-");
        else
            strbuf_addch(out, *s);
    }
}

static void add_option(struct tpl_value *list, const struct cli_option *o)
{
    struct tpl_value *m = tpl_push_map(list);
    char short_name[2] = {o->short_name, '\0'};
    tpl_set_str(m, "short", short_name);
    tpl_set_str(m, "name", o->name);
    tpl_set_str(m, "metavar", o->metavar ? o->metavar : "");
    tpl_set_str(m, "help", o->help);
}

static void add_command(struct tpl_value *list, const struct cli_command *cmd)
{
    const struct cli_option **opts;
    size_t n = cli_options_of(cmd->id, &opts);
    struct tpl_value *m = tpl_push_map(list);
    tpl_set_str(m, "name", cmd->name);
    tpl_set_str(m, "synopsis", cmd->synopsis);
    tpl_set_str(m, "summary", cmd->summary);
    tpl_set_str(m, "description", cmd->description);
    struct tpl_value *own = tpl_set_list(m, "options");
    struct tpl_value *passed = tpl_set_list(m, "passed");
    for (size_t i = 0; i < n; i++)
        add_option(cmd->id == CMD_SLURM && cli_option_passed_by_slurm(opts[i]) ? passed : own,
                   opts[i]);
    tpl_set_bool(m, "has_passed", tpl_list_len(passed) > 0);
    free(opts);
}

int cli_print_man(struct cli *c, FILE *f)
{
    struct template t;
    struct strbuf out = STRBUF_INIT;
    struct tpl_render_opts ro = {man_escape, true};
    struct error err;
    int status = cli_home(c);
    if (status != 0)
        return status;
    struct tpl_value *ctx = tpl_map();
    tpl_set_str(ctx, "version", LG_VERSION);
    struct tpl_value *cmds = tpl_set_list(ctx, "commands");
    for (const struct cli_command *cmd = cli_commands; cmd->name; cmd++)
        add_command(cmds, cmd);
    char *path = xstrfmt("%s/man/grader.1", c->home.templates_dir);
    template_init(&t);
    error_init(&err);
    if (template_load(&t, path, &err) != 0 || template_render(&t, ctx, &ro, &out, &err) != 0) {
        error_print(&err, stderr);
        status = EXIT_GRADER;
    } else {
        fputs(strbuf_str(&out), f);
    }
    template_release(&t);
    tpl_value_free(ctx);
    strbuf_release(&out);
    free(path);
    return status;
}

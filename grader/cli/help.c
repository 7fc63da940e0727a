/*
 * help: `grader COMMAND --help`, `grader help [COMMAND]` and `grader --help`, generated from
 * the command and option tables, in the language of c's catalog.
 */
#include "cli/cli.h"

#include "cli/options.h"
#include "base/alloc.h"
#include "base/strbuf.h"

#include <string.h>

enum { WIDTH = 79, HELP_COL = 28 };

/* Characters, not bytes: translations hold accents. */
static int text_width(const char *s, size_t len)
{
    int n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80;
    return n;
}

/* text from column col (the cursor is there), words wrapped at WIDTH to column indent. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
    const char *p = text;
    bool first = true;
    while (*p) {
        size_t len = strcspn(p, " ");
        int w = text_width(p, len);
        if (!first && col + 1 + w > WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, len, f);
        col += w;
        first = false;
        p += len;
        p += strspn(p, " ");
    }
    fputc('\n', f);
}

static void option_line(const struct cli *c, const struct cli_option *o, FILE *f)
{
    struct strbuf sb = STRBUF_INIT;
    if (o->short_name)
        strbuf_addf(&sb, "-%c, ", o->short_name);
    strbuf_addstr(&sb, o->name);
    if (o->metavar)
        strbuf_addf(&sb, " %s", o->metavar);
    int w = 2 + text_width(sb.buf, sb.len);
    fprintf(f, "  %s", sb.buf);
    if (w >= HELP_COL - 1) {
        fprintf(f, "\n%*s", HELP_COL, "");
    } else {
        fprintf(f, "%*s", HELP_COL - w, "");
    }
    wrap(f, cli_tr(c, o->help), HELP_COL, HELP_COL);
    strbuf_release(&sb);
}

static void exit_statuses(const struct cli *c, FILE *f)
{
    wrap(f,
         cli_tr(c, "exit status: 0 everything graded passed (skipped cases allowed), 1 something "
                   "failed (the submission's fault), 2 usage or spec error, 3 the grader itself "
                   "failed"),
         0, 2);
}

void cli_print_help(const struct cli *c, const struct cli_command *cmd, FILE *f)
{
    const struct cli_option **opts;
    size_t n = cli_options_of(cmd->id, &opts);
    bool passed_heading = false;
    fprintf(f, "%s grader %s%s%s\n\n", cli_tr(c, "usage:"), cmd->name, *cmd->synopsis ? " " : "",
            cmd->synopsis);
    wrap(f, cli_tr(c, cmd->description), 0, 0);
    fprintf(f, "\n%s\n", cli_tr(c, "options:"));
    for (size_t i = 0; i < n; i++) {
        if (cmd->id == CMD_SLURM && cli_option_passed_by_slurm(opts[i]) && !passed_heading) {
            fprintf(f, "\n%s\n", cli_tr(c, "grade options passed to every shard:"));
            passed_heading = true;
        }
        option_line(c, opts[i], f);
    }
    free(opts);
    fputc('\n', f);
    if (strstr(cmd->synopsis, "LAB"))
        wrap(f, cli_tr(c, "LAB is a lab folder (labs/lab6) or its lab.yaml."), 0, 0);
    exit_statuses(c, f);
}

void cli_print_overview(const struct cli *c, FILE *f)
{
    fprintf(f, "%s grader COMMAND [options]\n\n%s\n", cli_tr(c, "usage:"), cli_tr(c, "commands:"));
    for (const struct cli_command *cmd = cli_commands; cmd->name; cmd++) {
        int w = 2 + (int)strlen(cmd->name);
        fprintf(f, "  %s%*s", cmd->name, 14 - w, "");
        wrap(f, cli_tr(c, cmd->summary), 14, 14);
    }
    fputc('\n', f);
    wrap(f,
         cli_tr(c, "grader help COMMAND (or grader COMMAND --help) prints a command's usage and "
                   "options."),
         0, 0);
    wrap(f, cli_tr(c, "LAB is a lab folder (labs/lab6) or its lab.yaml."), 0, 0);
    exit_statuses(c, f);
}

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

/* What each status means for cmd (NULL: the overview's summary of every command's): what the
 * command does, as docs/grading.md's and docs/students.md's tables say. */
static const char *exit_text(const struct cli_command *cmd)
{
    switch (cmd ? cmd->id : CMD_COUNT) {
    case CMD_CHECK:
        return "exit status: 0 everything graded passed (skipped cases allowed), 1 something "
               "failed (the submission's fault), 2 usage or spec error, 3 the grader itself "
               "failed";
    case CMD_GRADE:
        return "exit status: 0 every student graded, failing students included (their "
               "verdicts are in the gradebook), 2 usage or spec error, or submissions or a "
               "roster that cannot be read, 3 the grader failed for some student (XX, graded "
               "again next time) or could not write";
    case CMD_MERGE:
        return "exit status: 0 gradebooks written, every student graded, 1 some students not "
               "graded yet or their results unreadable (listed), 2 usage or spec error, or "
               "nothing graded there, 3 the gradebooks could not be written";
    case CMD_REPORT:
        return "exit status: 0 every report rendered again, 2 usage or spec error, or no "
               "results, 3 some results.json refused (named) or a report not written";
    case CMD_COUNT:
        return "exit status: 0 success, 1 something failed by the submission's fault (check) "
               "or students not graded yet (merge), 2 usage or spec error, 3 the grader itself "
               "failed; grader help COMMAND says what each means for that command";
    default:
        return "exit status: 0 done, 2 usage or spec error, 3 the grader itself failed";
    }
}

static void exit_statuses(const struct cli *c, const struct cli_command *cmd, FILE *f)
{
    wrap(f, cli_tr(c, exit_text(cmd)), 0, 2);
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
    exit_statuses(c, cmd, f);
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
    exit_statuses(c, NULL, f);
}

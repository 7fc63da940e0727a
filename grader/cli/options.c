/* The one option parser of every subcommand (options.h). */
#include "cli/options.h"

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool cli_option_passed_by_slurm(const struct cli_option *opt)
{
    return (opt->commands & CMD_BIT(CMD_GRADE)) && !(opt->commands & CMD_BIT(CMD_SLURM)) &&
           opt->slurm == SLURM_PASS;
}

bool cli_option_takes_value(const struct cli_option *opt)
{
    return opt->kind != OPT_HELP && opt->kind != OPT_FLAG && opt->kind != OPT_SET;
}

size_t cli_options_of(enum cli_command_id cmd, const struct cli_option ***out)
{
    size_t n = 0, alloc = 0;
    *out = NULL;
    for (const struct cli_option *o = cli_option_table; o->name; o++)
        if (o->commands & CMD_BIT(cmd)) {
            ALLOC_GROW(*out, n + 1, alloc);
            (*out)[n++] = o;
        }
    /* Slurm's own options, then the grade options it passes to every shard. */
    for (const struct cli_option *o = cli_option_table; cmd == CMD_SLURM && o->name; o++)
        if (cli_option_passed_by_slurm(o)) {
            ALLOC_GROW(*out, n + 1, alloc);
            (*out)[n++] = o;
        }
    return n;
}

static const struct cli_option *find_option(enum cli_command_id cmd, const char *word)
{
    const struct cli_option **opts;
    const struct cli_option *found = NULL;
    size_t n = cli_options_of(cmd, &opts);
    bool is_short = word[0] == '-' && word[1] && word[1] != '-' && !word[2];
    for (size_t i = 0; i < n && !found; i++)
        if (is_short ? opts[i]->short_name == word[1] : !strcmp(opts[i]->name, word))
            found = opts[i];
    free(opts);
    return found;
}

bool cli_takes_option(enum cli_command_id cmd, const char *name)
{
    return find_option(cmd, name) != NULL;
}

/* An option that is not cmd's: say whose it is, when it is someone's. */
static int unknown_option(struct cli *c, const char *word)
{
    const char *name = c->cmd->name;
    struct strbuf owners = STRBUF_INIT;
    unsigned seen = 0;
    for (const struct cli_option *o = cli_option_table; o->name; o++) {
        if (strcmp(o->name, word))
            continue;
        if (c->cmd->id == CMD_SLURM && o->slurm == SLURM_SETS) {
            cli_error(c,
                      cli_tr(c, "%s is set by slurm for each task (use --shards, "
                                "--gpus-per-task)"),
                      word);
            strbuf_release(&owners);
            return EXIT_USAGE;
        }
        seen |= o->commands;
    }
    for (const struct cli_command *cmd = cli_commands; cmd->name; cmd++)
        if (seen & CMD_BIT(cmd->id) && cmd->id != CMD_HELP)
            strbuf_addf(&owners, "%s%s", owners.len ? ", " : "", cmd->name);
    if (owners.len)
        cli_error(c, cli_tr(c, "%s is an option of %s, not of %s (see grader %s --help)"), word,
                  strbuf_str(&owners), name, name);
    else
        cli_error(c, cli_tr(c, "unknown option '%s' (see grader %s --help)"), word, name);
    strbuf_release(&owners);
    return EXIT_USAGE;
}

/* "512M", "4G", "1048576": bytes. */
static bool parse_size(const char *s, long long *out)
{
    char *end;
    double v = strtod(s, &end);
    double mult = 1;
    if (end == s || !(v > 0) || !isfinite(v))
        return false;
    if (*end == 'K' || *end == 'k')
        mult = 1024.0;
    else if (*end == 'M' || *end == 'm')
        mult = 1024.0 * 1024;
    else if (*end == 'G' || *end == 'g')
        mult = 1024.0 * 1024 * 1024;
    else if (*end != '\0')
        return false;
    if (*end && end[1] != '\0' && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
        return false;
    if (v * mult > 9.0e18)
        return false;
    *out = (long long)(v * mult);
    return true;
}

static bool parse_shard(const char *s, int *k_n)
{
    char extra;
    return sscanf(s, "%d/%d%c", &k_n[0], &k_n[1], &extra) == 2 && k_n[1] >= 1 && k_n[0] >= 1 &&
           k_n[0] <= k_n[1];
}

static bool in_choices(const char *const *choices, const char *v)
{
    for (; *choices; choices++)
        if (!strcmp(*choices, v))
            return true;
    return false;
}

static int bad_choice(struct cli *c, const struct cli_option *o, const char *v)
{
    struct strbuf sb = STRBUF_INIT;
    for (const char *const *ch = o->choices; *ch; ch++)
        strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", *ch);
    cli_error(c, cli_tr(c, "%s is one of %s, not '%s'"), o->name, strbuf_str(&sb), v);
    strbuf_release(&sb);
    return EXIT_USAGE;
}

/* Store v (NULL for options without a value) where o says. */
static int apply(struct cli *c, const struct cli_option *o, const char *v)
{
    void *dst = (char *)&c->a + o->offset;
    double d;
    long l;
    switch (o->kind) {
    case OPT_HELP:
    case OPT_FLAG:
        *(bool *)dst = true;
        return 0;
    case OPT_SET:
        *(int *)dst = (int)o->value;
        return 0;
    case OPT_STRING:
        *(const char **)dst = v;
        return 0;
    case OPT_CHOICE:
        if (!in_choices(o->choices, v))
            return bad_choice(c, o, v);
        *(const char **)dst = v;
        return 0;
    case OPT_SECONDS:
        if (parse_double(v, &d) && d > 0 && isfinite(d)) {
            *(double *)dst = d;
            return 0;
        }
        cli_error(c, cli_tr(c, "%s takes a positive number of seconds, not '%s'"), o->name, v);
        return EXIT_USAGE;
    case OPT_NUMBER:
        if (parse_double(v, &d) && d > 0 && isfinite(d)) {
            *(double *)dst = d;
            return 0;
        }
        cli_error(c, cli_tr(c, "%s takes a positive number, not '%s'"), o->name, v);
        return EXIT_USAGE;
    case OPT_INT:
        if (parse_long(v, &l) && l >= o->value && l <= o->max) {
            *(int *)dst = (int)l;
            return 0;
        }
        cli_error(c, cli_tr(c, "%s takes a whole number from %ld to %ld, not '%s'"), o->name,
                  o->value, o->max, v);
        return EXIT_USAGE;
    case OPT_SIZE:
        if (parse_size(v, (long long *)dst))
            return 0;
        cli_error(c, cli_tr(c, "%s takes a size like 4G or 512M, not '%s'"), o->name, v);
        return EXIT_USAGE;
    case OPT_SHARD:
        if (parse_shard(v, (int *)dst))
            return 0;
        cli_error(c, cli_tr(c, "%s takes K/N with 1 <= K <= N, not '%s'"), o->name, v);
        return EXIT_USAGE;
    }
    return EXIT_USAGE;
}

static void push(const char ***v, size_t *n, size_t *alloc, const char *s)
{
    ALLOC_GROW(*v, *n + 2, *alloc);
    (*v)[(*n)++] = s;
    (*v)[*n] = NULL;
}

static int check_positional(struct cli *c)
{
    const struct cli_command *cmd = c->cmd;
    if (cmd->max_pos >= 0 && c->a.n_pos > (size_t)cmd->max_pos) {
        cli_error(c, cli_tr(c, "unexpected argument '%s' (usage: grader %s%s%s)"),
                  c->a.pos[cmd->max_pos], cmd->name, *cmd->synopsis ? " " : "", cmd->synopsis);
        return EXIT_USAGE;
    }
    if (c->a.n_pos < (size_t)cmd->min_pos) {
        cli_error(c, cli_tr(c, "missing arguments (usage: grader %s %s)"), cmd->name,
                  cmd->synopsis);
        return EXIT_USAGE;
    }
    return 0;
}

int cli_parse(struct cli *c, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *word = argv[i], *value = NULL;
        if (word[0] != '-') {
            push(&c->a.pos, &c->a.n_pos, &c->a.alloc_pos, word);
            continue;
        }
        const struct cli_option *o = find_option(c->cmd->id, word);
        if (!o)
            return unknown_option(c, word);
        if (cli_option_takes_value(o)) {
            if (i + 1 >= argc) {
                cli_error(c, cli_tr(c, "%s needs a value (%s)"), o->name, o->metavar);
                return EXIT_USAGE;
            }
            value = argv[++i];
        }
        int rc = apply(c, o, value);
        if (rc != 0)
            return rc;
        if (o->kind == OPT_HELP)
            return 0;
        if (c->cmd->id == CMD_SLURM && cli_option_passed_by_slurm(o)) {
            push(&c->a.pass, &c->a.n_pass, &c->a.alloc_pass, o->name);
            if (value)
                push(&c->a.pass, &c->a.n_pass, &c->a.alloc_pass, value);
        }
    }
    return check_positional(c);
}

const char *cli_prescan_lang(int argc, char **argv)
{
    const char *lang = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--lang") &&
            (!strcmp(argv[i + 1], "es") || !strcmp(argv[i + 1], "en")))
            lang = argv[++i];
    return lang;
}

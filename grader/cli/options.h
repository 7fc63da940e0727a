/*
 * options: every option of every subcommand declared once, as data (git's parse-options is
 * the model), and the one parser all subcommands use. A definition says the option's name,
 * its short name, the kind of argument it takes, its help text, which subcommands take it,
 * and where its value goes (a field of struct cli_args). A subcommand's table is the
 * definitions that name it; its help, the overview and the manual page are generated from
 * the same definitions, so they can never disagree with the parser.
 *
 * `grader slurm` takes some of `grade`'s options and passes them to every shard: the
 * definitions say which (slurm_use), and the parser checks their values here, at
 * submission time, and keeps their words for the batch script (cli_args.pass).
 *
 * The table is static data; cli_options_of() returns pointers into it (the caller frees
 * the array only).
 */
#ifndef LG_OPTIONS_H
#define LG_OPTIONS_H

#include "cli/cli.h"

#include <stddef.h>

enum opt_kind {
    OPT_HELP,    /* -h, --help: the subcommand's help, nothing run */
    OPT_FLAG,    /* sets a bool */
    OPT_SET,     /* sets an int to `value` (--pdf 1, --no-pdf -1) */
    OPT_STRING,  /* takes any text */
    OPT_CHOICE,  /* takes one of `choices` (kept as text) */
    OPT_SECONDS, /* a positive number of seconds (double) */
    OPT_NUMBER,  /* a positive number (double) */
    OPT_INT,     /* a whole number from `value` to `max` (int) */
    OPT_SIZE,    /* bytes: 4G, 512M, 1048576 (long long) */
    OPT_SHARD,   /* K/N with 1 <= K <= N (int[2]) */
};

/* What `grader slurm` does with one of grade's options. */
enum slurm_use {
    SLURM_NO,   /* not grade's, or slurm has it as its own */
    SLURM_PASS, /* passed to every shard, its value checked at submission */
    SLURM_SETS, /* set by slurm for each task: refused with a hint */
};

struct cli_option {
    const char *name; /* "--timeout" */
    char short_name;  /* 'h', or 0 */
    enum opt_kind kind;
    const char *metavar;        /* "SECONDS" in help; NULL for options without a value */
    const char *help;           /* English: the msgid of its translations */
    unsigned commands;          /* CMD_BIT()s of the subcommands that take it */
    enum slurm_use slurm;       /* for options of grade */
    size_t offset;              /* where the value goes in struct cli_args */
    long value, max;            /* OPT_SET: the value; OPT_INT: the bounds */
    const char *const *choices; /* OPT_CHOICE, NULL-terminated */
};

/* Every definition, in the order help lists them; ends with a NULL name. */
extern const struct cli_option cli_option_table[];

/* The options cmd takes, in table order (for slurm: its own, then those it passes to grade).
 * Returns the count; *out is a new array of pointers into the table. */
size_t cli_options_of(enum cli_command_id cmd, const struct cli_option ***out);
/* Whether opt is one that grader slurm passes through to grade. */
bool cli_option_passed_by_slurm(const struct cli_option *opt);
/* Whether cmd takes the option named name ("--lang"). */
bool cli_takes_option(enum cli_command_id cmd, const char *name);
/* Whether the option takes a value (the next word). */
bool cli_option_takes_value(const struct cli_option *opt);

/*
 * Parse argv (argv[0]: the subcommand's name) into c->a with c->cmd's table. Stops at
 * -h/--help (c->a.help set). Returns 0, or EXIT_USAGE with the reason printed (an unknown
 * option, a missing or bad value, too many or too few positional arguments).
 */
int cli_parse(struct cli *c, int argc, char **argv);

/* The value given to --lang in argv, looked for before parsing so that the parser's own
 * messages follow it; NULL when there is none (or it is not es or en). */
const char *cli_prescan_lang(int argc, char **argv);

#endif

/*
 * The analyze commands' command lines, called from cli/main.c, which owns the exit:
 *
 *   grader similarity LAB --submissions DIR [--roster CSV] [--out DIR] [--lang es|en]
 *                  [--threshold X] [--min-match N] [--kgram N] [--window N] [--max-common N]
 *   grader mutate LAB [--out DIR] [--lang es|en] [--jobs N] [--only EXERCISE] [--timeout S]
 *                  [--no-slow] [--no-extra] [--cpu-only] [--keep] [--pdf | --no-pdf]
 *   grader grade LAB --submissions DIR --similarity ...   (grade, then the similarity check)
 *
 * Exit statuses as main's: 0 done (whatever the pairs found or the mutants that survived),
 * 2 usage or spec error, 3 the grader failed (a missing libclang included: the message says
 * how to install it; for mutate also a solution that fails its own lab).
 */
#ifndef LG_ANALYZE_CLI_H
#define LG_ANALYZE_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Remove every `flag` from argv (keeping argv[*argc] NULL); whether there was one. */
bool analyze_take_flag(int *argc, char **argv, const char *flag);

/*
 * cmd "similarity" or "mutate": argv[0] is the command, the rest its options. cmd "grade":
 * grade's own options, after `grader grade` ran with them and returned grade_status: the
 * similarity check of the same submissions, written beside the class's reports; the result
 * is grade_status unless the check itself failed.
 */
int analyze_main(const char *cmd, int argc, char **argv, const char *templates_dir,
                 int grade_status);

/* The lines of `grader --help` about these commands. */
void analyze_usage(FILE *f);

#endif

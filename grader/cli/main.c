/*
 * labgrader's command line: main() only. What each subcommand does, and the exit statuses
 * (0 passed, 1 failed, 2 usage or spec error, 3 the grader failed), are in cli/cli.h; the
 * options are declared once, in cli/optable.c.
 */
#include "cli/cli.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}

/*
 * commands: the subcommands as data (name, synopsis, help texts, positional arguments, the
 * function that runs it) and cli_main, which picks one, parses its options and runs it.
 * The summaries and descriptions are msgids (templates/es/messages.po translates them).
 */
#include "cli/cli.h"

#include "cli/options.h"
#include "base/error.h"

#include <string.h>

const struct cli_command cli_commands[] = {
    {CMD_CHECK, "check", "LAB [options]",
     "grade one submission (default: LAB/solution, else LAB/skeleton)",
     "Grades one submission against the lab's references: prints a table per exercise and "
     "writes results.json, report.md and report.pdf under OUT/<lab>/<student>/. Slow cases "
     "need --full, hidden ones --hidden.",
     1, 1, cmd_check},
    {CMD_VALIDATE, "validate", "LAB...", "check lab specs without running anything",
     "Loads each lab's spec and reports the first error of each at its file, line and column.", 1,
     -1, cmd_validate},
    {CMD_REPORT, "report", "LAB [options]",
     "re-render reports (and a class's summary) from existing results",
     "Renders every student's report under OUT/<lab>/ again from its results.json, in the "
     "student view (--instructor: every hidden case in full), and, for a graded class, the "
     "gradebooks and the class summary. Nothing is graded again.",
     1, 1, cmd_report},
    {CMD_GRADE, "grade", "LAB --submissions DIR [options]", "grade a class (folders or an LMS zip)",
     "Grades every submission of a class: one folder per student, or a Moodle or Canvas export "
     "zip. Builds run in parallel, runs one at a time per GPU. Unchanged submissions are not "
     "graded again; an interrupted run continues where it stopped.",
     1, 1, cmd_grade},
    {CMD_MERGE, "merge", "LAB [options]", "join shards: gradebooks and class summary",
     "Joins the results under OUT/<lab>/ into the gradebooks and the class summary. With "
     "--submissions, lists the students not graded yet (exit status 1 when there are some).",
     1, 1, cmd_merge},
    {CMD_SLURM, "slurm", "LAB --submissions DIR [options]", "grade a class as a Slurm job array",
     "Writes OUT/<lab>/slurm/grade.sbatch (a job array: task K grades shard K of N) and "
     "merge.sbatch (the gradebook, after every shard), then submits both.",
     1, 1, cmd_slurm},
    {CMD_KIT, "kit", "LAB [options]",
     "student kit: the lab with its hidden cases withheld, and the grader",
     "Packs what students need to run make check LAB=N on their own machine: the lab's spec "
     "with its hidden cases withheld (counted with their points, never described), its README "
     "and skeleton, the grader's sources and templates, "
     "and the references as compiled objects (their sources only where lab.yaml says kit: "
     "{references: sources}). Nothing else of the lab folder; every file packed is listed.",
     1, 1, cmd_kit},
    {CMD_GRADESCOPE, "gradescope", "LAB [options]", "Gradescope autograder zip",
     "Writes the zip Gradescope takes as a programming assignment's autograder: setup.sh "
     "builds the grader, the references and every expected output once; run_autograder "
     "grades each submission with grader autograde. The lab goes in with its hidden cases, "
     "never its solution. Without a GPU on the runner, --gpu-policy says what happens "
     "(docs/exports.md).",
     1, 1, cmd_gradescope},
    {CMD_AUTOGRADE, "autograde", "LAB [options]",
     "grade one Gradescope submission (run by the zip)",
     "Grades ROOT/submission with ROOT/submission_metadata.json and writes "
     "ROOT/results/results.json, as run_autograder does on Gradescope; a grader error leaves "
     "no results, so that Gradescope shows an autograder failure to re-run.",
     1, 1, cmd_autograde},
    {CMD_SIMILARITY, "similarity", "LAB --submissions DIR [options]",
     "which submissions share code, and which hold the solution",
     "Compares every submission of a class with every other and with the lab's solution and "
     "references, the code every student was given left out, and writes "
     "OUT/<lab>/similarity.md, .html, .json and .csv for the instructor: groups of submissions "
     "that hold the same code, submissions that hold the instructor's solution, and pairs "
     "above the threshold (docs/similarity.md). Needs libclang (grader/deps.sh analyze).",
     1, 1, cmd_similarity},
    {CMD_MUTATE, "mutate", "LAB [options]",
     "does the grading catch wrong code? (mutants of the solution)",
     "Grades small, plausible mistakes made in the lab's solution with the lab's visible, hidden "
     "and slow cases, and writes OUT/<lab>/mutate/report.md (and a PDF): the mutants each "
     "variant's cases kill and those that survive, with the sizes that would have killed them "
     "(docs/mutation.md). Needs libclang (grader/deps.sh analyze).",
     1, 1, cmd_mutate},
    {CMD_HEADER, "header", "LAB", "print the C prototypes a submission must match",
     "Prints the prototypes the grader force-includes when it compiles a submission.", 1, 1,
     cmd_header},
    {CMD_MACHINE, "machine", "", "describe this machine (CPU, GPU, compilers)",
     "Prints the CPU, the GPU, the driver, the compilers and the isolation level grading "
     "would use here.",
     0, 0, cmd_machine},
    {CMD_VERSION, "version", "", "print the version", "Prints labgrader's version.", 0, 0,
     cmd_version},
    {CMD_HELP, "help", "[COMMAND]", "this overview, or a command's options",
     "Without a command, lists the commands; with one, its options (as grader COMMAND --help "
     "does).",
     0, 1, cmd_help},
    {CMD_COUNT, NULL, NULL, NULL, NULL, 0, 0, NULL},
};

const struct cli_command *cli_command_find(const char *name)
{
    for (const struct cli_command *cmd = cli_commands; cmd->name; cmd++)
        if (!strcmp(cmd->name, name))
            return cmd;
    return NULL;
}

/* grader, grader --help, grader --version, and an unknown command. */
static int top_level(int argc, char **argv)
{
    struct cli c;
    int status = EXIT_USAGE;
    cli_init(&c, NULL);
    cli_set_lang(&c, cli_prescan_lang(argc, argv));
    if (argc < 2) {
        cli_print_overview(&c, stderr);
    } else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        cli_print_overview(&c, stdout);
        status = EXIT_PASS;
    } else if (!strcmp(argv[1], "--version")) {
        status = cmd_version(&c);
    } else {
        cli_error(&c, cli_tr(&c, "unknown command '%s' (see grader --help)"), argv[1]);
    }
    cli_release(&c);
    return status;
}

static int run_command(const struct cli_command *cmd, int argc, char **argv)
{
    struct cli c;
    cli_init(&c, cmd);
    /* Before parsing: the parser's own complaints follow --lang too. */
    if (cli_takes_option(cmd->id, "--lang"))
        cli_set_lang(&c, cli_prescan_lang(argc - 1, argv + 1));
    int status = cli_parse(&c, argc - 1, argv + 1);
    if (status == 0 && c.a.help) {
        cli_print_help(&c, cmd, stdout);
    } else if (status == 0) {
        status = cmd->run(&c);
        if (cmd->id == CMD_GRADE && c.a.similarity)
            status = cli_grade_similarity(&c, status);
    }
    cli_release(&c);
    return status;
}

int cli_main(int argc, char **argv)
{
    const struct cli_command *cmd = argc >= 2 ? cli_command_find(argv[1]) : NULL;
    if (!cmd)
        return top_level(argc, argv);
    return run_command(cmd, argc, argv);
}

/*
 * cli: what every subcommand of `grader` shares. main() calls cli_main(); cli_main finds the
 * subcommand in the command table (commands.c), parses its options with the one option
 * table (options.h), prints help when asked and otherwise runs the subcommand, whose return
 * value is the exit status:
 *
 *   0  everything graded passed (skipped cases allowed)
 *   1  something failed, by the submission's fault (or students not graded yet: merge)
 *   2  usage or spec error: a bad option, a lab or exercise or case that does not exist
 *   3  the grader itself failed (never the submission's fault)
 *
 * Subcommands print; library code below cli/ never does (it returns a status and fills a
 * struct error). struct cli owns its parsed arguments' arrays, its message catalog and the
 * folders home_find() found; cli_release() frees them. Option values point into argv.
 */
#ifndef LG_CLI_H
#define LG_CLI_H

#include "base/error.h"
#include "base/messages.h"
#include "base/strbuf.h"
#include "grade/results.h"
#include "run/sandbox.h"
#include "spec/spec.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_GRADER = 3 };

enum cli_command_id {
    CMD_CHECK,
    CMD_VALIDATE,
    CMD_REPORT,
    CMD_GRADE,
    CMD_MERGE,
    CMD_SLURM,
    CMD_KIT,
    CMD_GRADESCOPE,
    CMD_AUTOGRADE,
    CMD_SIMILARITY,
    CMD_MUTATE,
    CMD_HEADER,
    CMD_MACHINE,
    CMD_VERSION,
    CMD_HELP,
    CMD_COUNT
};

#define CMD_BIT(id) (1u << (id))

/* Every option's value, whichever subcommand takes it (options.h says where each goes). */
struct cli_args {
    const char **pos; /* positional arguments, in order */
    size_t n_pos, alloc_pos;
    bool help, man;
    /* check */
    const char *submission, *student, *name, *cases;
    bool full, hidden, quiet;
    long long memory_limit; /* bytes; 0: the default */
    int parallel;           /* variants side by side; 0: by the CPUs */
    /* shared by several */
    const char *out, *lang, *only, *isolation;
    double timeout_s;         /* 0: the lab's */
    double compile_timeout_s; /* 0: the toolchain's (run/build.h) */
    double timing_wait_s;     /* 0: the default (run/turns.h; LABGRADER_TIMING_WAIT) */
    double time_limit_s;      /* gradescope, autograde: Gradescope's limit; 0: its default */
    bool keep, no_timing;
    bool profile; /* --profile: Nsight Compute on every GPU variant (grade/profile.h) */
    int pdf_mode; /* -1 --no-pdf, 0 try, 1 --pdf */
    bool no_html; /* --no-html: no report.html, index.html (report/html.h) */
    int sanitize; /* -1: as the lab says; else an enum sanitize_mode */
    /* report */
    bool instructor;
    /* grade, merge, slurm */
    const char *submissions, *roster, *canvas_assignment;
    int jobs, gpus;
    int shard[2]; /* K, N; 0, 0: everything */
    bool force, no_slow, no_hidden, no_merge;
    /* grade, merge: the LMS files (class/late.h, class/regrade.h) */
    const char *deadline, *grace, *late_per_day, *late_cap, *late_max_days, *extensions;
    const char *reason;
    double canvas_points; /* 0: Canvas's column as graded */
    /* gradescope, autograde (class/gradescope.h) */
    const char *gpu_policy, *remote_host, *remote_dir, *remote_key, *known_hosts, *root;
    bool setup, stdin_tar;
    /* similarity (analyze/similarity.h; 0: the defaults), and grade's --similarity */
    double threshold;
    int min_match, kgram, window, max_common, group_tokens, solution_tokens;
    bool similarity;
    /* mutate (analyze/mutresult.h) */
    bool no_extra, cpu_only;
    const char *grader;
    /* slurm */
    int shards, gpus_per_task, cpus_per_task; /* gpus_per_task -1: as the lab needs */
    const char *partition, *time, *mem, *account, *sbatch;
    bool dry_run, node_local_scratch;
    const char **pass; /* grade options slurm passes to every shard, NULL-terminated */
    size_t n_pass, alloc_pass;
};

/* Where labgrader's harness objects, harness.h and templates are. */
struct home {
    char *harness_dir;
    char *include_dir;
    char *templates_dir;
};

struct cli_command;

struct cli {
    const struct cli_command *cmd;
    struct cli_args a;
    struct messages msgs; /* the grader's sentences in --lang, else the lab's; empty: English */
    char *msgs_lang;      /* the language msgs holds, or NULL */
    struct home home;
    bool home_found;
};

struct cli_command {
    enum cli_command_id id;
    const char *name;
    const char *synopsis;    /* after the command's name: "LAB [options]" */
    const char *summary;     /* one line, for the overview */
    const char *description; /* a paragraph, for its help and the manual */
    int min_pos, max_pos;    /* positional arguments; max -1: any number */
    int (*run)(struct cli *c);
};

/* The subcommands in the order the overview lists them; NULL-terminated by name. */
extern const struct cli_command cli_commands[];
const struct cli_command *cli_command_find(const char *name);

/* `grader ARGS...`: the exit status. */
int cli_main(int argc, char **argv);

void cli_args_init(struct cli_args *a);
void cli_args_release(struct cli_args *a);
void cli_init(struct cli *c, const struct cli_command *cmd);
void cli_release(struct cli *c);

/* "grader CMD: " and the message (already translated by the caller), on stderr. */
void cli_error(const struct cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* msgid in the catalog's language (English when there is none). */
const char *cli_tr(const struct cli *c, const char *msgid) __attribute__((format_arg(2)));

/* Load the catalog of lang (es, en) unless it is loaded: a broken one is a warning, and the
 * messages stay in English. Needs the templates (home_find): without them, English. */
void cli_set_lang(struct cli *c, const char *lang);

/* Find labgrader's data once (home.c): 0, or EXIT_GRADER with the reason printed. */
int cli_home(struct cli *c);
int home_find(struct home *h, struct error *err);
void home_release(struct home *h);
/* The labgrader source tree this binary was built from (holds Makefile and grader/). */
char *home_repo_root(void);

/* Load the lab named by arg (a folder or its lab.yaml): 0, or EXIT_USAGE with the spec's
 * error printed. lab is initialised either way; the caller releases it. A subcommand with
 * --lang speaks the lab's language from then on, unless --lang says otherwise (lab.c). */
int cli_load_lab(struct cli *c, struct lab *lab, const char *arg);

/* --only and --case against the lab: 0, or EXIT_USAGE naming what exists (lab.c). */
int cli_check_selection(struct cli *c, const struct lab *lab, const char *only, const char *cases,
                        bool hidden, bool full);

/* The isolation a --isolation value names (auto when NULL). */
enum isolation cli_isolation(const char *name);
/* The report of r in dir (student view, or the instructor's), with --lang and --pdf/--no-pdf:
 * 0, or -1 with the reason printed (a required PDF not made). cmd_report.c. */
int cli_render_report(struct cli *c, const struct results *r, const char *dir, bool student_view,
                      bool quiet);

/* Sub-folders of labdir that hold a results.json, sorted (caller frees each and the array);
 * their names joined by ", " into names when it is not NULL. cmd_report.c. */
void cli_result_dirs(const char *labdir, char ***dirs, size_t *n, struct strbuf *names);

/* Build and run folders: OUT/.work, or LABGRADER_WORK (node-local scratch on a cluster). */
char *cli_work_folder(const char *out);
/* How many variants check and grade run side by side unless told (--parallel): half the CPUs,
 * at most 4, so one after another on a machine of two or three. */
int cli_parallel_auto(void);
/* Stop running submissions and GPU workers with us on SIGINT, SIGTERM and SIGHUP. */
void cli_catch_signals(void);

/* The subcommands (cmd_*.c). */
int cmd_check(struct cli *c);
int cmd_validate(struct cli *c);
int cmd_report(struct cli *c);
int cmd_grade(struct cli *c);
int cmd_merge(struct cli *c);
int cmd_slurm(struct cli *c);
int cmd_kit(struct cli *c);
int cmd_gradescope(struct cli *c);
int cmd_autograde(struct cli *c);
int cmd_similarity(struct cli *c);
int cmd_mutate(struct cli *c);
int cmd_header(struct cli *c);
int cmd_machine(struct cli *c);
int cmd_version(struct cli *c);
int cmd_help(struct cli *c);

/* After `grader grade ... --similarity` returned grade_status: the similarity check of the
 * same submissions beside the class's reports; grade_status unless the check failed
 * (cmd_analyze.c). */
int cli_grade_similarity(struct cli *c, int grade_status);

/* help.c: a command's help, the overview of every command (both in c's language). */
void cli_print_help(const struct cli *c, const struct cli_command *cmd, FILE *f);
void cli_print_overview(const struct cli *c, FILE *f);
/* man.c: the manual page (man(7) source) from templates/man/grader.1 and the tables. */
int cli_print_man(struct cli *c, FILE *f);

#endif

#include "class/slurm.h"

#include "spec/spec.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { SLURM_EXIT_OK = 0, SLURM_EXIT_USAGE = 2, SLURM_EXIT_FAILED = 3 };

void slurm_opts_init(struct slurm_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->shards = 4;
    o->gpus_per_task = 1;
}

void slurm_shell_quote(struct strbuf *sb, const char *s)
{
    strbuf_addch(sb, '\'');
    for (; *s; s++) {
        if (*s == '\'')
            strbuf_addstr(sb, "'\\''");
        else
            strbuf_addch(sb, *s);
    }
    strbuf_addch(sb, '\'');
}

/* A word of a command line: bare when nothing in it means anything to the shell. */
static void add_word(struct strbuf *sb, const char *w)
{
    bool bare = *w != '\0';
    for (const char *p = w; *p && bare; p++)
        bare = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
               strchr("-_./:=,+@", *p);
    strbuf_addch(sb, ' ');
    if (bare)
        strbuf_addstr(sb, w);
    else
        slurm_shell_quote(sb, w);
}

static void add_path_arg(struct strbuf *sb, const char *option, const char *path)
{
    strbuf_addf(sb, " %s ", option);
    slurm_shell_quote(sb, path);
}

/* --output takes a filename pattern: '%' must be doubled to stand for itself. */
static void add_output_pattern(struct strbuf *sb, const char *dir, const char *file)
{
    struct strbuf p = STRBUF_INIT;
    for (const char *s = dir; *s; s++) {
        if (*s == '%')
            strbuf_addch(&p, '%');
        strbuf_addch(&p, *s);
    }
    strbuf_addf(&p, "/%s", file);
    strbuf_addstr(sb, "#SBATCH --output=");
    slurm_shell_quote(sb, strbuf_str(&p));
    strbuf_addch(sb, '\n');
    strbuf_release(&p);
}

static bool only_chars(const char *s, const char *extra)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              strchr(extra, *s)))
            return false;
    return true;
}

/* Slurm memory: a number of megabytes, or one with a K, M, G or T suffix. */
static bool valid_mem(const char *s)
{
    size_t digits = strspn(s, "0123456789");
    if (digits == 0)
        return false;
    s += digits;
    return *s == '\0' || (strchr("KMGTkmgt", *s) && s[1] == '\0');
}

/* Slurm time: minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS (sbatch checks the shape). */
static bool valid_time(const char *s)
{
    return *s >= '0' && *s <= '9' && s[strspn(s, "0123456789:-")] == '\0';
}

static int check_path(const char *what, const char *path, struct error *err)
{
    if (!path || path[0] != '/')
        return error_set(err,
                         "slurm: the %s path must be absolute (the nodes resolve it on the "
                         "shared file system), not '%s'",
                         what, path ? path : "(none)");
    if (strchr(path, '\n'))
        return error_set(err,
                         "slurm: the %s path holds a line break, which a batch script "
                         "cannot carry",
                         what);
    return 0;
}

static int check_opts(const struct slurm_opts *o, struct error *err)
{
    if (check_path("grader", o->grader, err) != 0 || check_path("lab", o->lab, err) != 0 ||
        check_path("submissions", o->submissions, err) != 0 ||
        check_path("output", o->out, err) != 0 ||
        (o->roster && check_path("roster", o->roster, err) != 0))
        return -1;
    /* The output folder also appears in #SBATCH lines: Slurm drops every %-pattern of a name
     * holding a backslash, and a control character would end the line. */
    for (const char *p = o->out; *p; p++)
        if (*p == '\\' || (unsigned char)*p < 0x20)
            return error_set(err,
                             "slurm: the output folder '%s' holds a backslash or a control "
                             "character, which Slurm's --output cannot carry: choose "
                             "another --out",
                             o->out);
    if (!o->lab_id || !only_chars(o->lab_id, "_.-"))
        return error_set(err, "slurm: lab id '%s' is not a plain name",
                         o->lab_id ? o->lab_id : "(none)");
    if (o->shards < 1 || o->shards > SLURM_MAX_SHARDS)
        return error_set(err, "slurm: --shards must be between 1 and %d, not %d", SLURM_MAX_SHARDS,
                         o->shards);
    if (o->gpus_per_task < 0 || o->gpus_per_task > 64)
        return error_set(err, "slurm: --gpus-per-task must be between 0 and 64, not %d",
                         o->gpus_per_task);
    if (o->cpus_per_task < 0 || o->cpus_per_task > 4096)
        return error_set(err, "slurm: --cpus-per-task must be between 1 and 4096, not %d",
                         o->cpus_per_task);
    if (o->partition && !only_chars(o->partition, "_.,-"))
        return error_set(err,
                         "slurm: --partition '%s' is not a partition name (letters, "
                         "digits, '_', '.', '-'; a comma between several)",
                         o->partition);
    if (o->account && !only_chars(o->account, "_.,@+-"))
        return error_set(err, "slurm: --account '%s' is not an account name", o->account);
    if (o->time && !valid_time(o->time))
        return error_set(err,
                         "slurm: --time '%s' is not a Slurm time (minutes, HH:MM:SS or "
                         "D-HH:MM:SS)",
                         o->time);
    if (o->mem && !valid_mem(o->mem))
        return error_set(err, "slurm: --mem '%s' is not a Slurm memory size (e.g. 16G or 4096)",
                         o->mem);
    return 0;
}

static bool has_arg(const struct slurm_opts *o, const char *arg)
{
    for (const char *const *a = o->extra_args; a && *a; a++)
        if (!strcmp(*a, arg))
            return true;
    return false;
}

/* The merge job writes the class summary with the same PDF setting as the shards. */
static const char *pdf_flag(const struct slurm_opts *o)
{
    const char *flag = NULL;
    for (const char *const *a = o->extra_args; a && *a; a++)
        if (!strcmp(*a, "--pdf") || !strcmp(*a, "--no-pdf"))
            flag = *a;
    return flag;
}

static void add_common_directives(struct strbuf *sb, const struct slurm_opts *o,
                                  const char *slurm_dir)
{
    strbuf_addstr(sb, "#SBATCH --open-mode=append\n#SBATCH --chdir=");
    slurm_shell_quote(sb, slurm_dir);
    strbuf_addch(sb, '\n');
    if (o->time)
        strbuf_addf(sb, "#SBATCH --time=%s\n", o->time);
    if (o->partition)
        strbuf_addf(sb, "#SBATCH --partition=%s\n", o->partition);
    if (o->account)
        strbuf_addf(sb, "#SBATCH --account=%s\n", o->account);
}

static void add_script_path(struct strbuf *sb, const char *slurm_dir, const char *name)
{
    char *p = path_join(slurm_dir, name);
    slurm_shell_quote(sb, p);
    free(p);
}

static void write_grade_script(const struct slurm_opts *o, const char *slurm_dir, struct strbuf *sb)
{
    int n = o->shards;
    strbuf_addf(sb,
                "#!/bin/bash\n"
                "# Written by `grader slurm`: grades %s in %d shard%s, one job array task each.\n"
                "# Re-run shard K:  sbatch --array=K ",
                o->lab_id, n, n == 1 ? "" : "s");
    add_script_path(sb, slurm_dir, "grade.sbatch");
    strbuf_addstr(sb, "\n# then the gradebook:  sbatch --dependency=afterany:<its job id> ");
    add_script_path(sb, slurm_dir, "merge.sbatch");
    strbuf_addf(sb, "\n#SBATCH --job-name=grade-%s\n#SBATCH --array=1-%d\n", o->lab_id, n);
    add_output_pattern(sb, slurm_dir, "shard-%a.log");
    add_common_directives(sb, o, slurm_dir);
    if (o->gpus_per_task > 0)
        strbuf_addf(sb, "#SBATCH --gres=gpu:%d\n", o->gpus_per_task);
    if (o->cpus_per_task > 0)
        strbuf_addf(sb, "#SBATCH --cpus-per-task=%d\n", o->cpus_per_task);
    if (o->mem)
        strbuf_addf(sb, "#SBATCH --mem=%s\n", o->mem);
    strbuf_addstr(sb, "\nset -u\n"
                      "shard=\"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: each task "
                      "of the job array grades one shard}\"\n");
    /* Shards run at the same time and must not share build and run folders. */
    if (o->node_local_scratch) {
        strbuf_addstr(sb, "# Builds and runs on the node's own disk; results still go to the "
                          "output folder.\n"
                          "scratch=\"${TMPDIR:-/tmp}/labgrader-${SLURM_JOB_ID:-$$}\"\n"
                          "mkdir -p \"$scratch\" || exit 3\n"
                          "trap 'rm -rf \"$scratch\"' EXIT\n"
                          "export LABGRADER_WORK=\"$scratch/work\"\n");
    } else {
        char *work = path_join(o->out, ".work");
        strbuf_addstr(sb, "# A work folder of its own for each task: shards must not share one.\n"
                          "export LABGRADER_WORK=");
        slurm_shell_quote(sb, work);
        strbuf_addstr(sb, "/\"slurm-${SLURM_ARRAY_JOB_ID:-0}-$shard\"\n");
        free(work);
    }
    if (o->gpus_per_task == 0)
        strbuf_addstr(sb, "# No GPU was allocated to this task: leave the node's GPUs alone.\n"
                          "export LABGRADER_NO_GPU=1\n");
    strbuf_addf(sb,
                "echo \"== shard $shard/%d of %s: job ${SLURM_JOB_ID:-?} on $(hostname) at "
                "$(date '+%%F %%T')\"\n",
                n, o->lab_id);
    slurm_shell_quote(sb, o->grader);
    strbuf_addstr(sb, " grade ");
    slurm_shell_quote(sb, o->lab);
    add_path_arg(sb, "--submissions", o->submissions);
    if (o->roster)
        add_path_arg(sb, "--roster", o->roster);
    add_path_arg(sb, "--out", o->out);
    strbuf_addf(sb, " --shard \"$shard/%d\" --no-merge", n);
    if (o->gpus_per_task > 0)
        strbuf_addf(sb, " --gpus %d", o->gpus_per_task);
    if (o->cpus_per_task > 0 && !has_arg(o, "--jobs"))
        strbuf_addf(sb, " --jobs %d", o->cpus_per_task);
    for (const char *const *a = o->extra_args; a && *a; a++)
        add_word(sb, *a);
    /* The status also in the log: not every cluster keeps accounting for sacct. */
    strbuf_addf(sb,
                "\nstatus=$?\n"
                "echo \"== shard $shard/%d finished with exit status $status at $(date '+%%F "
                "%%T')\"\n"
                "exit \"$status\"\n",
                n);
}

static void write_merge_script(const struct slurm_opts *o, const char *slurm_dir, struct strbuf *sb)
{
    strbuf_addf(sb,
                "#!/bin/bash\n"
                "# Written by `grader slurm`: joins the shards of %s into the gradebook and the "
                "class summary.\n"
                "# Submitted with --dependency=afterany:<grading job>, so it runs even when a "
                "shard failed;\n"
                "# it then lists the students not graded yet and exits with status 1.\n"
                "#SBATCH --job-name=merge-%s\n",
                o->lab_id, o->lab_id);
    add_output_pattern(sb, slurm_dir, "merge.log");
    add_common_directives(sb, o, slurm_dir);
    strbuf_addf(sb,
                "\nset -u\n"
                "echo \"== merge of %s: job ${SLURM_JOB_ID:-?} on $(hostname) at $(date '+%%F "
                "%%T')\"\n",
                o->lab_id);
    slurm_shell_quote(sb, o->grader);
    strbuf_addstr(sb, " merge ");
    slurm_shell_quote(sb, o->lab);
    add_path_arg(sb, "--submissions", o->submissions);
    if (o->roster)
        add_path_arg(sb, "--roster", o->roster);
    add_path_arg(sb, "--out", o->out);
    if (o->canvas_assignment) {
        strbuf_addstr(sb, " --canvas-assignment");
        add_word(sb, o->canvas_assignment);
    }
    if (pdf_flag(o))
        add_word(sb, pdf_flag(o));
    /* The summary in the language of the students' reports. */
    for (const char *const *a = o->extra_args; a && a[0] && a[1]; a++)
        if (!strcmp(a[0], "--lang")) {
            strbuf_addstr(sb, " --lang");
            add_word(sb, a[1]);
        }
    strbuf_addstr(sb, "\nstatus=$?\n"
                      "echo \"== merge finished with exit status $status at $(date '+%F %T')\"\n"
                      "exit \"$status\"\n");
}

int slurm_write_scripts(const struct slurm_opts *o, struct strbuf *grade_script,
                        struct strbuf *merge_script, struct error *err)
{
    if (check_opts(o, err) != 0)
        return -1;
    char *slurm_dir = xstrfmt("%s/%s/slurm", o->out, o->lab_id);
    write_grade_script(o, slurm_dir, grade_script);
    write_merge_script(o, slurm_dir, merge_script);
    free(slurm_dir);
    return 0;
}

/* Run sbatch with args; its job id (what --parsable prints before any ";cluster"). */
static char *run_sbatch(const char *sbatch, const char *const *args, struct error *err)
{
    const char *argv[8];
    size_t n = 0;
    int fds[2];
    argv[n++] = sbatch;
    for (; *args && n < sizeof(argv) / sizeof(argv[0]) - 1; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    if (pipe(fds) != 0)
        return error_set(err, "slurm: pipe: %s", strerror(errno)), NULL;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return error_set(err, "slurm: fork: %s", strerror(e)), NULL;
    }
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], 1) < 0)
            _exit(127);
        close(fds[1]);
        execv(sbatch, (char *const *)argv);
        fprintf(stderr, "slurm: cannot run %s: %s\n", sbatch, strerror(errno));
        _exit(127);
    }
    close(fds[1]);
    struct strbuf out = STRBUF_INIT;
    char buf[4096];
    for (;;) {
        ssize_t r = read(fds[0], buf, sizeof(buf));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        strbuf_add(&out, buf, (size_t)r);
    }
    close(fds[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char *id = NULL;
    const char *s = strbuf_str(&out);
    size_t digits = strspn(s, "0123456789");
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        if (WIFEXITED(st))
            error_set(err, "slurm: %s exited with status %d (its message is above)", sbatch,
                      WEXITSTATUS(st));
        else
            error_set(err, "slurm: %s was killed by signal %d", sbatch, WTERMSIG(st));
    } else if (digits == 0 || (s[digits] != '\0' && s[digits] != ';' && s[digits] != '\n')) {
        error_set(err, "slurm: %s printed no job id (got '%.200s')", sbatch, s);
    } else {
        id = xstrndup(s, digits);
    }
    strbuf_release(&out);
    return id;
}

static void print_dry_run(FILE *log, const char *grade_path, const char *merge_path,
                          const struct strbuf *grade, const struct strbuf *merge)
{
    struct strbuf q = STRBUF_INIT;
    fprintf(log, "# %s\n%s\n# %s\n%s\n", grade_path, strbuf_str(grade), merge_path,
            strbuf_str(merge));
    fprintf(log, "dry run: nothing submitted. To submit:\n  sbatch --parsable ");
    slurm_shell_quote(&q, grade_path);
    fprintf(log, "%s\n", strbuf_str(&q));
    strbuf_reset(&q);
    slurm_shell_quote(&q, merge_path);
    fprintf(log, "  sbatch --parsable --dependency=afterany:<the first job's id> %s\n",
            strbuf_str(&q));
    strbuf_release(&q);
}

static void print_hints(const struct slurm_opts *o, FILE *log, const char *slurm_dir,
                        const char *grade_path, const char *merge_path, const char *grade_id,
                        const char *merge_id)
{
    struct strbuf gq = STRBUF_INIT, mq = STRBUF_INIT, cmd = STRBUF_INIT;
    slurm_shell_quote(&gq, grade_path);
    slurm_shell_quote(&mq, merge_path);
    slurm_shell_quote(&cmd, o->grader);
    strbuf_addstr(&cmd, " merge ");
    slurm_shell_quote(&cmd, o->lab);
    add_path_arg(&cmd, "--submissions", o->submissions);
    if (o->roster)
        add_path_arg(&cmd, "--roster", o->roster);
    add_path_arg(&cmd, "--out", o->out);
    fprintf(log,
            "submitted grade job %s (array 1-%d, one task per shard) and merge job %s "
            "(afterany:%s)\n"
            "follow:       squeue -j %s,%s\n"
            "              sacct -j %s,%s --format=JobID,State,ExitCode,Elapsed,NodeList\n"
            "logs:         %s/shard-K.log (K = 1..%d), %s/merge.log\n"
            "failed shard: sbatch --array=K %s\n"
            "              then the gradebook again: sbatch --dependency=afterany:<its id> %s\n"
            "not graded:   %s\n",
            grade_id, o->shards, merge_id, grade_id, grade_id, merge_id, grade_id, merge_id,
            slurm_dir, o->shards, slurm_dir, strbuf_str(&gq), strbuf_str(&mq), strbuf_str(&cmd));
    strbuf_release(&gq);
    strbuf_release(&mq);
    strbuf_release(&cmd);
}

int slurm_submit(const struct slurm_opts *o, FILE *log, struct error *err)
{
    struct strbuf grade = STRBUF_INIT, merge = STRBUF_INIT;
    char *slurm_dir = NULL, *grade_path = NULL, *merge_path = NULL, *sbatch = NULL;
    char *grade_id = NULL, *merge_id = NULL;
    int rc = -1;
    if (slurm_write_scripts(o, &grade, &merge, err) != 0)
        goto out;
    slurm_dir = xstrfmt("%s/%s/slurm", o->out, o->lab_id);
    grade_path = path_join(slurm_dir, "grade.sbatch");
    merge_path = path_join(slurm_dir, "merge.sbatch");
    if (!o->dry_run) {
        /* Before writing anything: without sbatch there is nothing to submit to. */
        sbatch = find_program(o->sbatch ? o->sbatch : "sbatch");
        if (!sbatch) {
            error_set(err,
                      "slurm: %s not found in PATH: run this on the cluster's login node, "
                      "or add --dry-run to only write the scripts",
                      o->sbatch ? o->sbatch : "sbatch");
            goto out;
        }
    }
    if (mkdir_p(slurm_dir, err) != 0 ||
        write_file_atomic(grade_path, grade.buf, grade.len, err) != 0 ||
        write_file_atomic(merge_path, merge.buf, merge.len, err) != 0)
        goto out;
    if (o->dry_run) {
        print_dry_run(log, grade_path, merge_path, &grade, &merge);
        rc = 0;
        goto out;
    }
    const char *grade_args[] = {"--parsable", grade_path, NULL};
    grade_id = run_sbatch(sbatch, grade_args, err);
    if (!grade_id)
        goto out;
    char *dep = xstrfmt("--dependency=afterany:%s", grade_id);
    const char *merge_args[] = {"--parsable", dep, merge_path, NULL};
    merge_id = run_sbatch(sbatch, merge_args, err);
    free(dep);
    if (!merge_id) {
        struct strbuf q = STRBUF_INIT;
        slurm_shell_quote(&q, merge_path);
        error_prefix(err,
                     "the grading job %s is submitted, but not the merge job: once the cause is "
                     "fixed, run: sbatch --dependency=afterany:%s %s\n",
                     grade_id, grade_id, strbuf_str(&q));
        strbuf_release(&q);
        goto out;
    }
    print_hints(o, log, slurm_dir, grade_path, merge_path, grade_id, merge_id);
    rc = 0;
out:
    strbuf_release(&grade);
    strbuf_release(&merge);
    free(slurm_dir);
    free(grade_path);
    free(merge_path);
    free(sbatch);
    free(grade_id);
    free(merge_id);
    return rc;
}

/* ---- grader slurm ---- */

static void slurm_usage(FILE *f)
{
    fputs("usage: grader slurm LAB --submissions DIR [options] [grade options]\n"
          "\n"
          "Writes OUT/<lab>/slurm/grade.sbatch (a job array: task K grades shard K of N)\n"
          "and merge.sbatch (the gradebook, after every shard), then submits both.\n"
          "\n"
          "  --submissions DIR     one folder per student, or an LMS export zip\n"
          "  --roster CSV          student ids and names\n"
          "  --out DIR             reports folder on the shared file system (default: reports)\n"
          "  --shards N            array tasks (default: 4)\n"
          "  --gpus-per-task G     --gres=gpu:G (default: 1 for labs with GPU exercises, else 0)\n"
          "  --cpus-per-task C     CPUs per task, also the parallel builds (--jobs)\n"
          "  --partition P, --account A, --time T, --mem M    as sbatch takes them\n"
          "  --node-local-scratch  build and run in the node's $TMPDIR\n"
          "  --dry-run             write and print the scripts, submit nothing\n"
          "  --sbatch PROG         the sbatch program (default: sbatch from PATH)\n"
          "\n"
          "grade options passed to every shard: --only EXERCISE, --timeout SECONDS, --lang es|en,\n"
          "  --isolation MODE, --jobs N, --force, --no-slow, --no-hidden, --no-timing,\n"
          "  --pdf, --no-pdf, --keep, --sanitize, --no-sanitize\n"
          "passed to the merge: --canvas-assignment ID (and --pdf, --no-pdf, --lang)\n",
          f);
}

struct slurm_cli {
    struct slurm_opts o;
    const char *lab_arg, *submissions, *roster, *out;
    bool gpus_given;
    const char **extra;
    size_t n_extra, alloc_extra;
};

static void push_extra(struct slurm_cli *c, const char *a)
{
    ALLOC_GROW(c->extra, c->n_extra + 2, c->alloc_extra);
    c->extra[c->n_extra++] = a;
    c->extra[c->n_extra] = NULL;
}

static bool parse_count(const char *s, int lo, int hi, int *out)
{
    long v;
    if (!parse_long(s, &v) || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

/* Returns 0, or an exit status (usage). */
static int parse_cli(int argc, char **argv, struct slurm_cli *c)
{
    static const char *const pass_value[] = {"--only", "--timeout", "--isolation",
                                             "--jobs", "--lang",    NULL};
    static const char *const pass_flag[] = {
        "--force",  "--no-slow", "--no-hidden", "--no-timing",   "--pdf",
        "--no-pdf", "--keep",    "--sanitize",  "--no-sanitize", NULL};
    static const char *const own_value[] = {"--submissions",
                                            "--roster",
                                            "--out",
                                            "--shards",
                                            "--gpus-per-task",
                                            "--cpus-per-task",
                                            "--partition",
                                            "--time",
                                            "--mem",
                                            "--account",
                                            "--sbatch",
                                            "--canvas-assignment",
                                            NULL};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool own = false, pass = false, flag = false;
        for (size_t k = 0; own_value[k]; k++)
            own |= !strcmp(a, own_value[k]);
        for (size_t k = 0; pass_value[k]; k++)
            pass |= !strcmp(a, pass_value[k]);
        for (size_t k = 0; pass_flag[k]; k++)
            flag |= !strcmp(a, pass_flag[k]);
        const char *v = NULL;
        if (own || pass) {
            if (i + 1 >= argc) {
                fprintf(stderr, "grader slurm: %s needs a value\n", a);
                return SLURM_EXIT_USAGE;
            }
            v = argv[++i];
        }
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            slurm_usage(stdout);
            return -1;
        } else if (!strcmp(a, "--submissions"))
            c->submissions = v;
        else if (!strcmp(a, "--roster"))
            c->roster = v;
        else if (!strcmp(a, "--out"))
            c->out = v;
        else if (!strcmp(a, "--shards")) {
            if (!parse_count(v, 1, SLURM_MAX_SHARDS, &c->o.shards)) {
                fprintf(stderr, "grader slurm: --shards takes a number from 1 to %d, not '%s'\n",
                        SLURM_MAX_SHARDS, v);
                return SLURM_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--gpus-per-task")) {
            if (!parse_count(v, 0, 64, &c->o.gpus_per_task)) {
                fprintf(stderr,
                        "grader slurm: --gpus-per-task takes a number from 0 to 64, not "
                        "'%s'\n",
                        v);
                return SLURM_EXIT_USAGE;
            }
            c->gpus_given = true;
        } else if (!strcmp(a, "--cpus-per-task")) {
            if (!parse_count(v, 1, 4096, &c->o.cpus_per_task)) {
                fprintf(stderr,
                        "grader slurm: --cpus-per-task takes a positive number, not "
                        "'%s'\n",
                        v);
                return SLURM_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--partition"))
            c->o.partition = v;
        else if (!strcmp(a, "--time"))
            c->o.time = v;
        else if (!strcmp(a, "--mem"))
            c->o.mem = v;
        else if (!strcmp(a, "--account"))
            c->o.account = v;
        else if (!strcmp(a, "--canvas-assignment"))
            c->o.canvas_assignment = v;
        else if (!strcmp(a, "--sbatch"))
            c->o.sbatch = v;
        else if (!strcmp(a, "--dry-run"))
            c->o.dry_run = true;
        else if (!strcmp(a, "--node-local-scratch"))
            c->o.node_local_scratch = true;
        else if (pass) {
            double d;
            int jobs;
            /* Checked here: a typo should fail now, not in every task an hour from now. */
            if ((!strcmp(a, "--timeout") && (!parse_double(v, &d) || d <= 0)) ||
                (!strcmp(a, "--jobs") && !parse_count(v, 1, 1024, &jobs)) ||
                (!strcmp(a, "--isolation") && strcmp(v, "auto") && strcmp(v, "bwrap") &&
                 strcmp(v, "supervisor")) ||
                (!strcmp(a, "--lang") && strcmp(v, "es") && strcmp(v, "en"))) {
                fprintf(stderr, "grader slurm: %s '%s' is not valid (see grader --help)\n", a, v);
                return SLURM_EXIT_USAGE;
            }
            push_extra(c, a);
            push_extra(c, v);
        } else if (flag)
            push_extra(c, a);
        else if (!strcmp(a, "--shard") || !strcmp(a, "--gpus") || !strcmp(a, "--no-merge")) {
            fprintf(stderr,
                    "grader slurm: %s is set for each task (use --shards, "
                    "--gpus-per-task)\n",
                    a);
            return SLURM_EXIT_USAGE;
        } else if (a[0] == '-') {
            fprintf(stderr, "grader slurm: unknown option '%s' (see grader slurm --help)\n", a);
            return SLURM_EXIT_USAGE;
        } else if (!c->lab_arg)
            c->lab_arg = a;
        else {
            fprintf(stderr, "grader slurm: unexpected argument '%s'\n", a);
            return SLURM_EXIT_USAGE;
        }
    }
    if (!c->lab_arg) {
        fprintf(stderr, "grader slurm: name a lab (e.g. grader slurm labs/lab6 --submissions "
                        "class/)\n");
        return SLURM_EXIT_USAGE;
    }
    if (!c->submissions) {
        fprintf(stderr, "grader slurm: --submissions DIR (a folder per student, or an LMS zip) "
                        "is required\n");
        return SLURM_EXIT_USAGE;
    }
    return 0;
}

static bool lab_uses_gpu(const struct lab *lab)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++)
            if (lab->exercises[e].variants[v].target == TARGET_GPU)
                return true;
    return false;
}

static char *self_path(struct error *err)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n <= 0) {
        error_set(err, "slurm: cannot find this program's path (/proc/self/exe): %s",
                  strerror(errno));
        return NULL;
    }
    exe[n] = '\0';
    return xstrdup(exe);
}

int slurm_main(int argc, char **argv)
{
    struct slurm_cli c;
    struct lab lab;
    struct error err;
    char *yaml = NULL, *grader = NULL, *subs = NULL, *roster = NULL, *out = NULL;
    int status;

    memset(&c, 0, sizeof(c));
    slurm_opts_init(&c.o);
    c.out = "reports";
    status = parse_cli(argc, argv, &c);
    if (status != 0) {
        free(c.extra);
        return status < 0 ? SLURM_EXIT_OK : status;
    }
    error_init(&err);
    lab_init(&lab);
    yaml = dir_exists(c.lab_arg) ? path_join(c.lab_arg, "lab.yaml") : xstrdup(c.lab_arg);
    status = SLURM_EXIT_USAGE;
    if (spec_load(&lab, yaml, NULL, &err) != 0)
        goto fail;
    if (!(subs = path_abs(c.submissions, &err))) {
        error_prefix(&err, "--submissions: ");
        goto fail;
    }
    if (c.roster && !(roster = path_abs(c.roster, &err))) {
        error_prefix(&err, "--roster: ");
        goto fail;
    }
    status = SLURM_EXIT_FAILED;
    if (mkdir_p(c.out, &err) != 0 || !(out = path_abs(c.out, &err)) || !(grader = self_path(&err)))
        goto fail;
    if (!c.gpus_given)
        c.o.gpus_per_task = lab_uses_gpu(&lab) ? 1 : 0;
    else if (c.o.gpus_per_task == 0 && lab_uses_gpu(&lab))
        fprintf(stderr,
                "grader slurm: warning: %s has GPU exercises; with --gpus-per-task 0 "
                "their GPU variants are skipped\n",
                lab.id);
    c.o.grader = grader;
    c.o.lab = lab.dir;
    c.o.lab_id = lab.id;
    c.o.submissions = subs;
    c.o.roster = roster;
    c.o.out = out;
    c.o.extra_args = c.extra;
    {
        /* Option values the scripts cannot carry are the user's to fix (status 2). */
        struct strbuf g = STRBUF_INIT, m = STRBUF_INIT;
        int bad = slurm_write_scripts(&c.o, &g, &m, &err);
        strbuf_release(&g);
        strbuf_release(&m);
        if (bad) {
            status = SLURM_EXIT_USAGE;
            goto fail;
        }
    }
    if (slurm_submit(&c.o, stdout, &err) != 0)
        goto fail;
    status = SLURM_EXIT_OK;
    goto done;
fail:
    error_print(&err, stderr);
done:
    lab_release(&lab);
    free(yaml);
    free(grader);
    free(subs);
    free(roster);
    free(out);
    free(c.extra);
    return status;
}

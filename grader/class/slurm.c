#include "class/slurm.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <errno.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

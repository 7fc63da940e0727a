/*
 * slurm: the exact text of both batch scripts, shell quoting (checked by running the
 * generated script with bash against a fake grader that prints its arguments), options
 * refused before anything is written, and submission through a fake sbatch.
 * Run from the repository root (`grader slurm` loads labs/lab6).
 */
#include "class/slurm.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "unit.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void write_exec(const char *path, const char *text)
{
    struct error err;
    ck_assert_msg(write_file_atomic(path, text, strlen(text), &err) == 0, "%s", err.msg);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

/* A GPU lab on a cluster with every sbatch option set, odd characters in two paths. */
static void gpu_opts(struct slurm_opts *o)
{
    static const char *const extra[] = {"--only", "matmul",      "--no-pdf", "--timeout",
                                        "5",      "--isolation", "a b",      NULL};
    slurm_opts_init(o);
    o->grader = "/opt/lg/bin/grader";
    o->lab = "/home/prof/labs/lab6";
    o->lab_id = "lab6";
    o->submissions = "/data/class 2026/it's";
    o->out = "/scratch/out 100%";
    o->shards = 3;
    o->gpus_per_task = 2;
    o->cpus_per_task = 8;
    o->partition = "gpu";
    o->time = "01:00:00";
    o->mem = "16G";
    o->account = "cs101";
    o->extra_args = extra;
}

static const char gpu_grade[] =
    "#!/bin/bash\n"
    "# Written by `grader slurm`: grades lab6 in 3 shards, one job array task each.\n"
    "# Re-run shard K:  sbatch --array=K '/scratch/out 100%/lab6/slurm/grade.sbatch'\n"
    "# then the gradebook:  sbatch --dependency=afterany:<its job id> "
    "'/scratch/out 100%/lab6/slurm/merge.sbatch'\n"
    "#SBATCH --job-name=grade-lab6\n"
    "#SBATCH --array=1-3\n"
    "#SBATCH --output='/scratch/out 100%%/lab6/slurm/shard-%a.log'\n"
    "#SBATCH --open-mode=append\n"
    "#SBATCH --chdir='/scratch/out 100%/lab6/slurm'\n"
    "#SBATCH --time=01:00:00\n"
    "#SBATCH --partition=gpu\n"
    "#SBATCH --account=cs101\n"
    "#SBATCH --gres=gpu:2\n"
    "#SBATCH --cpus-per-task=8\n"
    "#SBATCH --mem=16G\n"
    "\n"
    "set -u\n"
    "shard=\"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: each task of the job array "
    "grades one shard}\"\n"
    "# A work folder of its own for each task: shards must not share one.\n"
    "export LABGRADER_WORK='/scratch/out 100%/.work'/\"slurm-${SLURM_ARRAY_JOB_ID:-0}-$shard\"\n"
    "echo \"== shard $shard/3 of lab6: job ${SLURM_JOB_ID:-?} on $(hostname) at $(date '+%F "
    "%T')\"\n"
    "'/opt/lg/bin/grader' grade '/home/prof/labs/lab6' --submissions '/data/class 2026/it'\\''s' "
    "--out '/scratch/out 100%' --shard \"$shard/3\" --no-merge --gpus 2 --jobs 8 --only matmul "
    "--no-pdf --timeout 5 --isolation 'a b'\n"
    "status=$?\n"
    "echo \"== shard $shard/3 finished with exit status $status at $(date '+%F %T')\"\n"
    "exit \"$status\"\n";

static const char gpu_merge[] =
    "#!/bin/bash\n"
    "# Written by `grader slurm`: joins the shards of lab6 into the gradebook and the class "
    "summary.\n"
    "# Submitted with --dependency=afterany:<grading job>, so it runs even when a shard "
    "failed;\n"
    "# it then lists the students not graded yet and exits with status 1.\n"
    "#SBATCH --job-name=merge-lab6\n"
    "#SBATCH --output='/scratch/out 100%%/lab6/slurm/merge.log'\n"
    "#SBATCH --open-mode=append\n"
    "#SBATCH --chdir='/scratch/out 100%/lab6/slurm'\n"
    "#SBATCH --time=01:00:00\n"
    "#SBATCH --partition=gpu\n"
    "#SBATCH --account=cs101\n"
    "\n"
    "set -u\n"
    "echo \"== merge of lab6: job ${SLURM_JOB_ID:-?} on $(hostname) at $(date '+%F %T')\"\n"
    "'/opt/lg/bin/grader' merge '/home/prof/labs/lab6' --submissions "
    "'/data/class 2026/it'\\''s' --out '/scratch/out 100%' --no-pdf\n"
    "status=$?\n"
    "echo \"== merge finished with exit status $status at $(date '+%F %T')\"\n"
    "exit \"$status\"\n";

START_TEST(test_quote)
{
    struct strbuf sb = STRBUF_INIT;
    slurm_shell_quote(&sb, "it's a 'b'");
    ck_assert_str_eq(strbuf_str(&sb), "'it'\\''s a '\\''b'\\'''");
    strbuf_reset(&sb);
    slurm_shell_quote(&sb, "");
    ck_assert_str_eq(strbuf_str(&sb), "''");
    strbuf_reset(&sb);
    slurm_shell_quote(&sb, "$HOME `x` \"y\" \\");
    ck_assert_str_eq(strbuf_str(&sb), "'$HOME `x` \"y\" \\'");
    strbuf_release(&sb);
}
END_TEST

START_TEST(test_gpu_scripts_exact)
{
    struct slurm_opts o;
    struct strbuf g = STRBUF_INIT, m = STRBUF_INIT;
    struct error err;
    gpu_opts(&o);
    ck_assert_msg(slurm_write_scripts(&o, &g, &m, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(strbuf_str(&g), gpu_grade);
    ck_assert_str_eq(strbuf_str(&m), gpu_merge);
    strbuf_release(&g);
    strbuf_release(&m);
}
END_TEST

/* CPU only, node-local scratch, a roster, no optional sbatch settings: a --pdf of the shards
 * reaches the merge too, and so does the Canvas assignment (the merge's alone). */
START_TEST(test_cpu_scratch_scripts_exact)
{
    static const char *const extra[] = {"--pdf", "--no-timing", "--lang", "es", NULL};
    static const char want_grade[] =
        "#!/bin/bash\n"
        "# Written by `grader slurm`: grades lab99 in 1 shard, one job array task each.\n"
        "# Re-run shard K:  sbatch --array=K '/o/lab99/slurm/grade.sbatch'\n"
        "# then the gradebook:  sbatch --dependency=afterany:<its job id> "
        "'/o/lab99/slurm/merge.sbatch'\n"
        "#SBATCH --job-name=grade-lab99\n"
        "#SBATCH --array=1-1\n"
        "#SBATCH --output='/o/lab99/slurm/shard-%a.log'\n"
        "#SBATCH --open-mode=append\n"
        "#SBATCH --chdir='/o/lab99/slurm'\n"
        "\n"
        "set -u\n"
        "shard=\"${SLURM_ARRAY_TASK_ID:?submit this script with sbatch: each task of the job "
        "array grades one shard}\"\n"
        "# Builds and runs on the node's own disk; results still go to the output folder.\n"
        "scratch=\"${TMPDIR:-/tmp}/labgrader-${SLURM_JOB_ID:-$$}\"\n"
        "mkdir -p \"$scratch\" || exit 3\n"
        "trap 'rm -rf \"$scratch\"' EXIT\n"
        "export LABGRADER_WORK=\"$scratch/work\"\n"
        "# No GPU was allocated to this task: leave the node's GPUs alone.\n"
        "export LABGRADER_NO_GPU=1\n"
        "echo \"== shard $shard/1 of lab99: job ${SLURM_JOB_ID:-?} on $(hostname) at $(date "
        "'+%F %T')\"\n"
        "'/g' grade '/l' --submissions '/s' --roster '/r.csv' --out '/o' --shard \"$shard/1\" "
        "--no-merge --pdf --no-timing --lang es\n"
        "status=$?\n"
        "echo \"== shard $shard/1 finished with exit status $status at $(date '+%F %T')\"\n"
        "exit \"$status\"\n";
    struct slurm_opts o;
    struct strbuf g = STRBUF_INIT, m = STRBUF_INIT;
    struct error err;
    slurm_opts_init(&o);
    o.grader = "/g";
    o.lab = "/l";
    o.lab_id = "lab99";
    o.submissions = "/s";
    o.roster = "/r.csv";
    o.out = "/o";
    o.shards = 1;
    o.gpus_per_task = 0;
    o.node_local_scratch = true;
    o.extra_args = extra;
    o.canvas_assignment = "12 34";
    ck_assert_msg(slurm_write_scripts(&o, &g, &m, &err) == 0, "%s", err.msg);
    ck_assert_str_eq(strbuf_str(&g), want_grade);
    ck_assert_msg(strstr(strbuf_str(&m),
                         "\n'/g' merge '/l' --submissions '/s' --roster "
                         "'/r.csv' --out '/o' --canvas-assignment '12 34' --pdf --lang es\n"),
                  "%s", strbuf_str(&m));
    ck_assert_msg(!strstr(strbuf_str(&m), "--time") && !strstr(strbuf_str(&m), "--gres"), "%s",
                  strbuf_str(&m));
    strbuf_release(&g);
    strbuf_release(&m);
}
END_TEST

/* Values that would break out of an #SBATCH line or the shell are refused. */
START_TEST(test_refused)
{
    struct {
        const char *field, *value, *want;
    } bad[] = {
        {"out", "reports", "must be absolute"},
        {"out", "/a\\b", "backslash"},
        {"out", "/a\tb", "control character"},
        {"submissions", "/a\nb", "line break"},
        {"roster", "r.csv", "must be absolute"},
        {"partition", "gpu\n#SBATCH --x", "not a partition name"},
        {"partition", "gpu a", "not a partition name"},
        {"account", "a;b", "not an account name"},
        {"time", "1h", "not a Slurm time"},
        {"mem", "16 G", "not a Slurm memory size"},
        {"mem", "G", "not a Slurm memory size"},
        {"lab_id", "lab 6", "not a plain name"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct slurm_opts o;
        struct strbuf g = STRBUF_INIT, m = STRBUF_INIT;
        struct error err;
        gpu_opts(&o);
        const char **f = !strcmp(bad[i].field, "out")           ? &o.out
                         : !strcmp(bad[i].field, "submissions") ? &o.submissions
                         : !strcmp(bad[i].field, "roster")      ? &o.roster
                         : !strcmp(bad[i].field, "partition")   ? &o.partition
                         : !strcmp(bad[i].field, "account")     ? &o.account
                         : !strcmp(bad[i].field, "time")        ? &o.time
                         : !strcmp(bad[i].field, "mem")         ? &o.mem
                                                                : &o.lab_id;
        *f = bad[i].value;
        error_init(&err);
        ck_assert_msg(slurm_write_scripts(&o, &g, &m, &err) == -1, "%s='%s' accepted", bad[i].field,
                      bad[i].value);
        ck_assert_msg(strstr(err.msg, bad[i].want), "%s: %s", bad[i].field, err.msg);
        strbuf_release(&g);
        strbuf_release(&m);
    }
    struct slurm_opts o;
    struct strbuf g = STRBUF_INIT, m = STRBUF_INIT;
    struct error err;
    gpu_opts(&o);
    o.shards = 0;
    ck_assert_int_eq(slurm_write_scripts(&o, &g, &m, &err), -1);
    gpu_opts(&o);
    o.shards = SLURM_MAX_SHARDS + 1;
    ck_assert_int_eq(slurm_write_scripts(&o, &g, &m, &err), -1);
    gpu_opts(&o);
    o.gpus_per_task = -1;
    ck_assert_int_eq(slurm_write_scripts(&o, &g, &m, &err), -1);
    ck_assert_uint_eq(g.len + m.len, 0);
}
END_TEST

/* Run the generated grade script with bash, as Slurm would for task 2, against a grader
 * that prints its arguments one per line: every path arrives whole. */
START_TEST(test_script_runs_with_odd_paths)
{
    char *dir = unit_tmpdir("slurm");
    char *odd = xstrfmt("%s/it's a \"dir\" $HOME `x` 100%%", dir);
    struct error err;
    ck_assert_msg(mkdir_p(odd, &err) == 0, "%s", err.msg);
    char *grader = path_join(odd, "grader");
    char *args = path_join(dir, "args");
    char *env = path_join(dir, "env");
    char *fake =
        xstrfmt("#!/bin/sh\nprintf '%%s\\n' \"$@\" > '%s'\n"
                "printf '%%s|%%s\\n' \"$LABGRADER_WORK\" \"${LABGRADER_NO_GPU:-}\" > '%s'\n"
                "exit 7\n",
                args, env);
    write_exec(grader, fake);

    static const char *const extra[] = {"--only", "it's", NULL};
    struct slurm_opts o;
    struct strbuf g = STRBUF_INIT, m = STRBUF_INIT;
    slurm_opts_init(&o);
    o.grader = grader;
    o.lab = odd;
    o.lab_id = "lab6";
    o.submissions = odd;
    o.roster = odd;
    o.out = odd;
    o.shards = 4;
    o.gpus_per_task = 0;
    o.extra_args = extra;
    ck_assert_msg(slurm_write_scripts(&o, &g, &m, &err) == 0, "%s", err.msg);
    char *script = path_join(dir, "grade.sbatch");
    ck_assert_msg(write_file_atomic(script, g.buf, g.len, &err) == 0, "%s", err.msg);
    char *cmd = xstrfmt("cd / && env -u TMPDIR SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_JOB_ID=77 "
                        "SLURM_JOB_ID=79 bash '%s' > '%s/log' 2>&1",
                        script, dir);
    int st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 7,
                  "the script's status is not the "
                  "grader's: %d",
                  st);

    char *got = unit_slurp(args);
    char *want = xstrfmt("grade\n%s\n--submissions\n%s\n--roster\n%s\n--out\n%s\n--shard\n2/4\n"
                         "--no-merge\n--only\nit's\n",
                         odd, odd, odd, odd);
    ck_assert_str_eq(got, want);
    char *got_env = unit_slurp(env);
    char *want_env = xstrfmt("%s/.work/slurm-77-2|1\n", odd);
    ck_assert_str_eq(got_env, want_env);
    char *log = xstrfmt("%s/log", dir);
    char *log_text = unit_slurp(log);
    ck_assert_msg(strstr(log_text, "== shard 2/4 of lab6: job 79 on ") &&
                      strstr(log_text, "== shard 2/4 finished with exit status 7 at "),
                  "%s", log_text);

    /* The same with node-local scratch: a folder under $TMPDIR, removed afterwards. */
    strbuf_reset(&g);
    strbuf_reset(&m);
    o.node_local_scratch = true;
    o.gpus_per_task = 1;
    ck_assert_msg(slurm_write_scripts(&o, &g, &m, &err) == 0, "%s", err.msg);
    ck_assert_msg(write_file_atomic(script, g.buf, g.len, &err) == 0, "%s", err.msg);
    free(cmd);
    cmd = xstrfmt("cd / && TMPDIR='%s' SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_JOB_ID=77 "
                  "SLURM_JOB_ID=80 bash '%s' > '%s/log' 2>&1",
                  dir, script, dir);
    st = system(cmd);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 7, "status %d", st);
    free(got_env);
    free(want_env);
    got_env = unit_slurp(env);
    want_env = xstrfmt("%s/labgrader-80/work|\n", dir);
    ck_assert_str_eq(got_env, want_env);
    char *scratch = xstrfmt("%s/labgrader-80", dir);
    ck_assert_msg(!dir_exists(scratch), "%s is left behind", scratch);
    free(got);
    got = unit_slurp(args);
    ck_assert_msg(strstr(got, "--shard\n3/4\n--no-merge\n--gpus\n1\n--only\nit's\n"), "%s", got);

    remove_tree(dir, NULL);
    strbuf_release(&g);
    strbuf_release(&m);
    free(scratch);
    free(log);
    free(log_text);
    free(got);
    free(want);
    free(got_env);
    free(want_env);
    free(cmd);
    free(script);
    free(fake);
    free(env);
    free(args);
    free(grader);
    free(odd);
    free(dir);
}
END_TEST

/* A fake sbatch that records its arguments and answers with job ids. */
static char *fake_sbatch(const char *dir, const char *behaviour)
{
    char *path = path_join(dir, "sbatch");
    char *text = xstrfmt("#!/bin/sh\n"
                         "echo \"$*\" >> '%s/calls'\n"
                         "n=$(wc -l < '%s/calls')\n"
                         "%s\n",
                         dir, dir, behaviour);
    write_exec(path, text);
    free(text);
    return path;
}

static void local_opts(struct slurm_opts *o, const char *dir)
{
    slurm_opts_init(o);
    o->grader = "/g";
    o->lab = "/l";
    o->lab_id = "lab6";
    o->submissions = "/s";
    o->out = dir;
    o->shards = 2;
}

START_TEST(test_submit_fake_sbatch)
{
    char *dir = unit_tmpdir("slurm");
    char *sbatch = fake_sbatch(dir, "echo \"$((1233 + n));cluster\"");
    struct slurm_opts o;
    struct error err;
    struct strbuf out = STRBUF_INIT;
    char *buf = NULL;
    size_t len = 0;
    local_opts(&o, dir);
    o.sbatch = sbatch;
    FILE *log = open_memstream(&buf, &len);
    ck_assert_msg(slurm_submit(&o, log, &err) == 0, "%s", err.msg);
    fclose(log);
    char *calls_path = path_join(dir, "calls");
    char *calls = unit_slurp(calls_path);
    char *want = xstrfmt("--parsable %s/lab6/slurm/grade.sbatch\n"
                         "--parsable --dependency=afterany:1234 %s/lab6/slurm/merge.sbatch\n",
                         dir, dir);
    ck_assert_str_eq(calls, want);
    ck_assert_msg(strstr(buf, "submitted grade job 1234 (array 1-2, one task per shard) and "
                              "merge job 1235 (afterany:1234)\n"),
                  "%s", buf);
    ck_assert_msg(strstr(buf, "squeue -j 1234,1235") && strstr(buf, "sacct -j 1234,1235") &&
                      strstr(buf, "sbatch --array=K '") && strstr(buf, "/shard-K.log"),
                  "%s", buf);
    char *script = xstrfmt("%s/lab6/slurm/merge.sbatch", dir);
    ck_assert(file_exists(script));
    free(script);
    free(buf);
    free(want);
    free(calls);
    free(sbatch);

    /* sbatch refuses the array: nothing else is submitted, the status is in the error. */
    ck_assert_int_eq(unlink(calls_path), 0);
    sbatch = fake_sbatch(dir, "echo 'sbatch: error: invalid partition' >&2; exit 1");
    o.sbatch = sbatch;
    log = open_memstream(&buf, &len);
    error_init(&err);
    ck_assert_int_eq(slurm_submit(&o, log, &err), -1);
    fclose(log);
    ck_assert_msg(strstr(err.msg, "exited with status 1"), "%s", err.msg);
    calls = unit_slurp(calls_path);
    ck_assert_msg(!strstr(calls, "merge.sbatch"), "%s", calls);
    free(calls);
    free(buf);
    free(sbatch);

    /* The array is accepted, the merge is not: the error says how to submit it by hand. */
    ck_assert_int_eq(unlink(calls_path), 0);
    sbatch = fake_sbatch(dir, "[ \"$n\" = 1 ] && echo 42 || { echo nope; exit 0; }");
    o.sbatch = sbatch;
    log = open_memstream(&buf, &len);
    error_init(&err);
    ck_assert_int_eq(slurm_submit(&o, log, &err), -1);
    fclose(log);
    ck_assert_msg(strstr(err.msg, "grading job 42 is submitted") &&
                      strstr(err.msg, "sbatch --dependency=afterany:42 '") &&
                      strstr(err.msg, "printed no job id (got 'nope"),
                  "%s", err.msg);
    free(buf);
    free(sbatch);

    /* No sbatch at all. */
    o.sbatch = "/nonexistent/sbatch";
    error_init(&err);
    ck_assert_int_eq(slurm_submit(&o, stderr, &err), -1);
    ck_assert_msg(strstr(err.msg, "not found") && strstr(err.msg, "--dry-run"), "%s", err.msg);

    remove_tree(dir, NULL);
    strbuf_release(&out);
    free(calls_path);
    free(dir);
}
END_TEST

START_TEST(test_dry_run_submits_nothing)
{
    char *dir = unit_tmpdir("slurm");
    char *sbatch = fake_sbatch(dir, "echo 1");
    struct slurm_opts o;
    struct error err;
    struct strbuf g = STRBUF_INIT, m = STRBUF_INIT;
    char *buf = NULL;
    size_t len = 0;
    local_opts(&o, dir);
    o.sbatch = sbatch;
    o.dry_run = true;
    FILE *log = open_memstream(&buf, &len);
    ck_assert_msg(slurm_submit(&o, log, &err) == 0, "%s", err.msg);
    fclose(log);
    char *calls = path_join(dir, "calls");
    ck_assert_msg(!file_exists(calls), "sbatch ran in a dry run");
    ck_assert_msg(slurm_write_scripts(&o, &g, &m, &err) == 0, "%s", err.msg);
    char *gp = xstrfmt("%s/lab6/slurm/grade.sbatch", dir);
    char *mp = xstrfmt("%s/lab6/slurm/merge.sbatch", dir);
    char *gt = unit_slurp(gp), *mt = unit_slurp(mp);
    ck_assert_str_eq(gt, strbuf_str(&g));
    ck_assert_str_eq(mt, strbuf_str(&m));
    char *want = xstrfmt("# %s\n%s\n# %s\n%s\ndry run: nothing submitted. To submit:\n"
                         "  sbatch --parsable '%s'\n"
                         "  sbatch --parsable --dependency=afterany:<the first job's id> '%s'\n",
                         gp, gt, mp, mt, gp, mp);
    ck_assert_str_eq(buf, want);
    remove_tree(dir, NULL);
    strbuf_release(&g);
    strbuf_release(&m);
    free(want);
    free(gt);
    free(mt);
    free(gp);
    free(mp);
    free(calls);
    free(buf);
    free(sbatch);
    free(dir);
}
END_TEST

/* `grader slurm ...`: args starts with "slurm". */
static int run_main(const char *const *args)
{
    const char *argv[64] = {"grader"};
    int argc = 1;
    while (args[argc - 1] && argc < 63) {
        argv[argc] = args[argc - 1];
        argc++;
    }
    argv[argc] = NULL;
    return cli_main(argc, (char **)argv);
}

START_TEST(test_main_options)
{
    char *dir = unit_tmpdir("slurm");
    char *out = path_join(dir, "out");
    const char *no_lab[] = {"slurm", "--submissions", "tests", NULL};
    const char *no_subs[] = {"slurm", "labs/lab6", NULL};
    const char *unknown[] = {"slurm", "labs/lab6", "--submissions", "tests", "--frobnicate", NULL};
    const char *shard[] = {"slurm", "labs/lab6", "--submissions", "tests", "--shard", "1/2", NULL};
    const char *shards[] = {"slurm", "labs/lab6", "--submissions", "tests", "--shards", "0", NULL};
    const char *timeout[] = {"slurm", "labs/lab6", "--submissions", "tests", "--timeout",
                             "x",     NULL};
    const char *mem[] = {"slurm", "labs/lab6", "--submissions", "tests",     "--out",
                         out,     "--mem",     "lots",          "--dry-run", NULL};
    const char *missing[] = {"slurm", "labs/lab6", "--submissions", "/nonexistent/class", NULL};
    const char *dangling[] = {"slurm", "labs/lab6", "--submissions", NULL};
    const char *only[] = {"slurm", "labs/lab6", "--submissions", "tests", "--only", "nosuch", NULL};
    const char *jobs[] = {"slurm", "labs/lab6", "--submissions", "tests", "--jobs", "0", NULL};
    const char *lang[] = {"slurm", "labs/lab6", "--submissions", "tests", "--lang", "fr", NULL};
    ck_assert_int_eq(run_main(no_lab), 2);
    ck_assert_int_eq(run_main(no_subs), 2);
    ck_assert_int_eq(run_main(unknown), 2);
    ck_assert_int_eq(run_main(shard), 2);
    ck_assert_int_eq(run_main(shards), 2);
    ck_assert_int_eq(run_main(timeout), 2);
    ck_assert_int_eq(run_main(mem), 2);
    ck_assert_int_eq(run_main(missing), 2);
    ck_assert_int_eq(run_main(dangling), 2);
    ck_assert_int_eq(run_main(only), 2);
    ck_assert_int_eq(run_main(jobs), 2);
    ck_assert_int_eq(run_main(lang), 2);

    /* lab6 has GPU exercises: one GPU per task unless told otherwise; paths made absolute. */
    const char *ok[] = {"slurm",     "labs/lab6", "--submissions", "tests/fixtures/lab6",
                        "--out",     out,         "--shards",      "2",
                        "--dry-run", "--only",    "matmul",        NULL};
    ck_assert_int_eq(run_main(ok), 0);
    char *gp = xstrfmt("%s/lab6/slurm/grade.sbatch", out);
    char *text = unit_slurp(gp);
    struct error err;
    char *cwd = path_abs(".", &err);
    char *subs = xstrfmt(" --submissions '%s/tests/fixtures/lab6' ", cwd);
    char *lab = xstrfmt(" grade '%s/labs/lab6' ", cwd);
    ck_assert_msg(strstr(text, "#SBATCH --gres=gpu:1\n") && strstr(text, "#SBATCH --array=1-2\n") &&
                      strstr(text, subs) && strstr(text, lab) &&
                      strstr(text, " --no-merge --gpus 1 --only matmul\n"),
                  "%s", text);
    free(text);

    const char *cpu[] = {"slurm",     "labs/lab6", "--submissions",   "tests/fixtures/lab6",
                         "--out",     out,         "--gpus-per-task", "0",
                         "--dry-run", NULL};
    ck_assert_int_eq(run_main(cpu), 0);
    text = unit_slurp(gp);
    ck_assert_msg(!strstr(text, "--gres") && strstr(text, "LABGRADER_NO_GPU=1"), "%s", text);

    remove_tree(dir, NULL);
    free(text);
    free(subs);
    free(lab);
    free(cwd);
    free(gp);
    free(out);
    free(dir);
}
END_TEST

/* A value each kind of option takes (--only's: an exercise of lab 6). */
static const char *sample_value(const struct cli_option *o, char *buf, size_t size)
{
    switch (o->kind) {
    case OPT_SECONDS:
    case OPT_NUMBER:
        return "5";
    case OPT_INT:
        snprintf(buf, size, "%ld", o->value);
        return buf;
    case OPT_CHOICE:
        return o->choices[0];
    case OPT_SHARD:
        return "1/2";
    case OPT_SIZE:
        return "1G";
    case OPT_STRING:
        return "matmul";
    default:
        return NULL;
    }
}

/*
 * What slurm does with each of grade's options comes from the one option table: those it
 * passes reach every shard's `grader grade` line, those it sets per task are refused, and
 * nothing else of grade's gets through.
 */
START_TEST(test_pass_through_follows_the_table)
{
    char *dir = unit_tmpdir("slurm");
    char *out = path_join(dir, "out");
    char *gp = xstrfmt("%s/lab6/slurm/grade.sbatch", out);
    size_t passed = 0;
    for (const struct cli_option *o = cli_option_table; o->name; o++) {
        if (!(o->commands & CMD_BIT(CMD_GRADE)) || (o->commands & CMD_BIT(CMD_SLURM)))
            continue;
        char buf[32];
        const char *v = cli_option_takes_value(o) ? sample_value(o, buf, sizeof(buf)) : NULL;
        const char *args[] = {"slurm", "labs/lab6", "--submissions", "tests/fixtures/lab6",
                              "--out", out,         "--dry-run",     o->name,
                              v,       NULL};
        int rc = run_main(args);
        if (!cli_option_passed_by_slurm(o)) {
            ck_assert_msg(rc == 2, "%s: not passed by slurm, yet exit %d", o->name, rc);
            continue;
        }
        ck_assert_msg(rc == 0, "%s %s: passed by slurm, yet exit %d", o->name, v ? v : "", rc);
        char *text = unit_slurp(gp),
             *want = xstrfmt(" %s%s%s\n", o->name, v ? " " : "", v ? v : "");
        ck_assert_msg(strstr(text, want), "%s does not reach the shards:\n%s", o->name, text);
        free(want);
        free(text);
        passed++;
    }
    ck_assert_uint_ge(passed, 10);
    remove_tree(dir, NULL);
    free(gp);
    free(out);
    free(dir);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("slurm");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_quote);
    tcase_add_test(tc, test_gpu_scripts_exact);
    tcase_add_test(tc, test_cpu_scratch_scripts_exact);
    tcase_add_test(tc, test_refused);
    tcase_add_test(tc, test_script_runs_with_odd_paths);
    tcase_add_test(tc, test_submit_fake_sbatch);
    tcase_add_test(tc, test_dry_run_submits_nothing);
    tcase_add_test(tc, test_main_options);
    tcase_add_test(tc, test_pass_through_follows_the_table);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

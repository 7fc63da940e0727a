/*
 * labgrader's command line. Only this file decides to exit; exit statuses:
 *   0  every graded case passed (skips allowed)
 *   1  the submission failed something
 *   2  usage or spec error
 *   3  the grader failed (never the submission's fault)
 */
#include "class/batch.h"
#include "class/gradescope.h"
#include "run/build.h"
#include "base/error.h"
#include "grade/grade.h"
#include "class/kit.h"
#include "base/messages.h"
#include "report/gradescope.h"
#include "report/report.h"
#include "grade/results.h"
#include "run/sandbox.h"
#include "class/slurm.h"
#include "spec/spec.h"
#include "spec/driver.h"
#include "report/table.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifndef LG_VERSION
#define LG_VERSION "0.0.0"
#endif
#ifndef LG_DATADIR
#define LG_DATADIR "/usr/local/share/labgrader"
#endif

enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_GRADER = 3 };

/* Where the harness objects, its header and the templates are. */
struct home {
    char *harness_dir;
    char *include_dir;
    char *templates_dir;
};

static void home_release(struct home *h)
{
    free(h->harness_dir);
    free(h->include_dir);
    free(h->templates_dir);
}

static int home_find(struct home *h, struct error *err)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    const char *env = getenv("LABGRADER_HOME");
    memset(h, 0, sizeof(*h));
    if (env && *env) {
        h->harness_dir = path_join(env, "harness");
        h->include_dir = path_join(env, "include");
        h->templates_dir = path_join(env, "templates");
        return 0;
    }
    if (n > 0) {
        /* A build tree: <root>/build[/asan]/grader with its harness beside it. */
        exe[n] = '\0';
        char *dir = xstrdup(exe);
        *strrchr(dir, '/') = '\0';
        char *root = xstrdup(dir);
        for (int up = 0; up < 3; up++) {
            char *probe = xstrfmt("%s/grader/harness/harness.h", root);
            bool found = file_exists(probe);
            free(probe);
            if (found) {
                h->harness_dir = path_join(dir, "harness");
                h->include_dir = xstrfmt("%s/grader/harness", root);
                h->templates_dir = xstrfmt("%s/templates", root);
                free(root);
                free(dir);
                return 0;
            }
            char *slash = strrchr(root, '/');
            if (!slash || slash == root)
                break;
            *slash = '\0';
        }
        free(root);
        free(dir);
    }
    h->harness_dir = xstrdup(LG_DATADIR "/harness");
    h->include_dir = xstrdup(LG_DATADIR "/include");
    h->templates_dir = xstrdup(LG_DATADIR "/templates");
    if (!dir_exists(h->harness_dir))
        return error_set(err,
                         "cannot find labgrader's data (looked next to the program and in "
                         "%s): set LABGRADER_HOME",
                         LG_DATADIR);
    return 0;
}

static void usage(FILE *f)
{
    fputs(
        "usage: grader <command> [options]\n"
        "\n"
        "commands:\n"
        "  check LAB [--submission DIR]   grade one submission (default: LAB/solution, else\n"
        "                                 LAB/skeleton)\n"
        "  validate LAB...                check lab specs without running anything\n"
        "  report LAB [--student ID]      re-render reports (student view; --instructor: every\n"
        "                                 hidden case in full) and a class's summary\n"
        "  grade LAB --submissions DIR    grade a class (folders or an LMS zip)\n"
        "  merge LAB [--submissions DIR]  join shards: gradebooks and class summary\n"
        "  slurm LAB --submissions DIR    grade a class as a Slurm job array (--dry-run)\n"
        "  kit LAB [--out FILE]           student kit: lab without hidden cases, skeleton, grader\n"
        "  gradescope LAB [--out ZIP]     Gradescope autograder zip (--gpu-policy informational|\n"
        "                                 remote|fail; docs/exports.md)\n"
        "  autograde LAB [--root DIR]     grade one Gradescope submission (run by the zip)\n"
        "  header LAB                     print the C prototypes a submission must match\n"
        "  machine                        describe this machine (CPU, GPU, compilers)\n"
        "  version                        print the version\n"
        "\n"
        "LAB is a lab folder (labs/lab6) or its lab.yaml.\n"
        "\n"
        "check options:\n"
        "  --submission DIR   the submission folder\n"
        "  --full             include slow cases\n"
        "  --hidden           include hidden cases (instructors)\n"
        "  --only EXERCISE    grade one exercise\n"
        "  --case ID[,ID...]  grade only these cases (e.g. n256)\n"
        "  --no-timing        check correctness only (quick)\n"
        "  --timeout SECONDS  override every case's wall-clock limit\n"
        "  --out DIR          reports folder (default: reports)\n"
        "  --student ID       name of the report folder (default: the submission folder's)\n"
        "  --name NAME        the student's display name\n"
        "  --lang es|en       language of the report and of the grader's messages (default: the "
        "lab's)\n"
        "  --pdf / --no-pdf   require a PDF / skip it (default: try, never fail for it)\n"
        "  --isolation MODE   auto, bwrap or supervisor (default: auto)\n"
        "  --memory-limit SIZE  per-run memory limit, e.g. 4G (default: 3/4 of RAM; enforced\n"
        "                     where cgroups are delegated, see README)\n"
        "  --keep             keep build and run folders (in OUT/.work)\n"
        "  --sanitize         run compute-sanitizer on every GPU variant (findings only)\n"
        "  --no-sanitize      skip the compute-sanitizer pass the lab asks for\n"
        "  --quiet            no per-case progress lines\n"
        "\n"
        "grade options (also --out, --only, --timeout, --isolation, --lang, --pdf, --no-pdf):\n"
        "  --submissions DIR  one folder per student, or a Moodle/Canvas export zip\n"
        "  --roster CSV       student ids and names\n"
        "  --jobs N           parallel builds (default: CPUs)\n"
        "  --gpus N           GPU workers (default: every visible GPU)\n"
        "  --shard K/N        grade slice K of N (then: grader merge)\n"
        "  --force            re-grade unchanged submissions\n"
        "  --canvas-assignment ID  Canvas assignment id for gradebook-canvas.csv\n"
        "  --canvas-points N  Canvas's points possible for the assignment (scores scaled to it)\n"
        "  --deadline TIME    late policy (also the lab's late:): 2026-03-02T23:59:00+01:00\n"
        "  --grace DUR, --late-per-day PCT, --late-cap PCT, --late-max-days N\n"
        "  --extensions CSV   per-student extensions: student_id,2d (or a new deadline)\n"
        "  --reason TEXT      why students are graded again (reports/labN/regrades.csv)\n"
        "  --no-slow, --no-hidden, --no-timing, --no-merge, --sanitize, --no-sanitize\n"
        "\n"
        "exit status: 0 passed, 1 something failed, 2 usage or spec error, 3 grader error\n",
        f);
}

static char *lab_yaml_path(const char *arg)
{
    if (dir_exists(arg))
        return path_join(arg, "lab.yaml");
    return xstrdup(arg);
}

static int load_lab(struct lab *lab, const char *arg)
{
    struct error err;
    char *path = lab_yaml_path(arg);
    error_init(&err);
    lab_init(lab);
    int rc = spec_load(lab, path, NULL, &err);
    free(path);
    if (rc != 0) {
        error_print(&err, stderr);
        return -1;
    }
    return 0;
}

static int cmd_validate(int argc, char **argv)
{
    int status = EXIT_PASS;
    if (argc < 2) {
        fprintf(stderr, "grader validate: name at least one lab (labs/lab6 or its lab.yaml)\n");
        return EXIT_USAGE;
    }
    for (int i = 1; i < argc; i++) {
        struct lab lab;
        if (load_lab(&lab, argv[i]) != 0) {
            status = EXIT_USAGE;
        } else {
            size_t cases = 0, variants = 0;
            for (size_t e = 0; e < lab.n_exercises; e++) {
                cases += lab.exercises[e].n_cases;
                variants += lab.exercises[e].n_variants;
            }
            printf("%s: ok (lab %ld, %zu exercises, %zu variants, %zu cases)\n", lab.path,
                   lab.number, lab.n_exercises, variants, cases);
        }
        lab_release(&lab);
    }
    return status;
}

static int cmd_header(int argc, char **argv)
{
    struct lab lab;
    struct strbuf sb = STRBUF_INIT;
    if (argc != 2) {
        fprintf(stderr, "usage: grader header LAB\n");
        return EXIT_USAGE;
    }
    if (load_lab(&lab, argv[1]) != 0)
        return EXIT_USAGE;
    driver_prototypes_header(&lab, false, &sb);
    fputs(strbuf_str(&sb), stdout);
    strbuf_release(&sb);
    lab_release(&lab);
    return EXIT_PASS;
}

/* "512M", "4G", "1048576": bytes. */
static int parse_size(const char *s, long long *out)
{
    char *end;
    double v = strtod(s, &end);
    double mult = 1;
    if (end == s || v <= 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        mult = 1024.0;
    else if (*end == 'M' || *end == 'm')
        mult = 1024.0 * 1024;
    else if (*end == 'G' || *end == 'g')
        mult = 1024.0 * 1024 * 1024;
    else if (*end != '\0')
        return -1;
    if (*end && end[1] != '\0' && strcmp(end + 1, "iB") && strcmp(end + 1, "B"))
        return -1;
    *out = (long long)(v * mult);
    return 0;
}

static int parse_isolation(const char *s, enum isolation *out)
{
    if (!strcmp(s, "auto"))
        *out = ISOLATION_AUTO;
    else if (!strcmp(s, "bwrap"))
        *out = ISOLATION_BWRAP;
    else if (!strcmp(s, "supervisor"))
        *out = ISOLATION_SUPERVISOR;
    else
        return -1;
    return 0;
}

static void on_signal(int sig)
{
    sandbox_kill_running();
    /* Several GPU workers: they stop with us (they hold no results worth finishing). */
    batch_kill_workers(sig);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Build and run folders: OUT/.work, or LABGRADER_WORK (node-local scratch on a cluster). */
static char *work_folder(const char *out)
{
    const char *w = getenv("LABGRADER_WORK");
    return w && *w ? xstrdup(w) : xstrfmt("%s/.work", out);
}

static int status_of(const struct results *r)
{
    if (r->n_grader_errors)
        return EXIT_GRADER;
    return r->n_fail ? EXIT_FAIL : EXIT_PASS;
}

static int render_report(const struct results *r, const char *outdir, const struct home *h,
                         const char *lang, int pdf_mode, bool student_view, bool quiet)
{
    struct report_opts ro;
    struct report_outcome out;
    struct error err;
    error_init(&err);
    report_opts_init(&ro);
    ro.lang = lang;
    ro.templates_dir = h->templates_dir;
    ro.pdf = pdf_mode >= 0;
    ro.pdf_required = pdf_mode > 0;
    ro.student_view = student_view;
    memset(&out, 0, sizeof(out));
    if (report_student(r, outdir, &ro, &out, &err) != 0) {
        error_print(&err, stderr);
        if (out.md_written && !quiet)
            printf("report: %s\n", out.md_path);
        return -1;
    }
    if (!quiet) {
        if (out.md_written)
            printf("report: %s\n", out.md_path);
        if (out.pdf_written)
            printf("pdf:    %s\n", out.pdf_path);
        else if (pdf_mode >= 0)
            printf("pdf:    not made: %s\n", out.pdf_note);
    }
    return 0;
}

/* What check leaves for an LMS beside results.json: the student's gradescope.json
 * (report/gradescope.h), the student view. */
static int write_check_exports(const struct results *r, const char *dir, const struct lab *lab,
                               const struct messages *msgs, struct error *err)
{
    struct gradescope_opts go = {true, msgs, lab, 0};
    char *path = path_join(dir, "gradescope.json");
    int rc = export_gradescope(r, &go, path, err);
    free(path);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    const char *lab_arg = NULL, *submission = NULL, *out = "reports", *student = NULL;
    const char *name = NULL, *lang = NULL;
    int pdf_mode = 0; /* -1 no, 0 try, 1 required */
    bool quiet = false;
    long long memory_limit = 0;
    enum isolation iso = ISOLATION_AUTO;
    struct grade_opts o;
    struct lab lab;
    struct home home;
    struct grade_env env;
    struct results r;
    struct messages msgs;
    struct error err;
    int status;

    grade_opts_init(&o);
    messages_init(&msgs);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_ARG()                                                                                 \
    do {                                                                                           \
        if (!next) {                                                                               \
            fprintf(stderr, "grader check: %s needs a value\n", a);                                \
            return EXIT_USAGE;                                                                     \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
        if (!strcmp(a, "--submission")) {
            NEED_ARG();
            submission = next;
        } else if (!strcmp(a, "--full"))
            o.full = true;
        else if (!strcmp(a, "--hidden"))
            o.hidden = true;
        else if (!strcmp(a, "--no-timing"))
            o.no_timing = true;
        else if (!strcmp(a, "--case")) {
            NEED_ARG();
            o.cases = next;
        } else if (!strcmp(a, "--only")) {
            NEED_ARG();
            o.only = next;
        } else if (!strcmp(a, "--timeout")) {
            NEED_ARG();
            if (!parse_double(next, &o.timeout_s) || o.timeout_s <= 0) {
                fprintf(stderr,
                        "grader check: --timeout takes a positive number of seconds, not "
                        "'%s'\n",
                        next);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--memory-limit")) {
            NEED_ARG();
            if (parse_size(next, &memory_limit) != 0) {
                fprintf(stderr,
                        "grader check: --memory-limit takes a size like 4G or 512M, not "
                        "'%s'\n",
                        next);
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--out")) {
            NEED_ARG();
            out = next;
        } else if (!strcmp(a, "--student")) {
            NEED_ARG();
            student = next;
        } else if (!strcmp(a, "--name")) {
            NEED_ARG();
            name = next;
        } else if (!strcmp(a, "--lang")) {
            NEED_ARG();
            if (strcmp(next, "es") && strcmp(next, "en")) {
                fprintf(stderr, "grader check: --lang is es or en, not '%s'\n", next);
                return EXIT_USAGE;
            }
            lang = next;
        } else if (!strcmp(a, "--pdf"))
            pdf_mode = 1;
        else if (!strcmp(a, "--no-pdf"))
            pdf_mode = -1;
        else if (!strcmp(a, "--isolation")) {
            NEED_ARG();
            if (parse_isolation(next, &iso) != 0) {
                fprintf(stderr, "grader check: --isolation is auto, bwrap or supervisor\n");
                return EXIT_USAGE;
            }
        } else if (!strcmp(a, "--keep"))
            o.keep_work = true;
        else if (!strcmp(a, "--sanitize"))
            o.sanitize = SANITIZE_ALL;
        else if (!strcmp(a, "--no-sanitize"))
            o.sanitize = SANITIZE_NONE;
        else if (!strcmp(a, "--quiet"))
            quiet = true;
        else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return EXIT_PASS;
        } else if (a[0] == '-') {
            fprintf(stderr, "grader check: unknown option '%s' (see grader --help)\n", a);
            return EXIT_USAGE;
        } else if (!lab_arg)
            lab_arg = a;
        else {
            fprintf(stderr, "grader check: unexpected argument '%s'\n", a);
            return EXIT_USAGE;
        }
#undef NEED_ARG
    }
    if (!lab_arg) {
        fprintf(stderr, "grader check: name a lab (e.g. grader check labs/lab6)\n");
        return EXIT_USAGE;
    }
    if (load_lab(&lab, lab_arg) != 0)
        return EXIT_USAGE;
    /* The instructor's solution; in a student kit (no solution/), the skeleton. */
    char *default_sub = path_join(lab.dir, "solution");
    if (!dir_exists(default_sub)) {
        free(default_sub);
        default_sub = path_join(lab.dir, "skeleton");
    }
    if (!submission)
        submission = default_sub;
    if (!dir_exists(submission)) {
        fprintf(stderr, "grader check: %s: no such folder (the submission to grade)\n", submission);
        free(default_sub);
        lab_release(&lab);
        return EXIT_USAGE;
    }
    error_init(&err);
    if (home_find(&home, &err) != 0) {
        error_print(&err, stderr);
        free(default_sub);
        lab_release(&lab);
        return EXIT_GRADER;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);

    char *cache = xstrfmt("%s/.cache", out);
    char *work = work_folder(out);
    grade_env_init(&env);
    results_init(&r);
    status = EXIT_GRADER;
    env.memory_limit_bytes = memory_limit;
    if (grade_env_setup(&env, home.harness_dir, home.include_dir, cache, iso, &err) != 0) {
        error_print(&err, stderr);
        goto out;
    }
    grade_calibrate(&env, quiet ? NULL : stderr);
    if (messages_load_lang(&msgs, home.templates_dir, lang ? lang : lab.lang, &err) != 0) {
        fprintf(stderr, "grader check: warning: ");
        error_print(&err, stderr);
        fprintf(stderr, "grader check: the grader's messages stay in English\n");
    }
    o.messages = &msgs;
    o.submission = submission;
    o.student_id = student;
    o.student_name = name;
    o.work_dir = work;
    o.progress = quiet ? NULL : stderr;
    if (!quiet)
        fprintf(stderr, "grading %s against %s ...\n", submission, lab.path);
    if (grade_submission(&env, &lab, &o, &r, &err) != 0) {
        error_print(&err, stderr);
        fprintf(stderr, "grader check: grading stopped by a grader error (not the submission's "
                        "fault)\n");
        goto out;
    }
    {
        char *dir = xstrfmt("%s/%s/%s", out, lab.id, r.student_id);
        char *json = path_join(dir, "results.json");
        bool color = table_use_color(stdout);
        if (mkdir_p(dir, &err) != 0 || results_write(&r, json, &err) != 0 ||
            write_check_exports(&r, dir, &lab, &msgs, &err) != 0) {
            error_print(&err, stderr);
            free(dir);
            free(json);
            goto out;
        }
        if (!quiet)
            fputc('\n', stdout);
        table_print(stdout, &r, color);
        table_print_summary(stdout, &r, color);
        printf("results: %s\n", json);
        status = status_of(&r);
        if (render_report(&r, dir, &home, lang, pdf_mode, true, false) != 0 && pdf_mode > 0)
            status = status == EXIT_PASS ? EXIT_GRADER : status;
        free(dir);
        free(json);
    }
out:
    results_release(&r);
    grade_env_release(&env);
    home_release(&home);
    messages_release(&msgs);
    free(cache);
    free(work);
    free(default_sub);
    lab_release(&lab);
    return status;
}

/* Sub-folders of labdir that hold a results.json, sorted. */
static void list_result_dirs(const char *labdir, char ***dirs, size_t *n)
{
    struct dirent **list = NULL;
    int m = scandir(labdir, &list, NULL, alphasort);
    size_t alloc = 0;
    *dirs = NULL;
    *n = 0;
    for (int i = 0; i < m; i++) {
        if (list[i]->d_name[0] != '.') {
            char *d = path_join(labdir, list[i]->d_name);
            char *j = path_join(d, "results.json");
            if (file_exists(j)) {
                ALLOC_GROW(*dirs, *n + 1, alloc);
                (*dirs)[(*n)++] = d;
            } else {
                free(d);
            }
            free(j);
        }
        free(list[i]);
    }
    free(list);
}

static int cmd_report(int argc, char **argv)
{
    const char *lab_arg = NULL, *out = "reports", *student = NULL, *lang = NULL;
    int pdf_mode = 0;
    bool instructor = false;
    struct lab lab;
    struct home home;
    struct error err;
    int status = EXIT_PASS;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--instructor"))
            instructor = true;
        else if (!strcmp(argv[i], "--student") && i + 1 < argc)
            student = argv[++i];
        else if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--lang") && i + 1 < argc)
            lang = argv[++i];
        else if (!strcmp(argv[i], "--pdf"))
            pdf_mode = 1;
        else if (!strcmp(argv[i], "--no-pdf"))
            pdf_mode = -1;
        else if (argv[i][0] != '-' && !lab_arg)
            lab_arg = argv[i];
        else {
            fprintf(stderr, "grader report: unexpected argument '%s'\n", argv[i]);
            return EXIT_USAGE;
        }
    }
    if (!lab_arg) {
        fprintf(stderr, "usage: grader report LAB [--student ID] [--out DIR] [--lang es|en] "
                        "[--pdf|--no-pdf] [--instructor]\n");
        return EXIT_USAGE;
    }
    if (load_lab(&lab, lab_arg) != 0)
        return EXIT_USAGE;
    error_init(&err);
    if (home_find(&home, &err) != 0) {
        error_print(&err, stderr);
        lab_release(&lab);
        return EXIT_GRADER;
    }
    char *labdir = xstrfmt("%s/%s", out, lab.id);
    int found = 0;
    char **dirs = NULL;
    size_t n = 0;
    if (student) {
        dirs = xmalloc(sizeof(char *));
        dirs[n++] = xstrfmt("%s/%s", labdir, student);
    } else {
        list_result_dirs(labdir, &dirs, &n);
    }
    for (size_t i = 0; i < n; i++) {
        struct results r;
        char *json = path_join(dirs[i], "results.json");
        results_init(&r);
        if (results_read(&r, json, &err) != 0) {
            error_print(&err, stderr);
            status = EXIT_GRADER;
        } else {
            found++;
            /* What students read unless asked otherwise: a class's results hold hidden
             * cases, which an instructor's report (--instructor) shows in full. */
            if (render_report(&r, dirs[i], &home, lang, pdf_mode, !instructor, false) != 0)
                status = EXIT_GRADER;
        }
        results_release(&r);
        free(json);
        free(dirs[i]);
    }
    free(dirs);
    /* A graded class (it has a gradebook): its summary and gradebooks too, as merge does. */
    char *gradebook = path_join(labdir, "gradebook.csv");
    if (found && !student && file_exists(gradebook)) {
        struct batch_opts bo;
        int missing = 0;
        batch_opts_init(&bo);
        bo.out = out;
        bo.lang = lang;
        bo.templates_dir = home.templates_dir;
        bo.pdf_mode = pdf_mode;
        if (batch_merge(&lab, &bo, &missing, &err) != 0) {
            error_print(&err, stderr);
            status = EXIT_GRADER;
        }
    }
    free(gradebook);
    if (!found && status == EXIT_PASS) {
        fprintf(stderr,
                "grader report: no results.json under %s: grade first (make check "
                "LAB=%ld)\n",
                labdir, lab.number);
        status = EXIT_USAGE;
    }
    free(labdir);
    home_release(&home);
    lab_release(&lab);
    return status;
}

static int parse_shard(const char *s, int *k, int *n)
{
    char extra;
    if (sscanf(s, "%d/%d%c", k, n, &extra) != 2 || *n < 1 || *k < 1 || *k > *n)
        return -1;
    return 0;
}

/* Options of grade and merge for the LMS files: the late policy (class/late.h), the
 * regrade audit's reason and Canvas's points possible. */
static const char *const lms_options[] = {"--deadline", "--grace",         "--late-per-day",
                                          "--late-cap", "--late-max-days", "--extensions",
                                          "--reason",   "--canvas-points", NULL};

static const char *lms_option(const char *a)
{
    for (size_t i = 0; lms_options[i]; i++)
        if (!strcmp(a, lms_options[i]))
            return lms_options[i];
    return NULL;
}

static int set_lms_option(const char *a, const char *v, struct batch_opts *o)
{
    struct late_options *l = &o->late;
    const char **slot = !strcmp(a, "--deadline")        ? &l->deadline
                        : !strcmp(a, "--grace")         ? &l->grace
                        : !strcmp(a, "--late-per-day")  ? &l->per_day
                        : !strcmp(a, "--late-cap")      ? &l->cap
                        : !strcmp(a, "--late-max-days") ? &l->max_days
                        : !strcmp(a, "--extensions")    ? &l->extensions
                        : !strcmp(a, "--reason")        ? &o->regrade_reason
                                                        : NULL;
    if (slot) {
        *slot = v; /* checked when the policy is made, naming the option */
        return 0;
    }
    return parse_double(v, &o->canvas_points) && o->canvas_points > 0 ? 0 : -1;
}

/* Options shared by grade and merge. */
static int batch_args(int argc, char **argv, const char *cmd, const char **lab_arg,
                      struct batch_opts *o, enum isolation *iso, bool *no_merge)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *next = i + 1 < argc ? argv[i + 1] : NULL;
        bool takes = !strcmp(a, "--submissions") || !strcmp(a, "--roster") || !strcmp(a, "--out") ||
                     !strcmp(a, "--jobs") || !strcmp(a, "--gpus") || !strcmp(a, "--shard") ||
                     !strcmp(a, "--timeout") || !strcmp(a, "--only") || !strcmp(a, "--isolation") ||
                     !strcmp(a, "--canvas-assignment") || !strcmp(a, "--lang") ||
                     lms_option(a) != NULL;
        long v;
        if (takes && !next) {
            fprintf(stderr, "grader %s: %s needs a value\n", cmd, a);
            return -1;
        }
        if (takes)
            i++;
        if (lms_option(a)) {
            if (set_lms_option(a, next, o) != 0) {
                fprintf(stderr, "grader %s: %s takes a number of points, not '%s'\n", cmd, a, next);
                return -1;
            }
        } else if (!strcmp(a, "--submissions"))
            o->submissions = next;
        else if (!strcmp(a, "--roster"))
            o->roster = next;
        else if (!strcmp(a, "--canvas-assignment"))
            o->canvas_assignment = next;
        else if (!strcmp(a, "--lang")) {
            if (strcmp(next, "es") && strcmp(next, "en")) {
                fprintf(stderr, "grader %s: --lang is es or en, not '%s'\n", cmd, next);
                return -1;
            }
            o->lang = next;
        } else if (!strcmp(a, "--out"))
            o->out = next;
        else if (!strcmp(a, "--jobs") || !strcmp(a, "--gpus")) {
            if (!parse_long(next, &v) || v < 1 || v > 1024) {
                fprintf(stderr, "grader %s: %s takes a positive number, not '%s'\n", cmd, a, next);
                return -1;
            }
            if (!strcmp(a, "--jobs"))
                o->jobs = (int)v;
            else
                o->gpus = (int)v;
        } else if (!strcmp(a, "--shard")) {
            if (parse_shard(next, &o->shard_k, &o->shard_n) != 0) {
                fprintf(stderr, "grader %s: --shard takes K/N with 1 <= K <= N, not '%s'\n", cmd,
                        next);
                return -1;
            }
        } else if (!strcmp(a, "--timeout")) {
            if (!parse_double(next, &o->grade.timeout_s) || o->grade.timeout_s <= 0) {
                fprintf(stderr, "grader %s: --timeout takes seconds, not '%s'\n", cmd, next);
                return -1;
            }
        } else if (!strcmp(a, "--only"))
            o->grade.only = next;
        else if (!strcmp(a, "--isolation")) {
            if (parse_isolation(next, iso) != 0) {
                fprintf(stderr, "grader %s: --isolation is auto, bwrap or supervisor\n", cmd);
                return -1;
            }
        } else if (!strcmp(a, "--force"))
            o->force = true;
        else if (!strcmp(a, "--no-slow"))
            o->grade.full = false;
        else if (!strcmp(a, "--no-hidden"))
            o->grade.hidden = false;
        else if (!strcmp(a, "--no-timing"))
            o->grade.no_timing = true;
        else if (!strcmp(a, "--pdf"))
            o->pdf_mode = 1;
        else if (!strcmp(a, "--no-pdf"))
            o->pdf_mode = -1;
        else if (!strcmp(a, "--no-merge") && no_merge)
            *no_merge = true;
        else if (!strcmp(a, "--keep"))
            o->grade.keep_work = true;
        else if (!strcmp(a, "--sanitize"))
            o->grade.sanitize = SANITIZE_ALL;
        else if (!strcmp(a, "--no-sanitize"))
            o->grade.sanitize = SANITIZE_NONE;
        else if (a[0] == '-') {
            fprintf(stderr, "grader %s: unknown option '%s' (see grader --help)\n", cmd, a);
            return -1;
        } else if (!*lab_arg)
            *lab_arg = a;
        else {
            fprintf(stderr, "grader %s: unexpected argument '%s'\n", cmd, a);
            return -1;
        }
    }
    if (!*lab_arg) {
        fprintf(stderr, "grader %s: name a lab (e.g. labs/lab6)\n", cmd);
        return -1;
    }
    return 0;
}

static int cmd_grade(int argc, char **argv)
{
    struct batch_opts o;
    struct batch_summary sum;
    const char *lab_arg = NULL;
    enum isolation iso = ISOLATION_AUTO;
    bool no_merge = false;
    struct lab lab;
    struct home home;
    struct grade_env env;
    struct error err;
    int status = EXIT_GRADER, missing = 0;

    batch_opts_init(&o);
    o.grade.full = true;
    o.grade.hidden = true;
    if (batch_args(argc, argv, "grade", &lab_arg, &o, &iso, &no_merge) != 0)
        return EXIT_USAGE;
    if (!o.submissions) {
        fprintf(stderr, "grader grade: --submissions DIR (a folder per student, or an LMS zip) "
                        "is required\n");
        return EXIT_USAGE;
    }
    if (load_lab(&lab, lab_arg) != 0)
        return EXIT_USAGE;
    error_init(&err);
    if (home_find(&home, &err) != 0) {
        error_print(&err, stderr);
        lab_release(&lab);
        return EXIT_GRADER;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGHUP, on_signal);
    o.templates_dir = home.templates_dir;
    o.progress_bar = isatty(2) && !getenv("NO_PROGRESS");
    char *cache = xstrfmt("%s/.cache", o.out);
    char *work = work_folder(o.out);
    o.grade.work_dir = work;
    grade_env_init(&env);
    env.grade_mode = true;
    if (grade_env_setup(&env, home.harness_dir, home.include_dir, cache, iso, &err) != 0) {
        error_print(&err, stderr);
        goto out;
    }
    grade_calibrate(&env, stderr);
    if (batch_grade(&env, &lab, &o, &sum, &err) != 0) {
        error_print(&err, stderr);
        if (sum.bad_input)
            status = EXIT_USAGE;
        goto out;
    }
    printf("%s: %d graded, %d unchanged, %d with failures, %d with grader errors", lab.id,
           sum.graded, sum.skipped_unchanged, sum.failed, sum.grader_errors);
    if (sum.no_pdf)
        printf(", %d without a PDF", sum.no_pdf);
    printf("\n");
    if (sum.graded)
        printf("time: collect %.1f s, references %.1f s, compile %.1f s, runs %.1f s, reports "
               "%.1f s\n",
               sum.t_collect, sum.t_prepare, sum.t_build, sum.t_runs, sum.t_reports);
    if (o.shard_n && !no_merge) {
        printf("shard %d/%d done; join the shards with: grader merge %s --out %s\n", o.shard_k,
               o.shard_n, lab_arg, o.out);
        status = sum.grader_errors ? EXIT_GRADER : EXIT_PASS;
        goto out;
    }
    if (!no_merge) {
        struct batch_opts mo = o;
        mo.submissions = NULL;
        if (batch_merge(&lab, &mo, &missing, &err) != 0) {
            error_print(&err, stderr);
            goto out;
        }
    }
    status = sum.grader_errors ? EXIT_GRADER : EXIT_PASS;
out:
    grade_env_release(&env);
    home_release(&home);
    free(cache);
    free(work);
    lab_release(&lab);
    return status;
}

static int cmd_merge(int argc, char **argv)
{
    struct batch_opts o;
    const char *lab_arg = NULL;
    enum isolation iso = ISOLATION_AUTO;
    struct lab lab;
    struct home home;
    struct error err;
    int missing = 0, status = EXIT_PASS;
    batch_opts_init(&o);
    if (batch_args(argc, argv, "merge", &lab_arg, &o, &iso, NULL) != 0)
        return EXIT_USAGE;
    if (load_lab(&lab, lab_arg) != 0)
        return EXIT_USAGE;
    error_init(&err);
    if (home_find(&home, &err) != 0) {
        error_print(&err, stderr);
        lab_release(&lab);
        return EXIT_GRADER;
    }
    o.templates_dir = home.templates_dir;
    if (batch_merge(&lab, &o, &missing, &err) != 0) {
        error_print(&err, stderr);
        /* A submissions folder or roster that cannot be read is the caller's to fix. */
        status = o.submissions && !dir_exists(o.submissions) && !file_exists(o.submissions)
                     ? EXIT_USAGE
                     : EXIT_GRADER;
    } else if (missing) {
        fprintf(stderr, "grader merge: %d student%s not graded yet: re-run their shard\n", missing,
                missing == 1 ? "" : "s");
        status = EXIT_FAIL;
    }
    home_release(&home);
    lab_release(&lab);
    return status;
}

/* The labgrader source tree this binary was built from (holds Makefile and grader/). */
static char *repo_root(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *root = xstrdup(exe);
        for (int up = 0; up < 4; up++) {
            char *slash = strrchr(root, '/');
            if (!slash || slash == root)
                break;
            *slash = '\0';
            char *probe = xstrfmt("%s/grader/deps.sh", root);
            bool found = file_exists(probe);
            free(probe);
            if (found)
                return root;
        }
        free(root);
    }
    return xstrdup(".");
}

/* gradescope and autograde (class/gradescope.h): they need the grader's parts. */
static int cmd_gradescope(int argc, char **argv,
                          int (*fn)(int, char **, const struct grader_paths *))
{
    struct home home;
    struct error err;
    error_init(&err);
    if (home_find(&home, &err) != 0) {
        error_print(&err, stderr);
        return EXIT_GRADER;
    }
    char *root = repo_root();
    struct grader_paths paths = {home.harness_dir, home.include_dir, home.templates_dir, root};
    int rc = fn(argc, argv, &paths);
    free(root);
    home_release(&home);
    return rc;
}

static int cmd_kit(int argc, char **argv)
{
    const char *lab_arg = NULL, *out = NULL;
    struct lab lab;
    struct error err;
    struct strbuf warnings = STRBUF_INIT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--out") && i + 1 < argc)
            out = argv[++i];
        else if (argv[i][0] != '-' && !lab_arg)
            lab_arg = argv[i];
        else {
            fprintf(stderr, "usage: grader kit LAB [--out FILE.tar.gz]\n");
            return EXIT_USAGE;
        }
    }
    if (!lab_arg) {
        fprintf(stderr, "usage: grader kit LAB [--out FILE.tar.gz]\n");
        return EXIT_USAGE;
    }
    if (load_lab(&lab, lab_arg) != 0)
        return EXIT_USAGE;
    char *def = xstrfmt("reports/kits/%s-kit.tar.gz", lab.id);
    char *root = repo_root();
    struct kit_opts ko = {root, out ? out : def};
    int status = EXIT_PASS;
    error_init(&err);
    char *parent = xstrdup(ko.out_path);
    char *slash = strrchr(parent, '/');
    if (slash) {
        *slash = '\0';
        mkdir_p(parent, NULL);
    }
    free(parent);
    if (kit_build(&lab, &ko, &warnings, &err) != 0) {
        error_print(&err, stderr);
        status = EXIT_GRADER;
    } else {
        if (warnings.len)
            fprintf(stderr, "%s", warnings.buf);
        printf("kit: %s\n", ko.out_path);
        printf("students: tar xzf %s && cd %s-kit && make check LAB=%ld\n", path_base(ko.out_path),
               lab.id, lab.number);
    }
    strbuf_release(&warnings);
    free(def);
    free(root);
    lab_release(&lab);
    return status;
}

static int cmd_machine(void)
{
    struct home home;
    struct grade_env env;
    struct error err;
    struct machine_info m;
    error_init(&err);
    if (home_find(&home, &err) != 0) {
        error_print(&err, stderr);
        return EXIT_GRADER;
    }
    grade_env_init(&env);
    char *cache = xstrdup("/tmp/labgrader-machine-cache");
    if (grade_env_setup(&env, home.harness_dir, home.include_dir, cache, ISOLATION_AUTO, &err) !=
        0) {
        error_print(&err, stderr);
        free(cache);
        home_release(&home);
        return EXIT_GRADER;
    }
    memset(&m, 0, sizeof(m));
    machine_info_collect(&m, &env.tc, &env.gpu, NULL);
    printf("host:       %s\ncpu:        %s (%d threads)\n", m.hostname, m.cpu_model, m.cpu_threads);
    if (m.gpu_name)
        printf("gpu:        %s (compute capability %s, %ld MiB)\n", m.gpu_name, m.gpu_cc,
               m.gpu_memory_mib);
    else
        printf("gpu:        none: %s\n", m.gpu_status);
    printf("driver:     %s\ncuda:       %s\ncc:         %s\nnvcc:       %s\nisolation:  %s\n",
           m.driver_version ? m.driver_version : "-",
           m.cuda_runtime_version ? m.cuda_runtime_version : "-", m.cc_version ? m.cc_version : "-",
           m.nvcc_version ? m.nvcc_version : "-", isolation_name(sandbox_available()));
    struct results tmp;
    results_init(&tmp);
    tmp.machine = m;
    results_release(&tmp);
    grade_env_release(&env);
    home_release(&home);
    free(cache);
    return EXIT_PASS;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        usage(stdout);
        return EXIT_PASS;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("labgrader %s\n", LG_VERSION);
        return EXIT_PASS;
    }
    if (!strcmp(cmd, "check"))
        return cmd_check(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate"))
        return cmd_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "grade"))
        return cmd_grade(argc - 1, argv + 1);
    if (!strcmp(cmd, "merge"))
        return cmd_merge(argc - 1, argv + 1);
    if (!strcmp(cmd, "slurm"))
        return slurm_main(argc - 1, argv + 1);
    if (!strcmp(cmd, "kit"))
        return cmd_kit(argc - 1, argv + 1);
    if (!strcmp(cmd, "gradescope"))
        return cmd_gradescope(argc - 1, argv + 1, gradescope_main);
    if (!strcmp(cmd, "autograde"))
        return cmd_gradescope(argc - 1, argv + 1, autograde_main);
    if (!strcmp(cmd, "header"))
        return cmd_header(argc - 1, argv + 1);
    if (!strcmp(cmd, "machine"))
        return cmd_machine();
    fprintf(stderr, "grader: unknown command '%s' (see grader --help)\n", cmd);
    return EXIT_USAGE;
}

/* The analyze commands' command lines. See cli.h. */
#include "analyze/cli.h"

#include "analyze/mutate.h"
#include "analyze/mutreport.h"
#include "analyze/similarity.h"
#include "analyze/simreport.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"
#include "spec/spec.h"

#include <string.h>

enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2, EXIT_GRADER = 3 };

bool analyze_take_flag(int *argc, char **argv, const char *flag)
{
    int out = 0;
    bool found = false;
    for (int i = 0; i < *argc; i++) {
        if (!strcmp(argv[i], flag))
            found = true;
        else
            argv[out++] = argv[i];
    }
    argv[out] = NULL;
    *argc = out;
    return found;
}

void analyze_usage(FILE *f)
{
    fputs("analysis commands (instructors; they need libclang: grader/deps.sh analyze):\n"
          "  similarity LAB --submissions DIR  pairs of submissions that share code: "
          "OUT/labN/\n"
          "                     similarity.csv, .md, .html (--threshold X, default 0.5;\n"
          "                     --roster, --out, --lang, --min-match N, --kgram N, --window N,\n"
          "                     --max-common N); also grade --similarity\n"
          "  mutate LAB          grade mutants of the lab's solution: does the grading catch\n"
          "                     wrong code? OUT/labN/mutate/ (--jobs N, --only EXERCISE,\n"
          "                     --timeout S, --no-slow, --no-extra, --cpu-only, --keep, --out,\n"
          "                     --lang, --pdf, --no-pdf)\n",
          f);
}

static char *lab_yaml(const char *arg)
{
    return dir_exists(arg) ? path_join(arg, "lab.yaml") : xstrdup(arg);
}

static int load_lab(struct lab *lab, const char *arg)
{
    struct error err;
    char *path = lab_yaml(arg);
    error_init(&err);
    lab_init(lab);
    int rc = spec_load(lab, path, NULL, &err);
    free(path);
    if (rc != 0)
        error_print(&err, stderr);
    return rc;
}

struct sim_cli {
    const char *lab, *out, *lang;
    struct sim_opts o;
    bool quiet;
};

static bool int_arg(const char *cmd, const char *opt, const char *v, int lo, int hi, int *out)
{
    long x;
    if (!v || !parse_long(v, &x) || x < lo || x > hi) {
        fprintf(stderr, "grader %s: %s takes a whole number from %d to %d\n", cmd, opt, lo, hi);
        return false;
    }
    *out = (int)x;
    return true;
}

/* One option of `similarity` at argv[*i]; -1 on a bad one, 0 when not one of its own. */
static int sim_option(struct sim_cli *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    bool ok = true;
    if (!strcmp(a, "--threshold")) {
        ok = v && parse_double(v, &c->o.threshold) && c->o.threshold > 0 && c->o.threshold <= 1;
        if (!ok)
            fprintf(stderr, "grader similarity: --threshold takes a number in (0, 1]\n");
    } else if (!strcmp(a, "--min-match"))
        ok = int_arg("similarity", a, v, 1, 100000, &c->o.min_match);
    else if (!strcmp(a, "--kgram"))
        ok = int_arg("similarity", a, v, 2, 1000, &c->o.k);
    else if (!strcmp(a, "--window"))
        ok = int_arg("similarity", a, v, 1, 1000, &c->o.window);
    else if (!strcmp(a, "--max-common"))
        ok = int_arg("similarity", a, v, 1, 1000000, &c->o.max_common);
    else if (!strcmp(a, "--submissions") || !strcmp(a, "--roster") || !strcmp(a, "--out") ||
             !strcmp(a, "--lang")) {
        ok = v != NULL;
        if (!v)
            fprintf(stderr, "grader similarity: %s needs a value\n", a);
        else if (!strcmp(a, "--submissions"))
            c->o.submissions = v;
        else if (!strcmp(a, "--roster"))
            c->o.roster = v;
        else if (!strcmp(a, "--out"))
            c->out = v;
        else if (strcmp(v, "es") && strcmp(v, "en"))
            ok = (fprintf(stderr, "grader similarity: --lang is es or en\n"), false);
        else
            c->lang = v;
    } else if (!strcmp(a, "--quiet")) {
        c->quiet = true;
        return 1;
    } else
        return 0;
    if (!ok)
        return -1;
    (*i)++;
    return 1;
}

/* grade's options that take a value, skipped when the similarity step reads grade's line. */
static bool grade_takes_value(const char *a)
{
    static const char *const opts[] = {
        "--jobs", "--gpus", "--shard", "--timeout", "--only", "--isolation", "--canvas-assignment",
        NULL};
    for (size_t i = 0; opts[i]; i++)
        if (!strcmp(a, opts[i]))
            return true;
    return false;
}

static int sim_args(struct sim_cli *c, int argc, char **argv, bool after_grade)
{
    for (int i = 1; i < argc; i++) {
        int r = sim_option(c, argc, argv, &i);
        if (r < 0)
            return -1;
        if (r > 0)
            continue;
        if (after_grade && grade_takes_value(argv[i]))
            i++;
        else if (argv[i][0] == '-' && !after_grade) {
            fprintf(stderr, "grader similarity: unknown option '%s' (see grader --help)\n",
                    argv[i]);
            return -1;
        } else if (argv[i][0] != '-' && !c->lab)
            c->lab = argv[i];
        else if (argv[i][0] != '-') {
            fprintf(stderr, "grader similarity: unexpected argument '%s'\n", argv[i]);
            return -1;
        }
    }
    if (!c->lab || !c->o.submissions) {
        fprintf(stderr, "grader similarity: name a lab and --submissions DIR (e.g. grader "
                        "similarity labs/lab6 --submissions class/)\n");
        return -1;
    }
    return 0;
}

static void print_pairs(const struct sim_result *r, const char *outdir)
{
    size_t shown = r->n_reported < 20 ? r->n_reported : 20;
    for (size_t i = 0; i < shown; i++) {
        const struct sim_pair *p = &r->pairs[i];
        printf("  %-16s %-16s %3.0f%%  (%.0f%% / %.0f%%), longest %u tokens\n", r->subs[p->a].id,
               r->subs[p->b].id, 100 * p->similarity, 100 * p->a_in_b, 100 * p->b_in_a,
               p->frags[0].tokens);
    }
    if (r->n_reported > shown)
        printf("  ... and %zu more\n", r->n_reported - shown);
    for (size_t i = 0; i < r->n_groups; i++)
        printf("  group of %zu: %s and %zu more\n", r->groups[i].n,
               r->subs[r->groups[i].members[0]].id, r->groups[i].n - 1);
    printf("similarity: %s/similarity.md, similarity.html, similarity.csv\n", outdir);
}

static int run_similarity(struct sim_cli *c, const char *templates_dir)
{
    struct lab lab;
    struct sim_result r;
    struct error err;
    if (load_lab(&lab, c->lab) != 0)
        return EXIT_USAGE;
    char *outdir = xstrfmt("%s/%s", c->out, lab.id);
    char *work = xstrfmt("%s/.work", c->out);
    c->o.work_dir = work;
    c->o.progress = c->quiet ? NULL : stderr;
    error_init(&err);
    sim_result_init(&r);
    int status = EXIT_GRADER;
    if (sim_run(&lab, &c->o, &r, &err) != 0) {
        error_print(&err, stderr);
        status = !dir_exists(c->o.submissions) && !file_exists(c->o.submissions) ? EXIT_USAGE
                                                                                 : EXIT_GRADER;
    } else if (sim_report_write(&r, &lab, outdir, templates_dir, c->lang, &err) != 0) {
        error_print(&err, stderr);
    } else {
        for (size_t i = 0; i < r.n_warnings && !c->quiet; i++)
            fprintf(stderr, "similarity: %s\n", r.warnings[i]);
        printf("%s: %zu submissions, %zu pairs at or above %.0f%%, %zu group%s\n", lab.id, r.n_subs,
               r.n_reported, 100 * c->o.threshold, r.n_groups, r.n_groups == 1 ? "" : "s");
        print_pairs(&r, outdir);
        status = EXIT_OK;
    }
    sim_result_release(&r);
    free(outdir);
    free(work);
    lab_release(&lab);
    return status;
}

static int cmd_similarity(int argc, char **argv, const char *templates_dir, bool after_grade)
{
    struct sim_cli c;
    memset(&c, 0, sizeof(c));
    sim_opts_init(&c.o);
    c.out = "reports";
    if (sim_args(&c, argc, argv, after_grade) != 0)
        return EXIT_USAGE;
    return run_similarity(&c, templates_dir);
}

struct mut_cli {
    const char *lab, *lang;
    struct mutate_opts o;
    int pdf_mode;
    bool quiet;
};

/* One option of `mutate` at argv[*i]; -1 on a bad one. */
static int mut_option(struct mut_cli *c, int argc, char **argv, int *i)
{
    const char *a = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : NULL;
    bool *flags[] = {&c->o.no_slow, &c->o.no_extra, &c->o.cpu_only, &c->o.keep, &c->quiet};
    const char *names[] = {"--no-slow", "--no-extra", "--cpu-only", "--keep", "--quiet"};
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
        if (!strcmp(a, names[k]))
            return *flags[k] = true, 0;
    if (!strcmp(a, "--pdf") || !strcmp(a, "--no-pdf"))
        return c->pdf_mode = a[2] == 'p' ? 1 : -1, 0;
    bool value = !strcmp(a, "--out") || !strcmp(a, "--lang") || !strcmp(a, "--jobs") ||
                 !strcmp(a, "--only") || !strcmp(a, "--timeout") || !strcmp(a, "--grader");
    if (value && !v) {
        fprintf(stderr, "grader mutate: %s needs a value\n", a);
        return -1;
    }
    if (!value) {
        if (a[0] == '-' || c->lab) {
            fprintf(stderr, "grader mutate: %s '%s' (see grader --help)\n",
                    a[0] == '-' ? "unknown option" : "unexpected argument", a);
            return -1;
        }
        c->lab = a;
        return 0;
    }
    (*i)++;
    if (!strcmp(a, "--out"))
        c->o.out = v;
    else if (!strcmp(a, "--only"))
        c->o.only = v;
    else if (!strcmp(a, "--grader"))
        c->o.grader = v;
    else if (!strcmp(a, "--jobs"))
        return int_arg("mutate", a, v, 1, 1024, &c->o.jobs) ? 0 : -1;
    else if (!strcmp(a, "--timeout")) {
        if (!parse_double(v, &c->o.timeout_s) || c->o.timeout_s <= 0) {
            fprintf(stderr, "grader mutate: --timeout takes a positive number of seconds\n");
            return -1;
        }
    } else if (strcmp(v, "es") && strcmp(v, "en")) {
        fprintf(stderr, "grader mutate: --lang is es or en\n");
        return -1;
    } else
        c->lang = v;
    return 0;
}

static int cmd_mutate(int argc, char **argv, const char *templates_dir)
{
    struct mut_cli c;
    struct lab lab;
    struct mutate_result r;
    struct error err;
    memset(&c, 0, sizeof(c));
    mutate_opts_init(&c.o);
    for (int i = 1; i < argc; i++)
        if (mut_option(&c, argc, argv, &i) != 0)
            return EXIT_USAGE;
    if (!c.lab) {
        fprintf(stderr, "grader mutate: name a lab (e.g. grader mutate labs/lab3)\n");
        return EXIT_USAGE;
    }
    if (load_lab(&lab, c.lab) != 0)
        return EXIT_USAGE;
    c.o.progress = c.quiet ? NULL : stderr;
    error_init(&err);
    mutate_result_init(&r);
    int status = EXIT_GRADER;
    char *dir = xstrfmt("%s/%s/mutate", c.o.out, lab.id), *md = NULL, *note = NULL;
    struct mutreport_opts ro = {templates_dir, c.lang, c.pdf_mode};
    if (mutate_run(&lab, &c.o, &r, &err) != 0 ||
        mutreport_write(&r, &lab, dir, &ro, &md, &note, &err) != 0) {
        error_print(&err, stderr);
    } else {
        if (note)
            printf("report: %s (no PDF: %s)\n", md, note);
        else
            printf("report: %s%s\n", md, c.pdf_mode < 0 ? "" : " and report.pdf");
        mutreport_print(stdout, &r, &lab);
        status = EXIT_OK;
    }
    free(md);
    free(note);
    free(dir);
    mutate_result_release(&r);
    lab_release(&lab);
    return status;
}

int analyze_main(const char *cmd, int argc, char **argv, const char *templates_dir,
                 int grade_status)
{
    if (!strcmp(cmd, "similarity"))
        return cmd_similarity(argc, argv, templates_dir, false);
    if (!strcmp(cmd, "mutate"))
        return cmd_mutate(argc, argv, templates_dir);
    /* After `grader grade ... --similarity`. */
    if (grade_status == EXIT_USAGE)
        return grade_status;
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--shard")) {
            fprintf(stderr, "grader grade: --similarity skipped for a shard: run grader "
                            "similarity once every shard is graded\n");
            return grade_status;
        }
    int st = cmd_similarity(argc, argv, templates_dir, true);
    return st == EXIT_OK ? grade_status : st;
}

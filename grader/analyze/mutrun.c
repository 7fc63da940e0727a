/* mutrun: the solution and the mutants graded by `grader check`. See mutrun.h. */
#include "analyze/mutrun.h"

#include "analyze/jobs.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <dirent.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A run's limit when the solution's runs are quick: mutants that loop forever cost this. */
#define MUTRUN_MIN_TIMEOUT_S 10.0
/* A mutant may be this many times slower than the solution before it times out. */
#define MUTRUN_SLOWDOWN 10.0

static char *self_path(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return xstrdup(buf);
}

int mutrun_init(struct mutrun *m, const struct lab *lab, const struct mutate_opts *o,
                struct mutate_result *r, struct error *err)
{
    memset(m, 0, sizeof(*m));
    m->lab = lab;
    m->o = o;
    m->r = r;
    m->grader = o->grader ? path_abs(o->grader, err) : self_path();
    if (!m->grader)
        return error_set(err, "cannot find the grader program to run");
    char *sol = path_join(lab->dir, "solution");
    if (!dir_exists(sol)) {
        error_set(err, "%s has no solution/ folder: mutation testing mutates the lab's solution",
                  lab->dir);
        free(sol);
        return -1;
    }
    m->solution = sol;
    m->lab_yaml = path_abs(lab->path, err);
    char *runs = xstrfmt("%s/%s/mutate/runs", o->out, lab->id);
    if (!m->lab_yaml || mkdir_p(runs, err) != 0 || !(m->runs = path_abs(runs, err))) {
        free(runs);
        return -1;
    }
    free(runs);
    m->work = xstrfmt("%s/.work/mutants", m->runs);
    remove_tree(m->work, NULL);
    m->timeout = xcalloc(lab->n_exercises + 1, sizeof(*m->timeout));
    return mkdir_p(m->work, err);
}

void mutrun_release(struct mutrun *m)
{
    if (m->work && !m->o->keep)
        remove_tree(m->work, NULL);
    free(m->grader);
    free(m->lab_yaml);
    free(m->solution);
    free(m->baseline);
    free(m->runs);
    free(m->work);
    free(m->timeout);
    memset(m, 0, sizeof(*m));
}

char **mutrun_argv(const struct mutrun *m, const char *lab_yaml, const char *submission,
                   const char *exercise, const char *student, const char *cases)
{
    char **a = xcalloc(32, sizeof(*a));
    size_t n = 0;
    const char *fixed[] = {"check",         lab_yaml ? lab_yaml : m->lab_yaml,
                           "--submission",  submission,
                           "--hidden",      "--no-timing",
                           "--no-pdf",      "--quiet",
                           "--no-sanitize", "--out",
                           m->runs,         "--student",
                           student,         NULL};
    a[n++] = xstrdup(m->grader);
    for (size_t i = 0; fixed[i]; i++)
        a[n++] = xstrdup(fixed[i]);
    if (!m->o->no_slow)
        a[n++] = xstrdup("--full");
    if (exercise) {
        a[n++] = xstrdup("--only");
        a[n++] = xstrdup(exercise);
        const struct exercise_spec *ex = lab_exercise(m->lab, exercise);
        double t = ex ? m->timeout[ex - m->lab->exercises] : 0;
        if (t > 0) {
            a[n++] = xstrdup("--timeout");
            a[n++] = xstrfmt("%.0f", t);
        }
    }
    if (cases) {
        a[n++] = xstrdup("--case");
        a[n++] = xstrdup(cases);
    }
    a[n] = NULL;
    return a;
}

void mutrun_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

char *mutrun_results_path(const struct mutrun *m, const char *student)
{
    return xstrfmt("%s/%s/%s/results.json", m->runs, m->lab->id, student);
}

/* Whether name is a source of some variant of the lab, and of one rec reaches (rec NULL: the
 * solution, which reaches every variant, or every CPU variant with --cpu-only). */
static void source_use(const struct mutrun *m, const struct mut_record *rec, const char *name,
                       bool *of_lab, bool *needed)
{
    *of_lab = *needed = false;
    for (size_t e = 0; e < m->lab->n_exercises; e++)
        for (size_t v = 0; v < m->lab->exercises[e].n_variants; v++) {
            const struct impl_spec *st = &m->lab->exercises[e].variants[v].student;
            bool reached =
                !rec && (!m->o->cpu_only || m->lab->exercises[e].variants[v].target == TARGET_CPU);
            for (size_t t = 0; rec && t < rec->n_targets; t++)
                reached |= m->r->targets[rec->targets[t]].ex == e &&
                           m->r->targets[rec->targets[t]].var == v;
            for (size_t s = 0; s < st->n_sources; s++)
                if (!strcmp(st->sources[s], name)) {
                    *of_lab = true;
                    *needed |= reached;
                }
        }
}

char *mutrun_mutant_dir(const struct mutrun *m, const struct mut_record *rec, size_t index,
                        struct error *err)
{
    char *dir = rec ? xstrfmt("%s/m%04zu", m->work, index + 1) : path_join(m->work, "solution");
    DIR *d = opendir(m->solution);
    if (mkdir_p(dir, err) != 0 || !d) {
        if (d)
            closedir(d);
        else
            error_set(err, "%s: cannot list the solution's files", m->solution);
        free(dir);
        return NULL;
    }
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        char *src = path_join(m->solution, e->d_name);
        struct stat st;
        bool of_lab, needed;
        source_use(m, rec, e->d_name, &of_lab, &needed);
        if (e->d_name[0] != '.' && lstat(src, &st) == 0 && S_ISREG(st.st_mode) &&
            (!of_lab || needed)) {
            char *dst = path_join(dir, e->d_name);
            rc = copy_file(src, dst, err);
            free(dst);
        }
        free(src);
    }
    closedir(d);
    if (rc == 0 && rec) {
        size_t len;
        const char *text = m->r->texts[rec->file];
        char *mutated = mutant_apply(text, strlen(text), &rec->m, &len);
        char *dst = path_join(dir, m->r->files[rec->file]);
        rc = write_file_atomic(dst, mutated, len, err);
        free(dst);
        free(mutated);
    }
    if (rc != 0) {
        free(dir);
        return NULL;
    }
    return dir;
}

/* The target graded as (exercise id, variant id), or SIZE_MAX. */
static size_t target_index(const struct mutrun *m, const char *ex, const char *var)
{
    for (size_t t = 0; t < m->r->n_targets; t++) {
        const struct exercise_spec *e = &m->lab->exercises[m->r->targets[t].ex];
        if (!strcmp(e->id, ex) && !strcmp(e->variants[m->r->targets[t].var].id, var))
            return t;
    }
    return SIZE_MAX;
}

/* The largest time limit a case of ex has. */
static double spec_timeout(const struct exercise_spec *ex)
{
    double t = ex->timeout_s;
    for (size_t c = 0; c < ex->n_cases; c++)
        t = ex->cases[c].timeout_s > t ? ex->cases[c].timeout_s : t;
    return t;
}

/* Limits from the solution's times: MUTRUN_SLOWDOWN times its slowest case, at least
 * MUTRUN_MIN_TIMEOUT_S, at most what the spec allows. */
static void set_timeouts(struct mutrun *m, const struct results *res)
{
    for (size_t e = 0; e < res->n_exercises; e++) {
        const struct exercise_spec *ex = lab_exercise(m->lab, res->exercises[e].exercise_id);
        if (!ex)
            continue;
        double wall = 0, t;
        for (size_t v = 0; v < res->exercises[e].n_variants; v++)
            for (size_t c = 0; c < res->exercises[e].variants[v].n_cases; c++) {
                double w = res->exercises[e].variants[v].cases[c].wall_s;
                wall = w > wall ? w : wall;
            }
        t = MUTRUN_SLOWDOWN * wall;
        t = t < MUTRUN_MIN_TIMEOUT_S ? MUTRUN_MIN_TIMEOUT_S : t;
        t = t > spec_timeout(ex) ? spec_timeout(ex) : t;
        m->timeout[ex - m->lab->exercises] = m->o->timeout_s > 0 ? m->o->timeout_s : t;
    }
}

/* Every case of every variant that will be mutated passed (or was skipped). */
static int solution_passes(const struct mutrun *m, const struct results *res, struct error *err)
{
    for (size_t e = 0; e < res->n_exercises; e++)
        for (size_t v = 0; v < res->exercises[e].n_variants; v++) {
            const struct variant_result *vr = &res->exercises[e].variants[v];
            if (!strcmp(vr->target, "gpu") && !m->r->gpu)
                continue;
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                if (cr->verdict == V_PASS || cr->verdict == V_SKIPPED)
                    continue;
                return error_set(err,
                                 "the solution fails %s/%s case %s (%s: %s): mutation testing "
                                 "needs a solution that passes every case",
                                 res->exercises[e].exercise_id, vr->variant_id, cr->case_id,
                                 verdict_code(cr->verdict), cr->message ? cr->message : "");
            }
        }
    return 0;
}

int mutrun_baseline(struct mutrun *m, struct error *err)
{
    free(m->baseline);
    m->baseline = m->o->cpu_only ? mutrun_mutant_dir(m, NULL, 0, err) : xstrdup(m->solution);
    if (!m->baseline)
        return -1;
    char **argv = mutrun_argv(m, NULL, m->baseline, m->o->only, "solution", NULL);
    char *log = xstrfmt("%s/solution.log", m->work), *json = mutrun_results_path(m, "solution");
    struct job j = {argv, log, 0, NULL};
    struct results res;
    results_init(&res);
    if (m->o->progress)
        fprintf(m->o->progress, "mutate: grading the solution (it must pass) ...\n");
    unlink(json);
    int rc = jobs_run(&j, 1, 1, NULL, NULL, err);
    if (rc == 0 && results_read(&res, json, err) != 0) {
        error_set(err, "the solution could not be graded (grader exit %d): see %s", j.status, log);
        rc = -1;
    }
    if (rc == 0) {
        m->r->gpu = !m->o->cpu_only && res.machine.gpu_name != NULL;
        m->r->gpu_note = xstrdup(m->o->cpu_only           ? "--cpu-only"
                                 : res.machine.gpu_status ? res.machine.gpu_status
                                                          : "no GPU");
        rc = solution_passes(m, &res, err);
        set_timeouts(m, &res);
    }
    results_release(&res);
    mutrun_argv_free(argv);
    free(log);
    free(json);
    return rc;
}

/* What the runs of one mutant found, merged over its exercises. */
struct outcome {
    bool ce, kill, error, ok;
    size_t runs_left;
};

struct run_ctx {
    struct mutrun *m;
    struct outcome *oc;
    size_t done, total;
};

struct run_data {
    size_t rec;
    char *student, *dir;
};

static bool reaches(const struct mut_record *rec, size_t t)
{
    for (size_t i = 0; i < rec->n_targets; i++)
        if (rec->targets[i] == t)
            return true;
    return false;
}

static void note_case(struct mutrun *m, struct mut_record *rec, struct outcome *oc,
                      const struct exercise_result *er, const struct variant_result *vr,
                      const struct case_result *cr)
{
    enum verdict v = cr->verdict;
    if (v == V_PASS) {
        oc->ok = true;
        return;
    }
    if (v == V_SKIPPED)
        return;
    if (v == V_GRADER) {
        oc->error = true;
        return;
    }
    oc->ce |= v == V_COMPILE;
    if (!oc->kill || (v == V_COMPILE && rec->kill_verdict != V_COMPILE)) {
        free(rec->kill_exercise);
        free(rec->kill_variant);
        free(rec->kill_case);
        rec->kill_exercise = xstrdup(er->exercise_id);
        rec->kill_variant = xstrdup(vr->variant_id);
        rec->kill_case = xstrdup(cr->case_id);
        rec->kill_verdict = v;
    }
    oc->kill = true;
    (void)m;
}

static void read_run(struct mutrun *m, struct job *j, struct run_data *d, struct outcome *oc)
{
    struct mut_record *rec = &m->r->recs[d->rec];
    char *json = mutrun_results_path(m, d->student);
    struct results res;
    struct error err;
    results_init(&res);
    if (results_read(&res, json, &err) != 0) {
        oc->error = true;
        free(rec->note);
        rec->note = xstrfmt("no results from the grader (exit %d): %s", j->status, err.msg);
    }
    for (size_t e = 0; e < res.n_exercises; e++)
        for (size_t v = 0; v < res.exercises[e].n_variants; v++) {
            const struct variant_result *vr = &res.exercises[e].variants[v];
            size_t t = target_index(m, res.exercises[e].exercise_id, vr->variant_id);
            if (t == SIZE_MAX || !reaches(rec, t))
                continue;
            for (size_t c = 0; c < vr->n_cases; c++)
                note_case(m, rec, oc, &res.exercises[e], vr, &vr->cases[c]);
        }
    results_release(&res);
    if (!m->o->keep) {
        char *dir = xstrfmt("%s/%s/%s", m->runs, m->lab->id, d->student);
        remove_tree(dir, NULL);
        free(dir);
        unlink(j->log);
    }
    free(json);
}

static enum mut_status final_status(const struct outcome *oc)
{
    if (oc->ce)
        return MUT_KILLED_CE;
    if (oc->kill)
        return MUT_KILLED;
    if (oc->error)
        return MUT_ERROR;
    return oc->ok ? MUT_SURVIVED : MUT_NOT_RUN;
}

static void run_done(struct job *j, void *arg)
{
    struct run_ctx *c = arg;
    struct run_data *d = j->data;
    struct outcome *oc = &c->oc[d->rec];
    read_run(c->m, j, d, oc);
    if (--oc->runs_left == 0) {
        c->m->r->recs[d->rec].status = final_status(oc);
        if (!c->m->o->keep)
            remove_tree(d->dir, NULL);
        free(d->dir);
    }
    free(d->student);
    c->done++;
    FILE *f = c->m->o->progress;
    /* On a terminal one line rewritten; in a log a line per tenth. */
    bool tty = f && isatty(fileno(f));
    size_t step = c->total / 10 ? c->total / 10 : 1;
    if (f && (tty || c->done % step == 0 || c->done == c->total))
        fprintf(f, "mutate: %zu/%zu runs done%s", c->done, c->total, tty ? "\r" : "\n");
}

/* The exercises a record reaches, each once, as indexes into the lab (caller frees). */
static size_t *record_exercises(const struct mutrun *m, const struct mut_record *rec, size_t *n)
{
    size_t *ex = xcalloc(rec->n_targets + 1, sizeof(*ex));
    *n = 0;
    for (size_t i = 0; i < rec->n_targets; i++) {
        size_t e = m->r->targets[rec->targets[i]].ex;
        bool seen = false;
        for (size_t k = 0; k < *n && !seen; k++)
            seen = ex[k] == e;
        if (!seen)
            ex[(*n)++] = e;
    }
    return ex;
}

/* The runs of record i: its folder made, one job per exercise appended. */
static int add_runs(struct mutrun *m, size_t i, struct job **jobs, size_t *n, size_t *alloc,
                    struct outcome *oc, struct error *err)
{
    struct mut_record *rec = &m->r->recs[i];
    char *dir = mutrun_mutant_dir(m, rec, i, err);
    size_t n_ex;
    if (!dir)
        return -1;
    size_t *ex = record_exercises(m, rec, &n_ex);
    oc[i].runs_left = n_ex;
    for (size_t k = 0; k < n_ex; k++) {
        const char *id = m->lab->exercises[ex[k]].id;
        struct run_data *d = xcalloc(1, sizeof(*d));
        d->rec = i;
        d->dir = dir;
        d->student = xstrfmt("m%04zu-%s", i + 1, id);
        ALLOC_GROW(*jobs, *n + 1, *alloc);
        (*jobs)[*n].argv = mutrun_argv(m, NULL, dir, id, d->student, NULL);
        (*jobs)[*n].log = xstrfmt("%s/%s.log", m->work, d->student);
        (*jobs)[*n].status = 0;
        (*jobs)[*n].data = d;
        (*n)++;
    }
    if (n_ex == 0)
        free(dir);
    free(ex);
    return 0;
}

int mutrun_mutants(struct mutrun *m, struct error *err)
{
    struct job *jobs = NULL;
    size_t n = 0, alloc = 0;
    struct outcome *oc = xcalloc(m->r->n_recs + 1, sizeof(*oc));
    int rc = 0;
    for (size_t i = 0; i < m->r->n_recs && rc == 0; i++)
        if (m->r->recs[i].status == MUT_NOT_RUN)
            rc = add_runs(m, i, &jobs, &n, &alloc, oc, err);
    struct run_ctx ctx = {m, oc, 0, n};
    int parallel = m->o->jobs > 0 ? m->o->jobs : cpus_usable();
    if (rc == 0) {
        if (m->o->progress)
            fprintf(m->o->progress, "mutate: %zu mutants, %zu runs, %d at a time\n", m->r->n_recs,
                    n, parallel);
        rc = jobs_run(jobs, n, parallel, run_done, &ctx, err);
        if (m->o->progress && isatty(fileno(m->o->progress)))
            fputc('\n', m->o->progress);
    }
    for (size_t k = 0; k < n; k++) {
        mutrun_argv_free(jobs[k].argv);
        free((char *)jobs[k].log);
        free(jobs[k].data);
    }
    free(jobs);
    free(oc);
    return rc;
}

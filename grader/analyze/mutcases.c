/* mutcases: extra sizes tried on the surviving mutants. See mutcases.h. */
#include "analyze/mutcases.h"

#include "analyze/jobs.h"
#include "base/alloc.h"
#include "base/dtype.h"
#include "base/expr.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <yaml.h>

#define MAX_PARAMS 8
/* Extra sizes may hold this many times the largest case's bytes. */
#define MUTCASES_MAX_GROWTH 2.5

struct cand {
    long v[MAX_PARAMS];
};

/* Bytes of every array of ex at sizes v; -1 when an expression fails. */
static double bytes_at(const struct exercise_spec *ex, const long *v)
{
    struct expr_env env;
    struct error err;
    double total = 0;
    expr_env_init(&env);
    for (size_t p = 0; p < ex->n_params; p++)
        if (expr_env_set(&env, ex->params[p], (double)v[p]) != 0)
            return -1;
    for (size_t i = 0; i < ex->n_args; i++) {
        if (ex->args[i].kind == ARG_SCALAR)
            continue;
        double count = 1, d;
        for (size_t k = 0; k < ex->args[i].n_shape; k++) {
            if (expr_eval(ex->args[i].shape[k], &env, &d, &err) != 0 || d < 0)
                return -1;
            count *= d;
        }
        total += count * (double)lg_dtype_size(ex->args[i].dtype);
    }
    return total;
}

static void case_values(const struct exercise_spec *ex, const struct case_spec *c, long *v)
{
    for (size_t p = 0; p < ex->n_params; p++) {
        v[p] = 1;
        for (size_t s = 0; s < c->n_sizes; s++)
            if (!strcmp(c->sizes[s].name, ex->params[p]))
                v[p] = c->sizes[s].value;
    }
}

struct cands {
    struct cand *c;
    size_t n;
    double max_bytes;
};

static void consider(const struct exercise_spec *ex, struct cands *cs, const long *v)
{
    long own[MAX_PARAMS];
    if (cs->n >= MUTCASES_MAX)
        return;
    for (size_t p = 0; p < ex->n_params; p++)
        if (v[p] < 1)
            return;
    for (size_t c = 0; c < ex->n_cases; c++) {
        case_values(ex, &ex->cases[c], own);
        if (!memcmp(own, v, ex->n_params * sizeof(long)))
            return;
    }
    for (size_t c = 0; c < cs->n; c++)
        if (!memcmp(cs->c[c].v, v, ex->n_params * sizeof(long)))
            return;
    double b = bytes_at(ex, v);
    if (b < 0 || b > MUTCASES_MAX_GROWTH * cs->max_bytes)
        return;
    memcpy(cs->c[cs->n++].v, v, sizeof(cs->c[0].v));
}

/* The largest case with a size doubled, 1 and 3 from the smallest case, one off each size of
 * every case. */
static void derive(const struct exercise_spec *ex, struct cands *cs)
{
    long v[MAX_PARAMS], small[MAX_PARAMS], large[MAX_PARAMS];
    double lo = -1, hi = -1;
    for (size_t c = 0; c < ex->n_cases; c++) {
        case_values(ex, &ex->cases[c], v);
        double b = bytes_at(ex, v);
        if (lo < 0 || b < lo)
            lo = b, memcpy(small, v, sizeof(v));
        if (b > hi)
            hi = b, memcpy(large, v, sizeof(v));
    }
    cs->max_bytes = hi;
    /* The largest doubled first, then the smallest sizes: the cap cuts one-off sizes. */
    for (size_t p = 0; p < ex->n_params && hi >= 0; p++) {
        memcpy(v, large, sizeof(v));
        v[p] = 2 * v[p] + 1;
        consider(ex, cs, v);
    }
    for (size_t p = 0; p < ex->n_params && lo >= 0; p++)
        for (long s = 1; s <= 3; s += 2) {
            memcpy(v, small, sizeof(v));
            v[p] = s;
            consider(ex, cs, v);
        }
    for (size_t c = 0; c < ex->n_cases; c++)
        for (size_t p = 0; p < ex->n_params; p++)
            for (int d = -1; d <= 1; d += 2) {
                case_values(ex, &ex->cases[c], v);
                v[p] += d;
                consider(ex, cs, v);
            }
}

void mutcases_derive(const struct exercise_spec *ex, char ***ids, char ***sizes, size_t *n)
{
    struct cand c[MUTCASES_MAX];
    struct cands cs = {c, 0, 0};
    *n = 0;
    *ids = *sizes = NULL;
    if (ex->n_params == 0 || ex->n_params > MAX_PARAMS)
        return;
    derive(ex, &cs);
    *ids = xcalloc(cs.n + 1, sizeof(char *));
    *sizes = xcalloc(cs.n + 1, sizeof(char *));
    for (size_t i = 0; i < cs.n; i++) {
        struct strbuf id = STRBUF_INIT, sz = STRBUF_INIT;
        strbuf_addstr(&id, "x");
        for (size_t p = 0; p < ex->n_params; p++) {
            strbuf_addf(&id, "_%s%ld", ex->params[p], c[i].v[p]);
            strbuf_addf(&sz, "%s%s=%ld", p ? ", " : "", ex->params[p], c[i].v[p]);
        }
        (*ids)[i] = strbuf_detach(&id);
        (*sizes)[i] = strbuf_detach(&sz);
    }
    *n = cs.n;
}

/* ---- the lab's copy, with the extra cases -------------------------------------------- */

static int get_value(yaml_document_t *doc, int map, const char *key)
{
    yaml_node_t *m = yaml_document_get_node(doc, map);
    if (!m || m->type != YAML_MAPPING_NODE)
        return 0;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
            return p->value;
    }
    return 0;
}

static int scalar(yaml_document_t *doc, const char *s)
{
    return yaml_document_add_scalar(doc, NULL, (yaml_char_t *)s, (int)strlen(s),
                                    YAML_PLAIN_SCALAR_STYLE);
}

/* The cases sequence of exercise `id` in the document, or 0. */
static int cases_node(yaml_document_t *doc, const char *id)
{
    int exs = get_value(doc, 1, "exercises");
    yaml_node_t *seq = yaml_document_get_node(doc, exs);
    if (!seq || seq->type != YAML_SEQUENCE_NODE)
        return 0;
    for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
         it++) {
        yaml_node_t *idn = yaml_document_get_node(doc, get_value(doc, *it, "id"));
        if (idn && idn->type == YAML_SCALAR_NODE &&
            !strcmp((const char *)idn->data.scalar.value, id))
            return get_value(doc, *it, "cases");
    }
    return 0;
}

static bool has_points(yaml_document_t *doc, int seq_index)
{
    yaml_node_t *seq = yaml_document_get_node(doc, seq_index);
    for (int i = 0; seq && i < seq->data.sequence.items.top - seq->data.sequence.items.start; i++)
        if (get_value(doc, seq->data.sequence.items.start[i], "points"))
            return true;
    return false;
}

static void add_case(yaml_document_t *doc, int seq, const struct exercise_spec *ex,
                     const struct cand *c, bool points)
{
    char id[256], val[32];
    size_t at = (size_t)snprintf(id, sizeof(id), "x");
    for (size_t p = 0; p < ex->n_params && at < sizeof(id); p++)
        at += (size_t)snprintf(id + at, sizeof(id) - at, "_%s%ld", ex->params[p], c->v[p]);
    int m = yaml_document_add_mapping(doc, NULL, YAML_FLOW_MAPPING_STYLE);
    int sizes = yaml_document_add_mapping(doc, NULL, YAML_FLOW_MAPPING_STYLE);
    for (size_t p = 0; p < ex->n_params; p++) {
        snprintf(val, sizeof(val), "%ld", c->v[p]);
        yaml_document_append_mapping_pair(doc, sizes, scalar(doc, ex->params[p]), scalar(doc, val));
    }
    yaml_document_append_mapping_pair(doc, m, scalar(doc, "id"), scalar(doc, id));
    yaml_document_append_mapping_pair(doc, m, scalar(doc, "sizes"), sizes);
    if (points)
        yaml_document_append_mapping_pair(doc, m, scalar(doc, "points"), scalar(doc, "0"));
    yaml_document_append_sequence_item(doc, seq, m);
}

static int write_handler(void *data, unsigned char *buf, size_t size)
{
    strbuf_add(data, buf, size);
    return 1;
}

/* Extra cases into doc, once per cases sequence (exercises may share one through an alias). */
static void add_extras(yaml_document_t *doc, const struct lab *lab)
{
    int *done = xcalloc(lab->n_exercises + 1, sizeof(*done));
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        int seq = cases_node(doc, ex->id);
        bool shared = false;
        for (size_t k = 0; k < e && !shared; k++)
            shared = done[k] == seq;
        done[e] = seq;
        if (!seq || shared || ex->n_params == 0 || ex->n_params > MAX_PARAMS)
            continue;
        struct cand c[MUTCASES_MAX];
        struct cands cs = {c, 0, 0};
        derive(ex, &cs);
        bool points = has_points(doc, seq);
        for (size_t i = 0; i < cs.n; i++)
            add_case(doc, seq, ex, &c[i], points);
    }
    free(done);
}

int mutcases_write_yaml(const struct lab *lab, const char *path, struct error *err)
{
    struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;
    yaml_parser_t parser;
    yaml_document_t doc;
    yaml_emitter_t em;
    if (read_file(lab->path, &in, err) != 0)
        return -1;
    yaml_parser_initialize(&parser);
    yaml_parser_set_input_string(&parser, (const unsigned char *)strbuf_str(&in), in.len);
    int ok = yaml_parser_load(&parser, &doc);
    yaml_parser_delete(&parser);
    strbuf_release(&in);
    if (!ok)
        return error_set(err, "%s: libyaml could not read it again", lab->path);
    add_extras(&doc, lab);
    yaml_emitter_initialize(&em);
    yaml_emitter_set_output(&em, write_handler, &out);
    yaml_emitter_set_unicode(&em, 1);
    ok = yaml_emitter_open(&em) && yaml_emitter_dump(&em, &doc) && yaml_emitter_close(&em);
    yaml_emitter_delete(&em);
    int rc = ok ? write_file_atomic(path, strbuf_str(&out), out.len, err)
                : error_set(err, "%s: libyaml could not write the copy with extra cases", path);
    strbuf_release(&out);
    return rc;
}

/* Copy folder src to dst, recursively, leaving out the names in skip (NULL-terminated). */
static int copy_tree(const char *src, const char *dst, const char *const *skip, struct error *err)
{
    DIR *d = opendir(src);
    struct dirent *e;
    int rc = mkdir_p(dst, err);
    if (!d)
        return rc == 0 ? error_set(err, "%s: cannot list it", src) : rc;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        bool skipped = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
        for (size_t k = 0; skip && skip[k] && !skipped; k++)
            skipped = !strcmp(e->d_name, skip[k]);
        char *s = path_join(src, e->d_name), *t = path_join(dst, e->d_name);
        struct stat st;
        if (!skipped && lstat(s, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                rc = copy_tree(s, t, NULL, err);
            else if (S_ISREG(st.st_mode))
                rc = copy_file(s, t, err);
        }
        free(s);
        free(t);
    }
    closedir(d);
    return rc;
}

/* ---- running them ------------------------------------------------------------------- */

struct extras {
    char **ids, **sizes;
    bool *valid; /* the solution passed it */
    size_t n;
    char *valid_list; /* comma-separated ids of the valid ones, or NULL */
};

struct xctx {
    struct mutrun *m;
    const char *yaml;
    struct extras *x; /* per exercise */
};

struct xdata {
    size_t rec; /* SIZE_MAX: the solution */
    size_t ex;
    char *student;
};

/* Each extra case of ex in the results, with the worst verdict of the variants counted. */
static void scan_extra(struct xctx *c, const struct results *res, struct xdata *d)
{
    struct mut_record *rec = d->rec == SIZE_MAX ? NULL : &c->m->r->recs[d->rec];
    struct extras *x = &c->x[d->ex];
    for (size_t t = 0; t < c->m->r->n_targets; t++) {
        const struct mut_target *tg = &c->m->r->targets[t];
        bool reached = !rec && tg->ex == d->ex;
        for (size_t k = 0; rec && k < rec->n_targets; k++)
            reached |= rec->targets[k] == t && tg->ex == d->ex;
        const struct exercise_spec *ex = &c->m->lab->exercises[tg->ex];
        for (size_t e = 0; reached && e < res->n_exercises; e++)
            for (size_t v = 0; v < res->exercises[e].n_variants; v++) {
                const struct variant_result *vr = &res->exercises[e].variants[v];
                if (strcmp(res->exercises[e].exercise_id, ex->id) ||
                    strcmp(vr->variant_id, ex->variants[tg->var].id))
                    continue;
                for (size_t cs = 0; cs < vr->n_cases; cs++)
                    for (size_t i = 0; i < x->n; i++) {
                        enum verdict vd = vr->cases[cs].verdict;
                        if (strcmp(vr->cases[cs].case_id, x->ids[i]))
                            continue;
                        if (!rec) {
                            x->valid[i] &= vd == V_PASS;
                            continue;
                        }
                        if (vd == V_PASS || vd == V_SKIPPED || vd == V_GRADER)
                            continue;
                        bool seen = false;
                        for (size_t q = 0; q < rec->n_extra && !seen; q++)
                            seen = !strcmp(rec->extra[q].sizes, x->sizes[i]);
                        if (seen)
                            continue;
                        rec->extra = xrealloc(rec->extra, (rec->n_extra + 1) * sizeof(*rec->extra));
                        rec->extra[rec->n_extra++] = (struct mut_extra){xstrdup(x->sizes[i]), vd};
                    }
            }
    }
}

static void extra_done(struct job *j, void *arg)
{
    struct xctx *c = arg;
    struct xdata *d = j->data;
    struct results res;
    struct error err;
    char *json = mutrun_results_path(c->m, d->student);
    results_init(&res);
    if (results_read(&res, json, &err) == 0)
        scan_extra(c, &res, d);
    else if (d->rec == SIZE_MAX)
        for (size_t i = 0; i < c->x[d->ex].n; i++)
            c->x[d->ex].valid[i] = false;
    results_release(&res);
    if (d->rec != SIZE_MAX)
        c->m->r->recs[d->rec].extra_tried = true;
    free(json);
}

/* The lab copy with the extra cases; its lab.yaml path (caller frees) or NULL. */
static char *make_copy(struct mutrun *m, struct error *err)
{
    static const char *const skip[] = {"solution", "skeleton", NULL};
    char *root = xstrfmt("%s/.work/xlab", m->runs);
    char *labdir = xstrfmt("%s/labs/%s", root, path_base(m->lab->dir));
    char *yaml = path_join(labdir, "lab.yaml");
    remove_tree(root, NULL);
    int rc = copy_tree(m->lab->dir, labdir, skip, err);
    if (rc == 0 && m->lab->root) {
        char *k = path_join(m->lab->root, "kernels"), *to = path_join(root, "kernels");
        if (dir_exists(k))
            rc = copy_tree(k, to, NULL, err);
        free(k);
        free(to);
    }
    if (rc == 0)
        rc = mutcases_write_yaml(m->lab, yaml, err);
    free(root);
    free(labdir);
    if (rc != 0) {
        free(yaml);
        return NULL;
    }
    return yaml;
}

static void add_job(struct mutrun *m, struct job **jobs, size_t *n, size_t *alloc, const char *yaml,
                    const char *dir, size_t rec, size_t ex, const char *cases)
{
    struct xdata *d = xcalloc(1, sizeof(*d));
    d->rec = rec;
    d->ex = ex;
    d->student = rec == SIZE_MAX ? xstrfmt("x-solution-%s", m->lab->exercises[ex].id)
                                 : xstrfmt("x%04zu-%s", rec + 1, m->lab->exercises[ex].id);
    ALLOC_GROW(*jobs, *n + 1, *alloc);
    struct job *j = &(*jobs)[(*n)++];
    j->argv = mutrun_argv(m, yaml, dir, m->lab->exercises[ex].id, d->student, cases);
    j->log = xstrfmt("%s/%s.log", m->work, d->student);
    j->status = 0;
    j->data = d;
}

static void free_jobs(const struct mutrun *m, struct job *jobs, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        struct xdata *d = jobs[k].data;
        if (!m->o->keep) {
            char *dir = xstrfmt("%s/%s/%s", m->runs, m->lab->id, d->student);
            remove_tree(dir, NULL);
            free(dir);
        }
        mutrun_argv_free(jobs[k].argv);
        free((char *)jobs[k].log);
        free(d->student);
        free(d);
    }
    free(jobs);
}

/* Which exercises have a surviving mutant (array of lab->n_exercises; caller frees). */
static bool *survivor_exercises(const struct mutrun *m, bool *any)
{
    bool *want = xcalloc(m->lab->n_exercises + 1, sizeof(*want));
    *any = false;
    for (size_t i = 0; i < m->r->n_recs; i++)
        for (size_t k = 0; m->r->recs[i].status == MUT_SURVIVED && k < m->r->recs[i].n_targets;
             k++) {
            want[m->r->targets[m->r->recs[i].targets[k]].ex] = true;
            *any = true;
        }
    return want;
}

static void plan_extras(struct mutrun *m, const bool *want, struct extras *x)
{
    for (size_t e = 0; e < m->lab->n_exercises; e++) {
        if (!want[e])
            continue;
        mutcases_derive(&m->lab->exercises[e], &x[e].ids, &x[e].sizes, &x[e].n);
        x[e].valid = xcalloc(x[e].n + 1, sizeof(bool));
        for (size_t i = 0; i < x[e].n; i++)
            x[e].valid[i] = true;
    }
}

/* "exercise: n=999; n=1001; ..." for each exercise, the sizes the solution passed. */
static void note_sizes(struct mutrun *m, const struct extras *x)
{
    for (size_t e = 0; e < m->lab->n_exercises; e++) {
        struct strbuf line = STRBUF_INIT;
        size_t shown = 0;
        strbuf_addf(&line, "%s:", m->lab->exercises[e].id);
        for (size_t i = 0; i < x[e].n; i++)
            if (x[e].valid[i])
                strbuf_addf(&line, "%s %s", shown++ ? ";" : "", x[e].sizes[i]);
        if (!shown) {
            strbuf_release(&line);
            continue;
        }
        m->r->extra_sizes =
            xrealloc(m->r->extra_sizes, (m->r->n_extra_sizes + 1) * sizeof(*m->r->extra_sizes));
        m->r->extra_sizes[m->r->n_extra_sizes++] = strbuf_detach(&line);
    }
}

/* The ids the solution passed, comma-separated, or NULL when none. */
static char *valid_list(const struct extras *x)
{
    struct strbuf s = STRBUF_INIT;
    for (size_t i = 0; i < x->n; i++)
        if (x->valid[i])
            strbuf_addf(&s, "%s%s", s.len ? "," : "", x->ids[i]);
    return s.len ? strbuf_detach(&s) : (strbuf_release(&s), NULL);
}

static int run_survivors(struct mutrun *m, struct xctx *c, struct error *err)
{
    struct job *jobs = NULL;
    size_t n = 0, alloc = 0;
    char **dirs = xcalloc(m->r->n_recs + 1, sizeof(*dirs));
    int rc = 0;
    for (size_t i = 0; i < m->r->n_recs && rc == 0; i++) {
        struct mut_record *rec = &m->r->recs[i];
        for (size_t k = 0; rec->status == MUT_SURVIVED && k < rec->n_targets; k++) {
            size_t e = m->r->targets[rec->targets[k]].ex;
            bool seen = false;
            for (size_t q = 0; q < k && !seen; q++)
                seen = m->r->targets[rec->targets[q]].ex == e;
            if (seen || !c->x[e].valid_list)
                continue;
            if (!dirs[i] && !(dirs[i] = mutrun_mutant_dir(m, rec, i, err))) {
                rc = -1;
                break;
            }
            add_job(m, &jobs, &n, &alloc, c->yaml, dirs[i], i, e, c->x[e].valid_list);
        }
    }
    int parallel = m->o->jobs > 0 ? m->o->jobs : cpus_usable();
    if (rc == 0)
        rc = jobs_run(jobs, n, parallel, extra_done, c, err);
    free_jobs(m, jobs, n);
    for (size_t i = 0; i < m->r->n_recs; i++) {
        if (dirs[i] && !m->o->keep)
            remove_tree(dirs[i], NULL);
        free(dirs[i]);
    }
    free(dirs);
    return rc;
}

int mutcases_run(struct mutrun *m, struct error *err)
{
    bool any;
    bool *want = survivor_exercises(m, &any);
    char *yaml = any ? make_copy(m, err) : NULL;
    struct extras *x = xcalloc(m->lab->n_exercises + 1, sizeof(*x));
    struct xctx c = {m, yaml, x};
    struct job *jobs = NULL;
    size_t n = 0, alloc = 0;
    int rc = any && !yaml ? -1 : 0;
    if (any && yaml) {
        if (m->o->progress)
            fprintf(m->o->progress, "mutate: trying other sizes on the survivors ...\n");
        plan_extras(m, want, x);
        for (size_t e = 0; e < m->lab->n_exercises; e++)
            if (want[e] && x[e].n) {
                char *all = NULL;
                for (size_t i = 0; i < x[e].n; i++) {
                    char *t = xstrfmt("%s%s%s", all ? all : "", all ? "," : "", x[e].ids[i]);
                    free(all);
                    all = t;
                }
                add_job(m, &jobs, &n, &alloc, yaml, m->baseline, SIZE_MAX, e, all);
                free(all);
            }
        rc = jobs_run(jobs, n, m->o->jobs > 0 ? m->o->jobs : cpus_usable(), extra_done, &c, err);
        for (size_t e = 0; e < m->lab->n_exercises; e++)
            x[e].valid_list = x[e].n ? valid_list(&x[e]) : NULL;
        note_sizes(m, x);
        if (rc == 0)
            rc = run_survivors(m, &c, err);
    }
    free_jobs(m, jobs, n);
    for (size_t e = 0; e < m->lab->n_exercises; e++) {
        for (size_t i = 0; i < x[e].n; i++) {
            free(x[e].ids[i]);
            free(x[e].sizes[i]);
        }
        free(x[e].ids);
        free(x[e].sizes);
        free(x[e].valid);
        free(x[e].valid_list);
    }
    free(x);
    free(want);
    free(yaml);
    return rc;
}

#include "job.h"

#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The names the grader writes: spec/spec.h's, which this trusted leaf cannot include. */
static const char *const kind_names[] = {"in", "out", "inout", "scalar", NULL};
static const char *const dist_names[] = {"uniform",  "normal",   "arange",
                                         "constant", "integers", NULL};
static const char *const space_names[] = {"host", "pinned", "device", NULL};

static int lookup(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; i++)
        if (!strcmp(names[i], s))
            return i;
    return -1;
}

struct parser {
    struct lg_job *job;
    struct lg_job_case *c; /* the case being read, NULL outside one */
    const char *path;
    int line;
    char *err;
    size_t errsize;
    /* Timing keys seen, so that a missing one fails instead of falling back to a guess. */
    unsigned seen;
};

enum {
    SEEN_WARMUP = 1u << 0,
    SEEN_MIN = 1u << 1,
    SEEN_MAX = 1u << 2,
    SEEN_CI = 1u << 3,
    SEEN_BUDGET = 1u << 4,
    SEEN_FLUSH = 1u << 5,
    SEEN_BLOCKING = 1u << 6,
    SEEN_TRANSFER = 1u << 7,
    SEEN_FROM = 1u << 8,
    SEEN_TRANSFER_RULE = 1u << 9,
    SEEN_ALL_TIMING = (1u << 10) - 1,
};

static int bad(struct parser *p, const char *what)
{
    snprintf(p->err, p->errsize, "%s:%d: %s", p->path, p->line, what);
    return -1;
}

static int parse_arg(struct parser *p, const char *line)
{
    char name[128], kind[16], dtype[16], space[16], dist[16];
    unsigned long long count;
    double p1, p2;
    if (!p->c || p->c->n_args >= LG_MAX_ARGS)
        return bad(p, "argument outside a case, or too many arguments");
    if (sscanf(line, "arg %127s %15s %15s %llu %15s %15s %lf %lf", name, kind, dtype, &count, space,
               dist, &p1, &p2) != 8)
        return bad(p, "malformed argument line");
    struct lg_job_arg *a = &p->c->args[p->c->n_args];
    int k = lookup(kind_names, kind), s = lookup(space_names, space), d = lookup(dist_names, dist);
    enum lg_dtype t = lg_dtype_parse(dtype);
    if (k < 0 || s < 0 || d < 0 || t == LG_DTYPE_INVALID || strlen(name) >= sizeof(a->name))
        return bad(p, "unknown kind, space, distribution or dtype in an argument line");
    snprintf(a->name, sizeof(a->name), "%s", name);
    a->kind = (enum lg_arg_kind)k;
    a->space = s;
    a->dist = (enum lg_dist)d;
    a->dtype = t;
    a->count = (size_t)count;
    a->p1 = p1;
    a->p2 = p2;
    p->c->n_args++;
    return 0;
}

static int parse_tol(struct parser *p, const char *line)
{
    char name[128];
    double rtol, atol;
    int equal_nan;
    if (!p->c || sscanf(line, "tol %127s %lf %lf %d", name, &rtol, &atol, &equal_nan) != 4)
        return bad(p, "malformed tolerance line");
    for (int i = 0; i < p->c->n_args; i++)
        if (!strcmp(p->c->args[i].name, name)) {
            p->c->args[i].rtol = rtol;
            p->c->args[i].atol = atol;
            p->c->args[i].equal_nan = equal_nan != 0;
            return 0;
        }
    return bad(p, "tolerance for an unknown argument");
}

/* "probe <input> <dist> <p1> <p2>": the precision check's distribution of an input. */
static int parse_probe(struct parser *p, const char *line)
{
    char name[128], dist[16];
    double p1, p2;
    if (!p->c || sscanf(line, "probe %127s %15s %lf %lf", name, dist, &p1, &p2) != 4)
        return bad(p, "malformed probe line");
    int d = lookup(dist_names, dist);
    for (int i = 0; d >= 0 && i < p->c->n_args; i++) {
        struct lg_job_arg *a = &p->c->args[i];
        if (strcmp(a->name, name) != 0 || (a->kind != LG_ARG_IN && a->kind != LG_ARG_INOUT))
            continue;
        a->has_probe = true;
        a->probe_dist = (enum lg_dist)d;
        a->probe_p1 = p1;
        a->probe_p2 = p2;
        return 0;
    }
    return bad(p, "probe for an unknown input, or an unknown distribution");
}

static int begin_case(struct parser *p, const char *line)
{
    struct lg_job *j = p->job;
    char id[64];
    if (p->c || j->n_cases >= LG_MAX_CASES || sscanf(line, "case %63s", id) != 1)
        return bad(p, "malformed or nested case line, or too many cases");
    j->cases = realloc(j->cases, (size_t)(j->n_cases + 1) * sizeof(*j->cases));
    if (!j->cases)
        return bad(p, "out of memory");
    p->c = &j->cases[j->n_cases++];
    memset(p->c, 0, sizeof(*p->c));
    snprintf(p->c->id, sizeof(p->c->id), "%s", id);
    p->c->checks = -1;
    return 0;
}

static int case_line(struct parser *p, const char *key, const char *line)
{
    int n;
    unsigned long long u;
    if (!strcmp(key, "arg"))
        return parse_arg(p, line);
    if (!strcmp(key, "tol"))
        return parse_tol(p, line);
    if (!strcmp(key, "probe"))
        return parse_probe(p, line);
    if (!strcmp(key, "checks"))
        return sscanf(line, "checks %d", &p->c->checks) == 1 && p->c->checks >= 0 &&
                       p->c->checks <= LG_MAX_CHECKS
                   ? 0
                   : bad(p, "bad checks line");
    if (!strcmp(key, "reftime"))
        return sscanf(line, "reftime %lf %lf", &p->c->ref_ms[0], &p->c->ref_ms[1]) == 2 &&
                       p->c->ref_ms[0] >= 0 && p->c->ref_ms[1] >= 0
                   ? 0
                   : bad(p, "bad reftime line");
    if (!strcmp(key, "seed"))
        return sscanf(line, "seed %d %llu", &n, &u) == 2 && n >= 0 && n < LG_MAX_CHECKS
                   ? (p->c->seeds[n] = u, 0)
                   : bad(p, "bad seed line");
    if (!strcmp(key, "end")) {
        if (p->c->checks < 0 || p->c->n_args == 0)
            return bad(p, "case without checks or arguments");
        p->c = NULL;
        return 0;
    }
    return bad(p, "unknown key inside a case");
}

static int timing_line(struct parser *p, const char *key, const char *line)
{
    struct lg_timing *t = &p->job->timing;
    char word[16];
    int n;
    double x;
    if (!strcmp(key, "warmup") && sscanf(line, "%*s %d", &n) == 1 && n >= 0)
        return t->warmup = n, p->seen |= SEEN_WARMUP, 0;
    if (!strcmp(key, "min_pairs") && sscanf(line, "%*s %d", &n) == 1 && n >= 1)
        return t->min_pairs = n, p->seen |= SEEN_MIN, 0;
    if (!strcmp(key, "max_pairs") && sscanf(line, "%*s %d", &n) == 1 && n >= 1)
        return t->max_pairs = n > LG_MAX_SAMPLES ? LG_MAX_SAMPLES : n, p->seen |= SEEN_MAX, 0;
    if (!strcmp(key, "target_ci") && sscanf(line, "%*s %lf", &x) == 1 && x > 0)
        return t->target_ci = x, p->seen |= SEEN_CI, 0;
    if (!strcmp(key, "budget") && sscanf(line, "%*s %lf", &x) == 1 && x > 0)
        return t->budget_s = x, p->seen |= SEEN_BUDGET, 0;
    if (!strcmp(key, "transfer_rule") &&
        sscanf(line, "%*s %d %lf %lf", &n, &t->transfer_target_ci, &t->transfer_budget_s) == 3 &&
        n >= 1 && t->transfer_target_ci > 0 && t->transfer_budget_s > 0)
        return t->transfer_min_pairs = n, p->seen |= SEEN_TRANSFER_RULE, 0;
    if (!strcmp(key, "flush_l2") && sscanf(line, "%*s %d", &n) == 1)
        return t->flush_l2 = n != 0, p->seen |= SEEN_FLUSH, 0;
    if (!strcmp(key, "blocking") && sscanf(line, "%*s %d", &n) == 1)
        return t->blocking = n != 0, p->seen |= SEEN_BLOCKING, 0;
    if (!strcmp(key, "transfer") && sscanf(line, "%*s %d", &n) == 1)
        return t->transfer = n != 0, p->seen |= SEEN_TRANSFER, 0;
    if (!strcmp(key, "transfer_from") && sscanf(line, "%*s %15s", word) == 1 &&
        lookup(space_names, word) >= 0 && lookup(space_names, word) != LG_SPACE_DEVICE)
        return t->transfer_from = lookup(space_names, word), p->seen |= SEEN_FROM, 0;
    return 1; /* not a timing key */
}

/* "bands <n> <ratio>...": ascending, positive, at most the array's room. */
static int parse_bands(struct parser *p, const char *line)
{
    struct lg_job *j = p->job;
    int n, used;
    const char *at = line;
    if (sscanf(at, "bands %d%n", &n, &used) != 1 || n < 0 ||
        n > (int)(sizeof(j->bands) / sizeof(j->bands[0])))
        return bad(p, "malformed bands line");
    for (int k = 0; k < n; k++) {
        at += used;
        if (sscanf(at, "%lf%n", &j->bands[k], &used) != 1 || !(j->bands[k] > 0) ||
            (k > 0 && j->bands[k] <= j->bands[k - 1]))
            return bad(p, "bands must be positive time ratios in ascending order");
    }
    j->n_bands = n;
    return 0;
}

static int job_line(struct parser *p, const char *key, const char *line)
{
    struct lg_job *j = p->job;
    char word[64];
    int n;
    if (!strcmp(key, "harness"))
        return sscanf(line, "harness %d", &n) == 1 && n == 2 ? 0
                                                             : bad(p, "not a version 2 job file");
    if (!strcmp(key, "function"))
        return sscanf(line, "function %127s", j->function) == 1 ? 0 : bad(p, "bad function");
    if (!strcmp(key, "target") && sscanf(line, "target %63s", word) == 1)
        return j->gpu = !strcmp(word, "gpu"), 0;
    if (!strcmp(key, "time") && sscanf(line, "time %d", &n) == 1)
        return j->time = n != 0, 0;
    if (!strcmp(key, "guards") && sscanf(line, "guards %d", &n) == 1)
        return j->guards = n != 0, 0;
    if (!strcmp(key, "reference_lib")) {
        const char *v = line + strlen("reference_lib");
        while (*v == ' ')
            v++;
        size_t len = strcspn(v, "\n");
        if (len == 0 || len >= sizeof(j->reference_lib))
            return bad(p, "bad reference_lib");
        memcpy(j->reference_lib, v, len);
        j->reference_lib[len] = '\0';
        j->has_reference = true;
        return 0;
    }
    if (!strcmp(key, "case"))
        return begin_case(p, line);
    if (!strcmp(key, "bands"))
        return parse_bands(p, line);
    int rc = timing_line(p, key, line);
    return rc <= 0 ? rc : bad(p, "unknown or malformed line");
}

int lg_job_parse(const char *path, struct lg_job *job, char *err, size_t errsize)
{
    struct parser p = {.job = job, .path = path, .err = err, .errsize = errsize};
    char line[2048], key[64];
    FILE *f = fopen(path, "r");
    memset(job, 0, sizeof(*job));
    job->guards = true;
    if (!f) {
        snprintf(err, errsize, "cannot open job file %s: %s", path, strerror(errno));
        return -1;
    }
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof(line), f)) {
        p.line++;
        if (line[0] == '#' || line[0] == '\n' || sscanf(line, "%63s", key) != 1)
            continue;
        rc = p.c ? case_line(&p, key, line) : job_line(&p, key, line);
    }
    fclose(f);
    if (rc == 0 && p.c)
        rc = bad(&p, "the last case has no 'end'");
    if (rc == 0 && (!job->function[0] || job->n_cases == 0))
        rc = bad(&p, "no function or no case");
    if (rc == 0 && job->time && (p.seen & SEEN_ALL_TIMING) != SEEN_ALL_TIMING)
        rc = bad(&p, "timing asked for but a timing key is missing (the spec's defaults are the "
                     "only ones)");
    if (rc == 0 && strcmp(job->function, lg_function_name) != 0) {
        snprintf(err, errsize, "job is for '%s' but this runner calls '%s'", job->function,
                 lg_function_name);
        rc = -1;
    }
    if (rc != 0)
        lg_job_release(job);
    return rc;
}

void lg_job_release(struct lg_job *job)
{
    free(job->cases);
    memset(job, 0, sizeof(*job));
}

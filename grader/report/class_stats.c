#include "report/class_stats.h"

#include "base/alloc.h"
#include "report/cases.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void class_stats_init(struct class_stats *st)
{
    memset(st, 0, sizeof(*st));
    for (int v = 0; v <= V_GRADER; v++)
        st->vstats[v].v = (enum verdict)v;
}

void class_stats_release(struct class_stats *st)
{
    for (int v = 0; v <= V_GRADER; v++) {
        for (size_t k = 0; k < st->vstats[v].n_places; k++)
            free(st->vstats[v].places[k].where);
        free(st->vstats[v].places);
    }
    for (size_t j = 0; j < st->n_ss; j++) {
        free(st->ss[j].vs_ref);
        free(st->ss[j].ref_of);
        free(st->ss[j].vs_base);
    }
    for (size_t i = 0; i < st->n_cs; i++) {
        free(st->cs[i].fails);
        free(st->cs[i].failed_by);
    }
    free(st->ss);
    free(st->cs);
    class_stats_init(st);
}

static struct case_stat *find_case_stat(struct class_stats *st, const struct exercise_result *ex,
                                        const struct variant_result *vr,
                                        const struct case_result *cr)
{
    for (size_t i = 0; i < st->n_cs; i++)
        if (!strcmp(st->cs[i].ex, ex->exercise_id) && !strcmp(st->cs[i].variant, vr->variant_id) &&
            !strcmp(st->cs[i].case_id, cr->case_id))
            return &st->cs[i];
    ALLOC_GROW(st->cs, st->n_cs + 1, st->alloc_cs);
    struct case_stat *s = &st->cs[st->n_cs++];
    memset(s, 0, sizeof(*s));
    s->ex = ex->exercise_id;
    s->ex_title = exercise_title(ex);
    s->variant = vr->variant_id;
    s->variant_title = variant_title(vr);
    s->case_id = cr->case_id;
    s->first = cr;
    return s;
}

static struct speed_stat *find_speed_stat(struct class_stats *st, const struct exercise_result *ex,
                                          const struct variant_result *vr)
{
    for (size_t i = 0; i < st->n_ss; i++)
        if (!strcmp(st->ss[i].ex, ex->exercise_id) && !strcmp(st->ss[i].variant, vr->variant_id))
            return &st->ss[i];
    ALLOC_GROW(st->ss, st->n_ss + 1, st->alloc_ss);
    struct speed_stat *s = &st->ss[st->n_ss++];
    memset(s, 0, sizeof(*s));
    s->ex = ex->exercise_id;
    s->variant = vr->variant_id;
    s->variant_title = variant_title(vr);
    return s;
}

static void record_failure(struct verdict_stat *vs, const char *where, bool new_student)
{
    vs->cases++;
    vs->students += new_student;
    for (size_t i = 0; i < vs->n_places; i++) {
        if (!strcmp(vs->places[i].where, where)) {
            vs->places[i].count++;
            return;
        }
    }
    ALLOC_GROW(vs->places, vs->n_places + 1, vs->alloc_places);
    vs->places[vs->n_places].where = xstrdup(where);
    vs->places[vs->n_places].count = 1;
    vs->n_places++;
}

/* A failure of the case counted by verdict and message, and whose it is. */
static void count_failure(struct case_stat *c, const struct case_result *cr, size_t student)
{
    ALLOC_GROW(c->failed_by, c->n_failed_by + 1, c->alloc_failed_by);
    c->failed_by[c->n_failed_by++] = student;
    const char *msg = cr->message && *cr->message ? cr->message : NULL;
    for (size_t i = 0; i < c->n_fails; i++)
        if (c->fails[i].v == cr->verdict &&
            (c->fails[i].message == msg ||
             (msg && c->fails[i].message && !strcmp(c->fails[i].message, msg)))) {
            c->fails[i].count++;
            return;
        }
    ALLOC_GROW(c->fails, c->n_fails + 1, c->alloc_fails);
    c->fails[c->n_fails++] = (struct failure_count){cr->verdict, msg, 1};
}

static bool has_ids(const struct results *r)
{
    for (size_t e = 0; e < r->n_exercises; e++) {
        if (!r->exercises[e].exercise_id)
            return false;
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r->exercises[e].variants[v];
            if (!vr->variant_id)
                return false;
            for (size_t c = 0; c < vr->n_cases; c++)
                if (!vr->cases[c].case_id)
                    return false;
        }
    }
    return true;
}

/* One case of one student: its verdict counted, a failure recorded where it happened. */
static void count_case(struct class_stats *st, const struct exercise_result *ex,
                       const struct variant_result *vr, const struct case_result *cr,
                       size_t student, bool counted[V_GRADER + 1])
{
    struct case_stat *cs = find_case_stat(st, ex, vr, cr);
    cs->pass += cr->verdict == V_PASS;
    cs->skipped += cr->verdict == V_SKIPPED;
    cs->grader += cr->verdict == V_GRADER;
    /* Grader errors are the first page's, never a failure of the class's. */
    if (!verdict_is_failure(cr->verdict) || (int)cr->verdict < 0 || cr->verdict > V_GRADER)
        return;
    cs->fail++;
    count_failure(cs, cr, student);
    char *where = xstrfmt("%s / %s / %s", ex->exercise_id, vr->variant_id, cr->case_id);
    record_failure(&st->vstats[cr->verdict], where, !counted[cr->verdict]);
    counted[cr->verdict] = true;
    free(where);
}

/* One variant of one student: its cases, and the geometric means of its passing speedups. */
static void count_variant(struct class_stats *st, const struct exercise_result *ex,
                          const struct variant_result *vr, size_t student,
                          bool counted[V_GRADER + 1])
{
    double log_ref = 0, log_base = 0;
    int n_ref = 0, n_base = 0;
    for (size_t c = 0; c < vr->n_cases; c++) {
        const struct case_result *cr = &vr->cases[c];
        count_case(st, ex, vr, cr, student, counted);
        if (cr->verdict == V_PASS && cr->speedup_ref > 0) {
            log_ref += log(cr->speedup_ref);
            n_ref++;
        }
        if (cr->verdict == V_PASS && cr->speedup_baseline > 0) {
            log_base += log(cr->speedup_baseline);
            n_base++;
        }
    }
    struct speed_stat *sp = find_speed_stat(st, ex, vr);
    if (n_ref) {
        ALLOC_GROW(sp->vs_ref, sp->n_ref + 1, sp->alloc_ref);
        ALLOC_GROW(sp->ref_of, sp->n_ref + 1, sp->alloc_ref_of);
        sp->vs_ref[sp->n_ref] = exp(log_ref / n_ref);
        sp->ref_of[sp->n_ref++] = student;
    }
    if (n_base) {
        ALLOC_GROW(sp->vs_base, sp->n_base + 1, sp->alloc_base);
        sp->vs_base[sp->n_base++] = exp(log_base / n_base);
    }
}

void class_stats_collect(struct class_stats *st, const struct results *const *rs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct results *r = rs[i];
        if (!has_ids(r))
            continue;
        bool counted[V_GRADER + 1] = {false};
        for (size_t e = 0; e < r->n_exercises; e++) {
            const struct exercise_result *ex = &r->exercises[e];
            for (size_t v = 0; v < ex->n_variants; v++)
                count_variant(st, ex, &ex->variants[v], i, counted);
        }
    }
}

bool case_stat_common_failure(const struct case_stat *c, enum verdict *v, int *count,
                              const char **message, bool *shared)
{
    int per_verdict[V_GRADER + 1] = {0}, top = -1;
    for (size_t i = 0; i < c->n_fails; i++)
        if ((size_t)c->fails[i].v <= V_GRADER)
            per_verdict[c->fails[i].v] += c->fails[i].count;
    for (int k = 0; k <= V_GRADER; k++)
        if (per_verdict[k] > 0 && (top < 0 || per_verdict[k] > per_verdict[top]))
            top = k;
    const struct failure_count *msg = NULL;
    for (size_t i = 0; top >= 0 && i < c->n_fails; i++)
        if ((int)c->fails[i].v == top && c->fails[i].message &&
            (!msg || c->fails[i].count > msg->count))
            msg = &c->fails[i];
    *v = top >= 0 ? (enum verdict)top : V_PASS;
    *count = top >= 0 ? per_verdict[top] : 0;
    *message = msg ? msg->message : NULL;
    *shared = msg && msg->count > 1;
    return top >= 0;
}

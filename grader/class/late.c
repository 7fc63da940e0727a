#include "class/late.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/isotime.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void late_policy_release(struct late_policy *p)
{
    for (size_t i = 0; i < p->n_ext; i++)
        free(p->ext[i].student);
    free(p->ext);
    memset(p, 0, sizeof(*p));
}

static int percent(const char *what, const char *s, double *out, struct error *err)
{
    double v;
    if (!parse_double(s, &v) || v < 0 || v > 100)
        return error_set(err, "%s takes a percentage between 0 and 100, not '%s'", what, s);
    *out = v;
    return 0;
}

static int apply_overrides(const struct late_options *o, struct late_policy *p, struct error *err)
{
    if (o->deadline) {
        if (!iso_time_parse(o->deadline, &p->deadline))
            return error_set(err,
                             "--deadline takes a date and time like 2026-03-02T23:59:00+01:00, "
                             "not '%s'",
                             o->deadline);
        if (!p->set)
            p->cap = 100;
        p->set = true;
    }
    if (o->grace && !duration_parse(o->grace, &p->grace_s))
        return error_set(err, "--grace takes a length of time like 15m, 2h or 1d, not '%s'",
                         o->grace);
    if (o->per_day && percent("--late-per-day", o->per_day, &p->per_day, err) != 0)
        return -1;
    if (o->cap && percent("--late-cap", o->cap, &p->cap, err) != 0)
        return -1;
    if (o->max_days && (!parse_double(o->max_days, &p->max_days) || p->max_days < 0))
        return error_set(err, "--late-max-days takes a number of days, not '%s'", o->max_days);
    if ((o->grace || o->per_day || o->cap || o->max_days || o->extensions) && !p->set)
        return error_set(err, "a late policy needs a deadline: give --deadline, or 'late:' in "
                              "the lab (labs/README.md)");
    return 0;
}

/* One extension: "2d" more, or a new deadline. */
static bool parse_extension(const char *v, struct late_extension *e)
{
    e->deadline = 0;
    e->extra_s = 0;
    return iso_time_parse(v, &e->deadline) || duration_parse(v, &e->extra_s);
}

static int load_extensions(const char *path, struct late_policy *p, struct error *err)
{
    struct strbuf text = STRBUF_INIT;
    if (read_file(path, &text, err) != 0)
        return -1;
    int line = 0, rc = 0;
    for (char *save = NULL, *l = strtok_r(text.buf, "\r\n", &save); l && rc == 0;
         l = strtok_r(NULL, "\r\n", &save)) {
        line++;
        char *comma = strpbrk(l, ",;\t");
        if (!comma) {
            if (line == 1 || !*l)
                continue;
            rc = error_set_at(err, path, line, 0, "expected 'student_id,extension'");
            break;
        }
        *comma = '\0';
        struct late_extension e;
        if (!parse_extension(comma + 1, &e)) {
            if (line == 1)
                continue; /* a header */
            rc = error_set_at(err, path, line, 0,
                              "'%s' is neither a length of time (2d, 36h) nor a deadline",
                              comma + 1);
            break;
        }
        e.student = xstrdup(l);
        p->ext = xrealloc(p->ext, (p->n_ext + 1) * sizeof(*p->ext));
        p->ext[p->n_ext++] = e;
    }
    strbuf_release(&text);
    return rc;
}

int late_policy_make(const struct lab *lab, const struct late_options *o, struct late_policy *p,
                     struct error *err)
{
    memset(p, 0, sizeof(*p));
    if (lab && lab->late.set) {
        p->set = true;
        p->deadline = lab->late.deadline_s;
        p->grace_s = lab->late.grace_s;
        p->per_day = lab->late.per_day;
        p->cap = lab->late.cap;
        p->max_days = lab->late.max_days;
    }
    if (o && apply_overrides(o, p, err) != 0)
        return -1;
    if (o && o->extensions && load_extensions(o->extensions, p, err) != 0) {
        late_policy_release(p);
        return -1;
    }
    return 0;
}

static long long deadline_for(const struct late_policy *p, const char *student)
{
    for (size_t i = 0; student && i < p->n_ext; i++)
        if (!strcmp(p->ext[i].student, student))
            return p->ext[i].deadline ? p->ext[i].deadline
                                      : p->deadline + (long long)p->ext[i].extra_s;
    return p->deadline;
}

void late_apply(const struct late_policy *p, const char *student_id, struct results *r)
{
    struct late_record *l = &r->lms.late;
    long long at = 0, deadline;
    char buf[40];
    if (!p || !p->set)
        return;
    deadline = deadline_for(p, student_id);
    bool timed = l->submitted_at && iso_time_parse(l->submitted_at, &at);
    l->evaluated = true;
    l->late = false;
    l->zeroed = false;
    l->days = l->penalty = l->penalty_pct = 0;
    l->days_known = timed;
    iso_time_format(deadline, buf, sizeof(buf));
    free(l->deadline);
    l->deadline = xstrdup(buf);
    if (timed && at > deadline + (long long)p->grace_s) {
        l->late = true;
        l->days = ceil((double)(at - deadline) / 86400.0);
    } else if (!timed && l->marked) {
        l->late = true; /* the LMS says late, not by how much: one started day */
        l->days = 1;
    }
    if (!l->late)
        return;
    l->zeroed = p->max_days > 0 && l->days > p->max_days;
    l->penalty_pct = l->zeroed ? 100 : fmin(p->cap, p->per_day * l->days);
    l->penalty = r->max_score > 0 ? r->max_score * l->penalty_pct / 100.0 : 0;
}

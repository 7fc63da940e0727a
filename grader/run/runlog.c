/*
 * runlog: result.txt read back into a struct run_outcome (run/runner.h).
 *
 * The student's process could write to that file, so every line is checked against what the
 * harness would have written, where and how often: the first line is the version, cases begin
 * in order and end before the next begins, a series and its samples appear once per case, an
 * error other than a CUDA error only before student code ran, nothing after "status ok". A line
 * that breaks a rule marks the run as tampered with (CH), and nothing it reported is trusted.
 */
#include "run/runner.h"

#include "base/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
    struct run_outcome *o;
    struct run_case_outcome *c; /* the case between its begin and end, or NULL */
    bool student_ran;           /* a checked call has started: student code has run */
    bool done;                  /* "status ok" seen */
    /* A sample line ending in a backslash continues on the next line. */
    struct run_series *cont_series;
    double **cont_array;
    size_t count; /* samples read into cont_array so far */
};

/* More elements than any buffer of a run could hold (2^48: 256 TiB of bytes). */
#define INCIDENT_COUNT_MAX (1LL << 48)

static void tamper(struct reader *r, const char *why, const char *line)
{
    if (r->o->tampered)
        return;
    r->o->tampered = xstrfmt("%s: '%.80s'", why, line);
}

/* An argument's name added to a list, once. */
static void add_name(char ***list, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*list)[i], name))
            return;
    *list = xrealloc(*list, (*n + 1) * sizeof(char *));
    (*list)[(*n)++] = xstrdup(name);
}

/* Numbers after the prefix, appended to *array; false on anything but numbers. */
static bool append_numbers(const char *p, double **array, size_t *n, bool *continues)
{
    *continues = false;
    for (;;) {
        char *end;
        while (*p == ' ')
            p++;
        if (*p == '\0' || *p == '\n')
            return true;
        if (*p == '\\') {
            *continues = true;
            return true;
        }
        double v = strtod(p, &end);
        if (end == p || !(v >= -1 && v < 1e12))
            return false;
        if (*n >= 100000)
            return false;
        *array = xrealloc(*array, (*n + 1) * sizeof(double));
        (*array)[(*n)++] = v;
        p = end;
    }
}

static double **sample_slot(struct run_series *s, const char *which)
{
    static const char *const names[4] = {"stu_event", "stu_host", "ref_event", "ref_host"};
    double **slots[4] = {&s->stu_event, &s->stu_host, &s->ref_event, &s->ref_host};
    for (int i = 0; i < 4; i++)
        if (!strcmp(names[i], which))
            return slots[i];
    return NULL;
}

/* One array of samples complete, or continued on the next line. */
static void samples_read(struct reader *r, struct run_series *s, double **arr, bool more,
                         const char *line)
{
    if (more) {
        r->cont_series = s;
        r->cont_array = arr;
    } else if (r->count != s->n) {
        tamper(r, "a sample count that does not match its series", line);
    }
}

static void read_samples(struct reader *r, const char *line)
{
    char name[16], which[16];
    int off = 0;
    if (!r->c || sscanf(line, "samples %15s %15s %n", name, which, &off) != 2 || off == 0)
        return tamper(r, "a sample line outside a case", line);
    int si = run_series_lookup(name);
    struct run_series *s = si >= 0 ? &r->c->series[si] : NULL;
    double **arr = s && s->present ? sample_slot(s, which) : NULL;
    if (!arr || *arr)
        return tamper(r, "samples of an unknown or repeated series", line);
    bool more;
    r->count = 0;
    if (!append_numbers(line + off, arr, &r->count, &more))
        return tamper(r, "samples that are not times", line);
    samples_read(r, s, arr, more, line);
}

static void read_continuation(struct reader *r, const char *line)
{
    bool more;
    struct run_series *s = r->cont_series;
    r->cont_series = NULL;
    if (!append_numbers(line, r->cont_array, &r->count, &more))
        return tamper(r, "samples that are not times", line);
    samples_read(r, s, r->cont_array, more, line);
}

static void read_series(struct reader *r, const char *line)
{
    char name[16];
    unsigned long n;
    int paired, blocked;
    if (!r->c || sscanf(line, "series %15s %lu %d %d", name, &n, &paired, &blocked) != 4)
        return tamper(r, "a malformed series line", line);
    int si = run_series_lookup(name);
    if (si < 0 || r->c->series[si].present || n > 100000)
        return tamper(r, "an unknown or repeated series", line);
    struct run_series *s = &r->c->series[si];
    s->present = true;
    s->n = n;
    s->paired = paired != 0;
    s->blocked = blocked != 0;
}

static void read_series_extra(struct reader *r, const char *key, const char *line)
{
    char name[16], order[16384];
    int a, b, c;
    double ms, draws;
    int si = sscanf(line, "%*s %15s", name) == 1 ? run_series_lookup(name) : -1;
    struct run_series *s = r->c && si >= 0 ? &r->c->series[si] : NULL;
    if (!s || !s->present)
        return tamper(r, "a timing line for no series", line);
    if (!strcmp(key, "order") && sscanf(line, "order %*s %16383s", order) == 1 && !s->order &&
        (strspn(order, "01") == s->n || (s->n == 0 && !strcmp(order, "-"))))
        s->order = xstrdup(order);
    else if (!strcmp(key, "clock") && sscanf(line, "clock %*s %d %d", &a, &b) == 2) {
        s->clock_min_mhz = a;
        s->clock_max_mhz = b;
    } else if (!strcmp(key, "checks") && sscanf(line, "checks %*s %lf %lf", &ms, &draws) == 2 &&
               ms >= 0 && draws >= 0) {
        s->checks_ms = ms;
        s->draws_ms = draws;
    } else if (!strcmp(key, "tail") && !s->has_tail &&
               sscanf(line, "tail %*s %lf %lf %lf", &s->tail_stu_ms, &s->tail_ref_ms,
                      &s->tail_idle_ms) == 3) {
        s->has_tail = true;
    } else if (!strcmp(key, "stop") && sscanf(line, "stop %*s %15s", name) == 1 &&
               (!strcmp(name, "precision") || !strcmp(name, "pairs") || !strcmp(name, "budget") ||
                !strcmp(name, "alone") || !strcmp(name, "-"))) {
        /* "-": the series ended on a pair whose check failed. */
        snprintf(s->stopped, sizeof(s->stopped), "%s", strcmp(name, "-") ? name : "");
    } else if (!strcmp(key, "throttle") && sscanf(line, "throttle %*s %d %d %d", &a, &b, &c) == 3) {
        s->throttle_dropped = a;
        s->throttle_gave_up = b != 0;
        s->throttle_max_mhz = c;
    } else {
        tamper(r, "a malformed timing line", line);
    }
}

/* "guard <k> <arg> <before> <after> <first>" and the timed kinds, which name their series
 * ("timed_fault <series> <pair> <arg> <owner> <access>": grader/harness/fence.h), and the precision
 * check's "precision_mismatch <arg> <count> <first>", which names none. */
static void read_incident(struct reader *r, const char *key, const char *line)
{
    char series[16] = "", arg[128], owner[16] = "", access[8] = "";
    int call;
    long long x = 0, y = 0, first = -1;
    bool ok;
    if (!r->c)
        return tamper(r, "an incident outside a case", line);
    struct run_incident inc = {0};
    if (!strcmp(key, "guard"))
        ok = sscanf(line, "guard %d %127s %lld %lld %lld", &call, arg, &x, &y, &first) == 5;
    else if (!strcmp(key, "timed_guard"))
        ok = sscanf(line, "timed_guard %15s %d %127s %lld %lld %lld", series, &call, arg, &x, &y,
                    &first) == 6;
    else if (!strcmp(key, "timed_mismatch"))
        ok = sscanf(line, "timed_mismatch %15s %d %127s %lld %lld", series, &call, arg, &x,
                    &first) == 5;
    else if (!strcmp(key, "precision_mismatch"))
        ok = sscanf(line, "precision_mismatch %127s %lld %lld", arg, &x, &first) == 3 &&
             (call = 0, true);
    else if (!strcmp(key, "timed_fault"))
        ok = sscanf(line, "timed_fault %15s %d %127s %15s %7s", series, &call, arg, owner,
                    access) == 5 &&
             (!strcmp(owner, "function") || !strcmp(owner, "reference")) &&
             (!strcmp(access, "read") || !strcmp(access, "write"));
    else
        ok = sscanf(line, "timed_modified %15s %d %127s", series, &call, arg) == 3;
    /* Counts of elements or bytes, and an index (negative: in the guard zone before the
     * buffer): what no buffer of a run can reach is not the harness's, and two such counts
     * added would overflow. */
    if (!ok || (series[0] && run_series_lookup(series) < 0) || x < 0 || y < 0 ||
        x > INCIDENT_COUNT_MAX || y > INCIDENT_COUNT_MAX || first < -INCIDENT_COUNT_MAX ||
        first > INCIDENT_COUNT_MAX)
        return tamper(r, "a malformed incident line", line);
    inc.series = series[0] ? xstrdup(series) : NULL;
    inc.call = call;
    inc.arg = xstrdup(arg);
    inc.first = first;
    bool guard = !strcmp(key, "guard") || !strcmp(key, "timed_guard");
    inc.before = guard ? x : 0;
    inc.after = guard ? y : 0;
    inc.count = guard ? x + y : x;
    inc.own = !strcmp(owner, "function");
    inc.write = !strcmp(access, "write");
    if (guard) {
        r->c->guards = xrealloc(r->c->guards, (r->c->n_guards + 1) * sizeof(inc));
        r->c->guards[r->c->n_guards++] = inc;
        return;
    }
    struct run_incident **slot = !strcmp(key, "timed_mismatch")       ? &r->c->timed_mismatch
                                 : !strcmp(key, "timed_fault")        ? &r->c->timed_fault
                                 : !strcmp(key, "precision_mismatch") ? &r->c->precision_mismatch
                                                                      : &r->c->timed_modified;
    if (*slot) {
        free(inc.series);
        free(inc.arg);
        return tamper(r, "a second timed incident in one case", line);
    }
    *slot = xmalloc(sizeof(inc));
    **slot = inc;
}

static void read_case_mark(struct reader *r, const char *line)
{
    int i;
    char what[8];
    struct run_outcome *o = r->o;
    if (sscanf(line, "case %d %7s", &i, what) != 2 || i < 0 || (size_t)i >= o->n_cases)
        return tamper(r, "a malformed case line", line);
    if (!strcmp(what, "begin")) {
        if (r->c || i != o->last_case + 1)
            return tamper(r, "a case begun out of order", line);
        o->last_case = i;
        r->c = &o->cases[i];
        r->c->started = true;
    } else if (!strcmp(what, "end") && r->c == &o->cases[i] && !r->cont_series) {
        r->c->finished = true;
        r->c = NULL;
    } else {
        tamper(r, "a case ended out of order", line);
    }
}

static void read_error(struct reader *r, const char *line)
{
    char kind[16];
    int off = 0;
    struct run_outcome *o = r->o;
    if (sscanf(line, "error %15s %n", kind, &off) != 1 || !off || o->error_kind)
        return tamper(r, "a malformed or second error line", line);
    /* The harness reports errors other than CUDA's only before any student code ran. */
    if (strcmp(kind, "cuda") != 0 && r->student_ran)
        return tamper(r, "a harness error reported after student code had run", line);
    o->error_kind = xstrdup(kind);
    o->error_msg = xstrndup(line + off, strcspn(line + off, "\n"));
    o->error_case = o->last_case;
}

static void read_case_line(struct reader *r, const char *key, const char *line)
{
    struct run_case_outcome *c = r->c;
    int k;
    char word[128];
    if (!c)
        return tamper(r, "a line outside any case", line);
    if (!strcmp(key, "phase") && sscanf(line, "phase %127[^\n]", word) == 1) {
        free(c->phase);
        c->phase = xstrdup(word);
        r->student_ran |= !strncmp(word, "check", 5);
    } else if (!strcmp(key, "check") && sscanf(line, "check %d done", &k) == 1 &&
               k == c->checks_done) {
        c->checks_done++;
    } else if (!strcmp(key, "modified") && sscanf(line, "modified %d %127s", &k, word) == 2) {
        add_name(&c->modified, &c->n_modified, word);
    } else if (!strcmp(key, "unready") && sscanf(line, "unready %d %127s", &k, word) == 2) {
        add_name(&c->unready, &c->n_unready, word);
    } else if (!strcmp(key, "busy") && !strcmp(line, "busy") && !c->busy) {
        c->busy = true; /* the supervisor's own record must agree (runner.c) */
    } else if (!strcmp(key, "blocking") && sscanf(line, "blocking %127s", word) == 1) {
        c->blocking = !strcmp(word, "on") ? 1 : -1;
        if (c->blocking < 0 && sscanf(line, "blocking off %127s", word) == 1) {
            free(c->blocking_off);
            c->blocking_off = xstrdup(word);
        }
    } else {
        tamper(r, "a line the harness does not write", line);
    }
}

static void read_line(struct reader *r, const char *line, bool first)
{
    char key[32];
    if (first) {
        if (strncmp(line, "harness 2", 9) != 0)
            tamper(r, "result.txt does not start with the harness's version", line);
        return;
    }
    if (r->done)
        return tamper(r, "a line after the harness's last", line);
    if (r->cont_series)
        return read_continuation(r, line);
    if (sscanf(line, "%31s", key) != 1)
        return;
    if (!strcmp(key, "case"))
        read_case_mark(r, line);
    else if (!strcmp(key, "error"))
        read_error(r, line);
    else if (!strcmp(key, "status") && !strncmp(line, "status ok", 9) && !r->c)
        r->o->finished = r->done = true;
    else if (!strcmp(key, "timesource"))
        return;
    else if (!strcmp(key, "series"))
        read_series(r, line);
    else if (!strcmp(key, "samples"))
        read_samples(r, line);
    else if (!strcmp(key, "order") || !strcmp(key, "clock") || !strcmp(key, "throttle") ||
             !strcmp(key, "checks") || !strcmp(key, "tail") || !strcmp(key, "stop"))
        read_series_extra(r, key, line);
    else if (!strcmp(key, "guard") || !strncmp(key, "timed_", 6) ||
             !strcmp(key, "precision_mismatch"))
        read_incident(r, key, line);
    else
        read_case_line(r, key, line);
}

void runner_parse_result(struct run_outcome *o, const char *text)
{
    struct reader r = {.o = o};
    bool first = true;
    for (const char *p = text; p && *p && !o->tampered;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char *line = xstrndup(p, len);
        read_line(&r, line, first);
        first = false;
        free(line);
        p = nl ? nl + 1 : NULL;
    }
    /* A series whose samples are missing or short was cut off: nothing of it counts. Short:
     * the text ended inside a line of samples continued on the next (the process killed while
     * it wrote them, or a file written to end there), so an array holds fewer than its n. */
    if (r.cont_series)
        r.cont_series->present = false;
    for (size_t i = 0; i < o->n_cases && !o->tampered; i++)
        for (int s = 0; s < RUN_SERIES_COUNT; s++) {
            struct run_series *x = &o->cases[i].series[s];
            if (x->present && (!x->stu_host || (x->paired && !x->ref_host)))
                x->present = false;
        }
    if (o->finished && r.c)
        o->finished = false;
}

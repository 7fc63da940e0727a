#include "report/export_text.h"

#include "base/alloc.h"
#include "report/cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when the byte at s starts none.
 * *cp receives the code point.
 */
size_t utf8_seq(const unsigned char *s, size_t left, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t n;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        *cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        *cp = c & 0x0F;
        if (c == 0xE0)
            lo = 0xA0;
        else if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        *cp = c & 0x07;
        if (c == 0xF0)
            lo = 0x90;
        else if (c == 0xF4)
            hi = 0x8F;
    } else {
        return 0;
    }
    if (left < n)
        return 0;
    if (s[1] < lo || s[1] > hi)
        return 0;
    *cp = (*cp << 6) | (s[1] & 0x3F);
    for (size_t i = 2; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        *cp = (*cp << 6) | (s[i] & 0x3F);
    }
    return n;
}

/* s as valid UTF-8: every byte that starts no well-formed sequence becomes U+FFFD. */
void add_utf8_clean(struct strbuf *out, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t left = strlen(s);
    while (left > 0) {
        uint32_t cp;
        size_t n = utf8_seq(p, left, &cp);
        if (n == 0) {
            strbuf_addstr(out, REPLACEMENT_CHAR);
            n = 1;
        } else {
            strbuf_add(out, p, n);
        }
        p += n;
        left -= n;
    }
}

/* "%.*f" without trailing zeros ("6", "5.5"); never "-0"; "" when not finite. */
void format_number(char *buf, size_t size, double v, int decimals)
{
    if (!isfinite(v)) {
        buf[0] = '\0';
        return;
    }
    if (fabs(v) >= 1e15) { /* would not fit fixed-point in buf; no fraction to show anyway */
        snprintf(buf, size, "%.17g", v);
        return;
    }
    snprintf(buf, size, "%.*f", decimals, v);
    char *dot = strchr(buf, '.');
    if (dot) {
        char *end = buf + strlen(buf);
        while (end > dot + 1 && end[-1] == '0')
            end--;
        if (end == dot + 1)
            end = dot;
        *end = '\0';
    }
    if (!strcmp(buf, "-0"))
        snprintf(buf, size, "0");
}

const char *or_empty(const char *s)
{
    return s ? s : "";
}

/*
 * One field. Text cells that a spreadsheet would evaluate (a leading = + - @,
 * tab or carriage return) get a leading single quote, as OWASP recommends
 * against CSV injection: the cell then shows as text instead of running.
 */
void csv_field(struct strbuf *out, const char *value)
{
    struct strbuf clean = STRBUF_INIT;
    if (value && value[0] && strchr("=+-@\t\r", value[0]))
        strbuf_addch(&clean, '\'');
    add_utf8_clean(&clean, or_empty(value));
    const char *s = strbuf_str(&clean);
    if (strpbrk(s, ",\"\r\n")) {
        strbuf_addch(out, '"');
        for (const char *p = s; *p; p++) {
            if (*p == '"')
                strbuf_addch(out, '"');
            strbuf_addch(out, *p);
        }
        strbuf_addch(out, '"');
    } else {
        strbuf_addstr(out, s);
    }
    strbuf_release(&clean);
}

void csv_points(struct strbuf *out, double v)
{
    char buf[64];
    format_number(buf, sizeof(buf), v, 2);
    strbuf_addstr(out, buf);
}

void csv_end_row(struct strbuf *out)
{
    strbuf_addstr(out, "\r\n");
}

const char *case_message(const struct case_result *c)
{
    return c->message && *c->message ? c->message : verdict_name(c->verdict);
}

bool veils_hidden(const struct results *r, bool student_view)
{
    return student_view && !r->show_hidden;
}

/* Whether case ci of variant vi is the first of its id in the exercise: a hidden case runs on
 * every variant, and is one case (the kit's README counts it once). */
static bool first_of_id(const struct exercise_result *e, size_t vi, size_t ci)
{
    const char *id = e->variants[vi].cases[ci].case_id;
    for (size_t v = 0; v <= vi; v++)
        for (size_t c = 0; c < (v == vi ? ci : e->variants[v].n_cases); c++)
            if (id && e->variants[v].cases[c].case_id &&
                !strcmp(e->variants[v].cases[c].case_id, id))
                return false;
    return true;
}

void hidden_tally_of(const struct exercise_result *e, struct hidden_tally *h)
{
    memset(h, 0, sizeof(*h));
    for (size_t vi = 0; vi < e->n_variants; vi++)
        for (size_t ci = 0; ci < e->variants[vi].n_cases; ci++) {
            const struct case_result *c = &e->variants[vi].cases[ci];
            if (!c->hidden)
                continue;
            h->total++;
            h->cases += first_of_id(e, vi, ci);
            h->max_points += c->max_points;
            if (c->verdict == V_SKIPPED) {
                h->skipped++;
                h->skipped_max += c->max_points;
                continue;
            }
            h->points += c->points;
            if (c->verdict == V_PASS)
                h->passed++;
            else if (c->verdict == V_GRADER)
                h->errors++;
            else
                h->failed++;
            if (isfinite(c->wall_s) && c->wall_s > 0)
                h->seconds += c->wall_s;
        }
}

void hidden_summary(const struct hidden_tally *h, const struct messages *m, struct strbuf *text)
{
    if (h->total > h->cases)
        strbuf_addf(text,
                    h->cases == 1 ? messages_get(m, "%d hidden case, run on every variant: %d of "
                                                    "%d runs passed.")
                                  : messages_get(m, "%d hidden cases, each run on every variant: "
                                                    "%d of %d runs passed."),
                    h->cases, h->passed, h->total);
    else
        strbuf_addf(text,
                    h->total == 1 ? messages_get(m, "%d of %d hidden case passed.")
                                  : messages_get(m, "%d of %d hidden cases passed."),
                    h->passed, h->total);
    if (h->failed)
        strbuf_addf(text, messages_get(m, " %d failed."), h->failed);
    if (h->skipped)
        strbuf_addf(text, messages_get(m, " %d not run."), h->skipped);
    if (h->errors)
        strbuf_addf(text,
                    h->errors == 1 ? messages_get(m, " %d grader error (not counted against you).")
                                   : messages_get(m, " %d grader errors (not counted against "
                                                     "you)."),
                    h->errors);
}

static bool says_error(const char *line, size_t len)
{
    for (size_t i = 0; i + 5 <= len; i++)
        if (!strncmp(line + i, "error", 5))
            return true;
    return false;
}

void compiler_excerpt(const char *log, size_t max_lines, struct strbuf *out)
{
    size_t kept = 0, follow = 0;
    bool any = false;
    if (!log || !*log)
        return;
    for (const char *p = log; *p && !any; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
        any = says_error(p, strcspn(p, "\n"));
    for (const char *p = log; *p && kept < max_lines;) {
        size_t len = strcspn(p, "\n");
        bool err = says_error(p, len);
        if (!any || err || follow > 0) {
            char *line = xstrndup(p, len);
            add_utf8_clean(out, line);
            strbuf_addch(out, '\n');
            free(line);
            kept++;
            follow = err ? 2 : follow > 0 ? follow - 1 : 0;
        }
        p += len + (p[len] != 0);
    }
    if (kept == max_lines)
        strbuf_addstr(out, "...\n");
}

double export_score(const struct results *r, double to)
{
    double s = results_final_score(r);
    if (to > 0 && r->max_score > 0 && isfinite(s))
        s = s * to / r->max_score;
    return s;
}

bool export_points(const struct results *r, double to, double *points)
{
    *points = 0;
    if (grade_gap_of(r, NULL) != GAP_NONE)
        return false;
    *points = export_score(r, to);
    return true;
}

static bool has_exercise(const struct results *r, const char *id)
{
    for (size_t i = 0; i < r->n_exercises; i++)
        if (r->exercises[i].exercise_id && !strcmp(r->exercises[i].exercise_id, id))
            return true;
    return false;
}

const char *export_status(const struct results *r, const char *const *exercise_ids, size_t n_ids)
{
    const char *gap = grade_gap_status(grade_gap_of(r, NULL));
    if (r->lms.problem)
        return "not-graded";
    if (gap)
        return gap;
    if (r->n_skipped > 0)
        return "incomplete";
    for (size_t i = 0; i < n_ids; i++)
        if (!has_exercise(r, exercise_ids[i]))
            return "incomplete";
    return "ok";
}

/* ", and 2 correct cases could not be timed (the machine was busy)", where some were not. */
static void add_not_timed(const struct results *r, const struct messages *m, struct strbuf *out)
{
    int n = results_count_not_timed(r);
    if (n > 0)
        strbuf_addf(out,
                    n == 1 ? messages_get(m, ", and %d correct case could not be timed (the "
                                             "machine was busy)")
                           : messages_get(m, ", and %d correct cases could not be timed (the "
                                             "machine was busy)"),
                    n);
}

void grade_gap_sentence(const struct results *r, const struct messages *m, struct strbuf *out)
{
    struct grade_gap_info g;
    switch (grade_gap_of(r, &g)) {
    case GAP_NONE:
        return;
    case GAP_UNREADABLE:
        strbuf_addstr(out, messages_get(m, "Not graded yet: the grader's results for this "
                                           "submission could not be read."));
        break;
    case GAP_GRADER_ERROR:
        /* XX and cases not timed counted apart, as the reports count them. */
        strbuf_addf(out,
                    grader_error_cases(r) == 1
                        ? messages_get(m, "Not graded yet: the grader failed on %zu case, not "
                                          "your code")
                        : messages_get(m, "Not graded yet: the grader failed on %zu cases, not "
                                          "your code"),
                    grader_error_cases(r));
        if (*g.reason) {
            strbuf_addstr(out, " (");
            add_utf8_clean(out, g.reason);
            strbuf_addch(out, ')');
        }
        add_not_timed(r, m, out);
        strbuf_addch(out, '.');
        break;
    case GAP_NOT_TIMED:
        strbuf_addf(out,
                    g.cases == 1 ? messages_get(m, "Not graded yet: %zu case could not be timed "
                                                   "(the machine was busy).")
                                 : messages_get(m, "Not graded yet: %zu cases could not be timed "
                                                   "(the machine was busy)."),
                    g.cases);
        break;
    }
    strbuf_addch(out, ' ');
    strbuf_addstr(out, messages_get(m, "Your instructor will grade it again; no score counts "
                                       "until then."));
}

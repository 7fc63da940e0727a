#include "report/export.h"

#include "base/json.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- text helpers ---- */

#define REPLACEMENT_CHAR "\xEF\xBF\xBD" /* U+FFFD */

/*
 * Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when the byte at s starts none.
 * *cp receives the code point.
 */
static size_t utf8_seq(const unsigned char *s, size_t left, uint32_t *cp)
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
static void add_utf8_clean(struct strbuf *out, const char *s)
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
static void format_number(char *buf, size_t size, double v, int decimals)
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

static const char *or_empty(const char *s)
{
    return s ? s : "";
}

/* ---- CSV (RFC 4180) ---- */

/*
 * One field. Text cells that a spreadsheet would evaluate (a leading = + - @,
 * tab or carriage return) get a leading single quote, as OWASP recommends
 * against CSV injection: the cell then shows as text instead of running.
 */
static void csv_field(struct strbuf *out, const char *value)
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

static void csv_points(struct strbuf *out, double v)
{
    char buf[64];
    format_number(buf, sizeof(buf), v, 2);
    strbuf_addstr(out, buf);
}

static void csv_end_row(struct strbuf *out)
{
    strbuf_addstr(out, "\r\n");
}

struct row {
    const struct results *r;
    size_t index;
};

static int row_cmp(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = strcmp(or_empty(x->r->student_id), or_empty(y->r->student_id));
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The rows sorted by student id (ties keep their order); NULL entries dropped. */
static struct row *sorted_rows(const struct results *const *all, size_t n, size_t *n_rows)
{
    struct row *rows = xcalloc(n ? n : 1, sizeof(*rows));
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!all[i])
            continue;
        rows[k].r = all[i];
        rows[k].index = i;
        k++;
    }
    qsort(rows, k, sizeof(*rows), row_cmp);
    *n_rows = k;
    return rows;
}

static const struct exercise_result *find_exercise(const struct results *r, const char *id)
{
    for (size_t i = 0; i < r->n_exercises; i++)
        if (r->exercises[i].exercise_id && !strcmp(r->exercises[i].exercise_id, id))
            return &r->exercises[i];
    return NULL;
}

static const char *row_status(const struct results *r, const char *const *ids, size_t n_ids)
{
    if (r->n_grader_errors > 0)
        return "grader-error";
    if (r->n_skipped > 0)
        return "incomplete";
    for (size_t i = 0; i < n_ids; i++)
        if (!find_exercise(r, ids[i]))
            return "incomplete";
    return "ok";
}

void export_gradebook_csv_text(const struct results *const *all, size_t n, struct strbuf *out)
{
    size_t n_rows;
    struct row *rows = sorted_rows(all, n, &n_rows);
    const char **ids = NULL;
    size_t n_ids = 0, ids_alloc = 0;

    /* Columns: every exercise any student has, in the order first met (lab order). */
    for (size_t i = 0; i < n_rows; i++) {
        const struct results *r = rows[i].r;
        for (size_t e = 0; e < r->n_exercises; e++) {
            const char *id = r->exercises[e].exercise_id;
            bool seen = false;
            if (!id)
                continue;
            for (size_t k = 0; k < n_ids && !seen; k++)
                seen = !strcmp(ids[k], id);
            if (seen)
                continue;
            ALLOC_GROW(ids, n_ids + 1, ids_alloc);
            ids[n_ids++] = id;
        }
    }

    strbuf_addstr(out, "student_id,name");
    for (size_t k = 0; k < n_ids; k++) {
        strbuf_addch(out, ',');
        csv_field(out, ids[k]);
    }
    strbuf_addstr(out, ",total,max,status");
    csv_end_row(out);

    for (size_t i = 0; i < n_rows; i++) {
        const struct results *r = rows[i].r;
        csv_field(out, r->student_id);
        strbuf_addch(out, ',');
        csv_field(out, r->student_name);
        for (size_t k = 0; k < n_ids; k++) {
            const struct exercise_result *e = find_exercise(r, ids[k]);
            strbuf_addch(out, ',');
            if (e)
                csv_points(out, e->points); /* speed points included (results_tally) */
        }
        /* Results that could not be read have no total: an empty cell leaves the LMS's
         * grade alone, where a 0 would replace it. */
        strbuf_addch(out, ',');
        if (!r->unreadable)
            csv_points(out, r->score);
        strbuf_addch(out, ',');
        if (!r->unreadable)
            csv_points(out, r->max_score);
        strbuf_addch(out, ',');
        strbuf_addstr(out, row_status(r, ids, n_ids));
        csv_end_row(out);
    }
    free(ids);
    free(rows);
}

void export_gradebook_canvas_csv_text(const struct results *const *all, size_t n,
                                      const char *assignment_column, struct strbuf *out)
{
    size_t n_rows;
    struct row *rows = sorted_rows(all, n, &n_rows);
    const char *column = assignment_column;
    if (!column || !*column) {
        column = "Lab";
        for (size_t i = 0; i < n_rows; i++) {
            const struct results *r = rows[i].r;
            if (r->lab_title && *r->lab_title) {
                column = r->lab_title;
                break;
            }
            if (r->lab_id && *r->lab_id) {
                column = r->lab_id;
                break;
            }
        }
    }
    strbuf_addstr(out, "Student,ID,SIS User ID,SIS Login ID,Section,");
    csv_field(out, column);
    csv_end_row(out);
    for (size_t i = 0; i < n_rows; i++) {
        const struct results *r = rows[i].r;
        csv_field(out, r->student_name);
        strbuf_addch(out, ',');
        csv_field(out, r->student_id);
        strbuf_addstr(out, ",,,,");
        if (!r->unreadable)
            csv_points(out, r->score);
        csv_end_row(out);
    }
    free(rows);
}

static int write_buffer(const char *path, struct strbuf *sb, struct error *err)
{
    int rc = write_file_atomic(path, strbuf_str(sb), sb->len, err);
    strbuf_release(sb);
    return rc;
}

int export_gradebook_csv(const struct results *const *all, size_t n, const char *path,
                         struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_gradebook_csv_text(all, n, &sb);
    return write_buffer(path, &sb, err);
}

int export_gradebook_canvas_csv(const struct results *const *all, size_t n,
                                const char *assignment_column, const char *path, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_gradebook_canvas_csv_text(all, n, assignment_column, &sb);
    return write_buffer(path, &sb, err);
}

/* ---- JSON (Gradescope) ---- */

/* Never null: Gradescope wants a string wherever we write one. */
static void json_string(struct strbuf *out, const char *s)
{
    json_write_string(out, or_empty(s));
}

/* Fixed-point and trimmed ("2", "1.5"), and 0 rather than null for NaN: Gradescope
 * rejects a results.json whose score is not a number. */
static void json_number(struct strbuf *out, double v)
{
    char buf[64];
    format_number(buf, sizeof(buf), v, 6);
    strbuf_addstr(out, buf[0] ? buf : "0");
}

static void json_key(struct strbuf *out, const char *indent, const char *key, bool first)
{
    if (!first)
        strbuf_addch(out, ',');
    strbuf_addf(out, "\n%s", indent);
    json_string(out, key);
    strbuf_addstr(out, ": ");
}

static const char *case_message(const struct case_result *c)
{
    return c->message && *c->message ? c->message : verdict_name(c->verdict);
}

/* The end of one Gradescope test: its output, its tags, visible, and the closing brace. */
static void gs_test_end(struct strbuf *out, const char *ind, const char *output,
                        const char *const *tags, size_t n_tags)
{
    json_key(out, ind, "output", false);
    json_string(out, output);
    json_key(out, ind, "tags", false);
    strbuf_addch(out, '[');
    for (size_t i = 0; i < n_tags; i++) {
        if (i)
            strbuf_addstr(out, ", ");
        json_string(out, tags[i]);
    }
    strbuf_addch(out, ']');
    json_key(out, ind, "visibility", false);
    json_string(out, "visible");
    strbuf_addstr(out, "\n    }");
}

static void gs_case(struct strbuf *out, const struct results *r, size_t ei, size_t vi, size_t ci,
                    bool first)
{
    const char *ind = "      ";
    const struct exercise_result *e = &r->exercises[ei];
    const struct variant_result *v = &e->variants[vi];
    const struct case_result *c = &v->cases[ci];
    char *name = xstrfmt("%s / %s / %s", or_empty(e->exercise_id), or_empty(v->variant_id),
                         or_empty(c->case_id));
    char *number = xstrfmt("%zu.%zu.%zu", ei + 1, vi + 1, ci + 1);
    struct strbuf text = STRBUF_INIT;

    if (c->verdict == V_SKIPPED)
        strbuf_addf(&text, "skipped: %s", case_message(c));
    else
        strbuf_addstr(&text, case_message(c));
    if (c->detail && *c->detail)
        strbuf_addf(&text, "\n\n%s", c->detail);

    strbuf_addstr(out, first ? "\n    {" : ",\n    {");
    json_key(out, ind, "name", true);
    json_string(out, name);
    json_key(out, ind, "number", false);
    json_string(out, number);
    json_key(out, ind, "score", false);
    json_number(out, c->verdict == V_SKIPPED ? 0 : c->points);
    json_key(out, ind, "max_score", false);
    json_number(out, c->max_points);
    if (c->verdict != V_SKIPPED) {
        json_key(out, ind, "status", false);
        json_string(out, c->verdict == V_PASS ? "passed" : "failed");
    }
    const char *tags[] = {or_empty(e->exercise_id), or_empty(v->target), verdict_code(c->verdict)};
    gs_test_end(out, ind, strbuf_str(&text), tags, 3);
    strbuf_release(&text);
    free(name);
    free(number);
}

/* A student view that hides hidden cases: the lab did not set show_hidden. */
static bool veils_hidden(const struct results *r, bool student_view)
{
    return student_view && !r->show_hidden;
}

/* What a student may know of an exercise's hidden cases: how many passed. */
struct hidden_tally {
    int total, passed, failed, errors, skipped;
    double points, max_points, seconds;
};

static void hidden_tally_of(const struct exercise_result *e, struct hidden_tally *h)
{
    memset(h, 0, sizeof(*h));
    for (size_t vi = 0; vi < e->n_variants; vi++)
        for (size_t ci = 0; ci < e->variants[vi].n_cases; ci++) {
            const struct case_result *c = &e->variants[vi].cases[ci];
            if (!c->hidden)
                continue;
            h->total++;
            h->max_points += c->max_points;
            if (c->verdict == V_SKIPPED) {
                h->skipped++;
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

/* "2 of 3 hidden cases passed." and what happened to the others; no names, no details. */
static void hidden_summary(const struct hidden_tally *h, struct strbuf *text)
{
    strbuf_addf(text, "%d of %d hidden case%s passed.", h->passed, h->total,
                h->total == 1 ? "" : "s");
    if (h->failed)
        strbuf_addf(text, " %d failed.", h->failed);
    if (h->skipped)
        strbuf_addf(text, " %d not run.", h->skipped);
    if (h->errors)
        strbuf_addf(text, " %d grader error%s (not counted against you).", h->errors,
                    h->errors == 1 ? "" : "s");
}

/* The student view's one test standing for an exercise's hidden cases. */
static void gs_hidden(struct strbuf *out, const struct exercise_result *e, size_t ei,
                      const struct hidden_tally *h, bool first)
{
    const char *ind = "      ";
    char *name = xstrfmt("%s / hidden cases", or_empty(e->exercise_id));
    char *number = xstrfmt("%zu.%zu", ei + 1, e->n_variants + 1);
    struct strbuf text = STRBUF_INIT;
    hidden_summary(h, &text);
    strbuf_addstr(out, first ? "\n    {" : ",\n    {");
    json_key(out, ind, "name", true);
    json_string(out, name);
    json_key(out, ind, "number", false);
    json_string(out, number);
    json_key(out, ind, "score", false);
    json_number(out, h->points);
    json_key(out, ind, "max_score", false);
    json_number(out, h->max_points);
    if (h->skipped < h->total) {
        json_key(out, ind, "status", false);
        json_string(out, h->passed == h->total ? "passed" : "failed");
    }
    const char *tags[] = {or_empty(e->exercise_id), "hidden"};
    gs_test_end(out, ind, strbuf_str(&text), tags, 2);
    strbuf_release(&text);
    free(name);
    free(number);
}

/* The finding that states a case's speed points: marked by the grader (in any language);
 * results from before the mark have only the English sentence to go by. */
static bool is_perf_finding(const struct case_result *c, size_t f)
{
    if (c->perf_finding)
        return f + 1 == c->perf_finding;
    return !strncmp(c->findings[f], "performance:", 12);
}

static void gs_performance(struct strbuf *out, const struct results *r, size_t ei,
                           bool student_view, bool first, size_t number_after)
{
    const char *ind = "      ";
    const struct exercise_result *e = &r->exercises[ei];
    char *name = xstrfmt("%s / performance", or_empty(e->exercise_id));
    /* After the variants, so that it sorts last within its exercise. */
    char *number = xstrfmt("%zu.%zu", ei + 1, number_after + 1);
    struct strbuf text = STRBUF_INIT;
    char got[64], max[64];
    format_number(got, sizeof(got), e->perf_points, 2);
    format_number(max, sizeof(max), e->perf_max_points, 2);
    strbuf_addf(&text, "Speed points: %s of %s.", got[0] ? got : "0", max[0] ? max : "0");
    for (size_t vi = 0; vi < e->n_variants; vi++) {
        const struct variant_result *v = &e->variants[vi];
        for (size_t ci = 0; ci < v->n_cases; ci++) {
            const struct case_result *c = &v->cases[ci];
            if (c->hidden && veils_hidden(r, student_view))
                continue;
            for (size_t f = 0; f < c->n_findings; f++)
                if (c->findings[f] && is_perf_finding(c, f))
                    strbuf_addf(&text, "\n%s / %s: %s", or_empty(v->variant_id),
                                or_empty(c->case_id), c->findings[f]);
        }
    }
    strbuf_addstr(out, first ? "\n    {" : ",\n    {");
    json_key(out, ind, "name", true);
    json_string(out, name);
    json_key(out, ind, "number", false);
    json_string(out, number);
    json_key(out, ind, "score", false);
    json_number(out, e->perf_points);
    json_key(out, ind, "max_score", false);
    json_number(out, e->perf_max_points);
    json_key(out, ind, "status", false);
    json_string(out, e->perf_points >= e->perf_max_points - 1e-9 ? "passed" : "failed");
    const char *tags[] = {or_empty(e->exercise_id), "performance"};
    gs_test_end(out, ind, strbuf_str(&text), tags, 2);
    strbuf_release(&text);
    free(name);
    free(number);
}

void export_gradescope_text(const struct results *r, bool student_view, struct strbuf *out)
{
    const char *ind = "  ";
    double seconds = 0;
    struct strbuf summary = STRBUF_INIT;
    char score[64], max[64];

    for (size_t ei = 0; ei < r->n_exercises; ei++)
        for (size_t vi = 0; vi < r->exercises[ei].n_variants; vi++) {
            const struct variant_result *v = &r->exercises[ei].variants[vi];
            for (size_t ci = 0; ci < v->n_cases; ci++)
                if (isfinite(v->cases[ci].wall_s) && v->cases[ci].wall_s > 0)
                    seconds += v->cases[ci].wall_s;
        }
    format_number(score, sizeof(score), r->score, 2);
    format_number(max, sizeof(max), r->max_score, 2);
    strbuf_addf(&summary, "%s: %s / %s points. %d passed, %d failed, %d skipped, %d grader errors.",
                r->lab_title && *r->lab_title ? r->lab_title : or_empty(r->lab_id),
                score[0] ? score : "0", max[0] ? max : "0", r->n_pass, r->n_fail, r->n_skipped,
                r->n_grader_errors);
    if (r->n_grader_errors > 0)
        strbuf_addstr(&summary, " The grader itself failed on the cases marked XX: they do not "
                                "count against you and will be run again.");

    strbuf_addch(out, '{');
    json_key(out, ind, "score", true);
    json_number(out, r->score);
    json_key(out, ind, "execution_time", false);
    json_number(out, round(seconds * 1000) / 1000);
    json_key(out, ind, "output", false);
    json_string(out, strbuf_str(&summary));
    json_key(out, ind, "visibility", false);
    json_string(out, "visible");
    json_key(out, ind, "stdout_visibility", false);
    json_string(out, "hidden");
    json_key(out, ind, "tests", false);
    strbuf_addch(out, '[');
    bool first = true;
    bool veil = veils_hidden(r, student_view);
    for (size_t ei = 0; ei < r->n_exercises; ei++) {
        const struct exercise_result *e = &r->exercises[ei];
        struct hidden_tally h;
        size_t last = e->n_variants;
        for (size_t vi = 0; vi < e->n_variants; vi++)
            for (size_t ci = 0; ci < e->variants[vi].n_cases; ci++) {
                if (veil && e->variants[vi].cases[ci].hidden)
                    continue;
                gs_case(out, r, ei, vi, ci, first);
                first = false;
            }
        hidden_tally_of(e, &h);
        if (veil && h.total > 0) {
            gs_hidden(out, e, ei, &h, first);
            first = false;
            last++;
        }
        if (e->perf_max_points > 0) {
            gs_performance(out, r, ei, student_view, first, last);
            first = false;
        }
    }
    strbuf_addstr(out, first ? "]" : "\n  ]");
    strbuf_addstr(out, "\n}\n");
    strbuf_release(&summary);
}

int export_gradescope(const struct results *r, bool student_view, const char *path,
                      struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_gradescope_text(r, student_view, &sb);
    return write_buffer(path, &sb, err);
}

/* ---- JUnit XML ---- */

/*
 * Text as XML 1.0 character data: markup characters escaped, characters XML 1.0
 * does not allow (controls other than tab, newline and carriage return; U+FFFE,
 * U+FFFF) dropped, invalid UTF-8 replaced by U+FFFD. In attributes, tab and
 * newlines are written as references, which attribute-value normalisation would
 * otherwise turn into spaces; a carriage return is always a reference, since
 * parsers fold a literal one into a newline.
 */
static void xml_escape(struct strbuf *out, const char *s, bool attribute)
{
    const unsigned char *p = (const unsigned char *)or_empty(s);
    size_t left = strlen((const char *)p);
    while (left > 0) {
        uint32_t cp;
        size_t n = utf8_seq(p, left, &cp);
        if (n == 0) {
            strbuf_addstr(out, REPLACEMENT_CHAR);
            p++;
            left--;
            continue;
        }
        switch (cp) {
        case '&':
            strbuf_addstr(out, "&amp;");
            break;
        case '<':
            strbuf_addstr(out, "&lt;");
            break;
        case '>':
            strbuf_addstr(out, "&gt;");
            break;
        case '"':
            strbuf_addstr(out, "&quot;");
            break;
        case '\'':
            strbuf_addstr(out, "&apos;");
            break;
        case '\r':
            strbuf_addstr(out, "&#13;");
            break;
        case '\n':
        case '\t':
            if (attribute)
                strbuf_addf(out, "&#%u;", (unsigned)cp);
            else
                strbuf_addch(out, (char)cp);
            break;
        default:
            if (cp >= 0x20 && cp != 0xFFFE && cp != 0xFFFF)
                strbuf_add(out, p, n);
        }
        p += n;
        left -= n;
    }
}

static void xml_attr(struct strbuf *out, const char *name, const char *value)
{
    strbuf_addf(out, " %s=\"", name);
    xml_escape(out, value, true);
    strbuf_addch(out, '"');
}

static void xml_attr_time(struct strbuf *out, const char *name, double seconds)
{
    if (!isfinite(seconds) || seconds < 0)
        seconds = 0;
    strbuf_addf(out, " %s=\"%.3f\"", name, seconds);
}

struct junit_counts {
    int tests, failures, errors, skipped;
    double seconds;
};

enum junit_kind { JUNIT_PASS, JUNIT_FAILURE, JUNIT_ERROR, JUNIT_SKIPPED };

static enum junit_kind junit_kind(enum verdict v)
{
    switch (v) {
    case V_PASS:
        return JUNIT_PASS;
    case V_WRONG:
    case V_COMPILE:
    case V_MISSING:
    case V_CRASH:
    case V_EXIT:
    case V_TIMEOUT:
    case V_MEMORY:
    case V_OUTPUT:
    case V_CHEAT:
        return JUNIT_FAILURE;
    case V_SKIPPED:
        return JUNIT_SKIPPED;
    case V_GRADER:
        return JUNIT_ERROR;
    }
    return JUNIT_ERROR;
}

/* The student view's one testcase for an exercise's hidden cases: failed if any failed. */
static enum junit_kind junit_hidden_kind(const struct hidden_tally *h)
{
    if (h->failed)
        return JUNIT_FAILURE;
    if (h->errors)
        return JUNIT_ERROR;
    return h->skipped == h->total ? JUNIT_SKIPPED : JUNIT_PASS;
}

static void junit_count(const struct exercise_result *e, bool veil, struct junit_counts *k)
{
    if (veil) {
        struct hidden_tally h;
        hidden_tally_of(e, &h);
        if (h.total > 0) {
            enum junit_kind kind = junit_hidden_kind(&h);
            k->tests++;
            k->failures += kind == JUNIT_FAILURE;
            k->errors += kind == JUNIT_ERROR;
            k->skipped += kind == JUNIT_SKIPPED;
            k->seconds += h.seconds;
        }
    }
    for (size_t vi = 0; vi < e->n_variants; vi++) {
        const struct variant_result *v = &e->variants[vi];
        for (size_t ci = 0; ci < v->n_cases; ci++) {
            const struct case_result *c = &v->cases[ci];
            if (veil && c->hidden)
                continue;
            k->tests++;
            switch (junit_kind(c->verdict)) {
            case JUNIT_PASS:
                break;
            case JUNIT_FAILURE:
                k->failures++;
                break;
            case JUNIT_ERROR:
                k->errors++;
                break;
            case JUNIT_SKIPPED:
                k->skipped++;
                break;
            }
            if (isfinite(c->wall_s) && c->wall_s > 0)
                k->seconds += c->wall_s;
        }
    }
}

static void junit_counts_attrs(struct strbuf *out, const struct junit_counts *k)
{
    strbuf_addf(out, " tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\"", k->tests,
                k->failures, k->errors, k->skipped);
    xml_attr_time(out, "time", k->seconds);
}

/* What the case printed about itself besides its verdict: sizes, timing, findings. */
static void junit_system_out(const struct case_result *c, struct strbuf *text)
{
    if (c->sizes && *c->sizes)
        strbuf_addf(text, "sizes: %s\n", c->sizes);
    if (c->time.valid)
        strbuf_addf(text, "time: median %.4f ms over %d samples\n", c->time.median_ms,
                    c->time.samples);
    if (c->speedup_ref > 0)
        strbuf_addf(text, "speedup over the reference: %.2fx\n", c->speedup_ref);
    for (size_t f = 0; f < c->n_findings; f++)
        if (c->findings[f])
            strbuf_addf(text, "%s\n", c->findings[f]);
}

static void junit_case(struct strbuf *out, const struct results *r, const struct exercise_result *e,
                       const struct variant_result *v, const struct case_result *c)
{
    char *classname =
        xstrfmt("%s.%s.%s", or_empty(r->lab_id), or_empty(e->exercise_id), or_empty(v->variant_id));
    struct strbuf sysout = STRBUF_INIT;
    enum junit_kind kind = junit_kind(c->verdict);
    const char *detail = c->detail && *c->detail ? c->detail : NULL;

    strbuf_addstr(out, "    <testcase");
    xml_attr(out, "classname", classname);
    xml_attr(out, "name", or_empty(c->case_id));
    xml_attr_time(out, "time", c->wall_s);
    junit_system_out(c, &sysout);
    if (kind == JUNIT_PASS && sysout.len == 0) {
        strbuf_addstr(out, "/>\n");
        free(classname);
        return;
    }
    strbuf_addstr(out, ">\n");
    if (kind == JUNIT_FAILURE || kind == JUNIT_ERROR) {
        const char *tag = kind == JUNIT_FAILURE ? "failure" : "error";
        strbuf_addf(out, "      <%s", tag);
        xml_attr(out, "type", verdict_code(c->verdict));
        xml_attr(out, "message", case_message(c));
        strbuf_addch(out, '>');
        xml_escape(out, detail ? detail : case_message(c), false);
        strbuf_addf(out, "</%s>\n", tag);
    } else if (kind == JUNIT_SKIPPED) {
        strbuf_addstr(out, "      <skipped");
        xml_attr(out, "message", case_message(c));
        strbuf_addstr(out, "/>\n");
    }
    if (sysout.len) {
        strbuf_addstr(out, "      <system-out>");
        xml_escape(out, strbuf_str(&sysout), false);
        strbuf_addstr(out, "</system-out>\n");
    }
    strbuf_addstr(out, "    </testcase>\n");
    strbuf_release(&sysout);
    free(classname);
}

static void junit_hidden_case(struct strbuf *out, const struct results *r,
                              const struct exercise_result *e, const struct hidden_tally *h)
{
    char *classname = xstrfmt("%s.%s", or_empty(r->lab_id), or_empty(e->exercise_id));
    struct strbuf text = STRBUF_INIT;
    enum junit_kind kind = junit_hidden_kind(h);
    hidden_summary(h, &text);
    strbuf_addstr(out, "    <testcase");
    xml_attr(out, "classname", classname);
    xml_attr(out, "name", "hidden cases");
    xml_attr_time(out, "time", h->seconds);
    strbuf_addstr(out, ">\n");
    if (kind == JUNIT_FAILURE || kind == JUNIT_ERROR) {
        const char *tag = kind == JUNIT_FAILURE ? "failure" : "error";
        strbuf_addf(out, "      <%s", tag);
        xml_attr(out, "type", "hidden");
        xml_attr(out, "message", strbuf_str(&text));
        strbuf_addf(out, "/>\n");
    } else if (kind == JUNIT_SKIPPED) {
        strbuf_addstr(out, "      <skipped");
        xml_attr(out, "message", strbuf_str(&text));
        strbuf_addstr(out, "/>\n");
    } else {
        strbuf_addstr(out, "      <system-out>");
        xml_escape(out, strbuf_str(&text), false);
        strbuf_addstr(out, "</system-out>\n");
    }
    strbuf_addstr(out, "    </testcase>\n");
    strbuf_release(&text);
    free(classname);
}

void export_junit_text(const struct results *r, bool student_view, struct strbuf *out)
{
    struct junit_counts total;
    bool veil = veils_hidden(r, student_view);
    memset(&total, 0, sizeof(total));
    for (size_t ei = 0; ei < r->n_exercises; ei++)
        junit_count(&r->exercises[ei], veil, &total);

    strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    xml_attr(out, "name", "labgrader");
    junit_counts_attrs(out, &total);
    strbuf_addstr(out, ">\n");
    for (size_t ei = 0; ei < r->n_exercises; ei++) {
        const struct exercise_result *e = &r->exercises[ei];
        struct junit_counts k;
        char *name = xstrfmt("%s.%s", or_empty(r->lab_id), or_empty(e->exercise_id));
        struct hidden_tally h;
        memset(&k, 0, sizeof(k));
        junit_count(e, veil, &k);
        strbuf_addstr(out, "  <testsuite");
        xml_attr(out, "name", name);
        junit_counts_attrs(out, &k);
        strbuf_addstr(out, ">\n");
        for (size_t vi = 0; vi < e->n_variants; vi++)
            for (size_t ci = 0; ci < e->variants[vi].n_cases; ci++)
                if (!veil || !e->variants[vi].cases[ci].hidden)
                    junit_case(out, r, e, &e->variants[vi], &e->variants[vi].cases[ci]);
        hidden_tally_of(e, &h);
        if (veil && h.total > 0)
            junit_hidden_case(out, r, e, &h);
        strbuf_addstr(out, "  </testsuite>\n");
        free(name);
    }
    strbuf_addstr(out, "</testsuites>\n");
}

int export_junit(const struct results *r, bool student_view, const char *path, struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_junit_text(r, student_view, &sb);
    return write_buffer(path, &sb, err);
}

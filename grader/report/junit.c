#include "report/junit.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "report/export_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* junit-10.xsd allows `skipped` on <testsuite> only, not on <testsuites>. */
static void junit_counts_attrs(struct strbuf *out, const struct junit_counts *k, bool skipped)
{
    strbuf_addf(out, " tests=\"%d\" failures=\"%d\" errors=\"%d\"", k->tests, k->failures,
                k->errors);
    if (skipped)
        strbuf_addf(out, " skipped=\"%d\"", k->skipped);
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

/* A failure's body: its message first (GitLab shows the body only), then the detail and,
 * for a compile error, the compiler's first errors. */
static void failure_body(const struct variant_result *v, const struct case_result *c,
                         struct strbuf *body)
{
    strbuf_addstr(body, case_message(c));
    if (c->detail && *c->detail)
        strbuf_addf(body, "\n\n%s", c->detail);
    if (c->verdict == V_COMPILE && v->build_log && *v->build_log) {
        strbuf_addstr(body, "\n\n");
        compiler_excerpt(v->build_log, 30, body);
    }
}

static void junit_case(struct strbuf *out, const struct results *r, const struct exercise_result *e,
                       const struct variant_result *v, const struct case_result *c)
{
    char *classname =
        xstrfmt("%s.%s.%s", or_empty(r->lab_id), or_empty(e->exercise_id), or_empty(v->variant_id));
    struct strbuf sysout = STRBUF_INIT;
    enum junit_kind kind = junit_kind(c->verdict);

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
        struct strbuf text = STRBUF_INIT;
        failure_body(v, c, &text);
        xml_escape(out, strbuf_str(&text), false);
        strbuf_release(&text);
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
                              const struct exercise_result *e, const struct hidden_tally *h,
                              const struct messages *m)
{
    char *classname = xstrfmt("%s.%s", or_empty(r->lab_id), or_empty(e->exercise_id));
    struct strbuf text = STRBUF_INIT;
    enum junit_kind kind = junit_hidden_kind(h);
    hidden_summary(h, m, &text);
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
        strbuf_addch(out, '>');
        xml_escape(out, strbuf_str(&text), false);
        strbuf_addf(out, "</%s>\n", tag);
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

/* The status every export carries (gradebook.csv's status), and for an incomplete grade why:
 * JUnit has no points, but a dashboard must not take a grader failure for a result. */
static void junit_status(struct strbuf *out, const struct results *r, const struct messages *m)
{
    strbuf_addstr(out, "    <properties>\n      <property");
    xml_attr(out, "name", "labgrader.status");
    xml_attr(out, "value", export_status(r, NULL, 0));
    strbuf_addstr(out, "/>\n");
    if (grade_gap_of(r, NULL) != GAP_NONE) {
        struct strbuf why = STRBUF_INIT;
        grade_gap_sentence(r, m, &why);
        strbuf_addstr(out, "      <property");
        xml_attr(out, "name", "labgrader.status.reason");
        xml_attr(out, "value", strbuf_str(&why));
        strbuf_addstr(out, "/>\n");
        strbuf_release(&why);
    }
    strbuf_addstr(out, "    </properties>\n");
}

static void junit_suite(struct strbuf *out, const struct results *r,
                        const struct exercise_result *e, bool veil, const struct messages *m)
{
    struct junit_counts k;
    char *name = xstrfmt("%s.%s", or_empty(r->lab_id), or_empty(e->exercise_id));
    struct hidden_tally h;
    memset(&k, 0, sizeof(k));
    junit_count(e, veil, &k);
    strbuf_addstr(out, "  <testsuite");
    xml_attr(out, "name", name);
    junit_counts_attrs(out, &k, true);
    strbuf_addstr(out, ">\n");
    junit_status(out, r, m);
    for (size_t vi = 0; vi < e->n_variants; vi++)
        for (size_t ci = 0; ci < e->variants[vi].n_cases; ci++)
            if (!veil || !e->variants[vi].cases[ci].hidden)
                junit_case(out, r, e, &e->variants[vi], &e->variants[vi].cases[ci]);
    hidden_tally_of(e, &h);
    if (veil && h.total > 0)
        junit_hidden_case(out, r, e, &h, m);
    strbuf_addstr(out, "  </testsuite>\n");
    free(name);
}

void export_junit_text(const struct results *r, const struct junit_opts *o, struct strbuf *out)
{
    struct junit_counts total;
    bool veil = veils_hidden(r, o && o->student_view);
    const struct messages *m = o ? o->messages : NULL;
    memset(&total, 0, sizeof(total));
    for (size_t ei = 0; ei < r->n_exercises; ei++)
        junit_count(&r->exercises[ei], veil, &total);
    strbuf_addstr(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites");
    xml_attr(out, "name", "labgrader");
    junit_counts_attrs(out, &total, false);
    strbuf_addstr(out, ">\n");
    for (size_t ei = 0; ei < r->n_exercises; ei++)
        junit_suite(out, r, &r->exercises[ei], veil, m);
    strbuf_addstr(out, "</testsuites>\n");
}

int export_junit(const struct results *r, const struct junit_opts *o, const char *path,
                 struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_junit_text(r, o, &sb);
    int rc = write_file_atomic(path, strbuf_str(&sb), sb.len, err);
    strbuf_release(&sb);
    return rc;
}

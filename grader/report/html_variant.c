/* html_variant: a variant on the student's page (report/html_parts.h). Every text value
 * is escaped by the page's template; the markup values are numbers and escaped blocks. */
#include "report/html_parts.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "report/cases.h"
#include "report/findings.h"
#include "report/format.h"
#include "report/html.h"
#include "report/profile.h"

#include <stdlib.h>
#include <string.h>

#define BUILD_LOG_LINES 200
#define DETAIL_LINES 40
#define FIRST_ERROR_LINES 8

static bool reports_error(const char *line, size_t len)
{
    static const char *const marks[] = {"error:", "error :",    "): error", "undefined reference",
                                        "Error:", "fatal error"};
    for (size_t m = 0; m < sizeof(marks) / sizeof(marks[0]); m++) {
        size_t k = strlen(marks[m]);
        for (size_t i = 0; i + k <= len; i++)
            if (!memcmp(line + i, marks[m], k))
                return true;
    }
    return false;
}

char *html_first_error(const char *log)
{
    const char *p = log ? log : "", *start = NULL;
    while (*p && !start) {
        size_t len = strcspn(p, "\n");
        if (reports_error(p, len))
            start = p;
        else
            p += len + (p[len] == '\n');
    }
    if (!start)
        return NULL;
    /* The error line, then the lines that show it: indented, or gcc's "  7 |" gutter. */
    const char *end = start + strcspn(start, "\n");
    for (int lines = 1; *end == '\n' && lines < FIRST_ERROR_LINES; lines++) {
        const char *next = end + 1;
        if (*next != ' ' && *next != '\t')
            break;
        end = next + strcspn(next, "\n");
    }
    return xstrndup(start, (size_t)(end - start));
}

/* ---- cases ---- */

/* The findings the page shows (findings.h's rule, as report.md); how many. */
static size_t set_findings(const struct report_ctx *rc, const struct variant_result *vr,
                           const struct case_result *cr, struct tpl_value *m)
{
    struct tpl_value *list = tpl_set_list(m, "findings");
    for (size_t i = 0; i < cr->n_findings; i++) {
        if (!finding_shown(vr, cr, i, rc->hide_hidden))
            continue;
        char *f = esc_clip(cr->findings[i], FINDING_CHARS);
        tpl_set_str(tpl_push_map(list), "text", f);
        free(f);
    }
    tpl_set_bool(m, "has_findings", tpl_list_len(list) > 0);
    return tpl_list_len(list);
}

/* A case's notes (message, mismatches, the run's detail, findings); whether it has any. */
static bool set_notes(const struct report_ctx *rc, const struct variant_result *vr,
                      const struct case_result *cr, bool detail, struct tpl_value *m)
{
    bool show = case_shows_message(cr);
    char *msg = show ? esc_first_line(cr->message, MESSAGE_CHARS) : xstrdup("");
    tpl_set_str(m, "message", msg);
    tpl_set_bool(m, "has_message", show);
    free(msg);
    bool has_detail = detail && has_text(cr->detail);
    tpl_set_bool(m, "has_detail", has_detail);
    html_set_pre(m, "detail", has_detail ? cr->detail : "", DETAIL_LINES, NULL);
    set_mismatches(m, cr);
    size_t findings = set_findings(rc, vr, cr, m);
    bool notes = show || has_detail || findings > 0 || cr->n_mismatches > 0;
    tpl_set_bool(m, "has_notes", notes);
    return notes;
}

static struct tpl_value *case_value(const struct report_ctx *rc, const struct variant_result *vr,
                                    const struct case_result *cr, bool detail, bool *notes)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "id", cr->case_id);
    set_case_sizes(m, cr);
    html_set_verdict(rc, m, cr->verdict);
    tpl_set_bool(m, "hidden", cr->hidden);
    tpl_set_bool(m, "slow", cr->slow);
    set_case_points(rc, m, cr);
    set_case_times(m, cr);
    *notes |= set_notes(rc, vr, cr, detail, m);
    return m;
}

/* The visible cases; hidden ones (the student view) as counts. */
static void add_cases(const struct report_ctx *rc, const struct variant_result *vr,
                      struct tpl_value *m)
{
    struct tpl_value *cases = tpl_set_list(m, "cases");
    bool notes = false, transfer = false, detail_said[V_GRADER + 1] = {false};
    int h_pass = 0, h_fail = 0, h_other = 0;
    for (size_t c = 0; c < vr->n_cases; c++) {
        const struct case_result *cr = &vr->cases[c];
        if (!case_visible(rc, cr)) {
            h_pass += cr->verdict == V_PASS;
            h_fail += verdict_is_failure(cr->verdict);
            h_other += cr->verdict != V_PASS && !verdict_is_failure(cr->verdict);
            continue;
        }
        bool known = (size_t)cr->verdict <= V_GRADER;
        tpl_push(cases, case_value(rc, vr, cr, !(known && detail_said[cr->verdict]), &notes));
        if (known && has_text(cr->detail))
            detail_said[cr->verdict] = true;
        transfer |= cr->time_transfer.valid;
    }
    tpl_set_bool(m, "has_cases", tpl_list_len(cases) > 0);
    tpl_set_bool(m, "has_notes", notes);
    tpl_set_bool(m, "has_transfer", transfer);
    tpl_set_bool(m, "has_hidden", h_pass + h_fail + h_other > 0);
    tpl_set_num(m, "hidden_total", h_pass + h_fail + h_other);
    tpl_set_num(m, "hidden_passed", h_pass);
    tpl_set_num(m, "hidden_failed", h_fail);
    tpl_set_num(m, "hidden_other", h_other);
}

/* ---- the build, compute-sanitizer ---- */

static void add_build(const struct variant_result *vr, struct tpl_value *m)
{
    tpl_set_bool(m, "built", vr->built);
    tpl_set_num(m, "n_warnings", vr->n_warnings);
    char *first = vr->built ? NULL : html_first_error(vr->build_log);
    tpl_set_bool(m, "has_first_error", first != NULL);
    html_set_pre(m, "first_error", first ? first : "", FIRST_ERROR_LINES, NULL);
    free(first);
    bool log = has_text(vr->build_log);
    tpl_set_bool(m, "has_build_log", log);
    html_set_pre(m, "build_log", log ? vr->build_log : "", BUILD_LOG_LINES, NULL);
}

static bool sanitizer_visible(const struct report_ctx *rc, const struct variant_result *vr,
                              const struct sanitizer_run *run)
{
    for (size_t c = 0; run->case_id && c < vr->n_cases; c++)
        if (vr->cases[c].case_id && !strcmp(vr->cases[c].case_id, run->case_id))
            return case_visible(rc, &vr->cases[c]);
    return true;
}

static void add_sanitizer(const struct report_ctx *rc, const struct variant_result *vr,
                          struct tpl_value *m)
{
    struct tpl_value *list = tpl_set_list(m, "sanitizer");
    for (size_t k = 0; k < vr->n_sanitizer; k++) {
        const struct sanitizer_run *run = &vr->sanitizer[k];
        if (!sanitizer_visible(rc, vr, run))
            continue;
        struct tpl_value *rv = tpl_push_map(list);
        const struct sanitizer_report *first = run->out.n_reports ? &run->out.reports[0] : NULL;
        tpl_set_str(rv, "tool", run->tool);
        tpl_set_str(rv, "case_id", run->case_id);
        tpl_set_bool(rv, "ran", run->status == SANITIZER_RAN);
        char *reason = esc_first_line(run->reason, MESSAGE_CHARS);
        tpl_set_str(rv, "reason", reason);
        free(reason);
        tpl_set_num(rv, "errors", (double)sanitizer_error_count(&run->out));
        tpl_set_str(rv, "kind", first && first->kind ? first->kind : "");
        tpl_set_str(rv, "location", first && first->location ? first->location : "");
        tpl_set_bool(rv, "has_first", first != NULL);
    }
    tpl_set_bool(m, "has_sanitizer", tpl_list_len(list) > 0);
}

struct tpl_value *html_variant_value(const struct report_ctx *rc, const struct variant_result *vr)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "id", vr->variant_id);
    tpl_set_str(m, "title", variant_title(vr));
    tpl_set_str(m, "function", vr->function);
    tpl_set_str(m, "target", vr->target);
    tpl_set_bool(m, "is_gpu", variant_is_gpu(vr));
    add_cases(rc, vr, m);
    add_build(vr, m);
    add_sanitizer(rc, vr, m);
    add_profile(rc, vr, m);
    return m;
}

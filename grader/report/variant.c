#include "report/sections.h"
#include "report/profile.h"

#include "base/alloc.h"
#include "base/escape.h"
#include "report/cases.h"
#include "report/findings.h"
#include "report/format.h"
#include "report/memspace.h"
#include "report/overview.h"

#include <stdlib.h>
#include <string.h>

/* The compiler's first error a page shows above the whole output. */
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

char *first_compiler_error(const char *log)
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

/* The findings the report shows (findings.h); how many. */
static size_t shown_findings(const struct report_ctx *rc, const struct variant_result *vr,
                             const struct case_result *cr, struct tpl_value *list)
{
    size_t n = 0;
    for (size_t i = 0; i < cr->n_findings; i++) {
        if (!finding_shown(vr, cr, i, rc->hide_hidden))
            continue;
        n++;
        if (list) {
            char *f = esc_clip(cr->findings[i], FINDING_CHARS);
            tpl_set_str(tpl_push_map(list), "text", f);
            free(f);
        }
    }
    return n;
}

/* Whether the case's detail block is shown: once per verdict and variant (the caller's
 * detail), and not when its mismatches are: the block says them again, in English. */
static bool shows_detail(const struct case_result *cr, bool detail)
{
    return detail && has_text(cr->detail) && cr->n_mismatches == 0;
}

static bool case_has_notes(const struct report_ctx *rc, const struct variant_result *vr,
                           const struct case_result *cr, bool detail)
{
    return case_shows_message(cr) || shows_detail(cr, detail) || cr->n_mismatches > 0 ||
           case_not_timed(cr) || shown_findings(rc, vr, cr, NULL);
}

/* detail: whether to show the case's detail block (the first case of a verdict only). */
static struct tpl_value *case_value(const struct report_ctx *rc, const struct variant_result *vr,
                                    const struct case_result *cr, bool detail)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "id", cr->case_id);
    set_case_sizes(m, cr);
    set_verdict(rc, m, cr->verdict);
    bool show_msg = case_shows_message(cr);
    char *msg = show_msg ? esc_first_line(cr->message, MESSAGE_CHARS) : xstrdup("");
    tpl_set_str(m, "message", msg);
    free(msg);
    tpl_set_bool(m, "has_message", show_msg);
    tpl_set_bool(m, "hidden", cr->hidden);
    tpl_set_bool(m, "slow", cr->slow);
    set_case_points(rc, m, cr);
    set_case_times(m, &rc->msgs, cr);
    /* A correct case the machine kept from timing: why, in the report's words. */
    bool not_timed = case_not_timed(cr);
    char *why = not_timed ? case_not_timed_reason(&rc->msgs, cr) : xstrdup("");
    tpl_set_bool(m, "not_timed", not_timed);
    tpl_set_str(m, "not_timed_reason", why);
    free(why);

    bool has_detail = shows_detail(cr, detail);
    tpl_set_bool(m, "has_detail", has_detail);
    set_code(rc, m, "detail", has_detail ? cr->detail : "", CODE_LINES);

    struct tpl_value *fl = tpl_set_list(m, "findings");
    tpl_set_bool(m, "has_findings", shown_findings(rc, vr, cr, fl) > 0);
    set_mismatches(m, cr);
    tpl_set_bool(m, "has_notes", case_has_notes(rc, vr, cr, detail));
    return m;
}

/* Whether a sanitizer run's case is shown: in the student view, not when it is hidden (a
 * spec cannot name a hidden case, but results.json is read back as it is). */
static bool sanitizer_run_visible(const struct report_ctx *rc, const struct variant_result *vr,
                                  const struct sanitizer_run *run)
{
    for (size_t c = 0; run->case_id && c < vr->n_cases; c++)
        if (vr->cases[c].case_id && !strcmp(vr->cases[c].case_id, run->case_id))
            return case_visible(rc, &vr->cases[c]);
    return true;
}

/* The tool's reports of one run, in its own words. */
static void set_sanitizer_reports(struct tpl_value *rv, const struct sanitizer_output *o)
{
    struct tpl_value *reports = tpl_set_list(rv, "reports");
    for (size_t i = 0; i < o->n_reports; i++) {
        const struct sanitizer_report *r = &o->reports[i];
        struct tpl_value *pv = tpl_push_map(reports);
        tpl_set_num(pv, "count", (double)r->count);
        tpl_set_str(pv, "kind", r->kind ? r->kind : "");
        tpl_set_str(pv, "location", r->location ? r->location : "");
        tpl_set_bool(pv, "has_location", r->location != NULL);
        tpl_set_str(pv, "thread", r->thread ? r->thread : "");
        tpl_set_bool(pv, "has_thread", r->thread != NULL);
        tpl_set_str(pv, "block", r->block ? r->block : "");
        tpl_set_bool(pv, "has_block", r->block != NULL);
        tpl_set_str(pv, "access", r->access ? r->access : "");
        tpl_set_bool(pv, "has_access", r->access != NULL);
        /* racecheck's other side reads on from the location ("... and Read access at"). */
        tpl_set_bool(pv, "access_continues", r->access && !strncmp(r->access, "and ", 4));
    }
    tpl_set_bool(rv, "has_reports", o->n_reports > 0);
}

static void set_sanitizer_run(struct tpl_value *rv, const struct sanitizer_run *run)
{
    const struct sanitizer_output *o = &run->out;
    long errors = sanitizer_error_count(o);
    tpl_set_str(rv, "tool", run->tool ? run->tool : "");
    tpl_set_str(rv, "case_id", run->case_id ? run->case_id : "");
    tpl_set_bool(rv, "has_case", run->case_id != NULL);
    tpl_set_bool(rv, "ran", run->status == SANITIZER_RAN);
    tpl_set_bool(rv, "skipped", run->status == SANITIZER_SKIPPED);
    tpl_set_bool(rv, "failed", run->status == SANITIZER_FAILED);
    char *reason = esc_first_line(run->reason ? run->reason : "", MESSAGE_CHARS);
    tpl_set_str(rv, "reason", reason);
    free(reason);
    tpl_set_num(rv, "errors", (double)errors);
    tpl_set_bool(rv, "one_error", errors == 1);
    tpl_set_bool(rv, "clean", errors == 0 && o->warnings == 0);
    tpl_set_num(rv, "warnings", (double)o->warnings);
    tpl_set_bool(rv, "has_warnings", o->warnings > 0);
    tpl_set_num(rv, "not_printed", (double)o->not_printed);
    tpl_set_bool(rv, "has_not_printed", o->not_printed > 0);
    tpl_set_num(rv, "other_reports", (double)o->other_reports);
    tpl_set_bool(rv, "has_other_reports", o->other_reports > 0);
    tpl_set_str(rv, "tool_error", o->tool_error ? o->tool_error : "");
    tpl_set_bool(rv, "has_tool_error", o->tool_error != NULL);
    set_sanitizer_reports(rv, o);
}

/* The compute-sanitizer pass of a variant: the template's "sanitizer" list. */
static void add_sanitizer_runs(const struct report_ctx *rc, const struct variant_result *vr,
                               struct tpl_value *m)
{
    struct tpl_value *list = tpl_set_list(m, "sanitizer");
    for (size_t k = 0; k < vr->n_sanitizer; k++)
        if (sanitizer_run_visible(rc, vr, &vr->sanitizer[k]))
            set_sanitizer_run(tpl_push_map(list), &vr->sanitizer[k]);
    tpl_set_bool(m, "has_sanitizer", tpl_list_len(list) > 0);
}

/* Whether every visible case was not run here, and whether all for want of a GPU: the
 * variant is then one line, its reason being on the first page. */
static bool set_not_run(const struct report_ctx *rc, const struct variant_result *vr,
                        struct tpl_value *m)
{
    size_t shown = 0, not_run = 0, no_gpu = 0;
    for (size_t c = 0; c < vr->n_cases; c++) {
        const struct case_result *cr = &vr->cases[c];
        if (!case_visible(rc, cr))
            continue;
        shown++;
        not_run += cr->verdict == V_SKIPPED;
        no_gpu += cr->verdict == V_SKIPPED && rc->r && case_skip_kind(rc->r, vr, cr) == SKIP_NO_GPU;
    }
    tpl_set_bool(m, "all_not_run", shown > 0 && not_run == shown);
    /* Slow cases among them add nothing: without a GPU, no case of the variant runs. */
    tpl_set_bool(m, "not_run_no_gpu", shown > 0 && not_run == shown && no_gpu > 0);
    return shown > 0 && not_run == shown;
}

/* The visible cases, and the hidden ones (the student view) as counts where some ran. */
static bool add_variant_cases(const struct report_ctx *rc, const struct variant_result *vr,
                              struct tpl_value *m)
{
    struct tpl_value *cases = tpl_set_list(m, "cases");
    bool transfer = false, notes = false;
    /* A verdict's detail once per variant: the next cases that failed so say it in a line
     * (fixing the first usually fixes them). */
    bool detail_said[V_GRADER + 1] = {false};
    int h_pass = 0, h_fail = 0, h_skip = 0, h_total = 0;
    for (size_t c = 0; c < vr->n_cases; c++) {
        const struct case_result *cr = &vr->cases[c];
        if (!case_visible(rc, cr)) {
            h_total++;
            h_pass += cr->verdict == V_PASS;
            h_fail += verdict_is_failure(cr->verdict);
            h_skip += cr->verdict != V_PASS && !verdict_is_failure(cr->verdict);
            continue;
        }
        transfer |= cr->time_transfer.valid;
        bool said = (size_t)cr->verdict <= V_GRADER && detail_said[cr->verdict];
        tpl_push(cases, case_value(rc, vr, cr, !said));
        notes |= case_has_notes(rc, vr, cr, !said);
        if ((size_t)cr->verdict <= V_GRADER && has_text(cr->detail))
            detail_said[cr->verdict] = true;
    }
    tpl_set_bool(m, "has_cases", tpl_list_len(cases) > 0);
    tpl_set_bool(m, "has_transfer", transfer);
    tpl_set_bool(m, "has_notes", notes);
    bool all_not_run = set_not_run(rc, vr, m);
    /* Hidden cases that were not run: counted once, on the first page. */
    tpl_set_bool(m, "has_hidden_summary", h_total > h_skip);
    tpl_set_bool(m, "hidden_several", h_total > 1);
    tpl_set_num(m, "hidden_total", h_total);
    tpl_set_num(m, "hidden_passed", h_pass);
    tpl_set_num(m, "hidden_failed", h_fail);
    tpl_set_num(m, "hidden_skipped", h_skip);
    return tpl_list_len(cases) > 0 && !all_not_run;
}

struct tpl_value *variant_value(const struct report_ctx *rc, const struct variant_result *vr,
                                bool *shows_table)
{
    struct tpl_value *m = tpl_map();
    tpl_set_str(m, "id", vr->variant_id);
    tpl_set_str(m, "title", vr->title && *vr->title ? vr->title : vr->variant_id);
    tpl_set_str(m, "function", vr->function);
    tpl_set_str(m, "target", vr->target);
    set_variant_memory(&rc->strings, m, vr);
    tpl_set_bool(m, "is_gpu", vr->target && !strcmp(vr->target, "gpu"));
    tpl_set_bool(m, "is_device", variant_all_device(vr));
    tpl_set_bool(m, "is_transfer", variant_is_transfer(vr));
    tpl_set_bool(m, "built", vr->built);
    tpl_set_num(m, "n_warnings", vr->n_warnings);
    char *first = vr->built ? NULL : first_compiler_error(vr->build_log);
    tpl_set_bool(m, "has_first_error", first != NULL);
    set_code(rc, m, "first_error", first ? first : "", FIRST_ERROR_LINES);
    free(first);
    bool log = has_text(vr->build_log);
    tpl_set_bool(m, "has_build_log", log);
    set_code(rc, m, "build_log", log ? vr->build_log : "", CODE_LINES);
    *shows_table = add_variant_cases(rc, vr, m);
    add_sanitizer_runs(rc, vr, m);
    add_profile(rc, vr, m);
    return m;
}

#include "report/sections.h"

#include "base/escape.h"
#include "base/strbuf.h"
#include "report/cases.h"
#include "report/format.h"

#include <stdlib.h>
#include <string.h>

static void set_item_place(struct tpl_value *item, const struct exercise_result *ex,
                           const struct variant_result *vr)
{
    tpl_set_str(item, "exercise", ex->exercise_id);
    tpl_set_str(item, "exercise_title", exercise_title(ex));
    tpl_set_str(item, "variant", vr->variant_id);
    tpl_set_str(item, "variant_title", variant_title(vr));
}

/* Consecutive visible cases from c on that failed as cases[c] did ("does not compile"): the
 * end of the run, their ids into ids and the points they lost into *lost. */
static size_t same_failures(const struct report_ctx *rc, const struct variant_result *vr, size_t c,
                            struct strbuf *ids, double *lost)
{
    const struct case_result *cr = &vr->cases[c];
    size_t end = c + 1;
    *lost = cr->max_points - cr->points;
    strbuf_addstr(ids, cr->case_id ? cr->case_id : "");
    while (end < vr->n_cases) {
        const struct case_result *nx = &vr->cases[end];
        if (!case_visible(rc, nx) || nx->verdict != cr->verdict ||
            strcmp(nx->message ? nx->message : "", cr->message ? cr->message : ""))
            break;
        strbuf_addf(ids, ", %s", nx->case_id ? nx->case_id : "");
        *lost += nx->max_points - nx->points;
        end++;
    }
    return end;
}

/* One item for the student view's failed hidden cases: how many, and the points they lost. */
static void add_hidden_lost(const struct exercise_result *ex, const struct variant_result *vr,
                            int failed, double lost_points, struct tpl_value *lost)
{
    struct tpl_value *item = tpl_push_map(lost);
    set_item_place(item, ex, vr);
    tpl_set_str(item, "cases", "");
    tpl_set_num(item, "count", failed);
    tpl_set_bool(item, "several", failed > 1);
    tpl_set_md(item, "verdict", "");
    tpl_set_str(item, "verdict_code", "");
    tpl_set_str(item, "message", "");
    tpl_set_bool(item, "has_message", false);
    tpl_set_bool(item, "hidden", true);
    tpl_set_bool(item, "has_lost_points", lost_points > 0);
    set_own(item, "lost_points", fmt_points(lost_points));
}

void add_lost(const struct report_ctx *rc, const struct exercise_result *ex,
              const struct variant_result *vr, struct tpl_value *lost, struct tpl_value *grader)
{
    int hidden_failed = 0;
    double hidden_lost = 0;
    for (size_t c = 0; c < vr->n_cases;) {
        const struct case_result *cr = &vr->cases[c];
        bool fail = verdict_is_failure(cr->verdict), gerr = cr->verdict == V_GRADER;
        if (!case_visible(rc, cr)) {
            if (fail) {
                hidden_failed++;
                hidden_lost += cr->max_points - cr->points;
            }
            c++;
            continue;
        }
        if (!fail && !gerr) {
            c++;
            continue;
        }
        struct strbuf ids = STRBUF_INIT;
        double lost_points;
        size_t end = same_failures(rc, vr, c, &ids, &lost_points);
        struct tpl_value *item = tpl_push_map(gerr ? grader : lost);
        set_item_place(item, ex, vr);
        tpl_set_str(item, "cases", strbuf_str(&ids));
        tpl_set_num(item, "count", (double)(end - c));
        tpl_set_bool(item, "several", end - c > 1);
        set_verdict(rc, item, cr->verdict);
        char *msg = esc_first_line(cr->message, MESSAGE_CHARS);
        tpl_set_str(item, "message", msg);
        tpl_set_bool(item, "has_message", *msg != '\0');
        free(msg);
        tpl_set_bool(item, "hidden", false);
        tpl_set_bool(item, "has_lost_points", lost_points > 0);
        set_own(item, "lost_points", fmt_points(lost_points));
        strbuf_release(&ids);
        c = end;
    }
    if (hidden_failed)
        add_hidden_lost(ex, vr, hidden_failed, hidden_lost, lost);
}

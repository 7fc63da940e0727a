/* html_student: report.html, the student's page (report/html.h). It renders report.md's own
 * context (student.c), so it states what the Markdown states; what only a page has are the
 * exercises' figures, drawn here as inline SVG, and the style. Hidden cases are counts only in
 * the student view, as in report.md: no id, size, message or point of theirs reaches it. */
#include "report/html.h"

#include "report/html_parts.h"

#include <stdlib.h>

static void add_figure(struct tpl_value *list, char *svg)
{
    if (*svg)
        tpl_set_md(tpl_push_map(list), "svg", svg);
    free(svg);
}

void html_add_figures(const struct report_ctx *rc, const struct exercise_result *ex,
                      struct tpl_value *exv)
{
    struct tpl_value *figs = tpl_set_list(exv, "figures");
    /* The break-evens in words are report.md's (the exercise's plot.break_evens): the figure
     * only marks them. */
    struct tpl_value *marks = tpl_list();
    add_figure(figs, html_fig_sizes(rc, ex, marks));
    tpl_value_free(marks);
    add_figure(figs, html_fig_speedups(rc, ex));
    add_figure(figs, html_fig_roofline(rc, ex));
    tpl_set_bool(exv, "has_figures", tpl_list_len(figs) > 0);
}

int html_student(const struct report_ctx *rc, struct tpl_value *ctx, struct report_outcome *out,
                 struct error *err)
{
    int res = html_write_page(rc, "report.html", ctx, false, "report.html", out->html_path,
                              sizeof(out->html_path), err);
    out->html_written = res == 0;
    return res;
}

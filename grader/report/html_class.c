/* html_class: index.html, the class's page (report/html.h). It renders summary.md's own
 * context (summary.c: who has no grade yet and why, the scores, every student, every case
 * with who failed it, the speedups, the failures by verdict), so it states what the summary
 * states; what only the page has is added here: the figures as inline SVG, the links to the
 * files beside it, and the similarity and mutation analyses when they were run (hidden cases
 * in full: the instructor's page). */
#include "report/html.h"

#include "base/fs.h"
#include "report/html_parts.h"
#include "report/summary_grades.h"

#include <stdlib.h>

static void set_scores_figure(const struct report_ctx *rc, const struct results *const *rs,
                              size_t n, struct tpl_value *m)
{
    struct class_scores cs;
    class_scores_collect(rs, n, &cs);
    char *svg = html_fig_scores(rc, cs.scores, cs.n, cs.max_score);
    tpl_set_md(m, "scores_svg", svg);
    tpl_set_bool(m, "has_scores_svg", *svg != '\0');
    free(svg);
    free(cs.scores);
}

static void set_speedups_figure(const struct report_ctx *rc, const struct class_stats *st,
                                const struct results *const *rs, struct tpl_value *m)
{
    char *svg = html_fig_class_speedups(rc, st, rs);
    tpl_set_md(m, "speedups_svg", svg);
    tpl_set_bool(m, "has_speedups_svg", *svg != '\0');
    free(svg);
}

/* The files beside the page that it links to. */
static void set_files(const struct report_ctx *rc, struct tpl_value *m)
{
    static const char *const files[][2] = {{"summary.pdf", "has_summary_pdf"},
                                           {"gradebook.csv", "has_gradebook"},
                                           {"similarity.html", "has_similarity_html"},
                                           {"mutate/report.md", "has_mutate_report"}};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char *p = path_join(rc->outdir, files[i][0]);
        tpl_set_bool(m, files[i][1], file_exists(p));
        free(p);
    }
}

void html_class_add(const struct report_ctx *rc, const struct results *const *rs, size_t n,
                    const struct class_stats *st, struct tpl_value *m, int **similar)
{
    set_files(rc, m);
    html_add_analyses(rc, rs, n, m, similar);
    set_scores_figure(rc, rs, n, m);
    set_speedups_figure(rc, st, rs, m);
}

int html_class(const struct report_ctx *rc, struct tpl_value *ctx, struct report_outcome *out,
               struct error *err)
{
    int res = html_write_page(rc, "index.html", ctx, true, "index.html", out->html_path,
                              sizeof(out->html_path), err);
    out->html_written = res == 0;
    return res;
}

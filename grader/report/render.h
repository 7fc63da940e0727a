/*
 * render: what one rendering of a report shares (the language, its phrases, the
 * output folder, the plot names used so far), and the steps every report takes:
 * its template rendered with a context, the Markdown written, the PDF tried.
 *
 * struct report_ctx borrows the options and the output folder, and owns the
 * rest; ctx_release() frees it (also after a failed ctx_open()).
 */
#ifndef LG_REPORT_RENDER_H
#define LG_REPORT_RENDER_H

#include "base/error.h"
#include "base/messages.h"
#include "base/strbuf.h"
#include "base/template.h"
#include "grade/results.h"
#include "report/phrases.h"
#include "report/plot.h"
#include "report/points.h"
#include "report/report.h"

#include <stdbool.h>
#include <stddef.h>

struct report_ctx {
    const struct report_opts *o;
    const char *lang;
    char *lang_dir; /* templates_dir/<lang> */
    struct strings strings;
    struct messages msgs;    /* templates/<lang>/messages.po: the grader's own sentences */
    bool hide_hidden;        /* the student view: hidden cases as counts only */
    const struct results *r; /* the submission a student report is about; NULL: a summary */
    const struct shown_points *shown; /* r's points as printed (points.h); NULL: a summary */
    const char *outdir;
    char *plots_dir;
    char **plot_names;
    size_t n_plot_names, alloc_plot_names;
};

/* The language: o->lang, else the results', else English; its templates must exist. */
int ctx_open(struct report_ctx *rc, const struct report_opts *o, const char *results_lang,
             const char *outdir, struct error *err);
void ctx_release(struct report_ctx *rc);

/* A plot file name made from base, not used yet in this report. Caller frees. */
char *unique_plot_name(struct report_ctx *rc, const char *base);

/* verdict (its name in the report's language, as text), verdict_code, passed, failed,
 * skipped, grader_error. */
void set_verdict(const struct report_ctx *rc, struct tpl_value *m, enum verdict v);

/*
 * What a plot's map says: made (and where), or why not in the report's language
 * (strings.txt's plot.fail.*, with the technical detail as it came).
 */
void set_plot_result(const struct report_ctx *rc, struct tpl_value *pv,
                     const struct plot_result *pr, const char *name);
/* A new map m.key for a plot, as it reads when none was made (made, no_gnuplot and failed
 * false, note and path empty). */
struct tpl_value *set_plot_map(struct tpl_value *m, const char *key);

/* m.key: untrusted text of several lines (compiler output, program output, details) as a
 * block (template.h's tpl_block): wrapped at CODE_WIDTH, at most max_lines lines and the rest
 * counted in the report's language. Markdown makes it a fenced code block, the page a <pre>'s
 * inside: the same lines in both. */
void set_code(const struct report_ctx *rc, struct tpl_value *m, const char *key, const char *text,
              size_t max_lines);

/* lang_dir/template_name rendered with ctx, Markdown-escaped (blocks fenced), into out. */
int render_file(const struct report_ctx *rc, const char *template_name, const struct tpl_value *ctx,
                struct strbuf *out, struct error *err);

/* Writes outdir/<base>.md, then tries outdir/<base>.pdf; only the Markdown (or a
 * required PDF) can fail. */
int write_outputs(const struct report_ctx *rc, const char *base, const struct strbuf *md,
                  struct report_outcome *out, struct error *err);

#endif

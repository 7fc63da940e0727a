#include "report/table.h"

#include "run/sanitizer.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RED "\033[31m"
#define GREEN "\033[32m"
#define YELLOW "\033[33m"
#define MAGENTA "\033[35m"
#define BOLD "\033[1m"
#define DIM "\033[2m"
#define RESET "\033[0m"

bool table_use_color(FILE *f)
{
    const char *nc = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (nc && *nc)
        return false;
    if (term && !strcmp(term, "dumb"))
        return false;
    return isatty(fileno(f));
}

static const char *verdict_color(enum verdict v)
{
    switch (v) {
    case V_PASS:
        return GREEN;
    case V_SKIPPED:
        return YELLOW;
    case V_GRADER:
        return MAGENTA;
    default:
        return RED;
    }
}

static void fmt_ms(char *buf, size_t n, const struct timing *t)
{
    if (!t->valid)
        snprintf(buf, n, "-");
    else if (t->median_ms >= 100)
        snprintf(buf, n, "%.1f", t->median_ms);
    else if (t->median_ms >= 1)
        snprintf(buf, n, "%.3f", t->median_ms);
    else
        snprintf(buf, n, "%.4f", t->median_ms);
}

static void fmt_x(char *buf, size_t n, double x)
{
    if (x <= 0)
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.2fx", x);
}

/* Keep table rows on one line: messages are cut, the report has them whole. */
static void one_line(char *dst, size_t n, const char *src)
{
    size_t j = 0;
    for (size_t i = 0; src && src[i] && j + 1 < n; i++)
        dst[j++] = (src[i] == '\n' || src[i] == '\t') ? ' ' : src[i];
    dst[j] = '\0';
    if (src && strlen(src) >= n && n > 4)
        memcpy(dst + n - 4, "...", 4);
}

void table_print(FILE *f, const struct results *r, bool color)
{
    const char *b = color ? BOLD : "", *rs = color ? RESET : "", *dim = color ? DIM : "";
    fprintf(f, "%slabgrader %s%s  %s (lab %ld): %s\n", b,
            r->grader_version ? r->grader_version : "", rs, r->lab_id, r->lab_number,
            r->lab_title ? r->lab_title : "");
    fprintf(f, "submission %s (%s)\n", r->submission ? r->submission : "",
            r->student_name ? r->student_name : "");
    fprintf(f, "%smachine: %s, %d threads; GPU: %s%s%s\n", dim,
            r->machine.cpu_model ? r->machine.cpu_model : "?", r->machine.cpu_threads,
            r->machine.gpu_name ? r->machine.gpu_name : "none", r->machine.gpu_name ? "" : " — ",
            r->machine.gpu_name ? "" : (r->machine.gpu_status ? r->machine.gpu_status : ""));
    fprintf(f, "isolation: %s%s\n", r->isolation ? r->isolation : "?", rs);
    for (size_t e = 0; e < r->n_exercises; e++) {
        const struct exercise_result *ex = &r->exercises[e];
        fprintf(f, "\n%s%s%s  %s  %s%.2f / %.2f points%s\n", b, ex->exercise_id, rs,
                ex->title ? ex->title : "", b, ex->points, ex->max_points, rs);
        fprintf(f, "  %-9s %-9s %-4s %11s %9s %9s %9s %9s  %s\n", "variant", "case", "", "time ms",
                "w/ xfer", "vs ref", "vs CPU", "GFLOP/s", "");
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_result *vr = &ex->variants[v];
            size_t hidden_pass = 0, hidden_total = 0;
            for (size_t c = 0; c < vr->n_cases; c++) {
                const struct case_result *cr = &vr->cases[c];
                char t[32], x[32], sr[32], sb[32], gf[32], msg[200];
                if (cr->hidden && r->hidden && !r->show_hidden && !strcmp(r->mode, "check")) {
                    hidden_total++;
                    hidden_pass += cr->verdict == V_PASS;
                    continue;
                }
                fmt_ms(t, sizeof(t), &cr->time);
                fmt_ms(x, sizeof(x), &cr->time_transfer);
                fmt_x(sr, sizeof(sr), cr->speedup_ref);
                fmt_x(sb, sizeof(sb), cr->speedup_baseline);
                if (cr->gflops > 0.01)
                    snprintf(gf, sizeof(gf), "%.1f", cr->gflops);
                else
                    snprintf(gf, sizeof(gf), "-");
                if (cr->verdict == V_PASS)
                    one_line(msg, sizeof(msg), cr->n_findings ? cr->findings[0] : "");
                else
                    one_line(msg, sizeof(msg), cr->message);
                fprintf(f, "  %-9s %-9s %s%-4s%s %11s %9s %9s %9s %9s  %s%s%s\n",
                        c == 0 ? vr->variant_id : "", cr->case_id,
                        color ? verdict_color(cr->verdict) : "", verdict_code(cr->verdict), rs, t,
                        x, sr, sb, gf, cr->verdict == V_PASS ? dim : "", msg,
                        cr->verdict == V_PASS ? rs : "");
            }
            if (hidden_total)
                fprintf(f, "  %-9s hidden cases: %zu of %zu passed\n", "", hidden_pass,
                        hidden_total);
            if (!vr->built && vr->build_log && vr->n_cases &&
                (vr->cases[0].verdict == V_COMPILE || vr->cases[0].verdict == V_MISSING)) {
                char first[300];
                const char *log = vr->build_log;
                const char *hit = strstr(log, "undefined reference");
                if (!hit)
                    hit = strstr(log, "error");
                const char *start = hit ? hit : log;
                while (start > log && start[-1] != '\n')
                    start--;
                size_t len = strcspn(start, "\n");
                char *line = xstrndup(start, len);
                one_line(first, sizeof(first), line);
                free(line);
                fprintf(f, "  %-9s %scompiler: %s%s\n", "", dim, first, rs);
            }
            /* The compute-sanitizer pass: one line a tool, in the grader's English like the
             * rest of the table (the report has every report, in the lab's language). */
            for (size_t k = 0; k < vr->n_sanitizer; k++) {
                const struct sanitizer_run *run = &vr->sanitizer[k];
                char line[240];
                char *text = sanitizer_run_summary(run, NULL);
                one_line(line, sizeof(line), text);
                free(text);
                bool found = run->status == SANITIZER_RAN &&
                             (run->out.errors > 0 || run->out.n_reports > 0 ||
                              run->out.other_reports > 0 || run->out.warnings > 0);
                fprintf(f, "  %-9s %scompute-sanitizer %s%s\n", vr->n_cases ? "" : vr->variant_id,
                        color ? (found ? YELLOW : DIM) : "", line, rs);
            }
        }
    }
}

void table_print_summary(FILE *f, const struct results *r, bool color)
{
    const char *b = color ? BOLD : "", *rs = color ? RESET : "";
    fprintf(f,
            "\n%s%s: %.2f / %.2f points%s — %d passed, %d failed, %d skipped, %d grader "
            "error%s\n",
            b, r->lab_id, r->score, r->max_score, rs, r->n_pass, r->n_fail, r->n_skipped,
            r->n_grader_errors, r->n_grader_errors == 1 ? "" : "s");
    double ungraded = 0;
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            for (size_t c = 0; c < r->exercises[e].variants[v].n_cases; c++) {
                const struct case_result *cr = &r->exercises[e].variants[v].cases[c];
                if (cr->verdict == V_SKIPPED || cr->verdict == V_GRADER)
                    ungraded += cr->max_points;
            }
    if (ungraded > 0)
        fprintf(f, "%.2f of the %.2f points were not graded here (skipped or grader errors)\n",
                ungraded, r->max_score);
    if (r->n_skipped && r->machine.gpu_status && strcmp(r->machine.gpu_status, "available"))
        fprintf(f, "GPU variants skipped: %s\n", r->machine.gpu_status);
    bool sanitized = false;
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            sanitized = sanitized || r->exercises[e].variants[v].n_sanitizer > 0;
    if (sanitized)
        fprintf(f, "compute-sanitizer findings do not change the grade: they point at bugs the "
                   "outputs did not show (details in the report)\n");
    if (r->n_grader_errors)
        fprintf(f,
                "%sGrader errors are the grader's or this machine's fault, not the "
                "submission's: fix the cause and grade again.%s\n",
                color ? MAGENTA : "", rs);
}

#include "report/table.h"

#include "base/alloc.h"
#include "report/cases.h"
#include "report/findings.h"
#include "report/overview.h"
#include "report/points.h"
#include "run/sanitizer.h"

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

/* One print of the table: where, how, and the view. */
struct table {
    FILE *f;
    const struct results *r;
    const struct messages *m;
    bool color, hide_hidden;
};

static const char *esc(const struct table *t, const char *code)
{
    return t->color ? code : "";
}

void table_opts_init(struct table_opts *o)
{
    o->color = false;
    o->student_view = true;
    o->msgs = NULL;
}

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

static void cell_ms(char *buf, size_t n, const struct timing *t)
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

static void cell_x(char *buf, size_t n, double x)
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

/* ------------------------------------------------------------------------ */
/* The first screen                                                         */

static void print_lost_item(const struct table *t, const struct lost_item *it)
{
    const struct messages *m = t->m;
    char msg[240];
    if (it->hidden && it->grader) {
        fprintf(t->f, "  - %s/%s: ", it->ex->exercise_id, it->vr->variant_id);
        fprintf(t->f,
                it->count == 1 ? messages_get(m, "%zu hidden case: grader error")
                               : messages_get(m, "%zu hidden cases: grader errors"),
                it->count);
    } else if (it->hidden) {
        fprintf(t->f, "  - %s/%s: ", it->ex->exercise_id, it->vr->variant_id);
        fprintf(t->f,
                it->count == 1 ? messages_get(m, "%zu hidden case failed")
                               : messages_get(m, "%zu hidden cases failed"),
                it->count);
    } else {
        const struct case_result *cr = &it->vr->cases[it->first];
        char *ids = lost_item_cases(it);
        one_line(msg, sizeof(msg), cr->message);
        fprintf(t->f, "  - %s/%s %s: %s%s%s%s%s", it->ex->exercise_id, it->vr->variant_id, ids,
                esc(t, verdict_color(cr->verdict)), verdict_code(cr->verdict), esc(t, RESET),
                *msg ? " — " : "", msg);
        free(ids);
    }
    if (it->grader)
        fprintf(t->f,
                messages_get(m, " (%.2f points): the grader's fault, not yours: it costs no "
                                "points"),
                (double)it->shown / 100);
    else if (it->points > 0)
        fprintf(t->f, messages_get(m, " (%.2f points lost)"), it->points);
    fputc('\n', t->f);
}

static void print_not_run(const struct table *t, const struct not_run_item *it)
{
    const struct messages *m = t->m;
    char why[240];
    bool one = it->count == 1;
    fputs("  - ", t->f);
    switch (it->kind) {
    case SKIP_NO_GPU:
        fprintf(t->f,
                one ? messages_get(m, "%zu GPU case not run here")
                    : messages_get(m, "%zu GPU cases not run here"),
                it->count);
        break;
    case SKIP_SLOW:
        fprintf(t->f,
                one ? messages_get(m, "%zu slow case not run")
                    : messages_get(m, "%zu slow cases not run"),
                it->count);
        break;
    case SKIP_HIDDEN:
        /* Each hidden case once, however many variants it runs on (overview.h). */
        fprintf(t->f,
                it->cases == 1 ? messages_get(m, "%zu hidden case")
                               : messages_get(m, "%zu hidden cases"),
                it->cases);
        if (it->count > it->cases)
            fprintf(t->f, messages_get(m, ", each on every variant of its exercise (%zu runs)"),
                    it->count);
        break;
    case SKIP_OTHER:
        fprintf(t->f,
                it->cases == 1 ? messages_get(m, "%zu case not run")
                               : messages_get(m, "%zu cases not run"),
                it->cases);
        if (it->count > it->cases)
            fprintf(t->f, messages_get(m, ", each on every variant of its exercise (%zu runs)"),
                    it->count);
        break;
    }
    if (it->shown > 0)
        fprintf(t->f, messages_get(m, " (%.2f points)"), (double)it->shown / 100);
    /* The GPU probe's reason, written before any language was known: in the console's. */
    char *said =
        messages_machine(m, it->kind == SKIP_NO_GPU ? t->r->machine.gpu_status : it->message);
    one_line(why, sizeof(why), said);
    free(said);
    if (it->kind == SKIP_NO_GPU)
        fprintf(t->f, messages_get(m, ": %s; they count when your instructor grades"), why);
    else if (it->kind == SKIP_SLOW)
        fprintf(t->f, "%s", messages_get(m, ": run them with --full (make check ARGS=--full)"));
    else if (it->kind == SKIP_HIDDEN)
        fprintf(t->f, "%s", messages_get(m, ": they run only when your instructor grades"));
    else if (*why)
        fprintf(t->f, ": %s", why);
    fputc('\n', t->f);
}

static void print_speed_item(const struct table *t, const struct speed_item *it)
{
    const struct messages *m = t->m;
    fprintf(t->f, "  - ");
    fprintf(t->f, messages_get(m, "speed points of %s (%.2f points)"), it->ex->exercise_id,
            (double)it->shown / 100);
    if (it->state == PERF_NOT_TIMED)
        fprintf(t->f, "%s", messages_get(m, ": nothing was timed (--no-timing)"));
    else if (it->vr)
        fprintf(t->f, messages_get(m, ": measured on %s, which did not run here"),
                it->vr->variant_id);
    else
        fprintf(t->f, "%s", messages_get(m, ": not measured here"));
    fputc('\n', t->f);
}

static void print_next(const struct table *t, const struct overview *ov)
{
    const struct messages *m = t->m;
    const char *say[N_NEXT_STEPS] = {
        [NEXT_COMPILE] = messages_get(m, "make it build first: the compiler's first error is "
                                         "under the variant below, all of it in the report"),
        [NEXT_MISSING] = messages_get(m, "hand in what the lab asks for: the variant below names "
                                         "the file or function missing (nothing of it was "
                                         "compiled)"),
        [NEXT_WRONG] = messages_get(m, "fix the wrong values: the report lists the first "
                                       "elements that differ, with the values expected"),
        [NEXT_CRASH] = messages_get(m, "find the crash: run it under a debugger, or with "
                                       "ARGS=--sanitize for GPU code"),
        [NEXT_LIMITS] = messages_get(m, "a case ran out of time, memory or output: look for an "
                                        "endless loop or an oversized allocation"),
        [NEXT_CHEAT] = messages_get(m, "tampering was detected: compute the outputs on every "
                                       "call, the same whether timed or not"),
        [NEXT_SANITIZER] = messages_get(m, "compute-sanitizer found errors in your GPU code "
                                           "although its outputs were right: fix them"),
        [NEXT_GRADER] = messages_get(m, "grader errors are not your fault and cost you no "
                                        "points: tell your instructor"),
        [NEXT_NO_GPU] = messages_get(m, "test the GPU variants on a machine with a CUDA GPU "
                                        "(the lab's) before handing in"),
        [NEXT_SLOW] = messages_get(m, "before handing in, run the slow cases too: make check "
                                      "ARGS=--full"),
        [NEXT_SPEED] = messages_get(m, "everything is correct: the speed points left depend on "
                                       "your times against the reference"),
        [NEXT_DONE] = messages_get(m, "nothing to fix: every case passed"),
    };
    fprintf(t->f, "%s\n", messages_get(m, "What to try next:"));
    for (int i = 0; i < N_NEXT_STEPS; i++)
        if (ov->next[i])
            fprintf(t->f, "  - %s\n", say[i]);
}

/* The score, and what it is of: the part graded here when something was not. */
static void print_score(const struct table *t, const struct overview *ov)
{
    const struct messages *m = t->m;
    const struct results *r = t->r;
    fprintf(t->f, "\n%s", esc(t, BOLD));
    fprintf(t->f, messages_get(m, "Score: %.2f / %.2f points"), (double)ov->score_shown / 100,
            (double)ov->max_shown / 100);
    fprintf(t->f, "%s — ", esc(t, RESET));
    fprintf(t->f, messages_get(m, "%d passed, %d failed, %d not run"), r->n_pass, r->n_fail,
            r->n_skipped);
    if (r->n_grader_errors)
        fprintf(t->f, messages_get(m, ", %d grader errors"), r->n_grader_errors);
    fputc('\n', t->f);
    if (ov->not_graded_shown > 0)
        fprintf(t->f,
                messages_get(m, "  of what ran here: %.2f / %.2f points; %.2f points not graded "
                                "here (below)\n"),
                (double)ov->score_shown / 100, (double)ov->graded_shown / 100,
                (double)ov->not_graded_shown / 100);
    /* Not a grade yet: every export leaves it empty (grade/score.h). */
    if (ov->gap.gap == GAP_GRADER_ERROR || ov->gap.gap == GAP_NOT_TIMED)
        fprintf(t->f, "%s%s%s\n", esc(t, MAGENTA),
                ov->gap.gap == GAP_GRADER_ERROR
                    ? messages_get(m, "  not a grade yet: the grader failed on some cases (XX), "
                                      "not the submission; they must be graded again")
                    : messages_get(m, "  not a grade yet: some cases could not be timed (the "
                                      "machine was busy); they must be graded again"),
                esc(t, RESET));
}

/* What was not graded here, apart from what cost points: the cases not run, grouped by why,
 * the speed points not measured, the grader's errors; their points add up to the line's. */
static void print_not_graded(const struct table *t, const struct overview *ov)
{
    if (ov->n_not_run + ov->n_speed + ov->n_lost - ov->n_failures == 0)
        return;
    fprintf(t->f, messages_get(t->m, "Not graded here (%.2f points):\n"),
            (double)ov->not_graded_shown / 100);
    for (size_t i = 0; i < ov->n_not_run; i++)
        print_not_run(t, &ov->not_run[i]);
    for (size_t i = 0; i < ov->n_speed; i++)
        print_speed_item(t, &ov->speed[i]);
    for (size_t i = 0; i < ov->n_lost; i++)
        if (ov->lost[i].grader)
            print_lost_item(t, &ov->lost[i]);
}

static void print_overview(const struct table *t)
{
    const struct messages *m = t->m;
    const struct results *r = t->r;
    struct overview ov;
    overview_build(&ov, r, t->hide_hidden);
    print_score(t, &ov);
    if (ov.n_failures == 0) {
        fprintf(t->f, "%s\n",
                r->n_pass > 0 ? messages_get(m, "Nothing cost points: every case that ran passed.")
                              : messages_get(m, "Nothing cost points."));
    } else {
        fprintf(t->f, "%s\n", messages_get(m, "What cost points:"));
        for (size_t i = 0; i < ov.n_lost; i++)
            if (!ov.lost[i].grader)
                print_lost_item(t, &ov.lost[i]);
    }
    print_not_graded(t, &ov);
    if (ov.hidden_total > ov.hidden_not_run && ov.hidden_total > ov.hidden_cases)
        fprintf(t->f,
                messages_get(m, "Hidden cases: %zu, each run on every variant of its exercise: "
                                "%zu of %zu runs passed, %zu failed.\n"),
                ov.hidden_cases, ov.hidden_passed, ov.hidden_total, ov.hidden_failed);
    else if (ov.hidden_total > ov.hidden_not_run)
        fprintf(t->f, messages_get(m, "Hidden cases: %zu of %zu passed, %zu failed.\n"),
                ov.hidden_passed, ov.hidden_total, ov.hidden_failed);
    print_next(t, &ov);
    overview_release(&ov);
}

/* ------------------------------------------------------------------------ */
/* The exercises                                                            */

static void print_header(const struct table *t)
{
    const struct results *r = t->r;
    fprintf(t->f, "%slabgrader %s%s  %s (lab %ld): %s\n", esc(t, BOLD),
            r->grader_version ? r->grader_version : "", esc(t, RESET), r->lab_id, r->lab_number,
            r->lab_title ? r->lab_title : "");
    fprintf(t->f, messages_get(t->m, "submission %s (%s)\n"), r->submission ? r->submission : "",
            r->student_name ? r->student_name : "");
}

/* What the last column says: a failure's message, a passing case's first finding worth
 * showing (findings.h), why a case was not run in a word (the whole reason is above). */
static void case_note(const struct table *t, const struct variant_result *vr,
                      const struct case_result *cr, char *buf, size_t n)
{
    const char *text = "";
    char *own = NULL;
    if (case_not_timed(cr)) {
        own = case_not_timed_reason(t->m, cr);
        text = own;
    } else if (cr->verdict == V_PASS) {
        for (size_t i = 0; i < cr->n_findings && !*text; i++)
            if (finding_shown(vr, cr, i, t->hide_hidden))
                text = cr->findings[i];
    } else if (cr->verdict == V_SKIPPED) {
        enum skip_kind k = case_skip_kind(t->r, vr, cr);
        text = k == SKIP_NO_GPU   ? messages_get(t->m, "no usable GPU here (see above)")
               : k == SKIP_SLOW   ? messages_get(t->m, "slow case (see above)")
               : k == SKIP_HIDDEN ? messages_get(t->m, "hidden case (see above)")
                                  : messages_get(t->m, "not run (see above)");
    } else {
        text = cr->message;
    }
    one_line(buf, n, text);
    free(own);
}

static void print_case(const struct table *t, const struct variant_result *vr,
                       const struct case_result *cr, bool first)
{
    char ms[32], xfer[32], sr[32], sb[32], gf[32], msg[200];
    cell_ms(ms, sizeof(ms), &cr->time);
    cell_ms(xfer, sizeof(xfer), &cr->time_transfer);
    cell_x(sr, sizeof(sr), cr->speedup_ref);
    cell_x(sb, sizeof(sb), cr->speedup_baseline);
    if (cr->gflops > 0.01)
        snprintf(gf, sizeof(gf), "%.1f", cr->gflops);
    else
        snprintf(gf, sizeof(gf), "-");
    case_note(t, vr, cr, msg, sizeof(msg));
    bool pass = cr->verdict == V_PASS;
    fprintf(t->f, "  %-9s %-9s %s%-4s%s %11s %9s %9s %9s %9s", first ? vr->variant_id : "",
            cr->case_id, esc(t, verdict_color(cr->verdict)), verdict_code(cr->verdict),
            esc(t, RESET), ms, xfer, sr, sb, gf);
    if (*msg)
        fprintf(t->f, "  %s%s%s", pass ? esc(t, DIM) : "", msg, pass ? esc(t, RESET) : "");
    fputc('\n', t->f);
}

/* The compiler's first error of a variant that did not build. */
static void print_build_error(const struct table *t, const struct variant_result *vr)
{
    if (vr->built || !vr->build_log || !vr->n_cases ||
        (vr->cases[0].verdict != V_COMPILE && vr->cases[0].verdict != V_MISSING))
        return;
    const char *log = vr->build_log;
    const char *hit = strstr(log, "undefined reference");
    if (!hit)
        hit = strstr(log, "error");
    const char *start = hit ? hit : log;
    while (start > log && start[-1] != '\n')
        start--;
    char first[300];
    char *line = xstrndup(start, strcspn(start, "\n"));
    one_line(first, sizeof(first), line);
    free(line);
    fprintf(t->f, "  %-9s %s%s %s%s\n", "", esc(t, DIM), messages_get(t->m, "compiler:"), first,
            esc(t, RESET));
}

/* The compute-sanitizer pass: one line a tool (the report has every report). */
static void print_sanitizer(const struct table *t, const struct variant_result *vr, bool named)
{
    for (size_t k = 0; k < vr->n_sanitizer; k++) {
        const struct sanitizer_run *run = &vr->sanitizer[k];
        char line[240];
        char *text = sanitizer_run_summary(run, t->m);
        one_line(line, sizeof(line), text);
        free(text);
        bool found =
            run->status == SANITIZER_RAN && (run->out.errors > 0 || run->out.n_reports > 0 ||
                                             run->out.other_reports > 0 || run->out.warnings > 0);
        fprintf(t->f, "  %-9s %scompute-sanitizer %s%s\n", named ? "" : vr->variant_id,
                esc(t, found ? YELLOW : DIM), line, esc(t, RESET));
    }
}

static void print_variant(const struct table *t, const struct variant_result *vr)
{
    size_t hidden_pass = 0, hidden_ran = 0, shown = 0, no_gpu = 0;
    for (size_t c = 0; c < vr->n_cases; c++) {
        const struct case_result *cr = &vr->cases[c];
        if (cr->hidden && t->hide_hidden) {
            hidden_ran += cr->verdict != V_SKIPPED && cr->verdict != V_GRADER;
            hidden_pass += cr->verdict == V_PASS;
            continue;
        }
        shown++;
        no_gpu += cr->verdict == V_SKIPPED && case_skip_kind(t->r, vr, cr) == SKIP_NO_GPU;
    }
    /* Without a GPU no case of the variant runs, slow ones or not: one line says so. */
    size_t not_run = 0;
    for (size_t c = 0; c < vr->n_cases; c++)
        not_run += !(vr->cases[c].hidden && t->hide_hidden) && vr->cases[c].verdict == V_SKIPPED;
    bool one_line_only = shown > 0 && not_run == shown && no_gpu > 0;
    if (one_line_only)
        fprintf(t->f, "  %-9s %s%s%s\n", vr->variant_id, esc(t, YELLOW),
                messages_get(t->m, "not run here: no usable GPU (see above)"), esc(t, RESET));
    for (size_t c = 0, row = 0; c < vr->n_cases && !one_line_only; c++)
        if (!(vr->cases[c].hidden && t->hide_hidden))
            print_case(t, vr, &vr->cases[c], row++ == 0);
    if (hidden_ran)
        fprintf(t->f, messages_get(t->m, "  %-9s hidden cases: %zu of %zu passed\n"), "",
                hidden_pass, hidden_ran);
    print_build_error(t, vr);
    print_sanitizer(t, vr, shown > 0);
}

void table_print(FILE *f, const struct results *r, const struct table_opts *o)
{
    struct table t = {f, r, o->msgs, o->color, o->student_view && !r->show_hidden};
    const struct messages *m = t.m;
    struct shown_points sp;
    print_header(&t);
    print_overview(&t);
    shown_points_of(r, &sp);
    for (size_t e = 0; e < r->n_exercises; e++) {
        const struct exercise_result *ex = &r->exercises[e];
        fprintf(f, "\n%s%s%s  %s  %s", esc(&t, BOLD), ex->exercise_id, esc(&t, RESET),
                ex->title ? ex->title : "", esc(&t, BOLD));
        /* As printed: the exercises add up to the score above (points.h). */
        fprintf(f, messages_get(m, "%.2f / %.2f points"), (double)sp.ex[e].points / 100,
                (double)sp.ex[e].max / 100);
        fprintf(f, "%s\n", esc(&t, RESET));
        fprintf(f, "  %-9s %-9s %-4s %11s %9s %9s %9s %9s\n", messages_get(m, "variant"),
                messages_get(m, "case"), "", messages_get(m, "time ms"), messages_get(m, "w/ xfer"),
                messages_get(m, "vs ref"), messages_get(m, "vs CPU"), "GFLOP/s");
        for (size_t v = 0; v < ex->n_variants; v++)
            print_variant(&t, &ex->variants[v]);
    }
    shown_points_release(&sp);
}

void table_print_summary(FILE *f, const struct results *r, const struct table_opts *o)
{
    struct table t = {f, r, o->msgs, o->color, o->student_view && !r->show_hidden};
    const struct messages *m = t.m;
    const struct machine_info *mi = &r->machine;
    fprintf(f, "\n%s", esc(&t, DIM));
    fprintf(f, messages_get(m, "machine: %s, %d threads; GPU: %s; isolation: %s"),
            mi->cpu_model ? mi->cpu_model : "?", mi->cpu_threads,
            mi->gpu_name ? mi->gpu_name : messages_get(m, "none usable"),
            r->isolation ? r->isolation : "?");
    fprintf(f, "%s\n%s%s: ", esc(&t, RESET), esc(&t, BOLD), r->lab_id);
    fprintf(f, messages_get(m, "%.2f / %.2f points"), (double)hundredths(r->score) / 100,
            (double)hundredths(r->max_score) / 100);
    fprintf(f, "%s — ", esc(&t, RESET));
    fprintf(f, messages_get(m, "%d passed, %d failed, %d not run"), r->n_pass, r->n_fail,
            r->n_skipped);
    fprintf(f, messages_get(m, ", %d grader errors"), r->n_grader_errors);
    fputc('\n', f);
    bool sanitized = false;
    for (size_t e = 0; e < r->n_exercises; e++)
        for (size_t v = 0; v < r->exercises[e].n_variants; v++)
            sanitized = sanitized || r->exercises[e].variants[v].n_sanitizer > 0;
    if (sanitized)
        fprintf(f, "%s\n",
                messages_get(m, "compute-sanitizer findings do not change the grade: they point "
                                "at bugs the outputs did not show (details in the report)"));
    if (r->n_grader_errors)
        fprintf(f, "%s%s%s\n", esc(&t, MAGENTA),
                messages_get(m, "Grader errors are the grader's or this machine's fault, not the "
                                "submission's: fix the cause and grade again."),
                esc(&t, RESET));
}

void table_print_phases(FILE *f, const struct results *r, const struct table_opts *o)
{
    struct table t = {f, r, o->msgs, o->color, false};
    double total = r->phase_build_s + r->phase_references_s + r->phase_runs_s + r->phase_reports_s;
    if (!(total > 0))
        return;
    fprintf(f, "%s", esc(&t, DIM));
    fprintf(f,
            messages_get(t.m, "time: %.1f s (building %.1f s, references %.1f s, runs %.1f s, "
                              "reports %.1f s)"),
            total, r->phase_build_s, r->phase_references_s, r->phase_runs_s, r->phase_reports_s);
    fprintf(f, "%s\n", esc(&t, RESET));
}

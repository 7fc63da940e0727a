#include "report/gradescope.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/json.h"
#include "report/export_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IND "      " /* a test's keys */

/* ---- JSON ---- */

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

/* ---- Markdown ---- */

void gradescope_md_escape(struct strbuf *out, const char *s)
{
    struct strbuf clean = STRBUF_INIT;
    add_utf8_clean(&clean, or_empty(s));
    for (const char *p = strbuf_str(&clean); *p; p++) {
        if (*p == '<')
            strbuf_addstr(out, "&lt;");
        else if (*p == '>')
            strbuf_addstr(out, "&gt;");
        else if (*p == '&')
            strbuf_addstr(out, "&amp;");
        else {
            if (strchr("\\`*_[]#|~", *p))
                strbuf_addch(out, '\\');
            strbuf_addch(out, *p);
        }
    }
    strbuf_release(&clean);
}

/* text as a fenced code block: the fence longer than any run of backticks inside. */
static void md_code(struct strbuf *out, const char *text)
{
    size_t longest = 0, run = 0;
    for (const char *p = text; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    size_t fence = longest < 3 ? 3 : longest + 1;
    strbuf_addstr(out, "\n\n");
    for (size_t i = 0; i < fence; i++)
        strbuf_addch(out, '`');
    strbuf_addch(out, '\n');
    add_utf8_clean(out, text);
    if (out->len && out->buf[out->len - 1] != '\n')
        strbuf_addch(out, '\n');
    for (size_t i = 0; i < fence; i++)
        strbuf_addch(out, '`');
}

/* ---- tests ---- */

struct gs {
    struct strbuf *out;
    const struct results *r;
    const struct gradescope_opts *o;
    const struct messages *m;
    bool veil;
    bool first;
    bool scored;   /* the grade is complete: scores are written (export_points) */
    double points; /* the score written, when scored */
};

/* One test; score_max NULL: no score (never used), status "passed" or "failed". */
static void gs_test(struct gs *g, const char *name, const char *number, double score, double max,
                    const char *status, const char *output, const char *const *tags, size_t n_tags,
                    const char *visibility)
{
    struct strbuf *out = g->out;
    strbuf_addstr(out, g->first ? "\n    {" : ",\n    {");
    g->first = false;
    json_key(out, IND, "name", true);
    json_string(out, name);
    json_key(out, IND, "number", false);
    json_string(out, number);
    /* An incomplete grade has no score anywhere: nothing Gradescope could sum into one. */
    if (g->scored) {
        json_key(out, IND, "score", false);
        json_number(out, score);
    }
    json_key(out, IND, "max_score", false);
    json_number(out, max);
    json_key(out, IND, "status", false);
    json_string(out, status);
    json_key(out, IND, "output", false);
    json_string(out, output);
    json_key(out, IND, "output_format", false);
    json_string(out, "md");
    json_key(out, IND, "tags", false);
    strbuf_addch(out, '[');
    for (size_t i = 0; i < n_tags; i++) {
        if (i)
            strbuf_addstr(out, ", ");
        json_string(out, tags[i]);
    }
    strbuf_addch(out, ']');
    json_key(out, IND, "visibility", false);
    json_string(out, visibility);
    strbuf_addstr(out, "\n    }");
}

static const char *hidden_visibility(const struct gs *g)
{
    const struct lab *lab = g->o ? g->o->lab : NULL;
    return lab && lab->gradescope.hidden_visibility ? lab->gradescope.hidden_visibility
                                                    : "after_due_date";
}

static void case_output(const struct gs *g, const struct variant_result *v,
                        const struct case_result *c, struct strbuf *text)
{
    if (c->verdict == V_SKIPPED) {
        strbuf_addstr(text, messages_get(g->m, "Not run here: "));
        gradescope_md_escape(text, case_message(c));
        /* Scaled (the informational policy): only what ran makes the score. Otherwise the
         * summary states the score of what ran, and the case waits for the real grading. */
        strbuf_addstr(text, g->o && g->o->scale_to > 0
                                ? messages_get(g->m, ". This case does not count toward your "
                                                     "score.")
                                : messages_get(g->m, ". Not graded here: the score above is of "
                                                     "the cases that ran."));
        return;
    }
    gradescope_md_escape(text, case_message(c));
    if (c->verdict == V_GRADER)
        strbuf_addstr(text, messages_get(g->m, " (the grader failed, not your code: not counted "
                                               "against you)"));
    if (c->detail && *c->detail)
        md_code(text, c->detail);
    if (c->verdict == V_COMPILE && v->build_log && *v->build_log) {
        struct strbuf log = STRBUF_INIT;
        compiler_excerpt(v->build_log, 30, &log);
        md_code(text, strbuf_str(&log));
        strbuf_release(&log);
    }
}

static void gs_case(struct gs *g, size_t ei, size_t vi, size_t ci)
{
    const struct exercise_result *e = &g->r->exercises[ei];
    const struct variant_result *v = &e->variants[vi];
    const struct case_result *c = &v->cases[ci];
    char *name = xstrfmt("%s / %s / %s", or_empty(e->exercise_id), or_empty(v->variant_id),
                         or_empty(c->case_id));
    char *number = xstrfmt("%zu.%zu.%zu", ei + 1, vi + 1, ci + 1);
    struct strbuf text = STRBUF_INIT;
    bool skipped = c->verdict == V_SKIPPED;
    case_output(g, v, c, &text);
    const char *tags[] = {or_empty(e->exercise_id), or_empty(v->target), verdict_code(c->verdict)};
    gs_test(g, name, number, skipped ? 0 : c->points, skipped ? 0 : c->max_points,
            skipped || c->verdict == V_PASS ? "passed" : "failed", strbuf_str(&text), tags, 3,
            c->hidden && g->o && g->o->student_view ? hidden_visibility(g) : "visible");
    strbuf_release(&text);
    free(name);
    free(number);
}

/* The student view's one test standing for an exercise's hidden cases. */
static void gs_hidden(struct gs *g, size_t ei, const struct hidden_tally *h)
{
    const struct exercise_result *e = &g->r->exercises[ei];
    char *name = xstrfmt("%s / hidden cases", or_empty(e->exercise_id));
    char *number = xstrfmt("%zu.%zu", ei + 1, e->n_variants + 1);
    struct strbuf text = STRBUF_INIT;
    hidden_summary(h, g->m, &text);
    const char *tags[] = {or_empty(e->exercise_id), "hidden"};
    gs_test(g, name, number, h->points, h->max_points - h->skipped_max,
            h->passed + h->skipped == h->total ? "passed" : "failed", strbuf_str(&text), tags, 2,
            hidden_visibility(g));
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

/* The performance test of an exercise whose speed points were not measured here. */
static void gs_perf_not_measured(struct gs *g, size_t ei, size_t number_after, enum perf_state st,
                                 const struct variant_result *pv, const char *max)
{
    const struct exercise_result *e = &g->r->exercises[ei];
    char *name = xstrfmt("%s / performance", or_empty(e->exercise_id));
    char *number = xstrfmt("%zu.%zu", ei + 1, number_after + 1);
    struct strbuf text = STRBUF_INIT;
    strbuf_addf(&text, messages_get(g->m, "Speed points (%s) not measured here: "), max);
    if (st == PERF_NOT_TIMED)
        strbuf_addstr(&text, messages_get(g->m, "nothing was timed (--no-timing)"));
    else if (pv)
        gradescope_md_escape(&text, pv->variant_id);
    if (st == PERF_NOT_RUN)
        strbuf_addstr(&text, messages_get(g->m, " did not run here"));
    strbuf_addstr(&text, g->o && g->o->scale_to > 0
                             ? messages_get(g->m, ". They do not count toward your score.")
                             : messages_get(g->m, ". Not graded here: the score above is of "
                                                  "the cases that ran."));
    const char *tags[] = {or_empty(e->exercise_id), "performance"};
    gs_test(g, name, number, 0, 0, "passed", strbuf_str(&text), tags, 2, "visible");
    strbuf_release(&text);
    free(name);
    free(number);
}

static void gs_performance(struct gs *g, size_t ei, size_t number_after)
{
    const struct exercise_result *e = &g->r->exercises[ei];
    char *name = xstrfmt("%s / performance", or_empty(e->exercise_id));
    /* After the variants, so that it sorts last within its exercise. */
    char *number = xstrfmt("%zu.%zu", ei + 1, number_after + 1);
    struct strbuf text = STRBUF_INIT;
    char got[64], max[64];
    const struct variant_result *pv;
    enum perf_state st = exercise_perf_state(e, &pv);
    format_number(got, sizeof(got), e->perf_points, 2);
    format_number(max, sizeof(max), e->perf_max_points, 2);
    if (st != PERF_MEASURED) {
        /* Like a case not run: worth nothing here, and why. */
        gs_perf_not_measured(g, ei, number_after, st, pv, max);
        free(name);
        free(number);
        strbuf_release(&text);
        return;
    }
    strbuf_addf(&text, messages_get(g->m, "Speed points: %s of %s."), got[0] ? got : "0",
                max[0] ? max : "0");
    for (size_t vi = 0; vi < e->n_variants; vi++) {
        const struct variant_result *v = &e->variants[vi];
        for (size_t ci = 0; ci < v->n_cases; ci++) {
            const struct case_result *c = &v->cases[ci];
            if (c->hidden && g->veil)
                continue;
            for (size_t f = 0; f < c->n_findings; f++)
                if (c->findings[f] && is_perf_finding(c, f)) {
                    strbuf_addstr(&text, "\n\n");
                    char *line = xstrfmt("%s / %s: %s", or_empty(v->variant_id),
                                         or_empty(c->case_id), c->findings[f]);
                    gradescope_md_escape(&text, line);
                    free(line);
                }
        }
    }
    const char *tags[] = {or_empty(e->exercise_id), "performance"};
    gs_test(g, name, number, e->perf_points, e->perf_max_points,
            e->perf_points >= e->perf_max_points - 1e-9 ? "passed" : "failed", strbuf_str(&text),
            tags, 2, "visible");
    strbuf_release(&text);
    free(name);
    free(number);
}

static void gs_tests(struct gs *g)
{
    for (size_t ei = 0; ei < g->r->n_exercises; ei++) {
        const struct exercise_result *e = &g->r->exercises[ei];
        struct hidden_tally h;
        size_t last = e->n_variants;
        for (size_t vi = 0; vi < e->n_variants; vi++)
            for (size_t ci = 0; ci < e->variants[vi].n_cases; ci++)
                if (!(g->veil && e->variants[vi].cases[ci].hidden))
                    gs_case(g, ei, vi, ci);
        hidden_tally_of(e, &h);
        if (g->veil && h.total > 0) {
            gs_hidden(g, ei, &h);
            last++;
        }
        if (e->perf_max_points > 0)
            gs_performance(g, ei, last);
    }
}

/* ---- the summary ---- */

/* "- Not run here (reason): a / b / c, d / e / f; 2 hidden cases." grouped by reason. */
static void not_graded(const struct gs *g, struct strbuf *text)
{
    const struct results *r = g->r;
    struct strbuf done = STRBUF_INIT; /* reasons already listed, each on a line of its own */
    strbuf_addch(&done, '\n');
    for (size_t ei = 0; ei < r->n_exercises; ei++)
        for (size_t vi = 0; vi < r->exercises[ei].n_variants; vi++)
            for (size_t ci = 0; ci < r->exercises[ei].variants[vi].n_cases; ci++) {
                const struct case_result *c = &r->exercises[ei].variants[vi].cases[ci];
                char *key = xstrfmt("\n%s\n", case_message(c));
                if (c->verdict != V_SKIPPED || strstr(strbuf_str(&done), key)) {
                    free(key);
                    continue;
                }
                strbuf_addstr(&done, key + 1);
                free(key);
                int hidden = 0, listed = 0;
                strbuf_addstr(text, "\n- ");
                strbuf_addstr(text, messages_get(g->m, "Not graded here"));
                strbuf_addstr(text, " (");
                gradescope_md_escape(text, case_message(c));
                strbuf_addstr(text, "): ");
                for (size_t e2 = 0; e2 < r->n_exercises; e2++)
                    for (size_t v2 = 0; v2 < r->exercises[e2].n_variants; v2++) {
                        const struct variant_result *v = &r->exercises[e2].variants[v2];
                        for (size_t c2 = 0; c2 < v->n_cases; c2++) {
                            const struct case_result *d = &v->cases[c2];
                            if (d->verdict != V_SKIPPED || strcmp(case_message(d), case_message(c)))
                                continue;
                            if (d->hidden && g->veil) {
                                hidden++;
                                continue;
                            }
                            char *nm = xstrfmt("%s%s / %s / %s", listed++ ? ", " : "",
                                               or_empty(r->exercises[e2].exercise_id),
                                               or_empty(v->variant_id), or_empty(d->case_id));
                            gradescope_md_escape(text, nm);
                            free(nm);
                        }
                    }
                if (hidden)
                    strbuf_addf(text,
                                hidden == 1 ? messages_get(g->m, "%s%d hidden case")
                                            : messages_get(g->m, "%s%d hidden cases"),
                                listed ? "; " : "", hidden);
                strbuf_addch(text, '.');
            }
    strbuf_release(&done);
}

static void late_summary(const struct gs *g, struct strbuf *text)
{
    const struct late_record *l = &g->r->lms.late;
    char pct[64], pts[64];
    if (!l->late)
        return;
    format_number(pct, sizeof(pct), l->penalty_pct, 2);
    format_number(pts, sizeof(pts), l->penalty, 2);
    strbuf_addstr(text, "\n\n");
    if (l->zeroed)
        strbuf_addf(text,
                    messages_get(g->m, "Handed in %g days late, later than the lab accepts: "
                                       "the score counts 0."),
                    l->days);
    else if (!l->days_known)
        strbuf_addf(text,
                    messages_get(g->m, "Marked late, with no time to tell by how much: one "
                                       "day charged, %s%% (%s points) off."),
                    pct[0] ? pct : "0", pts[0] ? pts : "0");
    else
        strbuf_addf(text,
                    l->days == 1
                        ? messages_get(g->m, "Handed in %g day late: %s%% (%s points) off.")
                        : messages_get(g->m, "Handed in %g days late: %s%% (%s points) "
                                             "off."),
                    l->days, pct[0] ? pct : "0", pts[0] ? pts : "0");
}

/* "**Lab**: 1.53 / 12 points ...", or why there is no score yet. */
static void summary_score(const struct gs *g, struct strbuf *text)
{
    const struct results *r = g->r;
    char score[64], max[64], full[64], ran[64];
    double scale = g->o ? g->o->scale_to : 0;
    struct score_scope sc;
    score_scope_of(r, &sc);
    if (!g->scored) {
        struct strbuf why = STRBUF_INIT;
        grade_gap_sentence(r, g->m, &why);
        gradescope_md_escape(text, strbuf_str(&why));
        strbuf_release(&why);
        return;
    }
    format_number(score, sizeof(score), g->points, 2);
    format_number(max, sizeof(max), scale > 0 ? scale : r->max_score, 2);
    strbuf_addf(text,
                messages_get(g->m, "%s / %s points. %d passed, %d failed, %d not run, %d "
                                   "grader errors."),
                score[0] ? score : "0", max[0] ? max : "0", r->n_pass, r->n_fail, r->n_skipped,
                r->n_grader_errors);
    if (scale > 0 && fabs(scale - r->max_score) > 1e-9) {
        format_number(score, sizeof(score), results_final_score(r), 2);
        format_number(full, sizeof(full), r->max_score, 2);
        strbuf_addstr(text, "\n\n");
        strbuf_addf(text,
                    messages_get(g->m, "Only the cases that could run here count: %s of "
                                       "their %s points, scaled to the assignment's %s."),
                    score[0] ? score : "0", full[0] ? full : "0", max);
    } else if (scale <= 0 && sc.not_graded > 0) {
        format_number(ran, sizeof(ran), sc.graded_max, 2);
        format_number(full, sizeof(full), sc.not_graded, 2);
        strbuf_addstr(text, "\n\n");
        strbuf_addf(text,
                    messages_get(g->m, "That is the score of what ran here, out of its %s "
                                       "points; the other %s points were not graded here "
                                       "(below)."),
                    ran[0] ? ran : "0", full[0] ? full : "0");
    }
}

/* Cases the machine could not time alone: their measurements shared it with other programs
 * each time (the machine's turn came, the machine was not quiet). */
static void speed_shared_summary(const struct gs *g, struct strbuf *text, const char *pts, int n)
{
    if (g->o->pending_points > 0)
        strbuf_addf(text,
                    messages_get(g->m, "Speed points still to come (%s points): %d of your cases "
                                       "could not be timed alone: other programs shared the "
                                       "course's machine each time they were measured. Their "
                                       "correctness verdicts above are final; your instructor's "
                                       "grading times them and adds their speed points."),
                    pts, n);
    else
        strbuf_addf(text,
                    messages_get(g->m, "%d of your cases could not be timed alone (other programs "
                                       "shared the course's machine each time they were "
                                       "measured): no points depend on their times, and their "
                                       "correctness verdicts above are final."),
                    n);
}

/* Cases the machine could not time before the answer was due: whether speed points wait for
 * them, and who completes them. */
static void speed_pending_summary(const struct gs *g, struct strbuf *text)
{
    char pts[64];
    int n = results_count_not_timed(g->r);
    format_number(pts, sizeof(pts), g->o->pending_points, 2);
    strbuf_addstr(text, "\n\n");
    /* Said as the time limit unless every one of them shared the machine. */
    if (n > 0 && results_count_not_timed_why(g->r, NOT_TIMED_SHARED) == n)
        speed_shared_summary(g, text, pts, n);
    else if (g->o->pending_points > 0)
        strbuf_addf(text,
                    messages_get(g->m, "Speed points still to come (%s points): %d of your cases "
                                       "could not be timed before Gradescope's time limit (the "
                                       "course's machine was busy). Their correctness verdicts "
                                       "above are final; your instructor's grading times them "
                                       "and adds their speed points."),
                    pts, n);
    else
        strbuf_addf(text,
                    messages_get(g->m, "%d of your cases could not be timed before Gradescope's "
                                       "time limit (the course's machine was busy): no points "
                                       "depend on their times, and their correctness verdicts "
                                       "above are final."),
                    n);
}

/* How many cases were not timed, by reason ("busy": no turn before the answer was due; "shared":
 * every measurement shared the machine), for the instructor and the rush's bench rows; nothing
 * when every case was timed. */
static void not_timed_counts(const struct results *r, struct strbuf *out)
{
    bool first = true;
    for (int why = NOT_TIMED_BUSY; why <= NOT_TIMED_COORDINATOR; why++) {
        int n = results_count_not_timed_why(r, (enum not_timed)why);
        if (!n)
            continue;
        strbuf_addstr(out, first ? ", \"labgrader_not_timed\": {" : ", ");
        json_string(out, not_timed_name((enum not_timed)why));
        strbuf_addf(out, ": %d", n);
        first = false;
    }
    if (!first)
        strbuf_addch(out, '}');
}

static void summary(const struct gs *g, struct strbuf *text)
{
    const struct results *r = g->r;
    const char *title = r->lab_title && *r->lab_title ? r->lab_title : or_empty(r->lab_id);
    strbuf_addstr(text, "**");
    gradescope_md_escape(text, title);
    strbuf_addstr(text, "**: ");
    summary_score(g, text);
    not_graded(g, text);
    if (r->lms.problem && r->n_exercises && r->exercises[0].n_variants &&
        r->exercises[0].variants[0].n_cases) {
        strbuf_addstr(text, "\n\n");
        gradescope_md_escape(text, case_message(&r->exercises[0].variants[0].cases[0]));
    }
    if (r->n_grader_errors > 0 && g->scored) {
        strbuf_addstr(text, "\n\n");
        strbuf_addstr(text, messages_get(g->m, "The grader itself failed on the cases marked XX: "
                                               "they are not counted against you, and your "
                                               "instructor must grade them again before this "
                                               "score is final."));
    }
    if (g->o && g->o->speed_pending)
        speed_pending_summary(g, text);
    late_summary(g, text);
}

/* ---- leaderboard ---- */

static bool perf_variant(const struct gs *g, const struct exercise_result *e,
                         const struct variant_result *v)
{
    const struct lab *lab = g->o ? g->o->lab : NULL;
    const struct exercise_spec *ex = lab ? lab_exercise(lab, or_empty(e->exercise_id)) : NULL;
    if (!ex || !ex->has_perf || !ex->perf.variant)
        return true; /* each variant counts evenly */
    return v->variant_id && !strcmp(v->variant_id, ex->perf.variant);
}

static void leaderboard(const struct gs *g, struct strbuf *out)
{
    const struct lab *lab = g->o ? g->o->lab : NULL;
    bool any = false;
    if (lab && !lab->gradescope.leaderboard)
        return;
    for (size_t ei = 0; ei < g->r->n_exercises; ei++) {
        const struct exercise_result *e = &g->r->exercises[ei];
        double logsum = 0;
        int n = 0;
        if (e->perf_max_points <= 0)
            continue;
        for (size_t vi = 0; vi < e->n_variants; vi++)
            for (size_t ci = 0;
                 perf_variant(g, e, &e->variants[vi]) && ci < e->variants[vi].n_cases; ci++) {
                const struct case_result *c = &e->variants[vi].cases[ci];
                if (c->verdict == V_PASS && !c->hidden && c->speedup_ref > 0 &&
                    isfinite(c->speedup_ref)) {
                    logsum += log(c->speedup_ref);
                    n++;
                }
            }
        if (n == 0)
            continue;
        char *name = xstrfmt("%s speedup", or_empty(e->exercise_id));
        strbuf_addstr(out, any ? ",\n    {\"name\": " : ",\n  \"leaderboard\": [\n    {\"name\": ");
        json_string(out, name);
        strbuf_addstr(out, ", \"value\": ");
        json_number(out, round(exp(logsum / n) * 1000) / 1000);
        strbuf_addstr(out, ", \"order\": \"desc\"}");
        free(name);
        any = true;
    }
    if (any)
        strbuf_addstr(out, "\n  ]");
}

static double wall_seconds(const struct results *r)
{
    double seconds = 0;
    for (size_t ei = 0; ei < r->n_exercises; ei++)
        for (size_t vi = 0; vi < r->exercises[ei].n_variants; vi++) {
            const struct variant_result *v = &r->exercises[ei].variants[vi];
            for (size_t ci = 0; ci < v->n_cases; ci++)
                if (isfinite(v->cases[ci].wall_s) && v->cases[ci].wall_s > 0)
                    seconds += v->cases[ci].wall_s;
        }
    return round(seconds * 1000) / 1000;
}

void export_gradescope_text(const struct results *r, const struct gradescope_opts *o,
                            struct strbuf *out)
{
    const char *ind = "  ";
    struct strbuf text = STRBUF_INIT;
    double points;
    bool scored = export_points(r, o ? o->scale_to : 0, &points);
    /* An autograde's answer due before its limit: what was graded, the speed points of the
     * cases not timed by then left to the instructor's grading (gradescope.h). */
    if (!scored && o && o->speed_pending && grade_gap_of(r, NULL) == GAP_NOT_TIMED) {
        points = export_score(r, o->scale_to);
        scored = true;
    }
    struct gs g = {
        out,  r,      o,     o ? o->messages : NULL, veils_hidden(r, o && o->student_view),
        true, scored, points};
    summary(&g, &text);
    strbuf_addch(out, '{');
    /* An incomplete grade has no score (export_points): its status says why. */
    if (scored) {
        json_key(out, ind, "score", true);
        json_number(out, points);
    }
    json_key(out, ind, "execution_time", !scored);
    json_number(out, wall_seconds(r));
    json_key(out, ind, "output", false);
    json_string(out, strbuf_str(&text));
    json_key(out, ind, "output_format", false);
    json_string(out, "md");
    json_key(out, ind, "visibility", false);
    json_string(out, "visible");
    json_key(out, ind, "stdout_visibility", false);
    json_string(out, "hidden");
    /* The status every export carries (gradebook.csv's), where Gradescope keeps extra data. */
    json_key(out, ind, "extra_data", false);
    strbuf_addstr(out, "{\"labgrader_status\": ");
    json_string(out, export_status(r, NULL, 0));
    not_timed_counts(r, out);
    strbuf_addch(out, '}');
    json_key(out, ind, "tests", false);
    strbuf_addch(out, '[');
    gs_tests(&g);
    strbuf_addstr(out, g.first ? "]" : "\n  ]");
    leaderboard(&g, out);
    strbuf_addstr(out, "\n}\n");
    strbuf_release(&text);
}

int export_gradescope(const struct results *r, const struct gradescope_opts *o, const char *path,
                      struct error *err)
{
    struct strbuf sb = STRBUF_INIT;
    export_gradescope_text(r, o, &sb);
    int rc = write_file_atomic(path, strbuf_str(&sb), sb.len, err);
    strbuf_release(&sb);
    return rc;
}

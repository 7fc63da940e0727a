/*
 * overview: what a student reads first, as data for both the console (table.c)
 * and the report (report.md's first page): what cost points, one item per
 * cause, and what to try next.
 *
 * - Failures: consecutive cases of a variant with the same verdict are one item
 *   (the first case's message stands for them: "does not compile" for every
 *   case, or the first size's wrong elements); the student view's hidden cases
 *   are one count per variant, never an id or a size.
 * - Cases not run here are grouped by why across the whole submission (no GPU
 *   here, slow cases without --full, hidden cases, anything else by its
 *   message), in that order, so a reason is said once however many cases it
 *   stopped.
 * - A hidden case runs on every variant of its exercise: it is counted once, as the kit's
 *   README counts it, and its runs (one per variant) apart, so that "1 hidden case" of a lab
 *   with two variants is never "2 hidden cases".
 * - Grader errors are items of their own: never the student's fault.
 * - Speed points that were not measured here (their variant did not run, nothing was
 *   timed) are an item of their own, with the cases not run: not graded here, never "lost".
 * - What the score is of (grade/score.h): the points graded here, and the rest, whose parts
 *   (the items above) are printed rounded so that they add up to it (points.h).
 *
 * Why a case was not run is read from the results' own data, in the order
 * grading decides it (grade.c: not selected, hidden, slow, then the GPU): a
 * hidden case when hidden cases were not included, a slow one without --full,
 * a GPU variant's on a machine whose GPU is not "available".
 *
 * struct overview owns its arrays; the items point into the results, which
 * must outlive it. overview_release() frees it.
 */
#ifndef LG_REPORT_OVERVIEW_H
#define LG_REPORT_OVERVIEW_H

#include "grade/results.h"
#include "grade/score.h"

#include <stdbool.h>
#include <stddef.h>

enum skip_kind {
    SKIP_NO_GPU, /* a GPU variant on a machine without a usable GPU */
    SKIP_SLOW,   /* a slow case, without --full */
    SKIP_HIDDEN, /* a hidden case, run only when the instructor grades */
    SKIP_OTHER,  /* anything else (--case, no toolchain): said by its message */
};

enum skip_kind case_skip_kind(const struct results *r, const struct variant_result *vr,
                              const struct case_result *cr);

/* What cost points: failures and grader errors of one variant. */
struct lost_item {
    const struct exercise_result *ex;
    const struct variant_result *vr;
    size_t first;  /* vr->cases[first] ... : the visible cases of the item, consecutive */
    size_t count;  /* how many cases */
    bool hidden;   /* the variant's failed hidden cases, by count (first is meaningless) */
    bool grader;   /* grader errors (XX): never the student's */
    double points; /* points lost */
    long shown;    /* grader errors: their points as printed, in hundredths (points.h) */
};

/* Cases not run here for one reason, over the whole submission. */
struct not_run_item {
    enum skip_kind kind;
    const char *message; /* SKIP_OTHER: the message they share */
    size_t count;        /* the cases' runs, one per variant */
    size_t cases;        /* the cases, a hidden one once however many variants it runs on */
    double points;       /* points not graded here */
    long shown;          /* as printed, in hundredths: the parts add up to not_graded_shown */
};

/* An exercise's speed points, not measured here. */
struct speed_item {
    const struct exercise_result *ex;
    const struct variant_result *vr; /* their variant, when they have one */
    enum perf_state state;           /* PERF_NOT_RUN or PERF_NOT_TIMED */
    double points;
    long shown;
};

/* What to try next, in the order a student should: the first that applies matters most. */
enum next_step {
    NEXT_COMPILE,   /* a variant does not build (CE) */
    NEXT_MISSING,   /* a file or function the lab asks for is missing (MF): nothing was built */
    NEXT_WRONG,     /* wrong values (WA) */
    NEXT_CRASH,     /* killed by a signal or a runtime error (SG, RE) */
    NEXT_LIMITS,    /* time, memory or output limit (TO, ML, OL) */
    NEXT_CHEAT,     /* tampering detected (CH) */
    NEXT_SANITIZER, /* compute-sanitizer found errors although the outputs were right */
    NEXT_GRADER,    /* grader errors: tell the instructor */
    NEXT_NO_GPU,    /* GPU cases not run: test on a machine with a CUDA GPU */
    NEXT_SLOW,      /* slow cases not run: --full before handing in */
    NEXT_SPEED,     /* correct but speed points missing */
    NEXT_DONE,      /* none of the above: nothing to fix */
    N_NEXT_STEPS
};

struct overview {
    struct lost_item *lost;
    size_t n_lost, alloc_lost;
    struct not_run_item *not_run;
    size_t n_not_run, alloc_not_run;
    struct speed_item *speed;
    size_t n_speed, alloc_speed;
    size_t n_failures; /* lost items that are the submission's (not grader errors) */
    /* Hidden cases in the student view: how many (each once), their runs (one per variant),
     * and how the runs went. */
    size_t hidden_cases;
    size_t hidden_total, hidden_passed, hidden_failed, hidden_not_run;
    /* Every hidden case seen, once: (exercise, case id), and as what (counted in the student
     * view, or not run for a skip_kind). */
    struct hidden_seen {
        const struct exercise_result *ex;
        const char *case_id;
        int tag;
    } * seen;
    size_t n_seen, alloc_seen;
    /* What the score is of (score.h), and as printed, in hundredths: score of graded_shown;
     * not_graded_shown = the printed maximum less graded_shown, the sum of the parts above. */
    struct score_scope scope;
    long score_shown, max_shown, graded_shown, not_graded_shown;
    struct grade_gap_info gap;
    bool next[N_NEXT_STEPS];
};

/* hide_hidden: the student view (hidden cases as counts only). */
void overview_build(struct overview *o, const struct results *r, bool hide_hidden);
void overview_release(struct overview *o);

/* The case ids of a (non-hidden) item: "n256, n1024". Caller frees. */
char *lost_item_cases(const struct lost_item *it);

#endif

#include "report/points.h"

#include "base/alloc.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

long hundredths(double points)
{
    return isfinite(points) ? lround(points * 100) : 0;
}

char *fmt_hundredths(long h)
{
    long whole = labs(h) / 100, frac = labs(h) % 100;
    const char *sign = h < 0 ? "-" : "";
    if (frac == 0)
        return xstrfmt("%s%ld", sign, whole);
    if (frac % 10 == 0)
        return xstrfmt("%s%ld.%ld", sign, whole, frac / 10);
    return xstrfmt("%s%ld.%02ld", sign, whole, frac);
}

/* The part that gets the next hundredth: the largest remainder not served yet this round,
 * the first on a tie; n when none is left. */
static size_t next_part(const double *rem, size_t n)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++)
        if (rem[i] >= 0 && (best == n || rem[i] > rem[best] + 1e-9))
            best = i;
    return best;
}

void apportion(const double *exact, size_t n, long total, long *out)
{
    long sum = 0;
    size_t positive = 0;
    double *rem = xcalloc(n ? n : 1, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        double x = isfinite(exact[i]) && exact[i] > 0 ? exact[i] * 100 : 0;
        /* 1e-6: 0.5 * 100 is 50 exactly, whatever a sum before it left in the last bit. */
        out[i] = (long)floor(x + 1e-6);
        rem[i] = x > 0 ? x - (double)out[i] : -2; /* -2: nothing to round, never served */
        if (rem[i] < 0 && x > 0)
            rem[i] = 0;
        positive += x > 0;
        sum += out[i];
    }
    /* Hundredths left over go to the largest remainders, one each; another round if needed
     * (only when the total came from a level above, rounded on its own). */
    while (sum < total && positive > 0) {
        size_t i = next_part(rem, n);
        if (i == n) {
            for (size_t k = 0; k < n; k++)
                rem[k] = rem[k] == -1 ? 0 : rem[k];
            continue;
        }
        out[i]++;
        rem[i] = -1;
        sum++;
    }
    /* Parts over the total give back from the last ones, never below 0. */
    for (size_t i = n; sum > total && i-- > 0;)
        while (sum > total && out[i] > 0) {
            out[i]--;
            sum--;
        }
    free(rem);
}

/* One exercise, given its printed points and maximum: the speed points and every case. The
 * earned parts first (speed points, passed cases), then the maxima: a passed case's maximum is
 * what it printed as earned, and the rest of the maximum is shared by the others. */
static void shown_exercise_of(const struct exercise_result *ex, struct shown_exercise *s)
{
    size_t n = 0, k = 0;
    for (size_t v = 0; v < ex->n_variants; v++)
        n += ex->variants[v].n_cases;
    s->n_cases = n;
    s->case_points = xcalloc(n + 1, sizeof(long));
    s->case_max = xcalloc(n + 1, sizeof(long));
    double *exact = xcalloc(n + 1, sizeof(double));
    long *out = xcalloc(n + 1, sizeof(long));
    /* Earned: [speed, cases...]; a case that did not pass earned nothing. */
    exact[0] = ex->perf_points;
    for (size_t v = 0; v < ex->n_variants; v++)
        for (size_t c = 0; c < ex->variants[v].n_cases; c++, k++)
            exact[k + 1] = ex->variants[v].cases[c].points;
    apportion(exact, n + 1, s->points, out);
    s->perf = out[0];
    memcpy(s->case_points, out + 1, n * sizeof(long));
    /* Maxima: the passed cases' are fixed; the speed points' and the others' share the rest. */
    long fixed = 0;
    k = 0;
    exact[0] = ex->perf_max_points;
    for (size_t v = 0; v < ex->n_variants; v++)
        for (size_t c = 0; c < ex->variants[v].n_cases; c++, k++) {
            const struct case_result *cr = &ex->variants[v].cases[c];
            bool full = cr->points > 0 && cr->points >= cr->max_points - 1e-9;
            exact[k + 1] = full ? 0 : cr->max_points;
            fixed += full ? s->case_points[k] : 0;
        }
    apportion(exact, n + 1, s->max - fixed, out);
    s->perf_max = out[0];
    k = 0;
    for (size_t v = 0; v < ex->n_variants; v++)
        for (size_t c = 0; c < ex->variants[v].n_cases; c++, k++) {
            const struct case_result *cr = &ex->variants[v].cases[c];
            bool full = cr->points > 0 && cr->points >= cr->max_points - 1e-9;
            s->case_max[k] = full ? s->case_points[k] : out[k + 1];
        }
    free(exact);
    free(out);
}

void shown_points_of(const struct results *r, struct shown_points *sp)
{
    size_t n = r->n_exercises;
    memset(sp, 0, sizeof(*sp));
    sp->score = hundredths(r->score);
    sp->max = hundredths(r->max_score);
    sp->n_ex = n;
    sp->ex = xcalloc(n + 1, sizeof(*sp->ex));
    double *exact = xcalloc(n + 1, sizeof(double));
    long *out = xcalloc(n + 1, sizeof(long));
    for (size_t e = 0; e < n; e++)
        exact[e] = r->exercises[e].points;
    apportion(exact, n, sp->score, out);
    for (size_t e = 0; e < n; e++)
        sp->ex[e].points = out[e];
    for (size_t e = 0; e < n; e++)
        exact[e] = r->exercises[e].max_points;
    apportion(exact, n, sp->max, out);
    for (size_t e = 0; e < n; e++) {
        sp->ex[e].max = out[e];
        shown_exercise_of(&r->exercises[e], &sp->ex[e]);
    }
    free(exact);
    free(out);
}

void shown_points_release(struct shown_points *sp)
{
    for (size_t e = 0; e < sp->n_ex; e++) {
        free(sp->ex[e].case_points);
        free(sp->ex[e].case_max);
    }
    free(sp->ex);
    memset(sp, 0, sizeof(*sp));
}

bool shown_case(const struct shown_points *sp, const struct results *r,
                const struct case_result *cr, long *points, long *max)
{
    for (size_t e = 0; e < r->n_exercises && e < sp->n_ex; e++) {
        size_t k = 0;
        for (size_t v = 0; v < r->exercises[e].n_variants; v++) {
            const struct variant_result *vr = &r->exercises[e].variants[v];
            if (cr >= vr->cases && cr < vr->cases + vr->n_cases) {
                k += (size_t)(cr - vr->cases);
                *points = sp->ex[e].case_points[k];
                *max = sp->ex[e].case_max[k];
                return true;
            }
            k += vr->n_cases;
        }
    }
    return false;
}

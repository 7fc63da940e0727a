/* result.txt as a run of two cases left it (runner_parse_result). The file is written inside
 * the student's process, so a submission can write anything there. Either the run is tampered
 * (nothing of it counts), or every series that stays is whole: a function's host samples and,
 * when paired, the reference's, each as many as its pairs (read here to the last, so that
 * AddressSanitizer sees any short array), the order of every pair, and only cases begun in
 * order. */
#include "fuzz.h"

#include "run/runner.h"

static double sum_of(const double *x, size_t n)
{
    double s = 0;
    for (size_t i = 0; x && i < n; i++)
        s += x[i];
    return s;
}

static void check_series(const struct run_series *s)
{
    FUZZ_ASSERT(s->stu_host != NULL);
    FUZZ_ASSERT(!s->paired || s->ref_host != NULL);
    /* NaN never: append_numbers takes times from -1 up to 1e12. */
    double total = sum_of(s->stu_host, s->n) + sum_of(s->ref_host, s->n) +
                   sum_of(s->stu_event, s->n) + sum_of(s->ref_event, s->n);
    FUZZ_ASSERT(total == total);
    if (s->order) {
        FUZZ_ASSERT(strlen(s->order) >= s->n || (s->n == 0 && !strcmp(s->order, "-")));
        for (size_t i = 0; i < s->n; i++)
            FUZZ_ASSERT(s->order[i] == '0' || s->order[i] == '1');
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = xmalloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct run_outcome o;
    run_outcome_init(&o);
    o.n_cases = 2;
    o.cases = xcalloc(o.n_cases, sizeof(*o.cases));
    runner_parse_result(&o, text);
    FUZZ_ASSERT(o.last_case >= -1 && o.last_case < (int)o.n_cases);
    for (size_t i = 0; !o.tampered && i < o.n_cases; i++) {
        const struct run_case_outcome *c = &o.cases[i];
        FUZZ_ASSERT(!c->started || (int)i <= o.last_case);
        FUZZ_ASSERT(!c->finished || c->started);
        for (int k = 0; k < RUN_SERIES_COUNT; k++)
            if (c->series[k].present)
                check_series(&c->series[k]);
    }
    FUZZ_ASSERT(!o.finished || o.tampered || o.last_case < 0 || o.cases[o.last_case].finished);
    run_outcome_release(&o);
    free(text);
    return 0;
}

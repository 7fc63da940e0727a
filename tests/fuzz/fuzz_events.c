/* The control pipe's lines as a run of two cases left them (runner_apply_events). The
 * harness writes them, and so can the submission (its descriptor is in the environment, and a
 * constructor runs before the harness's first line). Either the run is tampered, or the
 * stages' times are whole numbers of the run's own seconds: never negative, never more than
 * the run lasted, only for cases begun. Each input line is one event (63 bytes kept, as the
 * supervisor keeps them), a millisecond after the one before. */
#include "fuzz.h"

#include "run/runner.h"

#define MAX_EVENTS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct run_outcome o;
    struct run_spec s;
    memset(&s, 0, sizeof(s));
    s.n_cases = 2;
    run_outcome_init(&o);
    o.n_cases = s.n_cases;
    o.cases = xcalloc(o.n_cases, sizeof(*o.cases));
    o.sb.events = xcalloc(MAX_EVENTS, sizeof(*o.sb.events));
    for (size_t p = 0; p < size && o.sb.n_events < MAX_EVENTS;) {
        const uint8_t *nl = memchr(data + p, '\n', size - p);
        size_t len = nl ? (size_t)(nl - (data + p)) : size - p;
        struct sandbox_event *e = &o.sb.events[o.sb.n_events];
        size_t keep = len < sizeof(e->line) - 1 ? len : sizeof(e->line) - 1;
        memcpy(e->line, data + p, keep);
        e->line[keep] = '\0';
        e->t_s = 0.001 * (double)(o.sb.n_events + 1);
        e->t_after_s = e->t_s - 0.0005;
        o.sb.n_events++;
        p += len + 1;
    }
    o.sb.wall_s = 0.001 * (double)(o.sb.n_events + 2);
    runner_apply_events(&s, &o);
    for (size_t i = 0; !o.tampered && i < o.n_cases; i++) {
        double sum = 0;
        for (int k = 0; k < RUN_STAGE_COUNT; k++) {
            FUZZ_ASSERT(o.cases[i].stage_s[k] >= 0);
            sum += o.cases[i].stage_s[k];
        }
        FUZZ_ASSERT(sum <= o.sb.wall_s + 1e-9);
        FUZZ_ASSERT(o.cases[i].wall_s >= 0 && o.cases[i].wall_s <= o.sb.wall_s + 1e-9);
    }
    run_outcome_release(&o);
    return 0;
}

/* results.json as the grader reads it back (results_from_json, with its checks), then what
 * reports and exports do with whatever passed: written back, a file that passed reads back
 * to the same bytes, and every export renders it. */
#include "fuzz.h"

#include "grade/results.h"
#include "report/export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct results r, back;
    struct error err;
    results_init(&r);
    error_init(&err);
    if (results_from_json(&r, (const char *)data, size, "fuzz.json", &err) != 0) {
        FUZZ_ASSERT(err.msg[0] != '\0');
        FUZZ_ASSERT(r.exercises == NULL && r.lab_id == NULL);
        return 0;
    }
    struct strbuf once = STRBUF_INIT, twice = STRBUF_INIT, out = STRBUF_INIT;
    results_to_json(&r, &once);
    results_init(&back);
    /* What the grader wrote from verified results must read back, and say the same. */
    FUZZ_ASSERT(results_from_json(&back, once.buf, once.len, "again.json", &err) == 0);
    results_to_json(&back, &twice);
    FUZZ_ASSERT(once.len == twice.len && memcmp(once.buf, twice.buf, once.len) == 0);
    const struct results *all[] = {&r, &back};
    struct gradebook_opts gb = {.column = "Lab", .points = 10, .now = 1};
    size_t left_out = 0;
    export_gradebook_csv_text(all, 2, &out);
    export_gradebook_canvas_csv_text(all, 2, &gb, &out);
    export_gradebook_moodle_csv_text(all, 2, &gb, &out, &left_out);
    export_moodle_worksheet_text(all, 2, &gb, &out);
    for (int view = 0; view < 2; view++) {
        struct gradescope_opts gs = {.student_view = view, .scale_to = view ? 10 : 0};
        struct junit_opts ju = {.student_view = view};
        export_gradescope_text(&r, &gs, &out);
        export_junit_text(&r, &ju, &out);
    }
    strbuf_release(&once);
    strbuf_release(&twice);
    strbuf_release(&out);
    results_release(&back);
    results_release(&r);
    return 0;
}

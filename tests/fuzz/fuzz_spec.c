/* The lab spec loader (lab.yaml: YAML, then every key validated, then every case planned)
 * on any bytes: refused with file:line:col, or loaded and queried. The lab folder holds the
 * reference source the seeds name (ref_min.c), so valid specs get past the file checks. */
#include "fuzz.h"

#include "spec/spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    if (!ready) {
        static const char ref[] = "void ref_min(const float *x, float *y, int n)\n"
                                  "{\n    for (int i = 0; i < n; i++)\n        y[i] = x[i];\n}\n";
        free(fuzz_file("ref_min.c", (const uint8_t *)ref, strlen(ref)));
        ready = true;
    }
    char *path = fuzz_file("lab.yaml", data, size);
    struct lab lab;
    struct error err;
    lab_init(&lab);
    error_init(&err);
    if (spec_load(&lab, path, fuzz_dir(), &err) != 0) {
        FUZZ_ASSERT(err.msg[0] != '\0');
    } else {
        for (size_t e = 0; e < lab.n_exercises; e++) {
            const struct exercise_spec *ex = &lab.exercises[e];
            FUZZ_ASSERT(lab_exercise(&lab, ex->id) == ex);
            for (size_t v = 0; v < ex->n_variants; v++)
                FUZZ_ASSERT(exercise_variant(ex, ex->variants[v].id) == &ex->variants[v]);
            exercise_sanitizer_case(ex);
            exercise_has_gpu(ex);
        }
    }
    lab_release(&lab);
    free(path);
    return 0;
}

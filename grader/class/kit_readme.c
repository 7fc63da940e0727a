/*
 * kit_readme: the students' README.md of a kit, rendered from templates/<lang>/kit.md with
 * the kit's own spec as data (kitpack.h). The spec is the instructor's text, inserted as it
 * is: a README is not a report, and nothing in it comes from a submission.
 */
#include "class/kitpack.h"

#include "base/alloc.h"
#include "base/template.h"

#include <stdio.h>
#include <string.h>

static void add_functions(const struct lab *lab, struct tpl_value *ctx)
{
    struct tpl_value *list = tpl_set_list(ctx, "functions");
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        for (size_t v = 0; v < ex->n_variants; v++) {
            const struct variant_spec *var = &ex->variants[v];
            for (size_t i = 0; i < var->student.n_sources; i++) {
                struct tpl_value *f = tpl_push_map(list);
                tpl_set_str(f, "source", var->student.sources[i]);
                tpl_set_str(f, "function", var->student.function);
                tpl_set_str(f, "exercise", ex->id);
                tpl_set_str(f, "variant", var->id);
            }
        }
    }
}

/* The first slow case (for --full's line) and the first quick one (for --case's). */
static void add_examples(const struct lab *lab, struct tpl_value *ctx)
{
    const char *slow = NULL;
    bool example = false;
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        for (size_t c = 0; c < ex->n_cases; c++) {
            if (ex->cases[c].withheld)
                continue;
            if (ex->cases[c].slow && !slow)
                slow = ex->cases[c].id;
            if (!ex->cases[c].slow && !example) {
                struct tpl_value *m = tpl_set_map(ctx, "example");
                tpl_set_str(m, "exercise", ex->id);
                tpl_set_str(m, "case", ex->cases[c].id);
                example = true;
            }
        }
    }
    tpl_set_str(ctx, "slow_case", slow ? slow : "");
    if (!example)
        tpl_set_bool(ctx, "example", false);
}

/* How many hidden cases the instructor's exercise of this id has (the kit's are withheld, and
 * an exercise of hidden cases alone is not in it): the count the students are told, the true
 * one. */
static size_t hidden_of(const struct lab *full, const char *id)
{
    const struct exercise_spec *ex = lab_exercise(full, id);
    size_t n = 0;
    for (size_t c = 0; ex && c < ex->n_cases; c++)
        n += ex->cases[c].hidden;
    return n;
}

static void add_exercises(const struct lab *lab, const struct lab *full, struct tpl_value *ctx)
{
    struct tpl_value *list = tpl_set_list(ctx, "exercises");
    size_t total = 0;
    for (size_t e = 0; e < lab->n_exercises; e++) {
        const struct exercise_spec *ex = &lab->exercises[e];
        struct tpl_value *m = tpl_push_map(list);
        size_t hidden = hidden_of(full, ex->id);
        total += hidden;
        tpl_set_num(m, "hidden", (double)hidden);
        tpl_set_bool(m, "has_hidden", hidden > 0);
        tpl_set_bool(m, "one_hidden", hidden == 1);
        tpl_set_str(m, "id", ex->id);
        tpl_set_str(m, "title", ex->title ? ex->title : "");
        tpl_set_mdf(m, "points", "%g", ex->points);
        if (ex->has_perf && ex->perf.points > 0)
            tpl_set_mdf(m, "perf_points", "%g", ex->perf.points);
        else
            tpl_set_str(m, "perf_points", "");
        struct tpl_value *vars = tpl_set_list(m, "variants");
        for (size_t v = 0; v < ex->n_variants; v++)
            tpl_set_str(tpl_push_map(vars), "id", ex->variants[v].id);
        struct tpl_value *cases = tpl_set_list(m, "cases");
        for (size_t c = 0; c < ex->n_cases; c++) {
            if (ex->cases[c].withheld)
                continue;
            struct tpl_value *k = tpl_push_map(cases);
            tpl_set_str(k, "id", ex->cases[c].id);
            tpl_set_bool(k, "slow", ex->cases[c].slow);
        }
    }
    tpl_set_num(ctx, "hidden_total", (double)total);
    tpl_set_bool(ctx, "had_hidden", total > 0);
    tpl_set_bool(ctx, "one_hidden", total == 1);
}

static bool has_references(const struct lab *lab)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++)
            if (lab->exercises[e].variants[v].has_reference)
                return true;
    return false;
}

int kit_readme(const struct lab *kit_lab, const struct lab *full, const char *templates_dir,
               struct strbuf *out, struct error *err)
{
    struct tpl_value *ctx = tpl_map();
    struct template t;
    struct tpl_render_opts ro = {NULL, true};
    char *labdir = xstrfmt("labs/lab%ld", kit_lab->number);
    char *path = xstrfmt("%s/%s/kit.md", templates_dir, kit_lab->lang ? kit_lab->lang : "en");
    tpl_set_num(ctx, "number", (double)kit_lab->number);
    tpl_set_str(ctx, "id", kit_lab->id ? kit_lab->id : "");
    tpl_set_str(ctx, "title", kit_lab->title ? kit_lab->title : "");
    tpl_set_str(ctx, "course", kit_lab->course ? kit_lab->course : "");
    tpl_set_str(ctx, "labdir", labdir);
    tpl_set_bool(ctx, "reference_objects",
                 !kit_lab->kit_reference_sources && has_references(kit_lab));
    add_functions(kit_lab, ctx);
    add_examples(kit_lab, ctx);
    add_exercises(kit_lab, full, ctx);
    template_init(&t);
    int rc = template_load(&t, path, err);
    if (rc == 0)
        rc = template_render(&t, ctx, &ro, out, err);
    template_release(&t);
    tpl_value_free(ctx);
    free(labdir);
    free(path);
    return rc;
}

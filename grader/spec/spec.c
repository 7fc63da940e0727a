#include "spec/spec.h"

#include "base/alloc.h"

#include <math.h>
#include <string.h>

const char *const spec_kind_names[] = {"in", "out", "inout", "scalar", NULL};
const char *const spec_mem_names[] = {"host", "pinned", "device", NULL};
const char *const spec_transfer_names[] = {"host", "pinned", NULL};
const char *const spec_target_names[] = {"cpu", "gpu", NULL};
const char *const spec_dist_names[] = {"uniform", "normal", "arange", "constant", "integers", NULL};
const char *const spec_lang_names[] = {"es", "en", NULL};

const char *const sanitizer_tools[] = {"memcheck", "racecheck", "initcheck", "synccheck", NULL};

bool sanitizer_tool_known(const char *name)
{
    for (size_t i = 0; name && sanitizer_tools[i]; i++)
        if (!strcmp(sanitizer_tools[i], name))
            return true;
    return false;
}

/* The lists are NULL-terminated and counted here, so that a name added to one (as "integers"
 * was to spec_dist_names) cannot be left out of its lookup by a stale count. */
static const char *enum_name(const char *const *names, int v)
{
    for (int i = 0; v >= 0 && names[i]; i++)
        if (i == v)
            return names[i];
    return "invalid";
}

const char *arg_kind_name(enum arg_kind k)
{
    return enum_name(spec_kind_names, (int)k);
}

const char *mem_space_name(enum mem_space m)
{
    return enum_name(spec_mem_names, (int)m);
}

const char *target_name(enum target t)
{
    return enum_name(spec_target_names, (int)t);
}

const char *dist_name(enum dist d)
{
    return enum_name(spec_dist_names, (int)d);
}

/* ---- lifetime ---- */

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void impl_release(struct impl_spec *impl)
{
    free(impl->function);
    free_strings(impl->sources, impl->n_sources);
    free_strings(impl->libs, impl->n_libs);
}

static void sanitizer_spec_release(struct sanitizer_spec *s)
{
    free_strings(s->tools, s->n_tools);
    free(s->case_id);
    memset(s, 0, sizeof(*s));
}

static void tolerance_release(struct tolerance *t)
{
    free(t->rtol_expr);
    free(t->atol_expr);
}

static void exercise_release(struct exercise_spec *ex)
{
    free(ex->id);
    free(ex->title);
    free_strings(ex->params, ex->n_params);
    for (size_t i = 0; ex->args && i < ex->n_args; i++) {
        struct arg_spec *a = &ex->args[i];
        free(a->name);
        free(a->ctype);
        free_strings(a->shape, a->n_shape);
        free(a->value);
        tolerance_release(&a->tol);
    }
    free(ex->args);
    for (size_t i = 0; ex->variants && i < ex->n_variants; i++) {
        struct variant_spec *v = &ex->variants[i];
        free(v->id);
        free(v->title);
        impl_release(&v->student);
        impl_release(&v->reference);
        for (size_t j = 0; v->mem && j < v->n_mem; j++)
            free(v->mem[j].arg);
        free(v->mem);
    }
    free(ex->variants);
    for (size_t i = 0; ex->cases && i < ex->n_cases; i++) {
        struct case_spec *c = &ex->cases[i];
        free(c->id);
        for (size_t j = 0; c->sizes && j < c->n_sizes; j++)
            free(c->sizes[j].name);
        free(c->sizes);
        tolerance_release(&c->tol);
        for (size_t j = 0; c->inits && j < c->n_inits; j++)
            free(c->inits[j].arg);
        free(c->inits);
        free(c->args);
    }
    free(ex->cases);
    for (size_t j = 0; ex->precision_check && j < ex->n_precision_check; j++)
        free(ex->precision_check[j].arg);
    free(ex->precision_check);
    tolerance_release(&ex->tol);
    free(ex->tol_note);
    free(ex->profile_case);
    free(ex->baseline);
    free(ex->oracle);
    free(ex->flops);
    free(ex->bytes);
    free(ex->perf.variant);
    sanitizer_spec_release(&ex->sanitizer);
}

void lab_init(struct lab *lab)
{
    memset(lab, 0, sizeof(*lab));
}

void lab_release(struct lab *lab)
{
    free(lab->path);
    free(lab->dir);
    free(lab->root);
    free(lab->id);
    free(lab->title);
    free(lab->course);
    free(lab->lang);
    free(lab->cflags);
    free(lab->nvccflags);
    free(lab->ldflags);
    free_strings(lab->allow_symbols, lab->n_allow_symbols);
    sanitizer_spec_release(&lab->sanitizer);
    free(lab->late.deadline);
    free(lab->gradescope.hidden_visibility);
    for (size_t i = 0; lab->exercises && i < lab->n_exercises; i++)
        exercise_release(&lab->exercises[i]);
    free(lab->exercises);
    lab_init(lab);
}

/* ---- lookups ---- */

const struct exercise_spec *lab_exercise(const struct lab *lab, const char *id)
{
    for (size_t i = 0; id && i < lab->n_exercises; i++)
        if (lab->exercises[i].id && !strcmp(lab->exercises[i].id, id))
            return &lab->exercises[i];
    return NULL;
}

const struct variant_spec *exercise_variant(const struct exercise_spec *ex, const char *id)
{
    for (size_t i = 0; id && i < ex->n_variants; i++)
        if (ex->variants[i].id && !strcmp(ex->variants[i].id, id))
            return &ex->variants[i];
    return NULL;
}

int exercise_arg_index(const struct exercise_spec *ex, const char *name)
{
    for (size_t i = 0; name && i < ex->n_args; i++)
        if (ex->args[i].name && !strcmp(ex->args[i].name, name))
            return (int)i;
    return -1;
}

enum mem_space variant_arg_memory(const struct variant_spec *v, const struct exercise_spec *ex,
                                  size_t i)
{
    if (i >= ex->n_args || ex->args[i].kind == ARG_SCALAR || ex->args[i].is_return)
        return MEM_HOST;
    for (size_t j = 0; j < v->n_mem; j++)
        if (v->mem[j].arg && !strcmp(v->mem[j].arg, ex->args[i].name))
            return v->mem[j].mem;
    return v->memory;
}

bool exercise_has_gpu(const struct exercise_spec *ex)
{
    for (size_t i = 0; i < ex->n_variants; i++)
        if (ex->variants[i].target == TARGET_GPU)
            return true;
    return false;
}

const struct case_spec *exercise_sanitizer_case(const struct exercise_spec *ex)
{
    const struct case_spec *best = NULL;
    if (ex->sanitizer.case_id) {
        for (size_t i = 0; i < ex->n_cases; i++)
            if (!strcmp(ex->cases[i].id, ex->sanitizer.case_id))
                return &ex->cases[i];
        return NULL;
    }
    /* Quick cases first: a slow one only when there is nothing else. */
    for (int allow_slow = 0; allow_slow < 2 && !best; allow_slow++)
        for (size_t i = 0; i < ex->n_cases; i++) {
            const struct case_spec *c = &ex->cases[i];
            if (c->hidden || (c->slow && !allow_slow))
                continue;
            if (!best || c->array_bytes < best->array_bytes)
                best = c;
        }
    return best;
}

double exercise_case_points(const struct exercise_spec *ex, size_t case_index)
{
    if (case_index >= ex->n_cases || ex->n_cases == 0)
        return 0;
    if (ex->cases[case_index].points >= 0)
        return ex->cases[case_index].points;
    return ex->points / (double)ex->n_cases;
}

void perf_band_edges(const struct perf_spec *p, double edges[PERF_BANDS])
{
    for (int j = 0; j < PERF_BANDS; j++)
        edges[j] = j == 0 ? p->full_at : p->full_at * pow(p->zero_at / p->full_at, j / 10.0);
}

/* The share is 1 less a tenth for each edge the ratio is past. An edge computed a rounding away
 * from the exact one must not drop a ratio that lies on it: the comparison allows for that. */
double perf_share(const struct perf_spec *p, double ratio)
{
    double edges[PERF_BANDS];
    if (!(ratio > 0))
        return -1;
    perf_band_edges(p, edges);
    int past = 0;
    for (int j = 0; j < PERF_BANDS; j++)
        past += ratio > edges[j] * (1 + 1e-12);
    return (10 - past) / 10.0;
}

/* mutconst: whole-function constant answers. See mutconst.h. */
#include "analyze/mutconst.h"

#include "base/alloc.h"
#include "base/strbuf.h"

#include <ctype.h>
#include <string.h>

/* The function's parameter for argument a: arguments in order, the return value (`returns`)
 * not among them. NULL for the return value or a parameter without a name. */
static const char *param_of(const struct exercise_spec *ex, const struct syn_func *f, size_t a)
{
    size_t p = 0;
    for (size_t i = 0; i < a; i++)
        p += !ex->args[i].is_return;
    return ex->args[a].is_return || p >= f->n_params ? NULL : f->params[p].name;
}

/* The function's name for the size parameter `name`: the parameter at the position of the
 * scalar argument whose value is exactly that name. NULL when none. */
static const char *param_for(const struct exercise_spec *ex, const struct syn_func *f,
                             const char *name, size_t len)
{
    for (size_t a = 0; a < ex->n_args; a++) {
        const struct arg_spec *arg = &ex->args[a];
        if (arg->kind == ARG_SCALAR && arg->value && strlen(arg->value) == len &&
            !strncmp(arg->value, name, len))
            return param_of(ex, f, a);
    }
    return NULL;
}

/* An array the function is given (shape [] is one element), not its return value. */
static bool is_array(const struct arg_spec *a)
{
    return a->kind != ARG_SCALAR && !a->is_return;
}

/* A shape expression in C, over the function's parameters: names, digits, + - * ( ). */
static bool shape_c(struct strbuf *out, const char *e, const struct exercise_spec *ex,
                    const struct syn_func *f)
{
    for (const char *p = e; *p;) {
        if (isalpha((unsigned char)*p) || *p == '_') {
            const char *q = p;
            while (isalnum((unsigned char)*q) || *q == '_')
                q++;
            const char *name = param_for(ex, f, p, (size_t)(q - p));
            if (!name)
                return false;
            strbuf_addf(out, "(size_t)%s", name);
            p = q;
        } else if (isdigit((unsigned char)*p) || strchr("+-*() ", *p)) {
            strbuf_addch(out, *p++);
        } else {
            return false;
        }
    }
    return true;
}

/* Bytes of array argument i: "(dim) * (dim) * sizeof(*p)"; NULL when not expressible. */
static char *bytes_of(const struct exercise_spec *ex, size_t i, const struct syn_func *f)
{
    struct strbuf out = STRBUF_INIT;
    const char *p = param_of(ex, f, i);
    if (!p || !is_array(&ex->args[i]))
        return NULL;
    for (size_t d = 0; d < ex->args[i].n_shape; d++) {
        strbuf_addch(&out, '(');
        if (!shape_c(&out, ex->args[i].shape[d], ex, f)) {
            strbuf_release(&out);
            return NULL;
        }
        strbuf_addstr(&out, ") * ");
    }
    strbuf_addf(&out, "sizeof(*%s)", p);
    return strbuf_detach(&out);
}

static bool is_output(const struct arg_spec *a)
{
    return a->kind == ARG_OUT || a->kind == ARG_INOUT;
}

static bool same_shape(const struct arg_spec *a, const struct arg_spec *b)
{
    if (a->dtype != b->dtype || a->n_shape != b->n_shape)
        return false;
    for (size_t d = 0; d < a->n_shape; d++)
        if (strcmp(a->shape[d], b->shape[d]))
            return false;
    return true;
}

/* Set output i to zeros, or to a copy of input `from` (SIZE_MAX: zeros). */
static bool fill(struct strbuf *body, const struct exercise_spec *ex, const struct variant_spec *v,
                 const struct syn_func *f, size_t i, size_t from)
{
    char *bytes = bytes_of(ex, i, f);
    if (!bytes)
        return false;
    const char *p = f->params[i].name;
    bool gpu = v->target == TARGET_GPU;
    if (from != SIZE_MAX)
        strbuf_addf(body,
                    gpu ? "    cudaMemcpy(%s, %s, %s, cudaMemcpyDefault);\n"
                        : "    memcpy(%s, %s, %s);\n",
                    p, f->params[from].name, bytes);
    else if (gpu && variant_arg_memory(v, ex, i) == MEM_DEVICE)
        strbuf_addf(body, "    cudaMemset(%s, 0, %s);\n", p, bytes);
    else
        strbuf_addf(body, "    memset(%s, 0, %s);\n", p, bytes);
    free(bytes);
    return true;
}

/* The new body: outputs filled (the first one echoing input `echo` unless SIZE_MAX), every
 * parameter used, 0 returned when the function returns a value. false when some output's size
 * cannot be written, or when there is nothing to fill. */
static bool const_body(struct strbuf *body, const struct exercise_spec *ex,
                       const struct variant_spec *v, const struct syn_func *f, size_t echo)
{
    bool first = true, returns = false;
    strbuf_addch(body, '\n');
    for (size_t i = 0; i < ex->n_args; i++) {
        returns |= ex->args[i].is_return;
        if (!is_array(&ex->args[i]) || !is_output(&ex->args[i]))
            continue;
        if (!fill(body, ex, v, f, i, first ? echo : SIZE_MAX))
            return false;
        first = false;
    }
    for (size_t i = 0; i < f->n_params; i++)
        if (f->params[i].name)
            strbuf_addf(body, "    (void)%s;\n", f->params[i].name);
    if (returns)
        strbuf_addstr(body, "    return 0;\n");
    return !first || (returns && echo == SIZE_MAX);
}

/* The input echoed into the first output: same dtype and shape. SIZE_MAX when none. */
static size_t echo_source(const struct exercise_spec *ex)
{
    size_t out = SIZE_MAX;
    for (size_t i = 0; i < ex->n_args && out == SIZE_MAX; i++)
        if (is_array(&ex->args[i]) && is_output(&ex->args[i]))
            out = i;
    for (size_t i = 0; out != SIZE_MAX && i < ex->n_args; i++)
        if (ex->args[i].kind == ARG_IN && is_array(&ex->args[i]) &&
            same_shape(&ex->args[i], &ex->args[out]))
            return i;
    return SIZE_MAX;
}

static void add(const struct token_list *l, const struct syn_func *f, enum mut_op op,
                const char *body, enum src_lang lang, struct mutant_list *out)
{
    struct mutant *m = mutant_new(out, op, l, f->name_tok);
    const struct token *open = &l->items[f->body_open], *close = &l->items[f->body_close];
    mutant_edit(m, 0, 0,
                lang == SRC_C ? "#include <string.h>\n"
                              : "#include <string.h>\n#include <cuda_runtime.h>\n");
    mutant_edit(m, open->offset + 1, close->offset - open->offset - 1, body);
}

void mutconst_generate(const struct token_list *l, const struct syntax *s, const struct syn_func *f,
                       const struct exercise_spec *ex, const struct variant_spec *v,
                       enum src_lang lang, struct mutant_list *out)
{
    struct strbuf body = STRBUF_INIT;
    size_t params = 0;
    (void)s;
    for (size_t i = 0; i < ex->n_args; i++)
        params += !ex->args[i].is_return;
    if (f->n_params != params)
        return;
    if (const_body(&body, ex, v, f, SIZE_MAX))
        add(l, f, MUT_ZERO_RESULT, strbuf_str(&body), lang, out);
    strbuf_reset(&body);
    size_t echo = echo_source(ex);
    if (echo != SIZE_MAX && const_body(&body, ex, v, f, echo))
        add(l, f, MUT_ECHO_INPUT, strbuf_str(&body), lang, out);
    strbuf_release(&body);
}

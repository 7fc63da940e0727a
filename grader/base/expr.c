#include "base/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deep enough for any real formula; bounded so that "((((..." cannot exhaust the stack. */
#define EXPR_MAX_DEPTH 200

void expr_env_init(struct expr_env *env)
{
    env->n = 0;
}

int expr_env_set(struct expr_env *env, const char *name, double value)
{
    for (size_t i = 0; i < env->n; i++) {
        if (!strcmp(env->vars[i].name, name)) {
            env->vars[i].value = value;
            return 0;
        }
    }
    if (env->n >= sizeof(env->vars) / sizeof(env->vars[0]))
        return -1;
    env->vars[env->n].name = name;
    env->vars[env->n].value = value;
    env->n++;
    return 0;
}

struct parser {
    const char *src;
    size_t pos;
    /* Evaluation looks names up in env; a check (check_only) only in names[]. */
    const struct expr_env *env;
    const char *const *names;
    size_t n_names;
    bool check_only;
    int depth;
    struct error *err;
};

static int parse_sum(struct parser *p, double *out);
static int parse_unary(struct parser *p, double *out);

static int fail_at(struct parser *p, size_t pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(struct parser *p, size_t pos, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return error_set(p->err, "at column %zu: %s", pos + 1, msg);
}

static void skip_spaces(struct parser *p)
{
    while (p->src[p->pos] && isspace((unsigned char)p->src[p->pos]))
        p->pos++;
}

static bool is_name_start(int c)
{
    return isalpha(c) || c == '_';
}

static bool is_name_char(int c)
{
    return isalnum(c) || c == '_';
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* Only the arithmetic results are checked: in check mode operands are placeholders. */
static int check_result(struct parser *p, size_t op_pos, char op, double v)
{
    if (!p->check_only && !isfinite(v))
        return fail_at(p, op_pos, "result of '%c' is not a finite number", op);
    return 0;
}

static int parse_number(struct parser *p, double *out)
{
    const char *s = p->src;
    size_t start = p->pos, i = p->pos, digits = 0;
    while (is_digit(s[i])) {
        i++;
        digits++;
    }
    if (s[i] == '.') {
        i++;
        while (is_digit(s[i])) {
            i++;
            digits++;
        }
    }
    if (digits == 0)
        return fail_at(p, start, "expected a digit");
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        if (s[i] == '+' || s[i] == '-')
            i++;
        if (!is_digit(s[i]))
            return fail_at(p, i, "expected a digit in the exponent");
        while (is_digit(s[i]))
            i++;
    }
    /* strtod on the scanned span alone: it would also take hex, "inf" and "nan". */
    char buf[128];
    size_t len = i - start;
    if (len >= sizeof(buf))
        return fail_at(p, start, "number too long");
    memcpy(buf, s + start, len);
    buf[len] = '\0';
    double v = strtod(buf, NULL);
    if (!isfinite(v))
        return fail_at(p, start, "number out of range");
    p->pos = i;
    *out = v;
    return 0;
}

static int lookup_name(struct parser *p, size_t start, size_t len, double *out)
{
    const char *name = p->src + start;
    if (p->check_only) {
        for (size_t i = 0; i < p->n_names; i++) {
            if (p->names[i] && strlen(p->names[i]) == len && !strncmp(p->names[i], name, len)) {
                *out = 1;
                return 0;
            }
        }
    } else if (p->env) {
        for (size_t i = 0; i < p->env->n; i++) {
            const char *v = p->env->vars[i].name;
            if (v && strlen(v) == len && !strncmp(v, name, len)) {
                *out = p->env->vars[i].value;
                return 0;
            }
        }
    }
    return fail_at(p, start, "unknown name '%.*s'", (int)(len > 64 ? 64 : len), name);
}

static int expect_char(struct parser *p, char c)
{
    skip_spaces(p);
    if (p->src[p->pos] != c)
        return fail_at(p, p->pos, "expected '%c'", c);
    p->pos++;
    return 0;
}

/* The functions an expression may call, as data: one argument, or two for min and max. */
static const struct {
    const char *name;
    int arity;
    double (*one)(double);
    double (*two)(double, double);
} functions[] = {
    {"min", 2, NULL, fmin},  {"max", 2, NULL, fmax},    {"log2", 1, log2, NULL},
    {"log", 1, log, NULL},   {"sqrt", 1, sqrt, NULL},   {"abs", 1, fabs, NULL},
    {"ceil", 1, ceil, NULL}, {"floor", 1, floor, NULL},
};

static int parse_call(struct parser *p, size_t start, size_t len, double *out)
{
    const char *name = p->src + start;
    size_t f = 0, n_functions = sizeof(functions) / sizeof(functions[0]);
    while (f < n_functions &&
           !(strlen(functions[f].name) == len && !strncmp(name, functions[f].name, len)))
        f++;
    if (f == n_functions)
        return fail_at(p, start,
                       "unknown function '%.*s' (expected min, max, log2, log, sqrt, abs, ceil "
                       "or floor)",
                       (int)(len > 64 ? 64 : len), name);
    double a, b = 0;
    p->pos++; /* '(' */
    if (parse_sum(p, &a))
        return -1;
    if (functions[f].arity == 2 && (expect_char(p, ',') || parse_sum(p, &b)))
        return -1;
    if (expect_char(p, ')'))
        return -1;
    *out = functions[f].arity == 2 ? functions[f].two(a, b) : functions[f].one(a);
    if (!p->check_only && !isfinite(*out))
        return fail_at(p, start, "%s() gives a result that is not a finite number",
                       functions[f].name);
    return 0;
}

static int parse_primary(struct parser *p, double *out)
{
    skip_spaces(p);
    int c = (unsigned char)p->src[p->pos];
    if (is_digit(c) || (c == '.' && is_digit((unsigned char)p->src[p->pos + 1])))
        return parse_number(p, out);
    if (is_name_start(c)) {
        size_t start = p->pos;
        while (is_name_char((unsigned char)p->src[p->pos]))
            p->pos++;
        size_t len = p->pos - start;
        skip_spaces(p);
        if (p->src[p->pos] == '(')
            return parse_call(p, start, len, out);
        return lookup_name(p, start, len, out);
    }
    if (c == '(') {
        p->pos++;
        if (parse_sum(p, out))
            return -1;
        return expect_char(p, ')');
    }
    return fail_at(p, p->pos, "expected a number, a name or '('");
}

/* primary ('^' unary)?: right-associative, and binds tighter than unary minus on its
 * left (-2^2 is -4) but accepts one on its right (2^-1). */
static int parse_power(struct parser *p, double *out)
{
    if (parse_primary(p, out))
        return -1;
    skip_spaces(p);
    if (p->src[p->pos] != '^')
        return 0;
    size_t op_pos = p->pos++;
    double rhs;
    if (parse_unary(p, &rhs))
        return -1;
    *out = pow(*out, rhs);
    return check_result(p, op_pos, '^', *out);
}

static int parse_unary(struct parser *p, double *out)
{
    if (++p->depth > EXPR_MAX_DEPTH)
        return fail_at(p, p->pos, "expression nested too deeply");
    int rc;
    skip_spaces(p);
    if (p->src[p->pos] == '-') {
        p->pos++;
        rc = parse_unary(p, out);
        if (!rc)
            *out = -*out;
    } else {
        rc = parse_power(p, out);
    }
    p->depth--;
    return rc;
}

static int parse_product(struct parser *p, double *out)
{
    if (parse_unary(p, out))
        return -1;
    for (;;) {
        skip_spaces(p);
        char op = p->src[p->pos];
        if (op != '*' && op != '/' && op != '%')
            return 0;
        size_t op_pos = p->pos++;
        double rhs;
        if (parse_unary(p, &rhs))
            return -1;
        if (op == '*') {
            *out *= rhs;
        } else {
            if (!p->check_only && rhs == 0)
                return fail_at(p, op_pos, "division by zero");
            *out = op == '/' ? *out / rhs : fmod(*out, rhs);
        }
        if (check_result(p, op_pos, op, *out))
            return -1;
    }
}

static int parse_sum(struct parser *p, double *out)
{
    if (parse_product(p, out))
        return -1;
    for (;;) {
        skip_spaces(p);
        char op = p->src[p->pos];
        if (op != '+' && op != '-')
            return 0;
        size_t op_pos = p->pos++;
        double rhs;
        if (parse_product(p, &rhs))
            return -1;
        *out = op == '+' ? *out + rhs : *out - rhs;
        if (check_result(p, op_pos, op, *out))
            return -1;
    }
}

static int parse_all(struct parser *p, double *out)
{
    if (!p->src)
        return error_set(p->err, "no expression");
    if (parse_sum(p, out))
        return -1;
    skip_spaces(p);
    if (p->src[p->pos])
        return fail_at(p, p->pos, "expected an operator or the end of the expression");
    return 0;
}

int expr_eval(const char *src, const struct expr_env *env, double *out, struct error *err)
{
    struct parser p = {.src = src, .env = env, .err = err};
    double v;
    if (parse_all(&p, &v))
        return -1;
    *out = v;
    return 0;
}

int expr_check(const char *src, const char *const *names, size_t n_names, struct error *err)
{
    struct parser p = {
        .src = src, .names = names, .n_names = n_names, .check_only = true, .err = err};
    double v;
    return parse_all(&p, &v);
}

#include "base/expr.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

static double eval_ok(const char *src, const struct expr_env *env)
{
    struct error err;
    double v = NAN;
    error_init(&err);
    ck_assert_msg(expr_eval(src, env, &v, &err) == 0, "'%s' failed: %s", src, err.msg);
    return v;
}

static void eval_fails(const char *src, const struct expr_env *env, const char *msg)
{
    struct error err;
    double v = 12345;
    error_init(&err);
    ck_assert_msg(expr_eval(src, env, &v, &err) == -1, "'%s' should fail", src);
    ck_assert_str_eq(err.msg, msg);
    ck_assert(v == 12345); /* untouched on failure */
}

static void env_n(struct expr_env *env, double n, double m)
{
    expr_env_init(env);
    ck_assert_int_eq(expr_env_set(env, "n", n), 0);
    ck_assert_int_eq(expr_env_set(env, "m", m), 0);
}

START_TEST(test_numbers)
{
    ck_assert(eval_ok("42", NULL) == 42);
    ck_assert(eval_ok("1e-3", NULL) == 1e-3);
    ck_assert(eval_ok("2.5E+2", NULL) == 250);
    ck_assert(eval_ok(".5", NULL) == 0.5);
    ck_assert(eval_ok("3.", NULL) == 3);
    ck_assert(eval_ok("  7  ", NULL) == 7);
}
END_TEST

START_TEST(test_precedence)
{
    ck_assert(eval_ok("2+3*4", NULL) == 14);
    ck_assert(eval_ok("(2+3)*4", NULL) == 20);
    ck_assert(eval_ok("10-4-3", NULL) == 3);   /* left-associative */
    ck_assert(eval_ok("100/10/5", NULL) == 2); /* left-associative */
    ck_assert(eval_ok("7 % 4 * 2", NULL) == 6);
    ck_assert(eval_ok("2*3^2", NULL) == 18); /* ^ above * */
    ck_assert(eval_ok("3*4*2^3", NULL) == 96);
    ck_assert(eval_ok("1 + 2 * (3 - 1) ^ 2 / 4", NULL) == 3);
}
END_TEST

START_TEST(test_power_right_assoc)
{
    ck_assert(eval_ok("2^3^2", NULL) == 512); /* 2^(3^2), not (2^3)^2 = 64 */
    ck_assert(eval_ok("(2^3)^2", NULL) == 64);
    ck_assert(eval_ok("2^-1", NULL) == 0.5);
    ck_assert(eval_ok("4^0.5", NULL) == 2);
}
END_TEST

START_TEST(test_unary_minus)
{
    ck_assert(eval_ok("-3", NULL) == -3);
    ck_assert(eval_ok("--3", NULL) == 3);
    ck_assert(eval_ok("-2^2", NULL) == -4); /* -(2^2) */
    ck_assert(eval_ok("(-2)^2", NULL) == 4);
    ck_assert(eval_ok("5*-2", NULL) == -10);
    ck_assert(eval_ok("1 - -1", NULL) == 2);
}
END_TEST

START_TEST(test_names_and_functions)
{
    struct expr_env env;
    env_n(&env, 7000, 3);
    ck_assert(eval_ok("2*n^3", &env) == 2 * 7000.0 * 7000.0 * 7000.0);
    ck_assert(eval_ok("3*4*n^2", &env) == 12 * 7000.0 * 7000.0);
    ck_assert(eval_ok("min(n, m)", &env) == 3);
    ck_assert(eval_ok("max(n, m) + 1", &env) == 7001);
    ck_assert(eval_ok("max(min(n, 10), -m)", &env) == 10);
    ck_assert(eval_ok("min ( n - 6999 , 5 )", &env) == 1);
    ck_assert(eval_ok("n % m", &env) == 1);
    /* One-argument functions: tolerances that grow with the size (labs/README.md). */
    ck_assert(eval_ok("log2(1024)", &env) == 10);
    ck_assert(eval_ok("2.4e-7*log2(2^20) + 1e-6", &env) == 2.4e-7 * 20 + 1e-6);
    ck_assert(eval_ok("sqrt(m*3)", &env) == 3);
    ck_assert(eval_ok("abs(-m) + ceil(0.5) + floor(1.5)", &env) == 5);
    ck_assert(fabs(eval_ok("log(n)", &env) - log(7000)) < 1e-12);
    /* A name that is also a function name is a variable unless called. */
    ck_assert_int_eq(expr_env_set(&env, "max", 9), 0);
    ck_assert(eval_ok("max + max(1, 2)", &env) == 11);
    /* Setting an existing name replaces its value. */
    ck_assert_int_eq(expr_env_set(&env, "n", 5), 0);
    ck_assert_uint_eq(env.n, 3);
    ck_assert(eval_ok("n", &env) == 5);
}
END_TEST

START_TEST(test_env_full)
{
    static const char *names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i",
                                  "j", "k", "l", "m", "n", "o", "p", "q"};
    struct expr_env env;
    expr_env_init(&env);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(expr_env_set(&env, names[i], i), 0);
    ck_assert_int_eq(expr_env_set(&env, names[16], 16), -1);
    ck_assert_int_eq(expr_env_set(&env, "p", 100), 0); /* replacing still works */
    ck_assert(eval_ok("p + a", &env) == 100);
}
END_TEST

START_TEST(test_syntax_errors)
{
    eval_fails("", NULL, "at column 1: expected a number, a name or '('");
    eval_fails("2*(3+4", NULL, "at column 7: expected ')'");
    eval_fails("n*(n+1", NULL, "at column 1: unknown name 'n'");
    eval_fails("1 +", NULL, "at column 4: expected a number, a name or '('");
    eval_fails("2 3", NULL, "at column 3: expected an operator or the end of the expression");
    eval_fails("2n", NULL, "at column 2: expected an operator or the end of the expression");
    eval_fails("1e", NULL, "at column 3: expected a digit in the exponent");
    eval_fails("3 $ 4", NULL, "at column 3: expected an operator or the end of the expression");
    eval_fails("min(1)", NULL, "at column 6: expected ','");
    eval_fails("max(1, 2", NULL, "at column 9: expected ')'");
    eval_fails("cbrt(8)", NULL,
               "at column 1: unknown function 'cbrt' (expected min, max, log2, log, sqrt, abs, "
               "ceil or floor)");
    eval_fails("log2(0)", NULL, "at column 1: log2() gives a result that is not a finite number");
    eval_fails("sqrt(1, 2)", NULL, "at column 7: expected ')'");
    eval_fails("+1", NULL, "at column 1: expected a number, a name or '('");
    eval_fails("1e999", NULL, "at column 1: number out of range");
}
END_TEST

START_TEST(test_unknown_names)
{
    struct expr_env env;
    env_n(&env, 4, 2);
    eval_fails("n * k", &env, "at column 5: unknown name 'k'");
    eval_fails("N", &env, "at column 1: unknown name 'N'"); /* case-sensitive */
    eval_fails("n", NULL, "at column 1: unknown name 'n'");
}
END_TEST

START_TEST(test_arithmetic_errors)
{
    struct expr_env env;
    env_n(&env, 4, 2);
    eval_fails("1/0", NULL, "at column 2: division by zero");
    eval_fails("n / (m - 2)", &env, "at column 3: division by zero");
    eval_fails("n % (2*m - 4)", &env, "at column 3: division by zero");
    eval_fails("0^-1", NULL, "at column 2: result of '^' is not a finite number");
    eval_fails("(-8)^(1/3)", NULL, "at column 5: result of '^' is not a finite number");
    eval_fails("1e300*1e300", NULL, "at column 6: result of '*' is not a finite number");
}
END_TEST

START_TEST(test_deep_nesting)
{
    char buf[1024];
    size_t i = 0;
    for (; i < 500; i++)
        buf[i] = '(';
    buf[i++] = '1';
    buf[i] = '\0';
    struct error err;
    double v;
    error_init(&err);
    ck_assert_int_eq(expr_eval(buf, NULL, &v, &err), -1);
    ck_assert_str_eq(err.msg, "at column 201: expression nested too deeply");
}
END_TEST

START_TEST(test_check)
{
    static const char *const params[] = {"n", "k"};
    struct error err;
    error_init(&err);
    ck_assert_int_eq(expr_check("2*n^3 + k/n", params, 2, &err), 0);
    /* Division by a name cannot be judged without values. */
    ck_assert_int_eq(expr_check("n/(k-k)", params, 2, &err), 0);
    ck_assert_int_eq(expr_check("min(n, k) % 3", params, 2, &err), 0);
    ck_assert_int_eq(expr_check("n*m", params, 2, &err), -1);
    ck_assert_str_eq(err.msg, "at column 3: unknown name 'm'");
    ck_assert_int_eq(expr_check("n", NULL, 0, &err), -1);
    ck_assert_str_eq(err.msg, "at column 1: unknown name 'n'");
    ck_assert_int_eq(expr_check("(n", params, 2, &err), -1);
    ck_assert_str_eq(err.msg, "at column 3: expected ')'");
    /* Literal division by zero is left to evaluation too: check validates names and syntax. */
    ck_assert_int_eq(expr_check("1/0", params, 2, &err), 0);
}
END_TEST

static Suite *expr_suite(void)
{
    Suite *s = suite_create("expr");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_numbers);
    tcase_add_test(tc, test_precedence);
    tcase_add_test(tc, test_power_right_assoc);
    tcase_add_test(tc, test_unary_minus);
    tcase_add_test(tc, test_names_and_functions);
    tcase_add_test(tc, test_env_full);
    tcase_add_test(tc, test_syntax_errors);
    tcase_add_test(tc, test_unknown_names);
    tcase_add_test(tc, test_arithmetic_errors);
    tcase_add_test(tc, test_deep_nesting);
    tcase_add_test(tc, test_check);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(expr_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * plan: every case of a lab resolved once, when the spec loads.
 *
 * For each case of each exercise, plan_resolve_exercise() evaluates what the spec writes as
 * expressions (shapes, scalar values, tolerances, work formulas), applies the case's own
 * tolerance and inputs over the exercise's, draws the checked calls' seeds, and stores the
 * result in the case (struct case_spec's `args`, `flops`, `bytes`, `array_bytes`, `seeds`).
 * A bad value is an error at the case's file:line:col. After this, nothing in the grader
 * evaluates a size expression: the runner, the comparison, the findings and the reports read
 * the resolved case. The memory lives in the lab and is freed by lab_release().
 */
#ifndef LG_PLAN_H
#define LG_PLAN_H

#include "base/error.h"
#include "base/strbuf.h"
#include "spec/spec.h"

#include <stdint.h>

/* Resolve every case of an exercise whose args and cases are parsed (the loader calls it).
 * 0, or -1 with err set at the case's line and column. */
int plan_resolve_exercise(const struct lab *lab, struct exercise_spec *ex, struct error *err);

/* The size parameters of a case as an expression environment. */
struct expr_env;
void case_env(const struct case_spec *c, struct expr_env *env);

/* "n=1024" or "rows=3,cols=7": the case's sizes as reports and results show them. */
void case_sizes_text(const struct case_spec *c, struct strbuf *out);

/* The seeds of a case's checked calls: deterministic, distinct per call and per case, the same
 * as labgrader has always drawn (expected-output caches stay valid). */
void plan_seeds(const struct lab *lab, const struct exercise_spec *ex, const struct case_spec *c,
                int checks, uint64_t *seeds);

/* The cache key text of a case's expected outputs: what the oracle is asked to compute
 * (function, target, checks, seeds, arguments). Byte-identical to what older versions wrote, so
 * their caches stay valid (tests/unit/test_plan.c holds the keys of labs 3, 4 and 6). */
void plan_key_text(const struct exercise_spec *ex, const struct variant_spec *v,
                   const struct case_spec *c, const char *function, int checks, struct strbuf *out);

#endif

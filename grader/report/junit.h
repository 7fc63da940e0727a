/*
 * junit: one student's results as JUnit XML for CI dashboards (the Jenkins
 * xUnit plugin validates against junit-10.xsd, shipped in tests/fixtures/junit/;
 * GitLab reads each testcase's failure text). One <testsuite> per exercise, one
 * <testcase> per case:
 *   OK        no child element
 *   WA..CH    <failure type="<code>" message="<message>">message, detail, and a compile
 *             error's first compiler errors</failure>
 *   XX        <error type="XX" ...> likewise
 *   SK        <skipped message="<reason>"/>
 * sizes, timing and findings in <system-out>. <testsuites> carries tests, failures,
 * errors and time only (the schema has no skipped there).
 *
 * student_view (what a student may read): unless the lab sets show_hidden, an
 * exercise's hidden cases are one testcase "hidden cases" with their count, in the
 * language of messages (NULL: English). docs/exports.md.
 */
#ifndef LG_JUNIT_H
#define LG_JUNIT_H

#include "base/error.h"
#include "base/messages.h"
#include "base/strbuf.h"
#include "grade/results.h"

#include <stdbool.h>

struct junit_opts {
    bool student_view;
    const struct messages *messages;
};

void export_junit_text(const struct results *r, const struct junit_opts *o, struct strbuf *out);
int export_junit(const struct results *r, const struct junit_opts *o, const char *path,
                 struct error *err);

#endif

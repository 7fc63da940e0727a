/*
 * The similarity corpus of issue 48 (tests/fixtures/similarity/corpus), through the grader
 * binary (LG_BIN): generate.py makes, for every lab that has independent solutions there, a
 * class of the lab's solution, a copy of it per obfuscation (and all of them at once), and the
 * three solutions written independently, each a different approach; then 60 copies of the
 * solution, each renamed and disguised at random, beside the independent ones.
 *
 *   - a byte-identical copy scores 100% against the solution, a renamed and reformatted one 95%
 *     or more, every other obfuscated copy 80% or more;
 *   - the independent solutions score under 30% against each other and against the solution;
 *   - the 60 copies are one group, exactly them, and none of them is in a pair.
 *
 * A lab's class is compared with --max-common 100: what is measured is a pair's score, and
 * twelve copies of the solution in a class of fifteen would otherwise make its code common.
 * Each score is printed (the figures of docs/similarity.md). No time is asserted; the
 * watchdog is generous.
 */
#include "e2e.h"

#include "base/json.h"
#include "base/strbuf.h"

#define CORPUS "tests/fixtures/similarity/corpus"
#define LEAK 60

static const char *const lab_ids[] = {"lab3", "lab4", "lab6", "lab7", "lab8", "lab9", NULL};

/* The least each kind of copy must score against the solution. */
static const struct {
    const char *kind;
    double min;
} kinds[] = {{"identical", 1.0}, {"renamed", 0.95},  {"dead", 0.8},       {"reorder", 0.8},
             {"split", 0.8},     {"inline", 0.8},    {"macros", 0.8},     {"loops", 0.8},
             {"launch", 0.8},    {"all-split", 0.8}, {"all-inline", 0.8}, {NULL, 0}};

static char *work;

static void setup(void)
{
    work = e2e_tmpdir("simcorpus");
    ck_assert_ptr_nonnull(work);
    char *log = xstrfmt("%s/generate.log", work), *out = xstrfmt("%s/corpus", work);
    char leak[16];
    snprintf(leak, sizeof(leak), "%d", LEAK);
    const char *argv[] = {"/usr/bin/python3", CORPUS "/generate.py", out, "--leak", leak, NULL};
    int status = e2e_run(argv, log);
    char *tail = e2e_log_tail(log);
    ck_assert_msg(status == 0, "generate.py: exit %d: %s", status, tail);
    free(tail);
    free(out);
    free(log);
}

static void teardown(void)
{
    if (work)
        remove_tree(work, NULL);
    free(work);
    work = NULL;
}

static char *slurp(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s: %s", path, err.msg);
    return strbuf_detach(&sb);
}

/* grader similarity over class (extra: one more option and its value, or NULL); returns
 * similarity.csv's text or similarity.json's (json) (caller frees). */
static char *similarity(const char *lab, const char *class_dir, const char *extra,
                        const char *value, bool json)
{
    char *labdir = xstrfmt("labs/%s", lab), *out = xstrfmt("%s/out-%s", work, class_dir);
    char *dir = xstrfmt("%s/corpus/%s", work, class_dir), *log = xstrfmt("%s.log", out);
    const char *argv[] = {e2e_bin(), "similarity", labdir, "--submissions", dir, "--out",
                          out,       "--quiet",    extra,  value,           NULL};
    int status = e2e_run(argv, log);
    char *tail = e2e_log_tail(log);
    ck_assert_msg(status == 0, "%s: exit %d: %s", class_dir, status, tail);
    char *path = xstrfmt("%s/%s/similarity.%s", out, lab, json ? "json" : "csv");
    char *text = slurp(path);
    free(path);
    free(tail);
    free(log);
    free(dir);
    free(out);
    free(labdir);
    return text;
}

/* The similarity of a and b in a similarity.csv; -1 when the pair is not there. */
static double score(const char *csv, const char *a, const char *b)
{
    for (const char *p = strstr(csv, "\r\n"); p && p[2]; p = strstr(p + 2, "\r\n")) {
        char x[64], y[64];
        double s;
        if (sscanf(p + 2, "%63[^,],%63[^,],%lf", x, y, &s) != 3)
            continue;
        if ((!strcmp(x, a) && !strcmp(y, b)) || (!strcmp(x, b) && !strcmp(y, a)))
            return s;
    }
    return -1;
}

/* Every obfuscated copy against the lab's solution, at or above its kind's floor. */
START_TEST(test_copies_score_high)
{
    for (size_t l = 0; lab_ids[l]; l++) {
        char *csv = similarity(lab_ids[l], lab_ids[l], "--max-common", "100", false);
        for (size_t k = 0; kinds[k].kind; k++) {
            double s = score(csv, "orig", kinds[k].kind);
            printf("simcorpus: %s %-10s %.4f (at least %.2f)\n", lab_ids[l], kinds[k].kind, s,
                   kinds[k].min);
            ck_assert_msg(s >= kinds[k].min - 1e-9, "%s: %s against the solution: %.4f", lab_ids[l],
                          kinds[k].kind, s);
        }
        free(csv);
    }
}
END_TEST

/* The independent solutions, against each other and against the lab's solution. */
START_TEST(test_independent_score_low)
{
    static const char *const who[] = {"orig", "indep1", "indep2", "indep3", NULL};
    for (size_t l = 0; lab_ids[l]; l++) {
        char *csv = similarity(lab_ids[l], lab_ids[l], "--max-common", "100", false);
        for (size_t i = 0; who[i]; i++)
            for (size_t j = i + 1; who[j]; j++) {
                double s = score(csv, who[i], who[j]);
                printf("simcorpus: %s %s %s %.4f (under 0.30)\n", lab_ids[l], who[i], who[j], s);
                ck_assert_msg(s >= 0 && s < 0.30, "%s: %s and %s: %.4f", lab_ids[l], who[i], who[j],
                              s);
            }
        free(csv);
    }
}
END_TEST

/* One leaked solution, whatever each copy did to it: one group of exactly its copies. */
START_TEST(test_leak_is_one_group)
{
    for (size_t l = 0; lab_ids[l]; l++) {
        char *class_dir = xstrfmt("leak-%s", lab_ids[l]);
        char *text = similarity(lab_ids[l], class_dir, NULL, NULL, true);
        struct json_value *v;
        struct error err;
        ck_assert_msg(json_parse(text, strlen(text), &v, &err) == 0, "%s", err.msg);
        const struct json_value *groups = json_get(v, "groups"), *g = json_at(groups, 0);
        printf("simcorpus: %s: %zu groups, the first of %.0f (%.0f tokens)\n", class_dir, groups->n,
               json_get_number(g, "size", 0), json_get_number(g, "shared_tokens", 0));
        ck_assert_msg(groups->n == 1, "%s: %zu groups", class_dir, groups->n);
        ck_assert_str_eq(json_get_string(g, "kind"), "shared");
        const struct json_value *members = json_get(g, "members");
        ck_assert_uint_eq(members->n, LEAK);
        for (size_t i = 0; i < members->n; i++)
            ck_assert_msg(!strncmp(json_at(members, i)->string, "copy", 4), "%s: %s in the group",
                          class_dir, json_at(members, i)->string);
        const struct json_value *pairs = json_get(v, "pairs");
        for (size_t i = 0; pairs && i < pairs->n; i++)
            ck_assert_msg(strncmp(json_get_string(json_at(pairs, i), "a"), "copy", 4) &&
                              strncmp(json_get_string(json_at(pairs, i), "b"), "copy", 4),
                          "%s: a pair holds a copy", class_dir);
        json_value_free(v);
        free(text);
        free(class_dir);
    }
}
END_TEST

static Suite *simcorpus_suite(void)
{
    Suite *s = suite_create("simcorpus");
    TCase *tc = tcase_create("corpus");
    tcase_add_unchecked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 1200);
    tcase_add_test(tc, test_copies_score_high);
    tcase_add_test(tc, test_independent_score_low);
    tcase_add_test(tc, test_leak_is_one_group);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(simcorpus_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/*
 * grader merge (class/merge.c, batch_merge) on stored results, nothing graded: a roster given
 * to merge names the students graded without one, and is remembered; Canvas's assignment goes
 * into Canvas's column alone and is remembered too (issue 47). The results are lab 6's
 * (tests/fixtures/results/lab6-nogpu.json), stored for two students as a class graded without
 * a roster stores them.
 */
#include "base/alloc.h"
#include "base/fs.h"
#include "class/batch.h"
#include "grade/results.h"
#include "spec/spec.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct class_dir {
    char *root, *roster;
    struct lab lab;
};

static void store(const char *root, const char *id)
{
    struct strbuf json = STRBUF_INIT;
    struct results r;
    struct error err;
    const char *fixture = "tests/fixtures/results/lab6-nogpu.json";
    results_init(&r);
    ck_assert_int_eq(read_file(fixture, &json, &err), 0);
    ck_assert_msg(results_from_json(&r, json.buf, json.len, fixture, &err) == 0, "%s", err.msg);
    free(r.student_id);
    free(r.student_name);
    r.student_id = xstrdup(id);
    r.student_name = xstrdup(id);
    char *dir = xstrfmt("%s/lab6/%s", root, id), *path = path_join(dir, "results.json");
    ck_assert_int_eq(mkdir_p(dir, &err), 0);
    ck_assert_msg(results_write(&r, path, &err) == 0, "%s", err.msg);
    free(dir);
    free(path);
    results_release(&r);
    strbuf_release(&json);
}

static void class_open(struct class_dir *c)
{
    struct error err;
    char tmpl[] = "/tmp/lg-merge-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    c->root = xstrdup(tmpl);
    store(c->root, "alice");
    store(c->root, "bob");
    c->roster = path_join(c->root, "roster.csv");
    const char *csv = "student_id,Username,Email address,name\n"
                      "s2026001,alice,alice@uni.example,Alice Mart\xC3\xADn\n"
                      "s2026002,bob,bob@uni.example,\"Stone, Bob\"\n";
    ck_assert_int_eq(write_file_atomic(c->roster, csv, strlen(csv), &err), 0);
    lab_init(&c->lab);
    ck_assert_msg(spec_load(&c->lab, "labs/lab6/lab.yaml", NULL, &err) == 0, "%s", err.msg);
}

static void class_close(struct class_dir *c)
{
    struct error err;
    remove_tree(c->root, &err);
    lab_release(&c->lab);
    free(c->root);
    free(c->roster);
}

static int merge(struct class_dir *c, const char *roster, const char *assignment)
{
    struct batch_opts o;
    struct error err;
    int missing = 0;
    bool bad = false;
    batch_opts_init(&o);
    o.out = c->root;
    o.roster = roster;
    o.canvas_assignment = assignment;
    o.templates_dir = "templates";
    o.pdf_mode = -2; /* no summary: the gradebooks are what is tested */
    o.no_html = true;
    int rc = batch_merge(&c->lab, &o, &missing, &bad, &err);
    ck_assert_msg(rc == 0, "merge: %s", err.msg);
    return missing;
}

static char *gradebook(const struct class_dir *c, const char *name)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    char *path = xstrfmt("%s/lab6/%s", c->root, name);
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s", err.msg);
    free(path);
    return strbuf_detach(&sb);
}

static void assert_has(const char *text, const char *want)
{
    ck_assert_msg(strstr(text, want) != NULL, "'%s' not in:\n%s", want, text);
}

/* The roster given to merge names the students (it was ignored: names stayed the folders',
 * and Moodle's file left everyone out "give --roster"), its student_id is Moodle's ID number as
 * it is Canvas's SIS User ID, and a later merge without it still names them. */
START_TEST(test_merge_roster)
{
    struct class_dir c;
    class_open(&c);
    ck_assert_int_eq(merge(&c, c.roster, NULL), 0);
    for (int round = 0; round < 2; round++) {
        char *csv = gradebook(&c, "gradebook.csv"), *moodle = gradebook(&c, "gradebook-moodle.csv");
        char *canvas = gradebook(&c, "gradebook-canvas.csv");
        assert_has(csv, "\r\nalice,Alice Mart\xC3\xADn,");
        assert_has(csv, "\r\nbob,\"Stone, Bob\",");
        assert_has(moodle, "\r\ns2026001,alice@uni.example,alice,Alice Mart\xC3\xADn,");
        assert_has(moodle, "\r\ns2026002,bob@uni.example,bob,\"Stone, Bob\",");
        assert_has(canvas, "\r\n\"Stone, Bob\",,s2026002,bob@uni.example,,");
        free(csv);
        free(moodle);
        free(canvas);
        if (round == 0)
            merge(&c, NULL, NULL);
    }
    class_close(&c);
}
END_TEST

/* --canvas-assignment names Canvas's column alone (Moodle's had "(4242)" too), and a later
 * merge without it keeps it (Canvas would otherwise create a new assignment). */
START_TEST(test_merge_canvas_assignment_kept)
{
    struct class_dir c;
    class_open(&c);
    merge(&c, NULL, "4242");
    for (int round = 0; round < 2; round++) {
        char *canvas = gradebook(&c, "gradebook-canvas.csv");
        char *moodle = gradebook(&c, "gradebook-moodle.csv");
        assert_has(canvas, ",Section,GPUs con C y CUDA: producto de matrices y funci\xC3\xB3n "
                           "vectorial (4242),");
        ck_assert_msg(!strstr(moodle, "(4242)"), "Moodle's column names Canvas's assignment:\n%s",
                      moodle);
        free(canvas);
        free(moodle);
        if (round == 0)
            merge(&c, NULL, NULL);
    }
    /* Another assignment given replaces it. */
    merge(&c, NULL, "77");
    char *canvas = gradebook(&c, "gradebook-canvas.csv");
    assert_has(canvas, "vectorial (77),");
    free(canvas);
    class_close(&c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("merge");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_merge_roster);
    tcase_add_test(tc, test_merge_canvas_assignment_kept);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* messages.c: the catalog format, its safety check, and the Spanish catalog's coverage. */
#include "base/messages.h"
#include "run/sandbox.h"
#include "base/strbuf.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <check.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *write_tmp(const char *text)
{
    char *path = xstrdup("/tmp/lg-messages-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* Loads text, which must fail; the "file:line:col: message" goes into buf. */
static void load_fails(const char *text, char *buf, size_t size, char **path)
{
    struct messages m;
    struct error err;
    messages_init(&m);
    error_init(&err);
    *path = write_tmp(text);
    ck_assert_int_eq(messages_load(&m, *path, &err), -1);
    error_format(&err, buf, size);
    ck_assert_uint_eq(m.n, 0);
    messages_release(&m);
    unlink(*path);
}

START_TEST(test_load_and_lookup)
{
    const char *text = "# header comment\n"
                       "msgid \"\"\n"
                       "msgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n"
                       "\n"
                       "msgid \"passed\"\n"
                       "msgstr \"correcto\"\n"
                       "\n"
                       "msgid \"timed out after %.1f s \"\n"
                       "  \"%s of %s\"\n"
                       "msgstr \"tiempo agotado tras %.1f s \"\n"
                       "\"%s de %s\"\n"
                       "msgid \"quote \\\" and \\\\ here\"\n"
                       "msgstr \"comilla \\\" y \\\\ aquí\"\n"
                       "\n"
                       "msgid \"left alone\"\n"
                       "msgstr \"\"\n";
    char *path = write_tmp(text);
    struct messages m;
    struct error err;
    messages_init(&m);
    error_init(&err);
    ck_assert_msg(messages_load(&m, path, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(m.n, 3); /* the header and the empty msgstr translate nothing */
    ck_assert_str_eq(messages_get(&m, "passed"), "correcto");
    ck_assert_str_eq(messages_get(&m, "timed out after %.1f s %s of %s"),
                     "tiempo agotado tras %.1f s %s de %s");
    ck_assert_str_eq(messages_get(&m, "quote \" and \\ here"), "comilla \" y \\ aquí");
    ck_assert_str_eq(messages_get(&m, "left alone"), "left alone");
    ck_assert_str_eq(messages_get(&m, "not in the catalog"), "not in the catalog");
    ck_assert_str_eq(messages_get(NULL, "passed"), "passed");
    messages_release(&m);
    ck_assert_str_eq(messages_get(&m, "passed"), "passed");
    unlink(path);
    free(path);
}
END_TEST

START_TEST(test_conversions)
{
    ck_assert(messages_same_conversions("%.1f s %s of %s", "%f s %s de %s"));
    ck_assert(messages_same_conversions("%ld of %ld (%.0f%%)", "%ld de %ld (%3.1f %%)"));
    ck_assert(messages_same_conversions("no conversions", "sin conversiones, 100%%"));
    ck_assert(messages_same_conversions("%*d", "%*d"));
    ck_assert(!messages_same_conversions("%s of %d", "%d de %s"));  /* order */
    ck_assert(!messages_same_conversions("%s", "%s %s"));           /* one more */
    ck_assert(!messages_same_conversions("%ld", "%d"));             /* width of the argument */
    ck_assert(!messages_same_conversions("%d", "%n"));              /* never %n */
    ck_assert(!messages_same_conversions("%s", "%"));               /* unfinished */
    ck_assert(!messages_same_conversions("%d items", "%*d items")); /* an extra int */
}
END_TEST

START_TEST(test_errors_name_the_line)
{
    char buf[4096], *path;
    load_fails("msgid \"exited with status %d\"\nmsgstr \"terminó con estado %s\"\n", buf,
               sizeof(buf), &path);
    char *want = xstrfmt("%s:2:1: the translation does not take the same printf arguments", path);
    ck_assert_msg(strstr(buf, want), "%s", buf);
    free(want);
    free(path);
    load_fails("msgid \"a\"\n\nmsgstr \"b\"\n", buf, sizeof(buf), &path);
    ck_assert_msg(strstr(buf, ":1:1: msgid without a msgstr"), "%s", buf);
    free(path);
    load_fails("msgstr \"b\"\n", buf, sizeof(buf), &path);
    ck_assert_msg(strstr(buf, ":1:1: msgstr without a msgid"), "%s", buf);
    free(path);
    load_fails("msgid \"a\"\nmsgstr \"b\"\nmsgctxt \"x\"\n", buf, sizeof(buf), &path);
    ck_assert_msg(strstr(buf, ":3:1: expected msgid"), "%s", buf);
    free(path);
    load_fails("msgid \"a\\q\"\nmsgstr \"b\"\n", buf, sizeof(buf), &path);
    ck_assert_msg(strstr(buf, ":1:1: expected one double-quoted string"), "%s", buf);
    free(path);
    load_fails("msgid \"a\"\nmsgstr \"b\"\n\nmsgid \"a\"\nmsgstr \"c\"\n", buf, sizeof(buf), &path);
    ck_assert_msg(strstr(buf, "translated twice"), "%s", buf);
    free(path);
}
END_TEST

START_TEST(test_load_replaces_and_missing_file)
{
    struct messages m;
    struct error err;
    messages_init(&m);
    error_init(&err);
    char *a = write_tmp("msgid \"x\"\nmsgstr \"equis\"\n");
    ck_assert_int_eq(messages_load(&m, a, &err), 0);
    /* A broken second catalog leaves the first in place. */
    char *b = write_tmp("msgid \"%s\"\nmsgstr \"%d\"\n");
    ck_assert_int_eq(messages_load(&m, b, &err), -1);
    ck_assert_str_eq(messages_get(&m, "x"), "equis");
    ck_assert_int_eq(messages_load(&m, "/nonexistent/messages.po", &err), -1);
    /* An empty catalog (found by fuzzing: it once sorted a NULL array): nothing translated. */
    char *empty = write_tmp("");
    ck_assert_int_eq(messages_load(&m, empty, &err), 0);
    ck_assert_str_eq(messages_get(&m, "x"), "x");
    unlink(empty);
    free(empty);
    /* No catalog for a language: English, and no error. */
    ck_assert_int_eq(messages_load_lang(&m, "templates", "en", &err), 0);
    ck_assert_int_eq(messages_load_lang(&m, "templates", "../x", &err), 0);
    messages_release(&m);
    unlink(a);
    unlink(b);
    free(a);
    free(b);
}
END_TEST

/* Every sentence the code passes through messages_get() as a literal, from a C file. */
static void code_msgids(const char *path, char ***ids, size_t *n)
{
    struct strbuf src = STRBUF_INIT;
    ck_assert_int_eq(read_file(path, &src, NULL), 0);
    for (const char *p = src.buf; (p = strstr(p, "messages_get(")) != NULL;) {
        p += strlen("messages_get(");
        int depth = 0;
        while (*p && !(depth == 0 && *p == ',')) {
            depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
            if (depth < 0)
                break;
            p++;
        }
        if (*p != ',')
            continue;
        p++;
        struct strbuf id = STRBUF_INIT;
        for (;;) {
            p += strspn(p, " \t\n");
            if (*p != '"')
                break;
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) {
                    p++;
                    strbuf_addch(&id, *p == 'n' ? '\n' : *p);
                } else {
                    strbuf_addch(&id, *p);
                }
            }
            if (*p == '"')
                p++;
        }
        if (id.len) {
            *ids = xrealloc(*ids, (*n + 1) * sizeof(char *));
            (*ids)[(*n)++] = strbuf_detach(&id);
        }
        strbuf_release(&id);
    }
    strbuf_release(&src);
}

START_TEST(test_spanish_catalog_covers_the_code)
{
    struct messages es;
    struct error err;
    char **ids = NULL;
    size_t n = 0;
    messages_init(&es);
    error_init(&err);
    ck_assert_msg(messages_load(&es, "templates/es/messages.po", &err) == 0, "%s:%d: %s", err.file,
                  err.line, err.msg);
    /* Every file of the stages that speak to students: grading, running, and the console. */
    glob_t g;
    ck_assert_int_eq(glob("grader/{grade,run}/*.c", GLOB_BRACE, NULL, &g), 0);
    /* Every report file too: the exports' and the overview's sentences (issue 39). */
    ck_assert_int_eq(glob("grader/report/*.c", GLOB_APPEND, NULL, &g), 0);
    for (size_t s = 0; s < g.gl_pathc; s++)
        code_msgids(g.gl_pathv[s], &ids, &n);
    globfree(&g);
    ck_assert_uint_ge(n, 40);
    /* A crash's message carries the signal's meaning (grade.c, run_verdict). */
    for (int sig = 1; sig < 32; sig++) {
        const char *what = signal_description(sig);
        if (what) {
            ids = xrealloc(ids, (n + 1) * sizeof(char *));
            ids[n++] = xstrdup(what);
        }
    }
    size_t missing = 0;
    for (size_t i = 0; i < n; i++) {
        if (messages_get(&es, ids[i]) == ids[i]) {
            fprintf(stderr, "templates/es/messages.po has no msgstr for \"%s\"\n", ids[i]);
            missing++;
        }
        free(ids[i]);
    }
    ck_assert_msg(missing == 0, "%zu sentences of the code have no Spanish (listed above)",
                  missing);
    free(ids);
    messages_release(&es);
}
END_TEST

/* The GPU probe's reasons, written in English before any language is known, in Spanish: the
 * CUDA runtime's own words inside them kept as they are; anything else left alone. */
START_TEST(test_machine_sentences)
{
    struct messages es;
    struct error err;
    messages_init(&es);
    ck_assert_int_eq(messages_load(&es, "templates/es/messages.po", &err), 0);
    char *s = messages_machine(&es, "no usable CUDA device: CUDA driver version is insufficient "
                                    "for CUDA runtime version (cudaErrorInsufficientDriver)");
    ck_assert_str_eq(s, "no hay ningún dispositivo CUDA utilizable (CUDA dice: «CUDA driver "
                        "version is insufficient for CUDA runtime version "
                        "(cudaErrorInsufficientDriver)»)");
    free(s);
    s = messages_machine(&es, "no usable CUDA device: the GPU probe failed: exited with 1");
    ck_assert_str_eq(s, "no hay ningún dispositivo CUDA utilizable (CUDA dice: «la prueba de "
                        "la GPU ha fallado: exited with 1»)");
    free(s);
    s = messages_machine(&es, "build/harness/gpuprobe is missing: run 'make'");
    ck_assert_str_eq(s, "falta build/harness/gpuprobe: ejecuta 'make'");
    free(s);
    s = messages_machine(&es, "no CUDA device found");
    ck_assert_str_eq(s, "no se ha encontrado ningún dispositivo CUDA");
    free(s);
    s = messages_machine(&es, "something else: %s %d");
    ck_assert_str_eq(s, "something else: %s %d");
    free(s);
    s = messages_machine(NULL, "no CUDA device found");
    ck_assert_str_eq(s, "no CUDA device found");
    free(s);
    s = messages_machine(&es, NULL);
    ck_assert_str_eq(s, "");
    free(s);
    messages_release(&es);
}
END_TEST

/* A catalog of comments only loads as an empty one (no qsort of a NULL array: UBSan). */
START_TEST(test_empty_catalog)
{
    static const char *const texts[] = {"", "# only a comment\n", "\n\n# two\n\n"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        char *path = write_tmp(texts[i]);
        struct messages m;
        struct error err;
        messages_init(&m);
        error_init(&err);
        ck_assert_msg(messages_load(&m, path, &err) == 0, "%s", err.msg);
        ck_assert_uint_eq(m.n, 0);
        ck_assert_str_eq(messages_get(&m, "passed"), "passed");
        messages_release(&m);
        unlink(path);
        free(path);
    }
}
END_TEST

static Suite *messages_suite(void)
{
    Suite *s = suite_create("messages");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_load_and_lookup);
    tcase_add_test(tc, test_empty_catalog);
    tcase_add_test(tc, test_machine_sentences);
    tcase_add_test(tc, test_conversions);
    tcase_add_test(tc, test_errors_name_the_line);
    tcase_add_test(tc, test_load_replaces_and_missing_file);
    tcase_add_test(tc, test_spanish_catalog_covers_the_code);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(messages_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

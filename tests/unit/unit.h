/*
 * unit.h: what several unit suites need of the file system and its programs, in one place.
 * Each helper fails the running test (Check's assertions) rather than return an error; the
 * caller frees what it returns.
 */
#ifndef LG_TESTS_UNIT_H
#define LG_TESTS_UNIT_H

#include "base/alloc.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* A fresh folder /tmp/lg-<tag>-XXXXXX. */
static inline char *unit_tmpdir(const char *tag)
{
    char *d = xstrfmt("/tmp/lg-%s-XXXXXX", tag);
    ck_assert_msg(mkdtemp(d) != NULL, "cannot create %s", d);
    return d;
}

/* A whole file's text ("" for an empty one). */
static inline char *unit_slurp(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    error_init(&err);
    ck_assert_msg(read_file(path, &sb, &err) == 0, "%s not read: %s", path, err.msg);
    return sb.buf ? strbuf_detach(&sb) : xstrdup("");
}

/* Whether a program is in PATH (a suite skips, saying why, without it). */
static inline bool unit_have(const char *program)
{
    char *p = find_program(program);
    free(p);
    return p != NULL;
}

/* pdftotext's text of a PDF, written to dir/out.txt on the way; raw order, so that a table's
 * cells stay together. */
static inline char *unit_pdf_text(const char *pdf, const char *dir)
{
    char *txt = xstrfmt("%s/out.txt", dir);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("pdftotext", "pdftotext", "-enc", "UTF-8", "-raw", pdf, txt, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "pdftotext failed on %s", pdf);
    char *text = unit_slurp(txt);
    free(txt);
    return text;
}

#endif

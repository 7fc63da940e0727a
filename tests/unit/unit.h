/*
 * unit.h: what several unit suites need of the file system, in one place. Each helper fails
 * the running test (Check's assertions) rather than return an error; the caller frees what
 * it returns.
 */
#ifndef LG_TESTS_UNIT_H
#define LG_TESTS_UNIT_H

#include "base/alloc.h"
#include "base/error.h"
#include "base/fs.h"
#include "base/strbuf.h"

#include <check.h>
#include <stdlib.h>

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

#endif

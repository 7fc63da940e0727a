/*
 * strbuf: a growable, always NUL-terminated byte string (after git's strbuf).
 *
 * The strbuf owns `buf`; strbuf_detach() hands ownership to the caller.
 * Allocation failure aborts (see util.h): the grader cannot do anything useful
 * without memory, and every caller would otherwise have to carry the same check.
 */
#ifndef LG_STRBUF_H
#define LG_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

struct strbuf {
    char *buf;
    size_t len;
    size_t alloc;
};

#define STRBUF_INIT                                                                                \
    {                                                                                              \
        NULL, 0, 0                                                                                 \
    }

void strbuf_init(struct strbuf *sb);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
void strbuf_setlen(struct strbuf *sb, size_t len);
/* Never NULL, even for an empty, unallocated strbuf. */
const char *strbuf_str(const struct strbuf *sb);
void strbuf_rtrim(struct strbuf *sb);

#endif

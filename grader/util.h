/*
 * util: allocation, checked number parsing, files and paths, hashing.
 *
 * Allocation failure aborts with a message (die_oom); everything else reports
 * through struct error. Returned strings are owned by the caller (free()).
 */
#ifndef LG_UTIL_H
#define LG_UTIL_H

#include "error.h"
#include "strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

void die_oom(void) __attribute__((noreturn));
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xstrfmt(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow an array so that it can hold at least `nr` elements (git's ALLOC_GROW). */
#define ALLOC_GROW(arr, nr, alloc)                                                                 \
    do {                                                                                           \
        if ((size_t)(nr) > (size_t)(alloc)) {                                                      \
            size_t alloc_grow_n = (alloc) ? (size_t)(alloc)*2 : 8;                                 \
            if (alloc_grow_n < (size_t)(nr))                                                       \
                alloc_grow_n = (size_t)(nr);                                                       \
            (arr) = xrealloc((arr), alloc_grow_n * sizeof(*(arr)));                                \
            (alloc) = alloc_grow_n;                                                                \
        }                                                                                          \
    } while (0)

/* Whole-string number parsing: false on junk, overflow or empty input. */
bool parse_long(const char *s, long *out);
bool parse_double(const char *s, double *out);

/* Files. read_file NUL-terminates; *len excludes the NUL. */
int read_file(const char *path, struct strbuf *out, struct error *err);
/*
 * A file a sandboxed run left in its working folder, read by the grader outside the sandbox:
 * the run's processes controlled it, so it may be anything. Never follows a symbolic link,
 * never blocks (a FIFO is refused, not opened for a writer), refuses anything but a regular
 * file with a single link, and never reads more than max_bytes (a larger file is refused,
 * not cut). With `exact`, the size must be max_bytes exactly. NUL-terminates like
 * read_file. Returns 0, RUN_FILE_MISSING (no such file) or RUN_FILE_REFUSED; err says why.
 */
enum { RUN_FILE_MISSING = -1, RUN_FILE_REFUSED = -2 };
int read_run_file(const char *path, size_t max_bytes, bool exact, struct strbuf *out,
                  struct error *err);
/* Write to path.tmp.PID, fsync, rename: readers see the old or the new file, never half. */
int write_file_atomic(const char *path, const void *data, size_t len, struct error *err);
int mkdir_p(const char *path, struct error *err);
int remove_tree(const char *path, struct error *err);
bool file_exists(const char *path);
bool dir_exists(const char *path);
/* Copy a file (mode kept). */
int copy_file(const char *src, const char *dst, struct error *err);
/* dir + "/" + name, without doubling slashes. Caller frees. */
char *path_join(const char *dir, const char *name);
/* Absolute, normalised path (realpath) or NULL with err set. Caller frees. */
char *path_abs(const char *path, struct error *err);
/* Last component, as a pointer into path. */
const char *path_base(const char *path);
/* Find an executable in PATH (or accept an absolute/relative path). Caller frees. */
char *find_program(const char *name);

/* The first line of text that contains `needle`, else (or when needle is NULL) its first
 * non-empty line; NULL when text has none. For `tool --version` outputs. Caller frees. */
char *text_pick_line(const char *text, const char *needle);

/* SHA-256, as 64 lowercase hex characters plus NUL. */
struct sha256 {
    uint32_t h[8];
    uint64_t len;
    unsigned char block[64];
    size_t fill;
};
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final_hex(struct sha256 *s, char out[65]);
int sha256_file(struct sha256 *s, const char *path, struct error *err);

/* Wall-clock seconds from CLOCK_MONOTONIC. */
double now_seconds(void);
/* ISO 8601 local date-time, e.g. 2026-11-22T14:03:00+01:00. */
void iso_datetime(char *buf, size_t size);

#endif

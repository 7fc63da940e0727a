/*
 * fs: files and paths. Every fallible call fills a struct error naming the file; returned
 * strings are owned by the caller (free()).
 */
#ifndef LG_FS_H
#define LG_FS_H

#include "base/error.h"
#include "base/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* Files. read_file NUL-terminates; *len excludes the NUL. */
int read_file(const char *path, struct strbuf *out, struct error *err);
/* A small file's first line, without its newline (a /proc entry, a version file); NULL when it
 * cannot be read. Caller frees. */
char *read_first_line(const char *path);
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

#endif

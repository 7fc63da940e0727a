/*
 * archive: unpacking untrusted archives (zip, tar, tar.gz/bz2/xz, 7z) with
 * libarchive's built-in readers only (no external programs). Entries that are
 * links, devices, FIFOs or sockets, that have an absolute path, a ".."
 * component or control characters in their name, or that are more than
 * ARCHIVE_MAX_DEPTH folders deep are refused; "__MACOSX", ".DS_Store" and
 * ".git" are left out. Bytes are charged to budgets as they come out of the
 * decompressor: sizes in headers lie.
 */
#ifndef LG_ARCHIVE_H
#define LG_ARCHIVE_H

#include "base/error.h"
#include "class/safedir.h"

#include <stdbool.h>
#include <stddef.h>

#define ARCHIVE_MAX_DEPTH 64 /* folders in an archive entry's path */

struct bucket {
    char *key;
    struct budget b;
};

/* What an archive being unpacked may still write. The caller fills it (zeroed first);
 * quota_release frees the buckets. */
struct quota {
    const char *label;                /* the archive, as the user knows it */
    const struct collect_limits *lim; /* one submission's */
    struct budget *single;            /* a student's own archive: that student's budget */
    /* The class archive: one budget per top-level entry (a student), and the whole. */
    bool bucketed;
    const char *wrapper; /* a lone top-level folder holding everything, or NULL */
    struct bucket *buckets;
    size_t n_buckets, buckets_alloc;
    struct budget whole;
    struct collect_limits whole_lim;
};

void quota_release(struct quota *q);

/*
 * First pass over a class archive, headers only (at most max_entries): is
 * everything inside one top-level folder (someone zipped the folder of
 * submissions)? Then *wrapper names it (caller frees), else NULL.
 */
int survey_wrapper(const char *path, const char *label, long max_entries, char **wrapper,
                   struct error *err);

/* extract_archive: not an archive libarchive can open at all (nothing written). */
#define ARCHIVE_UNREADABLE (-3)

/*
 * Unpack the archive at path into dest_fd, refusing anything unsafe (above).
 * Returns 0; SAFE_REFUSED: a student's own archive (q->single) refused, recorded in
 * that budget; ARCHIVE_UNREADABLE; or -1 (err set: the grader could not write, or a
 * class archive refused as a whole). In a class archive (q->bucketed) an entry refused
 * or a limit exceeded is recorded in that student's bucket, nothing more of that
 * student is written, and unpacking goes on for the others.
 */
int extract_archive(const char *path, int dest_fd, struct quota *q, struct error *err);

#endif

/*
 * cache: checksummed entries of the grader's cache (reports/.cache/), so that what the grader
 * reads back is what it stored. A reference runner or an expected output changed on disk
 * (edited, truncated, half-copied, a failing disk) would otherwise grade a whole class
 * against it, and keep doing so on every later run.
 *
 * Two kinds of entry:
 * - a file with a seal beside it (path + ".sha256": "sha256 <hex> size <bytes>"): reference
 *   runners;
 * - a folder of files with a manifest ("done": "labgrader-expected 2", then
 *   "<sha256> <bytes> <name>" per file): expected outputs. The manifest is written last,
 *   so a folder without one is not an entry yet.
 *
 * A check reads and hashes the files once per process and remembers each file's identity
 * (device, inode, size, modification and change times): later checks of an unchanged file
 * cost a stat(). A file written since (any write changes its change time) is hashed again.
 * An entry that fails its check is discarded by the caller (cache_discard), which says so
 * once on stderr, and built again. Nothing here is shared between processes but the files.
 */
#ifndef LG_CACHE_H
#define LG_CACHE_H

#include "base/error.h"

#include <stddef.h>

enum cache_check {
    CACHE_OK,      /* present and every byte as stored */
    CACHE_MISSING, /* not there (or not finished): build it */
    CACHE_BAD      /* there but not as stored: discard and build again (why says how) */
};

/* Write path's seal (path.sha256), atomically. */
int cache_seal_file(const char *path, struct error *err);
/* path against its seal. A file without a seal (stored by an older grader) is CACHE_BAD. */
enum cache_check cache_check_file(const char *path, char *why, size_t why_size);

/*
 * Write dir's manifest ("done") over the files named (relative to dir), atomically: the
 * last step of storing an expected-outputs entry.
 */
int cache_seal_dir(const char *dir, const char *const *names, size_t n, struct error *err);
/* dir's files against its manifest; CACHE_MISSING without one. */
enum cache_check cache_check_dir(const char *dir, char *why, size_t why_size);

/*
 * Remove a bad entry (a file and its seal, or a folder), saying on stderr once per path and
 * process: "grader: cache: <path>: <why>: discarded, built again".
 */
void cache_discard(const char *path, const char *why);

/*
 * What one grader computes for the whole machine (its calibration, a reference's build and times,
 * a case's expected outputs), the others wait for rather than compute beside it: on a machine
 * just started, a rush's graders all need the same entries at once, and each computing its own
 * costs the machine's turn many times over and times them beside each other. cache_lock holds
 * path + ".lock" (created) exclusively, waiting for whoever holds it; the caller then looks for
 * the entry again before computing it. `waiting` (may be NULL) is called once, before the wait,
 * when another process holds it. Returns the descriptor for cache_unlock; -1 when the lock file
 * cannot be opened (the caller computes anyway, as before).
 */
int cache_lock(const char *path, void (*waiting)(void *arg), void *arg);
void cache_unlock(int fd);

/* Forget what this process has verified (tests). */
void cache_forget(void);

#endif

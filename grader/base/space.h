/*
 * space: is there room on the grader's own disk? A compile or a run that fails because the
 * disk the grader writes to is full must not become the student's verdict (CE, CH, RE):
 * after such a failure the caller asks here whether the folder could still take what the
 * step needed, and a full disk makes the failure the grader's (XX).
 *
 * Free space alone does not answer that (quotas are invisible to statvfs), so space_probe
 * writes the bytes for real, into a hidden file it removes again. Nothing here keeps state;
 * returned strings are the caller's.
 */
#ifndef LG_SPACE_H
#define LG_SPACE_H

#include "base/error.h"

#include <stdbool.h>
#include <stddef.h>

/* ENOSPC or EDQUOT: the disk (or the user's quota) is full. */
bool space_errno_full(int e);

/* Bytes free to an unprivileged writer on the file system holding path; -1 when unknown. */
long long space_available(const char *path);

/* The file system's id of path (st_dev), to tell whether two folders share a disk; -1 when
 * path cannot be read. */
long long space_device(const char *path);

enum space_probe_result {
    SPACE_OK = 0,    /* the bytes fit (and were given back) */
    SPACE_FULL = 1,  /* ENOSPC / EDQUOT: err's message names the folder and says so */
    SPACE_ERROR = -1 /* the probe could not be made for another reason (err says why) */
};

/*
 * Can dir take `bytes` more? Answers SPACE_FULL at once when statvfs says fewer bytes are
 * free, else writes them into dir/.lg-space-probe.PID and removes the file.
 */
enum space_probe_result space_probe(const char *dir, long long bytes, struct error *err);

/* Bytes the regular files under dir take (links not followed); 0 when dir is absent. */
long long space_tree_bytes(const char *dir);

/* "1.5 MiB", "312 KiB", "2.0 GiB" into buf. */
void space_format(long long bytes, char *buf, size_t size);

#endif

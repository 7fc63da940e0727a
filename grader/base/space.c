#include "base/space.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

bool space_errno_full(int e)
{
    return e == ENOSPC || e == EDQUOT;
}

long long space_available(const char *path)
{
    struct statvfs st;
    if (statvfs(path, &st) != 0)
        return -1;
    return (long long)st.f_bavail * (long long)st.f_frsize;
}

long long space_device(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    return (long long)st.st_dev;
}

static enum space_probe_result probe_failed(struct error *err, const char *dir, int e,
                                            long long bytes)
{
    char need[32];
    space_format(bytes, need, sizeof(need));
    if (space_errno_full(e)) {
        error_set(err,
                  "no space left on the grader's disk in %s (%s): %s more do not fit; free some "
                  "space there and grade again",
                  dir, strerror(e), need);
        return SPACE_FULL;
    }
    error_set(err, "%s: cannot check the free space: %s", dir, strerror(e));
    return SPACE_ERROR;
}

/* Writes bytes of zeros to fd; 0 or the errno of the failed write. */
static int write_zeros(int fd, long long bytes)
{
    static const char zeros[65536];
    while (bytes > 0) {
        size_t want = bytes < (long long)sizeof(zeros) ? (size_t)bytes : sizeof(zeros);
        ssize_t n = write(fd, zeros, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? errno : ENOSPC;
        bytes -= n;
    }
    return 0;
}

enum space_probe_result space_probe(const char *dir, long long bytes, struct error *err)
{
    long long avail = space_available(dir);
    if (avail >= 0 && avail < bytes)
        return probe_failed(err, dir, ENOSPC, bytes);
    /* statvfs knows nothing of quotas and of space promised to delayed allocations:
     * only a real write says whether the bytes fit. */
    char *path = xstrfmt("%s/.lg-space-probe.%ld", dir, (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        free(path);
        return probe_failed(err, dir, e, bytes);
    }
    int e = write_zeros(fd, bytes);
    if (e == 0 && fsync(fd) != 0)
        e = errno;
    close(fd);
    unlink(path);
    free(path);
    return e == 0 ? SPACE_OK : probe_failed(err, dir, e, bytes);
}

long long space_tree_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    long long total = 0;
    if (!d)
        return 0;
    while ((de = readdir(d)) != NULL) {
        struct stat st;
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char *p = path_join(dir, de->d_name);
        if (lstat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                total += space_tree_bytes(p);
            else if (S_ISREG(st.st_mode))
                total += (long long)st.st_blocks * 512;
        }
        free(p);
    }
    closedir(d);
    return total;
}

void space_format(long long bytes, char *buf, size_t size)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
        v /= 1024;
        u++;
    }
    if (u == 0)
        snprintf(buf, size, "%lld bytes", bytes);
    else
        snprintf(buf, size, "%.1f %s", v, units[u]);
}

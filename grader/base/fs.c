#include "base/fs.h"

#include "base/alloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Append at most `limit` bytes of fd to out, read straight into its buffer (sized from
 * `hint`, the file's size when known: no bounce buffer, no regrowth for files of megabytes).
 * The number read goes to *got; -1 with errno on a read error. */
static int read_fd_into(int fd, struct strbuf *out, size_t hint, size_t limit, size_t *got)
{
    *got = 0;
    strbuf_grow(out, (hint < limit ? hint : limit) + 1);
    while (*got < limit) {
        if (out->alloc - out->len <= 1)
            strbuf_grow(out, 65536);
        size_t room = out->alloc - out->len - 1;
        size_t want = limit - *got < room ? limit - *got : room;
        ssize_t n = read(fd, out->buf + out->len, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        out->len += (size_t)n;
        out->buf[out->len] = '\0';
        *got += (size_t)n;
    }
    return 0;
}

int read_file(const char *path, struct strbuf *out, struct error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return error_set_at(err, path, 0, 0, "cannot open: %s", strerror(errno));
    struct stat st;
    size_t hint = fstat(fd, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0, got;
    if (read_fd_into(fd, out, hint, SIZE_MAX - out->len - 2, &got) != 0) {
        int e = errno;
        close(fd);
        return error_set_at(err, path, 0, 0, "cannot read: %s", strerror(e));
    }
    close(fd);
    if (!out->buf)
        strbuf_grow(out, 0);
    return 0;
}

static const char *file_type_name(mode_t mode)
{
    if (S_ISFIFO(mode))
        return "a named pipe";
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "a device";
    if (S_ISSOCK(mode))
        return "a socket";
    if (S_ISLNK(mode))
        return "a symbolic link";
    return "not a regular file";
}

char *read_first_line(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    char *s = NULL;
    if (read_file(path, &sb, NULL) == 0) {
        s = xstrdup(strbuf_str(&sb));
        s[strcspn(s, "\n")] = '\0';
    }
    strbuf_release(&sb);
    return s;
}

int read_run_file(const char *path, size_t max_bytes, bool exact, struct strbuf *out,
                  struct error *err)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) {
            error_set_at(err, path, 0, 0, "missing");
            return RUN_FILE_MISSING;
        }
        if (e == ELOOP)
            error_set_at(err, path, 0, 0, "is a symbolic link");
        else
            error_set_at(err, path, 0, 0, "cannot open: %s", strerror(e));
        return RUN_FILE_REFUSED;
    }
    struct stat st;
    const char *why = NULL;
    char whybuf[128];
    if (fstat(fd, &st) != 0) {
        snprintf(whybuf, sizeof(whybuf), "cannot stat: %s", strerror(errno));
        why = whybuf;
    } else if (!S_ISREG(st.st_mode)) {
        why = file_type_name(st.st_mode);
        snprintf(whybuf, sizeof(whybuf), "is %s, not a regular file", why);
        why = whybuf;
    } else if (st.st_nlink != 1) {
        /* A hard link to a file the run could see (another run's outputs, a cache). */
        snprintf(whybuf, sizeof(whybuf), "has %ld hard links", (long)st.st_nlink);
        why = whybuf;
    } else if ((unsigned long long)st.st_size > max_bytes ||
               (exact && (unsigned long long)st.st_size != max_bytes)) {
        snprintf(whybuf, sizeof(whybuf), "is %lld bytes, %s %zu", (long long)st.st_size,
                 exact ? "expected" : "more than the limit of", max_bytes);
        why = whybuf;
    }
    if (why) {
        close(fd);
        error_set_at(err, path, 0, 0, "%s", why);
        return RUN_FILE_REFUSED;
    }
    size_t start = out->len, got = 0;
    /* One byte more than allowed: the file may have grown since fstat. */
    if (read_fd_into(fd, out, (size_t)st.st_size, max_bytes + 1, &got) != 0) {
        int e = errno;
        close(fd);
        strbuf_setlen(out, start);
        error_set_at(err, path, 0, 0, "cannot read: %s", strerror(e));
        return RUN_FILE_REFUSED;
    }
    close(fd);
    if (got > max_bytes || (exact && got != max_bytes)) {
        strbuf_setlen(out, start);
        error_set_at(err, path, 0, 0, "changed size while being read (%zu bytes)", got);
        return RUN_FILE_REFUSED;
    }
    if (!out->buf)
        strbuf_grow(out, 0);
    return 0;
}

int write_file_atomic(const char *path, const void *data, size_t len, struct error *err)
{
    char *tmp = xstrfmt("%s.tmp.%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return error_set_at(err, path, 0, 0, "cannot create: %s", strerror(e));
    }
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            free(tmp);
            return error_set_at(err, path, 0, 0, "cannot write: %s", strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return error_set_at(err, path, 0, 0, "cannot write: %s", strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        free(tmp);
        return error_set_at(err, path, 0, 0, "cannot rename into place: %s", strerror(e));
    }
    free(tmp);
    return 0;
}

int mkdir_p(const char *path, struct error *err)
{
    char *p = xstrdup(path);
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            error_set_at(err, p, 0, 0, "cannot create directory: %s", strerror(e));
            free(p);
            return -1;
        }
        *s = '/';
    }
    if (mkdir(p, 0755) != 0 && errno != EEXIST) {
        int e = errno;
        error_set_at(err, p, 0, 0, "cannot create directory: %s", strerror(e));
        free(p);
        return -1;
    }
    free(p);
    if (!dir_exists(path))
        return error_set_at(err, path, 0, 0, "exists and is not a directory");
    return 0;
}

int remove_tree(const char *path, struct error *err)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : error_set_at(err, path, 0, 0, "%s", strerror(errno));
    if (S_ISDIR(st.st_mode)) {
        DIR *d = opendir(path);
        if (!d) {
            /* A sandboxed child may have removed our permissions: restore and retry. */
            chmod(path, 0700);
            d = opendir(path);
            if (!d)
                return error_set_at(err, path, 0, 0, "cannot open directory: %s", strerror(errno));
        }
        struct dirent *de;
        int rc = 0;
        while ((de = readdir(d))) {
            if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
                continue;
            char *child = path_join(path, de->d_name);
            if (remove_tree(child, err) != 0)
                rc = -1;
            free(child);
        }
        closedir(d);
        if (rmdir(path) != 0 && errno != ENOENT) {
            chmod(path, 0700);
            if (rmdir(path) != 0)
                return error_set_at(err, path, 0, 0, "cannot remove: %s", strerror(errno));
        }
        return rc;
    }
    if (unlink(path) != 0 && errno != ENOENT)
        return error_set_at(err, path, 0, 0, "cannot remove: %s", strerror(errno));
    return 0;
}

bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int copy_file(const char *src, const char *dst, struct error *err)
{
    struct stat st;
    int in = open(src, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return error_set_at(err, src, 0, 0, "cannot open: %s", strerror(errno));
    if (fstat(in, &st) != 0) {
        close(in);
        return error_set_at(err, src, 0, 0, "cannot stat: %s", strerror(errno));
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, st.st_mode & 0777);
    if (out < 0) {
        int e = errno;
        close(in);
        return error_set_at(err, dst, 0, 0, "cannot create: %s", strerror(e));
    }
    char buf[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = error_set_at(err, src, 0, 0, "cannot read: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        char *p = buf;
        while (n > 0) {
            ssize_t w = write(out, p, (size_t)n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                rc = error_set_at(err, dst, 0, 0, "cannot write: %s", strerror(errno));
                break;
            }
            p += w;
            n -= w;
        }
        if (rc)
            break;
    }
    close(in);
    if (close(out) != 0 && rc == 0)
        rc = error_set_at(err, dst, 0, 0, "cannot write: %s", strerror(errno));
    return rc;
}

char *path_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    if (n == 0)
        return xstrdup(name);
    if (name[0] == '/')
        return xstrdup(name);
    return xstrfmt("%s%s%s", dir, dir[n - 1] == '/' ? "" : "/", name);
}

char *path_abs(const char *path, struct error *err)
{
    char *r = realpath(path, NULL);
    if (!r) {
        error_set_at(err, path, 0, 0, "%s", strerror(errno));
        return NULL;
    }
    return r;
}

const char *path_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

char *find_program(const char *name)
{
    if (!name || !*name)
        return NULL;
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char *copy = xstrdup(path);
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
        char *cand = path_join(*dir ? dir : ".", name);
        if (access(cand, X_OK) == 0 && file_exists(cand)) {
            free(copy);
            return cand;
        }
        free(cand);
    }
    free(copy);
    return NULL;
}

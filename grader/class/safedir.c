#include "class/safedir.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void collect_limits_init(struct collect_limits *l)
{
    l->max_total_bytes = 200LL << 20;
    l->max_file_bytes = 20LL << 20;
    l->max_files = 2000;
}

int refuse(struct error *err, const char *where, const char *entry, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    if (!entry)
        return error_set_at(err, where, 0, 0, "refused: %s", why);
    char *shown = printable(entry);
    error_set_at(err, where, 0, 0, "entry '%s' refused: %s", shown, why);
    free(shown);
    return -1;
}

int budget_refuse(struct budget *b, enum submission_problem problem, long long limit,
                  struct error *err, const char *where, const char *entry, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof(why), fmt, ap);
    va_end(ap);
    refuse(err, where, entry, "%s", why);
    if (b && b->problem == SUBMISSION_OK) {
        char *shown = printable(entry ? entry : where);
        b->problem = problem;
        b->limit = limit;
        snprintf(b->what, sizeof(b->what), "%s", shown);
        snprintf(b->why, sizeof(b->why), "%.500s", why);
        free(shown);
    }
    return SAFE_REFUSED;
}

int charge_file(struct budget *b, const struct collect_limits *lim, const char *where,
                const char *entry, const char *scope, struct error *err)
{
    if (b->files + 1 > lim->max_files)
        return budget_refuse(b, SUBMISSION_TOO_MANY_FILES, lim->max_files, err, where, entry,
                             "%s holds more than %ld files", scope, lim->max_files);
    b->files++;
    return 0;
}

int charge_bytes(struct budget *b, const struct collect_limits *lim, long long file_bytes,
                 long long add, const char *where, const char *entry, const char *scope,
                 struct error *err)
{
    if (file_bytes + add > lim->max_file_bytes)
        return budget_refuse(b, SUBMISSION_FILE_TOO_LARGE, lim->max_file_bytes, err, where, entry,
                             "larger than the limit of %lld bytes per file", lim->max_file_bytes);
    if (b->bytes + add > lim->max_total_bytes)
        return budget_refuse(b, SUBMISSION_TOO_LARGE, lim->max_total_bytes, err, where, entry,
                             "%s exceeds the limit of %lld bytes in total", scope,
                             lim->max_total_bytes);
    b->bytes += add;
    return 0;
}

/* ---- safe directory work (everything relative to directory fds, no symlinks followed) ---- */

int open_dir_at(int dirfd, const char *name)
{
    return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* mkdir if needed, then open it; refuses a symlink or a file in the way. */
int make_dir_at(int dirfd, const char *name)
{
    if (mkdirat(dirfd, name, 0755) != 0 && errno != EEXIST)
        return -1;
    return open_dir_at(dirfd, name);
}

int list_dir(int dirfd, const char *label, struct name_list *out, struct error *err)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return error_set_at(err, label, 0, 0, "cannot open folder: %s", strerror(errno));
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = errno;
        close(fd);
        return error_set_at(err, label, 0, 0, "cannot open folder: %s", strerror(e));
    }
    struct dirent *de;
    while ((de = readdir(d)))
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
            name_list_add(out, xstrdup(de->d_name));
    closedir(d);
    name_list_sort(out);
    return 0;
}

/* Bytes of the regular files below dirfd, and its files and folders. */
int measure_tree(int dirfd, const char *label, struct budget *b, struct error *err)
{
    struct name_list names = {0};
    int rc = list_dir(dirfd, label, &names, err);
    for (size_t i = 0; rc == 0 && i < names.n; i++) {
        struct stat st;
        if (fstatat(dirfd, names.v[i], &st, AT_SYMLINK_NOFOLLOW) != 0)
            continue;
        if (S_ISREG(st.st_mode)) {
            b->files++;
            b->bytes += st.st_size;
        } else if (S_ISDIR(st.st_mode)) {
            int fd = open_dir_at(dirfd, names.v[i]);
            b->files++;
            if (fd < 0)
                continue;
            char *sub = path_join(label, names.v[i]);
            rc = measure_tree(fd, sub, b, err);
            free(sub);
            close(fd);
        }
    }
    name_list_release(&names);
    return rc;
}

/* in's bytes into out, charged to b as they are read. */
static int copy_data(int in, int out, const char *label, const struct collect_limits *lim,
                     struct budget *b, struct error *err)
{
    char buf[65536];
    long long written = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof(buf));
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            return error_set_at(err, label, 0, 0, "cannot read: %s", strerror(errno));
        if (n == 0)
            return 0;
        int rc = charge_bytes(b, lim, written, n, label, NULL, "the submission", err);
        if (rc != 0)
            return rc;
        written += n;
        for (char *p = buf; n > 0;) {
            ssize_t w = write(out, p, (size_t)n);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                return error_set_at(err, label, 0, 0, "cannot copy: %s", strerror(errno));
            p += w;
            n -= w;
        }
    }
}

int copy_limited(int src_dirfd, const char *src_name, int dst_dirfd, const char *dst_name,
                 const char *label, const struct collect_limits *lim, struct budget *b,
                 struct error *err)
{
    /* O_NONBLOCK: should a FIFO be swapped in after the check, the open must not hang. */
    int in = openat(src_dirfd, src_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    int rc;
    if (in < 0)
        return error_set_at(err, label, 0, 0, "cannot open: %s", strerror(errno));
    if (fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(in);
        return budget_refuse(b, SUBMISSION_BAD_ENTRY, 0, err, label, NULL, "not a regular file");
    }
    /* A file's size on a local disk is true (a sparse gigabyte too): refuse before reading. */
    if ((rc = charge_file(b, lim, label, NULL, "the submission", err)) != 0 ||
        (st.st_size > lim->max_file_bytes &&
         (rc = charge_bytes(b, lim, 0, st.st_size, label, NULL, "the submission", err)) != 0)) {
        close(in);
        return rc;
    }
    int out =
        openat(dst_dirfd, dst_name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (out < 0) {
        int e = errno;
        close(in);
        return error_set_at(err, label, 0, 0, "cannot copy: %s", strerror(e));
    }
    rc = copy_data(in, out, label, lim, b, err);
    /* The time the student last changed it: lateness may be judged from it. */
    if (rc == 0) {
        struct timespec times[2] = {st.st_atim, st.st_mtim};
        futimens(out, times);
    }
    close(in);
    if (close(out) != 0 && rc == 0)
        rc = error_set_at(err, label, 0, 0, "cannot copy: %s", strerror(errno));
    if (rc != 0)
        unlinkat(dst_dirfd, dst_name, 0);
    return rc;
}

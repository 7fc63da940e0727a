/* kit_tar: the kit's staged tree written as a .tar.gz, in sorted order (kitpack.h). */
#include "class/kitpack.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names in dir, sorted, without . and ..; NULL with err set. */
char **kit_list_dir(const char *dir, size_t *n_out, struct error *err)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char **names = NULL;
    size_t n = 0, alloc = 0;
    if (!d) {
        error_set_at(err, dir, 0, 0, "cannot open directory: %s", strerror(errno));
        return NULL;
    }
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        ALLOC_GROW(names, n + 1, alloc);
        names[n++] = xstrdup(de->d_name);
    }
    closedir(d);
    if (!names)
        names = xmalloc(sizeof(*names));
    qsort(names, n, sizeof(*names), cmp_str);
    *n_out = n;
    return names;
}

void kit_free_names(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static int archive_fail(struct archive *a, const char *path, struct error *err)
{
    const char *msg = archive_error_string(a);
    return error_set_at(err, path, 0, 0, "cannot write the kit: %s",
                        msg ? msg : "libarchive error");
}

static int add_entry(struct archive *a, const char *out, const char *disk, const char *name,
                     struct error *err)
{
    struct stat st;
    struct archive_entry *ent;
    int rc = 0;
    if (stat(disk, &st) != 0)
        return error_set_at(err, disk, 0, 0, "cannot stat: %s", strerror(errno));
    ent = archive_entry_new();
    archive_entry_set_pathname(ent, name);
    archive_entry_set_uid(ent, 0);
    archive_entry_set_gid(ent, 0);
    archive_entry_set_uname(ent, "root");
    archive_entry_set_gname(ent, "root");
    archive_entry_set_mtime(ent, st.st_mtime, 0);
    if (S_ISDIR(st.st_mode)) {
        archive_entry_set_filetype(ent, AE_IFDIR);
        archive_entry_set_perm(ent, 0755);
        archive_entry_set_size(ent, 0);
        if (archive_write_header(a, ent) != ARCHIVE_OK)
            rc = archive_fail(a, out, err);
        archive_entry_free(ent);
        return rc;
    }
    archive_entry_set_filetype(ent, AE_IFREG);
    archive_entry_set_perm(ent, st.st_mode & 0777);
    archive_entry_set_size(ent, st.st_size);
    if (archive_write_header(a, ent) != ARCHIVE_OK) {
        archive_entry_free(ent);
        return archive_fail(a, out, err);
    }
    archive_entry_free(ent);
    int fd = open(disk, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return error_set_at(err, disk, 0, 0, "cannot open: %s", strerror(errno));
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = error_set_at(err, disk, 0, 0, "cannot read: %s", strerror(errno));
            break;
        }
        if (n == 0)
            break;
        if (archive_write_data(a, buf, (size_t)n) != n) {
            rc = archive_fail(a, out, err);
            break;
        }
    }
    close(fd);
    return rc;
}

/* Add the staged tree dir (archive name prefix) in sorted order: the same kit, the same list. */
static int add_tree(struct archive *a, const char *out, const char *dir, const char *prefix,
                    struct error *err)
{
    size_t n = 0;
    char **names = kit_list_dir(dir, &n, err);
    int rc = 0;
    if (!names)
        return -1;
    for (size_t i = 0; i < n && !rc; i++) {
        char *disk = path_join(dir, names[i]);
        char *name = xstrfmt("%s/%s", prefix, names[i]);
        rc = add_entry(a, out, disk, name, err);
        if (!rc && dir_exists(disk))
            rc = add_tree(a, out, disk, name, err);
        free(name);
        free(disk);
    }
    kit_free_names(names, n);
    return rc;
}

int kit_write_tarball(const char *stage, const char *top, const char *out, struct error *err)
{
    char *tmp = xstrfmt("%s.tmp.%ld", out, (long)getpid());
    struct archive *a = archive_write_new();
    int rc = 0;
    if (archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
        archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_open_filename(a, tmp) != ARCHIVE_OK)
        rc = archive_fail(a, out, err);
    if (!rc)
        rc = add_entry(a, out, stage, top, err);
    if (!rc)
        rc = add_tree(a, out, stage, top, err);
    if (archive_write_close(a) != ARCHIVE_OK && !rc)
        rc = archive_fail(a, out, err);
    archive_write_free(a);
    if (!rc && rename(tmp, out) != 0)
        rc = error_set_at(err, out, 0, 0, "cannot rename into place: %s", strerror(errno));
    if (rc)
        unlink(tmp);
    free(tmp);
    return rc;
}

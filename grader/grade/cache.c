#include "grade/cache.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MANIFEST "done"
#define MANIFEST_HEADER "labgrader-expected 2\n"

/* A file this process hashed, and what it looked like then. */
struct seen_file {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    char hex[65];
};

static struct seen_file *seen;
static size_t n_seen, alloc_seen;
static char **announced;
static size_t n_announced, alloc_announced;

void cache_forget(void)
{
    free(seen);
    seen = NULL;
    n_seen = alloc_seen = 0;
}

static bool same_time(struct timespec a, struct timespec b)
{
    return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
}

static struct seen_file *seen_find(const struct stat *st)
{
    for (size_t i = 0; i < n_seen; i++)
        if (seen[i].dev == st->st_dev && seen[i].ino == st->st_ino)
            return &seen[i];
    return NULL;
}

static void seen_note(const struct stat *st, const char *hex)
{
    struct seen_file *s = seen_find(st);
    if (!s) {
        ALLOC_GROW(seen, n_seen + 1, alloc_seen);
        s = &seen[n_seen++];
    }
    s->dev = st->st_dev;
    s->ino = st->st_ino;
    s->size = st->st_size;
    s->mtime = st->st_mtim;
    s->ctime = st->st_ctim;
    memcpy(s->hex, hex, sizeof(s->hex));
}

/*
 * The sha256 of path's bytes and their number. A file unchanged since this process hashed
 * it is not read again. 0, or -1 with why filled.
 */
static int file_digest(const char *path, char hex[65], long long *size, char *why, size_t n)
{
    struct stat st, after;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, n, "%s", fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *size = (long long)st.st_size;
    const struct seen_file *s = seen_find(&st);
    if (s && s->size == st.st_size && same_time(s->mtime, st.st_mtim) &&
        same_time(s->ctime, st.st_ctim)) {
        memcpy(hex, s->hex, 65);
        close(fd);
        return 0;
    }
    struct sha256 h;
    char buf[65536];
    long long got = 0;
    ssize_t r;
    sha256_init(&h);
    while ((r = read(fd, buf, sizeof(buf))) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(why, n, "cannot read: %s", strerror(errno));
            close(fd);
            return -1;
        }
        sha256_update(&h, buf, (size_t)r);
        got += r;
    }
    sha256_final_hex(&h, hex);
    /* Changed while it was read: its hash describes no version of it. */
    bool stable = fstat(fd, &after) == 0 && after.st_size == st.st_size && got == st.st_size &&
                  same_time(after.st_ctim, st.st_ctim);
    close(fd);
    if (!stable) {
        snprintf(why, n, "changed while it was read");
        return -1;
    }
    seen_note(&st, hex);
    return 0;
}

static char *seal_path(const char *path)
{
    return xstrfmt("%s.sha256", path);
}

int cache_seal_file(const char *path, struct error *err)
{
    char hex[65], why[256];
    long long size;
    if (file_digest(path, hex, &size, why, sizeof(why)) != 0)
        return error_set_at(err, path, 0, 0, "cannot seal a cache entry: %s", why);
    char *text = xstrfmt("sha256 %s size %lld\n", hex, size);
    char *seal = seal_path(path);
    int rc = write_file_atomic(seal, text, strlen(text), err);
    free(seal);
    free(text);
    return rc;
}

enum cache_check cache_check_file(const char *path, char *why, size_t why_size)
{
    struct strbuf text = STRBUF_INIT;
    char want[65] = "", hex[65];
    long long want_size = -1, size;
    if (!file_exists(path))
        return CACHE_MISSING;
    char *seal = seal_path(path);
    bool sealed =
        read_file(seal, &text, NULL) == 0 &&
        sscanf(strbuf_str(&text), "sha256 %64[0-9a-f] size %lld", want, &want_size) == 2 &&
        strlen(want) == 64;
    strbuf_release(&text);
    free(seal);
    if (!sealed) {
        snprintf(why, why_size, "no checksum stored beside it (.sha256 missing or unreadable)");
        return CACHE_BAD;
    }
    if (file_digest(path, hex, &size, why, why_size) != 0)
        return CACHE_BAD;
    if (size != want_size || strcmp(hex, want) != 0) {
        snprintf(why, why_size, "does not match its checksum (%lld bytes, %lld stored)", size,
                 want_size);
        return CACHE_BAD;
    }
    return CACHE_OK;
}

int cache_seal_dir(const char *dir, const char *const *names, size_t n, struct error *err)
{
    struct strbuf m = STRBUF_INIT;
    strbuf_addstr(&m, MANIFEST_HEADER);
    for (size_t i = 0; i < n; i++) {
        char hex[65], why[256];
        long long size;
        char *p = path_join(dir, names[i]);
        int rc = file_digest(p, hex, &size, why, sizeof(why));
        if (rc != 0) {
            error_set_at(err, p, 0, 0, "cannot seal a cache entry: %s", why);
            free(p);
            strbuf_release(&m);
            return -1;
        }
        free(p);
        strbuf_addf(&m, "%s %lld %s\n", hex, size, names[i]);
    }
    char *manifest = path_join(dir, MANIFEST);
    int rc = write_file_atomic(manifest, m.buf, m.len, err);
    free(manifest);
    strbuf_release(&m);
    return rc;
}

/* One manifest line, "<hex> <bytes> <name>", checked against the file it names. */
static enum cache_check check_line(const char *dir, const char *line, char *why, size_t why_size)
{
    char want[65] = "", name[256] = "", hex[65];
    long long want_size = -1, size;
    if (sscanf(line, "%64[0-9a-f] %lld %255[^\n]", want, &want_size, name) != 3 ||
        strlen(want) != 64 || strchr(name, '/') || name[0] == '.') {
        snprintf(why, why_size, "its manifest (%s) is damaged", MANIFEST);
        return CACHE_BAD;
    }
    char *p = path_join(dir, name);
    char fwhy[256];
    int rc = file_digest(p, hex, &size, fwhy, sizeof(fwhy));
    free(p);
    if (rc != 0) {
        snprintf(why, why_size, "%s: %s", name, fwhy);
        return CACHE_BAD;
    }
    if (size != want_size || strcmp(hex, want) != 0) {
        snprintf(why, why_size, "%s does not match its checksum (%lld bytes, %lld stored)", name,
                 size, want_size);
        return CACHE_BAD;
    }
    return CACHE_OK;
}

enum cache_check cache_check_dir(const char *dir, char *why, size_t why_size)
{
    struct strbuf m = STRBUF_INIT;
    char *manifest = path_join(dir, MANIFEST);
    int rc = read_file(manifest, &m, NULL);
    free(manifest);
    if (rc != 0) {
        strbuf_release(&m);
        return CACHE_MISSING;
    }
    enum cache_check res = CACHE_OK;
    const char *line = strbuf_str(&m);
    if (strncmp(line, MANIFEST_HEADER, strlen(MANIFEST_HEADER)) != 0) {
        snprintf(why, why_size, "stored without checksums (an older grader's) or damaged");
        res = CACHE_BAD;
    } else {
        line += strlen(MANIFEST_HEADER);
    }
    size_t files = 0;
    while (res == CACHE_OK && *line) {
        res = check_line(dir, line, why, why_size);
        files++;
        line = strchr(line, '\n');
        line = line ? line + 1 : "";
    }
    if (res == CACHE_OK && files == 0) {
        snprintf(why, why_size, "its manifest (%s) lists no file", MANIFEST);
        res = CACHE_BAD;
    }
    strbuf_release(&m);
    return res;
}

void cache_discard(const char *path, const char *why)
{
    bool said = false;
    for (size_t i = 0; i < n_announced && !said; i++)
        said = !strcmp(announced[i], path);
    if (!said) {
        ALLOC_GROW(announced, n_announced + 1, alloc_announced);
        announced[n_announced++] = xstrdup(path);
        fprintf(stderr, "grader: cache: %s: %s: discarded, built again\n", path, why);
        fflush(stderr);
    }
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        remove_tree(path, NULL);
        return;
    }
    unlink(path);
    char *seal = seal_path(path);
    unlink(seal);
    free(seal);
}

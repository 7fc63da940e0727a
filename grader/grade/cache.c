#include "grade/cache.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/strbuf.h"
#include "run/work.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
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

/* ---- what other processes of this boot verified ---- */

/* A file's hash is remembered beside it (path + ".ok") for the rest of the boot, at most this
 * long: a class's graders, a rush's autogrades and every check would otherwise each read and
 * hash the same hundreds of megabytes of expected outputs (lab 6's slow cases: 0.8 GB, seconds
 * of a core each), all of it work that no timing coordinator sees. */
#define VERIFIED_MAX_AGE_S 3600
#define VERIFIED_HEADER "labgrader-verified 1"

/* The file's identity as it stands and the boot, in the memo's words. NULL without a boot id. */
static char *identity_text(const struct stat *st)
{
    char *boot = read_first_line("/proc/sys/kernel/random/boot_id");
    if (!boot)
        return NULL;
    char *text = xstrfmt("boot %s dev %llu ino %llu size %lld mtime %lld.%09ld ctime %lld.%09ld",
                         boot, (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
                         (long long)st->st_size, (long long)st->st_mtim.tv_sec, st->st_mtim.tv_nsec,
                         (long long)st->st_ctim.tv_sec, st->st_ctim.tv_nsec);
    free(boot);
    return text;
}

/* The hash another process of this boot took of this very file (the same identity: any write
 * changes its change time), within the hour; false when there is none to trust. */
static bool verified_read(const char *path, const struct stat *st, char hex[65])
{
    char *memo = xstrfmt("%s.ok", path), *id = identity_text(st);
    struct strbuf text = STRBUF_INIT;
    bool ok = false;
    if (id && read_file(memo, &text, NULL) == 0) {
        long long at = 0;
        int used = 0;
        char want[65];
        const char *p = strbuf_str(&text);
        ok = sscanf(p, VERIFIED_HEADER " at %lld %n", &at, &used) == 1 && used > 0 &&
             !strncmp(p + used, id, strlen(id)) &&
             sscanf(p + used + strlen(id), " sha256 %64[0-9a-f]", want) == 1 &&
             strlen(want) == 64 && time(NULL) - at >= 0 && time(NULL) - at < VERIFIED_MAX_AGE_S;
        if (ok)
            memcpy(hex, want, 65);
    }
    strbuf_release(&text);
    free(memo);
    free(id);
    return ok;
}

static void verified_write(const char *path, const struct stat *st, const char hex[65])
{
    char *id = identity_text(st);
    if (!id)
        return;
    char *memo = xstrfmt("%s.ok", path);
    char *text = xstrfmt(VERIFIED_HEADER " at %lld %s sha256 %s\n", (long long)time(NULL), id, hex);
    /* Best effort: a read-only cache is hashed again by the next process, as before. */
    write_file_atomic(memo, text, strlen(text), NULL);
    free(text);
    free(memo);
    free(id);
}

/* A series that comes to wait for the lane's cores while a file is hashed waits at most this
 * much hashing (a few milliseconds of a core). */
#define HASH_CHECKPOINT_BYTES (8LL << 20)
/* Below this a file is hashed outside any section: about a millisecond of a core. */
#define HASH_SECTION_BYTES (1LL << 20)

/* The sha256 of fd's bytes (st: as they stood); 0, or -1 with why filled. Called in a section
 * of the grader's own work (run/work.h): hundreds of megabytes of expected outputs take seconds
 * of a core, which beside another grader's CPU series would make that series shared. */
static int hash_fd(int fd, const struct stat *st, char hex[65], char *why, size_t n)
{
    struct sha256 h;
    struct stat after;
    char buf[65536];
    long long got = 0;
    ssize_t r;
    sha256_init(&h);
    while ((r = read(fd, buf, sizeof(buf))) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            snprintf(why, n, "cannot read: %s", strerror(errno));
            return -1;
        }
        sha256_update(&h, buf, (size_t)r);
        got += r;
        if (got % HASH_CHECKPOINT_BYTES < r)
            work_checkpoint();
    }
    sha256_final_hex(&h, hex);
    /* Changed while it was read: its hash describes no version of it. */
    if (fstat(fd, &after) != 0 || after.st_size != st->st_size || got != st->st_size ||
        !same_time(after.st_ctim, st->st_ctim)) {
        snprintf(why, n, "changed while it was read");
        return -1;
    }
    return 0;
}

/*
 * The sha256 of path's bytes and their number. A file unchanged since this process hashed
 * it, or since another process of this boot did within the hour, is not read again. 0, or -1
 * with why filled.
 */
static int file_digest(const char *path, char hex[65], long long *size, char *why, size_t n)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, n, "%s", fd < 0 ? strerror(errno) : "not a regular file");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *size = (long long)st.st_size;
    const struct seen_file *s = seen_find(&st);
    int rc = 0;
    if (s && s->size == st.st_size && same_time(s->mtime, st.st_mtim) &&
        same_time(s->ctime, st.st_ctim))
        memcpy(hex, s->hex, 65);
    else if (verified_read(path, &st, hex))
        seen_note(&st, hex);
    else {
        /* A small file (a memo, a calibration) hashes in a millisecond: no section, which would
         * wait for a series for nothing, and, before any grading, silently. */
        bool section = st.st_size >= HASH_SECTION_BYTES;
        if (section)
            work_begin();
        rc = hash_fd(fd, &st, hex, why, n);
        if (section)
            work_end();
        if (rc == 0) {
            seen_note(&st, hex);
            verified_write(path, &st, hex);
        }
    }
    close(fd);
    return rc;
}

/* "<name> does not match its checksum" (and how its size differs, when it does). */
static enum cache_check mismatch(char *why, size_t why_size, const char *name, long long size,
                                 long long stored)
{
    if (size != stored)
        snprintf(why, why_size, "%s%sdoes not match its checksum (%lld bytes, %lld stored)", name,
                 *name ? " " : "", size, stored);
    else
        snprintf(why, why_size, "%s%sdoes not match its checksum", name, *name ? " " : "");
    return CACHE_BAD;
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
    if (size != want_size || strcmp(hex, want) != 0)
        return mismatch(why, why_size, "", size, want_size);
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
    if (size != want_size || strcmp(hex, want) != 0)
        return mismatch(why, why_size, name, size, want_size);
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

int cache_lock(const char *path, void (*waiting)(void *arg), void *arg)
{
    char *lock_path = xstrfmt("%s.lock", path);
    char *dir = xstrdup(lock_path);
    *strrchr(dir, '/') = '\0';
    mkdir_p(dir, NULL);
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    free(dir);
    free(lock_path);
    if (fd < 0)
        return -1;
    int rc;
    while ((rc = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR)
        ;
    if (rc != 0 && waiting)
        waiting(arg);
    /* The holder may be computing what it stores in a section, or timing it: a section of ours
     * held meanwhile would keep its series waiting for us (run/work.h). */
    work_pause();
    while (rc != 0 && (rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    work_resume();
    return fd;
}

void cache_unlock(int fd)
{
    if (fd >= 0)
        close(fd);
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

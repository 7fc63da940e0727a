#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void die_oom(void)
{
    static const char msg[] = "labgrader: out of memory\n";
    if (write(2, msg, sizeof(msg) - 1) < 0) {
        /* nothing more to do */
    }
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        die_oom();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        die_oom();
    return p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        die_oom();
    return q;
}

char *xstrdup(const char *s)
{
    char *p = strdup(s ? s : "");
    if (!p)
        die_oom();
    return p;
}

char *xstrndup(const char *s, size_t n)
{
    char *p = strndup(s, n);
    if (!p)
        die_oom();
    return p;
}

char *xstrfmt(const char *fmt, ...)
{
    struct strbuf sb = STRBUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    strbuf_vaddf(&sb, fmt, ap);
    va_end(ap);
    return strbuf_detach(&sb);
}

bool parse_long(const char *s, long *out)
{
    char *end;
    if (!s || !*s)
        return false;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool parse_double(const char *s, double *out)
{
    char *end;
    if (!s || !*s)
        return false;
    errno = 0;
    double v = strtod(s, &end);
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
        return false;
    if (*end)
        return false;
    *out = v;
    return true;
}

int read_file(const char *path, struct strbuf *out, struct error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return error_set_at(err, path, 0, 0, "cannot open: %s", strerror(errno));
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            return error_set_at(err, path, 0, 0, "cannot read: %s", strerror(e));
        }
        if (n == 0)
            break;
        strbuf_add(out, buf, (size_t)n);
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
    char buf[65536];
    /* One byte more than allowed: the file may have grown since fstat. */
    while (got <= max_bytes) {
        size_t want = max_bytes + 1 - got < sizeof(buf) ? max_bytes + 1 - got : sizeof(buf);
        ssize_t n = read(fd, buf, want);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            error_set_at(err, path, 0, 0, "cannot read: %s", strerror(e));
            return RUN_FILE_REFUSED;
        }
        if (n == 0)
            break;
        strbuf_add(out, buf, (size_t)n);
        got += (size_t)n;
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

char *text_pick_line(const char *text, const char *needle)
{
    const char *first = NULL;
    size_t first_len = 0;
    for (const char *line = text; line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
            len--;
        if (len > 0) {
            if (!first) {
                first = line;
                first_len = len;
            }
            if (!needle)
                break;
            char *l = xstrndup(line, len);
            bool hit = strstr(l, needle) != NULL;
            free(l);
            if (hit)
                return xstrndup(line, len);
        }
        line = nl ? nl + 1 : NULL;
    }
    return first ? xstrndup(first, first_len) : NULL;
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

/* SHA-256 per FIPS 180-4. */
static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(struct sha256 *s, const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR32(w[i - 15], 7) ^ ROR32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR32(w[i - 2], 17) ^ ROR32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t S1 = ROR32(e, 6) ^ ROR32(e, 11) ^ ROR32(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = h + S1 + ch + sha256_k[i] + w[i];
        uint32_t S0 = ROR32(a, 2) ^ ROR32(a, 13) ^ ROR32(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
    s->h[5] += f;
    s->h[6] += g;
    s->h[7] += h;
}

void sha256_init(struct sha256 *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof(iv));
    s->len = 0;
    s->fill = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    while (len > 0) {
        size_t take = 64 - s->fill;
        if (take > len)
            take = len;
        memcpy(s->block + s->fill, p, take);
        s->fill += take;
        p += take;
        len -= take;
        if (s->fill == 64) {
            sha256_block(s, s->block);
            s->fill = 0;
        }
    }
}

void sha256_final_hex(struct sha256 *s, char out[65])
{
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80;
    sha256_update(s, &pad, 1);
    pad = 0;
    while (s->fill != 56)
        sha256_update(s, &pad, 1);
    unsigned char lenb[8];
    for (int i = 0; i < 8; i++)
        lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha256_update(s, lenb, 8);
    for (int i = 0; i < 8; i++)
        snprintf(out + 8 * i, 9, "%08x", s->h[i]);
    out[64] = '\0';
}

int sha256_file(struct sha256 *s, const char *path, struct error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return error_set_at(err, path, 0, 0, "cannot open: %s", strerror(errno));
    char buf[65536];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            close(fd);
            return error_set_at(err, path, 0, 0, "cannot read: %s", strerror(e));
        }
        if (n == 0)
            break;
        sha256_update(s, buf, (size_t)n);
    }
    close(fd);
    return 0;
}

double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void iso_datetime(char *buf, size_t size)
{
    time_t t = time(NULL);
    struct tm tm;
    const char *epoch = getenv("SOURCE_DATE_EPOCH");
    long e;
    /* Reproducible reports (golden tests) pin the date like other reproducible builds do. */
    if (epoch && parse_long(epoch, &e)) {
        t = (time_t)e;
        gmtime_r(&t, &tm);
        strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
        return;
    }
    localtime_r(&t, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%S%z", &tm);
}

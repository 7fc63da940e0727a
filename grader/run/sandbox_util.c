/*
 * sandbox_util: argument vectors and the small file helpers of the sandbox's modules
 * (run/sandbox_internal.h).
 */
#include "run/sandbox_internal.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void argvec_push(struct argvec *a, const char *s)
{
    ALLOC_GROW(a->v, a->n + 2, a->alloc);
    a->v[a->n++] = xstrdup(s);
    a->v[a->n] = NULL;
}

void argvec_push2(struct argvec *a, const char *s1, const char *s2)
{
    argvec_push(a, s1);
    argvec_push(a, s2);
}

void argvec_push3(struct argvec *a, const char *s1, const char *s2, const char *s3)
{
    argvec_push(a, s1);
    argvec_push(a, s2);
    argvec_push(a, s3);
}

void argvec_clear(struct argvec *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->alloc = 0;
}

void sb_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

bool sb_path_exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

bool sb_is_executable_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

bool sb_path_is_under(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (n == 1 && dir[0] == '/')
        return true;
    return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

int sb_write_text_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t len = strlen(text);
    ssize_t n;
    do
        n = write(fd, text, len);
    while (n < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    errno = e;
    return n == (ssize_t)len ? 0 : -1;
}

long long sb_read_keyed_value(const char *path, const char *key)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    long long value = -1;
    error_init(&err);
    if (read_file(path, &sb, &err) != 0)
        return -1;
    size_t klen = strlen(key);
    for (const char *line = sb.buf; line && *line;) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ' ') {
            char *end;
            errno = 0;
            long long v = strtoll(line + klen + 1, &end, 10);
            if (errno == 0 && end != line + klen + 1)
                value = v;
            break;
        }
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    strbuf_release(&sb);
    return value;
}

long long sb_read_number_file(const char *path)
{
    struct strbuf sb = STRBUF_INIT;
    struct error err;
    long long value = -1;
    error_init(&err);
    if (read_file(path, &sb, &err) != 0)
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(sb.buf, &end, 10);
    if (errno == 0 && end != sb.buf)
        value = v;
    strbuf_release(&sb);
    return value;
}

void sb_close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

const char *sb_cuda_home(void)
{
    const char *env = getenv("CUDA_HOME");
    if (env && *env && dir_exists(env))
        return env;
    return dir_exists("/usr/local/cuda") ? "/usr/local/cuda" : NULL;
}

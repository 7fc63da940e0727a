/* profile_source: the text of the source lines a profile names, read from the files that were
 * compiled (grade/profile.h). ncu reads them from the paths -lineinfo recorded, which are the
 * sandboxed build folder's and do not exist where it runs: it then prints "<Unable to open
 * source file>" (seen on the H200), and the report named the line without its code. */
#include "grade/profile.h"

#include "base/alloc.h"
#include "base/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SOURCE_MAX_BYTES ((size_t)4 << 20)

/* A regular file's text, at most SOURCE_MAX_BYTES, never through a symbolic link: a submission
 * could otherwise name a link to any file the grader may read and have a line of it printed
 * in its report (a #line directive chooses the file name the profile shows). */
static char *read_source(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0)
        return NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > SOURCE_MAX_BYTES) {
        close(fd);
        return NULL;
    }
    char *buf = xmalloc((size_t)st.st_size + 1);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    *len = got;
    return buf;
}

/* The one of paths whose base name is file; NULL when none is. */
static const char *path_named(const char *file, const char *const *paths, size_t n)
{
    for (size_t i = 0; file && i < n; i++)
        if (paths[i] && !strcmp(path_base(paths[i]), file))
            return paths[i];
    return NULL;
}

static void fill_line(struct ncu_line *l, const char *const *paths, size_t n)
{
    if (!l->file || !ncu_source_missing(l->source))
        return;
    const char *path = path_named(l->file, paths, n);
    size_t len = 0;
    char *text = path ? read_source(path, &len) : NULL;
    char *line = text ? ncu_source_line(text, len, l->line) : NULL;
    if (line && *line) {
        free(l->source);
        l->source = line;
    } else {
        free(line);
    }
    free(text);
}

int profile_fill_sources(struct ncu_profile *p, const char *const *paths, size_t n)
{
    int filled = 0;
    for (size_t k = 0; k < p->n_kernels; k++) {
        struct ncu_line *lines[] = {&p->kernels[k].hot_line, &p->kernels[k].excess_line};
        for (size_t i = 0; i < 2; i++) {
            bool missing = lines[i]->file && ncu_source_missing(lines[i]->source);
            fill_line(lines[i], paths, n);
            filled += missing && !ncu_source_missing(lines[i]->source);
        }
    }
    return filled;
}

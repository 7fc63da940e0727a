/*
 * capture: the run's output (stdout and stderr merged), drained continuously so that a
 * chatty child never blocks; the first `cap` bytes are kept, and optionally the last
 * `tail` bytes beyond them (run/sandbox_internal.h).
 */
#include "run/sandbox_internal.h"
#include "base/alloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void capture_init(struct capture *c, const struct sandbox_opts *o)
{
    memset(c, 0, sizeof(*c));
    strbuf_init(&c->sb);
    c->cap = o->output_cap ? o->output_cap : SB_DEFAULT_OUTPUT_CAP;
    if (o->output_tail) {
        c->tail_cap = o->output_tail;
        c->tail = xmalloc(c->tail_cap);
    }
}

void capture_release(struct capture *c)
{
    strbuf_release(&c->sb);
    free(c->tail);
    c->tail = NULL;
}

/* Bytes past the cap: into the ring, overwriting the oldest. */
static void capture_tail(struct capture *c, const char *buf, size_t n)
{
    c->tail_seen += n;
    if (!c->tail_cap)
        return;
    if (n >= c->tail_cap) {
        buf += n - c->tail_cap;
        n = c->tail_cap;
    }
    size_t first = c->tail_cap - c->tail_pos < n ? c->tail_cap - c->tail_pos : n;
    memcpy(c->tail + c->tail_pos, buf, first);
    memcpy(c->tail, buf + first, n - first);
    c->tail_pos = (c->tail_pos + n) % c->tail_cap;
}

/*
 * The captured text: the head, and when a tail was kept, a marker line and the last bytes
 * from their first full line on (a cut line at the seam must not read as a whole one).
 */
char *capture_finish(struct capture *c, size_t *len)
{
    if (c->tail_cap && c->tail_seen > 0) {
        size_t kept = c->tail_seen < c->tail_cap ? c->tail_seen : c->tail_cap;
        size_t start = c->tail_seen < c->tail_cap ? 0 : c->tail_pos;
        char *ring = xmalloc(kept + 1);
        for (size_t i = 0; i < kept; i++)
            ring[i] = c->tail[(start + i) % c->tail_cap];
        ring[kept] = '\0';
        char *nl = memchr(ring, '\n', kept);
        size_t skip = nl ? (size_t)(nl - ring) + 1 : kept;
        strbuf_addf(&c->sb, "\n[... %zu bytes of output left out ...]\n",
                    c->tail_seen - (kept - skip));
        strbuf_add(&c->sb, ring + skip, kept - skip);
        free(ring);
        c->tail_seen = 0;
    }
    *len = c->sb.len;
    return strbuf_detach(&c->sb);
}

int capture_read(int fd, struct capture *c)
{
    char buf[65536];
    int got = -1;
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return got; /* EAGAIN, or an error we treat like it */
        }
        if (n == 0)
            return 0;
        got = 1;
        size_t keep = 0;
        if (c->sb.len < c->cap)
            keep = c->cap - c->sb.len < (size_t)n ? c->cap - c->sb.len : (size_t)n;
        if (keep)
            strbuf_add(&c->sb, buf, keep);
        if (keep < (size_t)n) {
            c->truncated = true;
            capture_tail(c, buf + keep, (size_t)n - keep);
        }
    }
}

#include "run/control.h"

#include "base/alloc.h"
#include "base/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void sb_control_init(struct sb_control *c, int fd, const struct sandbox_opts *o, double start)
{
    memset(c, 0, sizeof(*c));
    c->fd = fd;
    c->limits = o->case_limits_s;
    c->n_limits = o->n_case_limits;
    c->current = -1;
    c->start = start;
}

static void event(struct sb_control *c, double now)
{
    int i;
    if (c->n >= SB_CONTROL_MAX_EVENTS)
        return;
    ALLOC_GROW(c->events, c->n + 1, c->alloc);
    struct sandbox_event *e = &c->events[c->n++];
    e->t_s = now - c->start;
    e->t_after_s = c->drained;
    snprintf(e->line, sizeof(e->line), "%.*s", (int)c->len, c->line);
    /* A case begins: its own limit starts now. Only the next case in order counts, so that
     * repeated or forged lines cannot stretch the limits past their sum. */
    if (sscanf(e->line, "B %d", &i) == 1 && i == c->current + 1 && i >= 0 &&
        (size_t)i < c->n_limits) {
        c->current = i;
        c->case_deadline = c->limits[i] > 0 ? now + c->limits[i] : 0;
    } else if (sscanf(e->line, "W %d", &i) == 1 && i == c->current && i >= 0) {
        /* Served after any "R" read before it (one read can bring a case's "R" and the next
         * case's "B" and "W"): the idle modes first, then the timed ones. */
        c->want_timed = true;
    } else if (sscanf(e->line, "R %d", &i) == 1 && i == c->current && i >= 0) {
        /* The run stops timing as of this line, whenever the locks are turned back. */
        c->want_idle = true;
        c->want_timed = false;
        c->timed = false;
    } else if ((e->line[0] == 'S' || e->line[0] == 'E') && e->line[1] == ' ' && !c->timed) {
        c->unlocked_series = true;
    } else if ((e->line[0] == 'S' || e->line[0] == 'E') && e->line[1] == ' ' &&
               sscanf(e->line + 2, "%d %15s", &i, c->series) == 2 && i == c->current) {
        if (e->line[0] == 'S')
            c->series_began = true;
        else
            c->series_ended = true;
    }
}

void sb_control_pause(struct sb_control *c, double pause_s)
{
    if (c->case_deadline > 0 && pause_s > 0)
        c->case_deadline += pause_s;
}

void sb_control_granted(struct sb_control *c, double wait_s)
{
    if (c->case_deadline > 0)
        c->case_deadline += wait_s;
    c->want_timed = false;
    c->timed = true;
}

void sb_control_idle(struct sb_control *c, double since)
{
    if (since - c->start > c->drained)
        c->drained = since - c->start;
}

bool sb_control_read(struct sb_control *c)
{
    char buf[4096];
    /* Before the read: what it leaves behind is written after this, whatever the scheduler
     * does between the read and the clock. */
    double before = now_seconds();
    ssize_t n = read(c->fd, buf, sizeof(buf));
    if (n < 0 && errno == EAGAIN)
        sb_control_idle(c, before);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    double now = now_seconds();
    for (ssize_t k = 0; k < n; k++) {
        if (buf[k] == '\n') {
            if (!c->overlong)
                event(c, now);
            c->len = 0;
            c->overlong = false;
        } else if (c->len < 63) {
            c->line[c->len++] = buf[k];
        } else {
            c->overlong = true;
        }
    }
    /* A short read took everything there was. */
    if ((size_t)n < sizeof(buf))
        sb_control_idle(c, before);
    return true;
}

double sb_control_deadline(const struct sb_control *c, double run_deadline)
{
    if (c->case_deadline <= 0)
        return run_deadline;
    if (run_deadline <= 0)
        return c->case_deadline;
    return c->case_deadline < run_deadline ? c->case_deadline : run_deadline;
}

bool sb_control_case_expired(const struct sb_control *c, double now)
{
    return c->case_deadline > 0 && now >= c->case_deadline;
}

void sb_control_finish(struct sb_control *c, struct sandbox_result *r, bool case_expired)
{
    if (c->fd >= 0) {
        /* What the run wrote before it ended is still worth its timestamps; a descendant that
         * kept the pipe open must not keep the supervisor reading. */
        for (int i = 0; i < 64 && sb_control_read(c); i++)
            ;
        close(c->fd);
    }
    r->events = c->events;
    r->n_events = c->n;
    r->case_timed_out = case_expired ? c->current : -1;
    r->unlocked_series = c->unlocked_series;
    c->events = NULL;
    c->n = c->alloc = 0;
    c->fd = -1;
}

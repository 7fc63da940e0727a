/*
 * grants: the supervisor's side of the timing locks (sandbox.h's `locks`, phaselock.h,
 * turns.h). The run holds its idle modes from before it starts. A "W <i>" on the control pipe
 * freezes it, waits for the timed modes without blocking the supervisor (at most
 * timing_wait_s, then "busy"), moves the case's limit on by the wait and answers with one byte
 * on the grant pipe; an "R <i>" turns the locks back to their idle modes. Each series' end is
 * answered too, after a look at what ran beside it (loadwatch.h): measure again, or keep.
 * Between series, a run that holds its cores shared gives them up, frozen, while another run
 * waits to time on them.
 *
 * Bytes on the grant pipe: 'g' the turn is yours, 'n' no turn came (busy: the case is not
 * timed), 'k' keep the series, 'a' measure it again.
 */
#include "run/sandbox_internal.h"
#include "run/turns.h"

#include "base/alloc.h"
#include "base/util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* A series that shared its cores or its GPU is measured again, once the machine looks quiet,
 * while it is within its wait bound (the timing wait: a deadline's autograde derives it from
 * the time left), and this many times at most. */
#define GRANTS_MAX_ATTEMPTS 8
/* The window a quiet machine is looked for over: a CPU's load shows within a few ticks; NVML's
 * samples of another process count from LOADWATCH_GPU_SETTLE_S into a look. */
#define GRANTS_QUIET_CPU_S 0.2
#define GRANTS_QUIET_GPU_S (LOADWATCH_GPU_SETTLE_S + 0.25)
/* How long a series kept as shared looks for the busiest other process on its cores. */
#define GRANTS_BUSIEST_S 0.2
/* While a run waits for its turn: the first notice, and the next ones. */
#define GRANTS_NOTICE_FIRST_S 2.0
#define GRANTS_NOTICE_EVERY_S 30.0

void grants_init(struct grants *g)
{
    memset(g, 0, sizeof(*g));
    g->pipe[0] = g->pipe[1] = -1;
    g->target = -1;
    g->root = -1;
    g->series_case = -1;
}

static void notice(struct grants *g, double now);

/* How long a wait that began at since sleeps before its next try (sandbox_internal.h). */
static int wait_poll_ms(double since, double now)
{
    return now - since < SB_GRANT_EAGER_S ? SB_GRANT_POLL_MS : SB_GRANT_IDLE_POLL_MS;
}

/* Before the run starts: its start-up is untimed work like any other, which waits only for a
 * series on its cores or GPU. A process that holds them past the bound (another user's, or one
 * gone astray) delays the run no further: it goes on holding nothing, and times nothing. */
static void wait_to_start(struct grants *g)
{
    g->wait_since = now_seconds();
    g->next_notice = g->wait_since + GRANTS_NOTICE_FIRST_S;
    while (!phaselock_try_idle(&g->locks)) {
        double now = now_seconds();
        if (g->o->timing_wait_s > 0 && now - g->wait_since > g->o->timing_wait_s) {
            phaselock_drop(&g->locks);
            g->uncoordinated = true;
            return;
        }
        notice(g, now);
        struct timespec pause = {0, wait_poll_ms(g->wait_since, now) * 1000L * 1000L};
        nanosleep(&pause, NULL);
    }
}

int grants_open(struct grants *g, const struct sandbox_opts *o, int target, struct error *err)
{
    g->o = o;
    if (o->n_locks > 0) {
        if (phaselock_open(&g->locks, o->locks, o->n_locks, err) != 0)
            return -1;
        g->locked = true;
    }
    if (o->control) {
        /* A socket pair, not a pipe: a run that ended before its grant must cost the supervisor
         * an EPIPE, never a SIGPIPE (send's MSG_NOSIGNAL). */
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, g->pipe) != 0)
            return error_set(err, "socketpair: %s", strerror(errno));
        g->target = target;
    }
    if (g->locked)
        wait_to_start(g);
    return 0;
}

void grants_attach(struct grants *g, pid_t root, const char *cgroup_dir)
{
    g->root = root;
    free(g->cgroup_dir);
    g->cgroup_dir = cgroup_dir ? xstrdup(cgroup_dir) : NULL;
}

void grants_detach(struct grants *g)
{
    g->root = -1;
    free(g->cgroup_dir);
    g->cgroup_dir = NULL;
    g->frozen = false;
    g->watching = false; /* its watch borrowed the cgroup's path */
}

/* Freeze or thaw the run: its cgroup (cgroup v2's cgroup.freeze), else every process of its
 * tree stopped and continued. */
static void freeze(struct grants *g, bool on)
{
    if (g->frozen == on)
        return;
    g->frozen = on;
    if (g->cgroup_dir) {
        char *path = xstrfmt("%s/cgroup.freeze", g->cgroup_dir);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        free(path);
        if (fd >= 0) {
            ssize_t w;
            while ((w = write(fd, on ? "1" : "0", 1)) < 0 && errno == EINTR)
                ;
            close(fd);
            if (w == 1)
                return;
        }
    }
    proctree_signal(g->root, on ? SIGSTOP : SIGCONT);
}

static void answer(struct grants *g, char b)
{
    ssize_t w;
    if (g->pipe[1] < 0)
        return;
    while ((w = send(g->pipe[1], &b, 1, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
}

static void notice(struct grants *g, double now)
{
    if (!g->o->on_wait || now < g->next_notice)
        return;
    char *holders = turns_holders(g->o->locks, g->o->n_locks);
    g->o->on_wait(g->o->on_wait_arg, now - g->wait_since, holders);
    free(holders);
    g->next_notice = now + GRANTS_NOTICE_EVERY_S;
}

/* No turn within the bound: the harness is told "busy", its case is reported not timed with
 * whoever held the turn, and the run goes back to its idle modes. */
static void give_up(struct grants *g, struct sb_control *c, double now)
{
    ALLOC_GROW(g->busy, g->n_busy + 1, g->alloc_busy);
    struct sb_busy *b = &g->busy[g->n_busy++];
    memset(b, 0, sizeof(*b));
    b->case_index = c->current;
    /* Uncoordinated, it waited the whole bound once already. */
    b->waited_s = g->waiting ? now - g->wait_since : g->o->timing_wait_s;
    char *holders = turns_holders(g->o->locks, g->o->n_locks);
    snprintf(b->holders, sizeof(b->holders), "%s", holders ? holders : "");
    free(holders);
    c->want_timed = false;
    if (g->waiting) {
        g->waiting = false;
        g->waited_s += now - g->wait_since;
        sb_control_pause(c, now - g->wait_since);
    }
    /* Its idle modes again where it can have them; else (the other process holds them too) it
     * goes on holding none, and times nothing more. */
    if (!g->uncoordinated && !phaselock_try_idle(&g->locks)) {
        phaselock_drop(&g->locks);
        g->uncoordinated = true;
    }
    freeze(g, false);
    answer(g, 'n');
}

/* One attempt at the timed modes; the run frozen from the first that fails until one succeeds
 * (a free turn, the usual case, freezes nothing). */
static void serve_timed(struct grants *g, struct sb_control *c, double now)
{
    if (g->uncoordinated) {
        give_up(g, c, now);
        return;
    }
    if (g->preempted) {
        /* Its request came before it was frozen: from now on it waits for its turn. */
        g->preempted = false;
        g->preempted_s += now - g->preempted_since;
        sb_control_pause(c, now - g->preempted_since);
    }
    if (!g->locked || phaselock_try_timed(&g->locks)) {
        double before = g->waiting ? g->wait_since : now;
        if (g->waiting) {
            g->waiting = false;
            g->waited_s += now - g->wait_since;
        }
        freeze(g, false);
        sb_control_granted(c, now - before);
        answer(g, 'g');
        return;
    }
    if (!g->waiting) {
        g->waiting = true;
        g->wait_since = now;
        g->next_notice = now + GRANTS_NOTICE_FIRST_S;
        freeze(g, true);
    }
    if (g->o->timing_wait_s > 0 && now - g->wait_since > g->o->timing_wait_s)
        give_up(g, c, now);
    else
        notice(g, now);
}

/* Between series: cores given up while another run waits to time on them, taken back after. */
static void serve_idle(struct grants *g, struct sb_control *c, double now)
{
    if (!g->locked || g->uncoordinated || g->waiting || phaselock_is_timed(&g->locks))
        return;
    if (!g->preempted && phaselock_contested(&g->locks)) {
        freeze(g, true);
        phaselock_yield(&g->locks);
        g->preempted = true;
        g->preempted_since = now;
    }
    if (g->preempted && phaselock_try_idle(&g->locks)) {
        g->preempted = false;
        g->preempted_s += now - g->preempted_since;
        sb_control_pause(c, now - g->preempted_since);
        freeze(g, false);
    }
}

static struct loadwatch lane_watch(const struct grants *g)
{
    return (struct loadwatch){.cpu = g->o->cpu_series,
                              .cpus = g->o->cpus,
                              .gpu_key = g->o->gpu_key,
                              .root = g->root,
                              .cgroup_dir = g->cgroup_dir,
                              .coord_dir = g->o->coord_dir};
}

/* Whether a series that shared the machine may be measured again: its attempts and its bound. */
static bool may_retry(const struct grants *g, double now)
{
    double bound = g->o->timing_wait_s;
    return g->attempts < GRANTS_MAX_ATTEMPTS && (bound <= 0 || now - g->series_since < bound);
}

/* Keeps the series' last measurement, with what ran beside it: for a CPU series that shared its
 * cores, the busiest other process there (its report names it). */
static void keep(struct grants *g, struct sb_control *c, struct sb_series_load *load)
{
    if (load->shared && load->gpu_pid == 0 && g->o->cpu_series) {
        struct loadwatch w = lane_watch(g);
        loadwatch_busiest(&w, GRANTS_BUSIEST_S, load);
    }
    load->case_index = c->current;
    load->attempts = g->attempts;
    snprintf(load->series, sizeof(load->series), "%s", c->series);
    ALLOC_GROW(g->loads, g->n_loads + 1, g->alloc_loads);
    g->loads[g->n_loads++] = *load;
    g->attempts = 0;
    g->series_case = -1;
    answer(g, 'k');
}

/* Settling: once a look at the lane finds it quiet, the series is measured again; while it is
 * not, another look, until the series' bound. The case's limit stands still meanwhile. */
static void serve_settle(struct grants *g, struct sb_control *c, double now)
{
    double window = g->o->gpu_key && !g->o->cpu_series ? GRANTS_QUIET_GPU_S : GRANTS_QUIET_CPU_S;
    if (now - g->quiet.t0 < window)
        return;
    struct sb_series_load load;
    memset(&load, 0, sizeof(load));
    bool busy = loadwatch_end(&g->quiet, &load);
    if (busy && may_retry(g, now)) {
        loadwatch_begin(&g->quiet);
        return;
    }
    g->settling = false;
    g->settled_s += now - g->settle_since;
    sb_control_pause(c, now - g->settle_since);
    if (busy) {
        keep(g, c, &g->last_load);
        return;
    }
    answer(g, 'a');
}

/* A series began, or ended: what ran beside it; an end is answered (measure again once the
 * machine is quiet, or keep). */
static void serve_series(struct grants *g, struct sb_control *c, double now)
{
    if (c->series_began) {
        c->series_began = false;
        if (c->current != g->series_case || strcmp(c->series, g->series)) {
            g->series_case = c->current;
            snprintf(g->series, sizeof(g->series), "%s", c->series);
            g->attempts = 0;
            g->series_since = now;
        }
        g->attempts++;
        g->watch = lane_watch(g);
        loadwatch_begin(&g->watch);
        g->watching = true;
    }
    if (g->settling)
        serve_settle(g, c, now);
    if (!c->series_ended)
        return;
    c->series_ended = false;
    struct sb_series_load load;
    memset(&load, 0, sizeof(load));
    bool shared = g->watching && loadwatch_end(&g->watch, &load);
    g->watching = false;
    if (shared && may_retry(g, now)) {
        g->last_load = load;
        g->settling = true;
        g->settle_since = now;
        g->quiet = lane_watch(g);
        loadwatch_begin(&g->quiet);
        return;
    }
    keep(g, c, &load);
}

int grants_serve(struct grants *g, struct sb_control *c, double now)
{
    if (c->want_idle) {
        /* Straight back from the timed modes; frozen until they are held where a waiter took
         * a core in between. */
        if (g->locked && !g->uncoordinated && phaselock_is_timed(&g->locks))
            phaselock_back_to_idle(&g->locks);
        if (g->locked && !g->uncoordinated && !g->preempted && !phaselock_try_idle(&g->locks)) {
            g->preempted = true;
            g->preempted_since = now;
            freeze(g, true);
        }
        c->want_idle = false;
    }
    serve_series(g, c, now);
    if (c->want_timed)
        serve_timed(g, c, now);
    else
        serve_idle(g, c, now);
    /* Waiting, frozen or settling: tried again soon; holding locks: a look every 20 ms for a
     * series that waits. */
    if (g->waiting)
        return wait_poll_ms(g->wait_since, now);
    if (g->preempted)
        return wait_poll_ms(g->preempted_since, now);
    return g->settling ? SB_GRANT_POLL_MS : g->locked ? 20 : -1;
}

bool grants_frozen(const struct grants *g)
{
    return g->waiting || g->preempted;
}

double grants_paused(const struct grants *g, double now)
{
    return g->waited_s + g->preempted_s + (g->waiting ? now - g->wait_since : 0) +
           (g->preempted ? now - g->preempted_since : 0);
}

double grants_settled(const struct grants *g, double now)
{
    return g->settled_s + (g->settling ? now - g->settle_since : 0);
}

void grants_finish(struct grants *g, struct sandbox_result *r)
{
    r->loads = g->loads;
    r->n_loads = g->n_loads;
    r->busy = g->busy;
    r->n_busy = g->n_busy;
    r->uncoordinated = g->uncoordinated;
    g->loads = NULL;
    g->busy = NULL;
    g->n_loads = g->n_busy = g->alloc_loads = g->alloc_busy = 0;
}

void grants_close(struct grants *g)
{
    if (g->frozen)
        freeze(g, false);
    grants_detach(g);
    if (g->locked)
        phaselock_release(&g->locks);
    g->locked = false;
    free(g->loads);
    free(g->busy);
    g->loads = NULL;
    g->busy = NULL;
    sb_close_fd(&g->pipe[0]);
    sb_close_fd(&g->pipe[1]);
}

#include "run/turns.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/util.h"
#include "run/phaselock.h"
#include "run/presence.h"
#include "run/work.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* This process met a turn held past its wait (turns_note_busy). */
static bool busy_seen;
/* How long a command waits for its turn once that happened. */
#define TURNS_BUSY_WAIT_S 0.2

void turns_note_busy(void)
{
    busy_seen = true;
}

double turns_wait_bound(const struct turns *t)
{
    if (!t)
        return 0;
    double bound = busy_seen && t->wait_s > TURNS_BUSY_WAIT_S ? TURNS_BUSY_WAIT_S : t->wait_s;
    if (t->deadline > 0) {
        double left = t->deadline - now_seconds();
        left = left > TURNS_BUSY_WAIT_S ? left : TURNS_BUSY_WAIT_S;
        bound = bound > 0 && bound < left ? bound : left;
    }
    return bound;
}

void turns_init(struct turns *t)
{
    memset(t, 0, sizeof(*t));
    CPU_ZERO(&t->allowed);
    CPU_ZERO(&t->cpus);
    t->n_lanes = 1;
    t->wait_s = TURNS_DEFAULT_WAIT_S;
}

void turns_release(struct turns *t)
{
    work_teardown(t);
    free(t->dir);
    free(t->problem);
    free(t->gpu);
    turns_init(t);
}

char *turns_default_dir(void)
{
    const char *env = getenv("LABGRADER_COORDINATOR");
    struct stat st;
    if (env && *env)
        return xstrdup(env);
    /* /run/lock: one per machine, on every Debian and Ubuntu, writable by every user and
     * emptied at boot, so no lock outlives the processes that could hold it. */
    if (stat("/run/lock", &st) == 0 && S_ISDIR(st.st_mode) && access("/run/lock", W_OK | X_OK) == 0)
        return xstrdup("/run/lock/labgrader");
    return xstrdup("/tmp/labgrader");
}

/* The folder as it must be: created (sticky and writable by all, so that every user's grader
 * can add the lock files it needs) where missing; NULL, or why it cannot be used. */
static char *folder_problem(const char *dir)
{
    struct stat st;
    if (lstat(dir, &st) != 0 && errno == ENOENT) {
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return xstrfmt("cannot create %s: %s", dir, strerror(errno));
        if (lstat(dir, &st) == 0 && st.st_uid == geteuid())
            chmod(dir, 01777);
    }
    if (lstat(dir, &st) != 0)
        return xstrfmt("%s: %s", dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return xstrfmt("%s is not a folder (a link or a file stands there)", dir);
    /* Anyone who may rename files in it could swap a lock for another: only its owner, root
     * or, in a sticky folder, each file's owner may. */
    if ((st.st_mode & 0022) && !(st.st_mode & S_ISVTX))
        return xstrfmt("%s may be changed by other users and is not sticky (chmod +t it)", dir);
    if (st.st_uid != 0 && st.st_uid != geteuid() && !(st.st_mode & S_ISVTX))
        return xstrfmt("%s belongs to another user", dir);
    return NULL;
}

static void split_lane(struct turns *t)
{
    int total = CPU_COUNT(&t->allowed), k = 0;
    int lanes = t->n_lanes < 1 ? 1 : t->n_lanes > total ? (total > 0 ? total : 1) : t->n_lanes;
    int lane = t->lane % lanes;
    int lo = total * lane / lanes, hi = total * (lane + 1) / lanes;
    CPU_ZERO(&t->cpus);
    t->n_cpus = 0;
    for (int c = 0; c < CPU_SETSIZE && k < hi; c++) {
        if (!CPU_ISSET(c, &t->allowed))
            continue;
        if (k >= lo) {
            CPU_SET(c, &t->cpus);
            t->n_cpus++;
        }
        k++;
    }
}

void turns_setup(struct turns *t, int n_lanes)
{
    const char *wait = getenv("LABGRADER_TIMING_WAIT");
    char *end = NULL;
    double w = wait ? strtod(wait, &end) : 0;
    if (wait && end != wait && *end == '\0' && w > 0)
        t->wait_s = w;
    if (sched_getaffinity(0, sizeof(t->allowed), &t->allowed) != 0 || CPU_COUNT(&t->allowed) < 1) {
        CPU_ZERO(&t->allowed);
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        for (long c = 0; c < (n > 0 ? n : 1) && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, &t->allowed);
    }
    t->n_lanes = n_lanes > 0 ? n_lanes : 1;
    t->lane = 0;
    split_lane(t);
    char *dir = turns_default_dir();
    char *problem = folder_problem(dir);
    free(t->problem);
    free(t->dir);
    t->problem = problem ? xstrfmt("the machine's timing coordinator cannot be used: %s; set "
                                   "LABGRADER_COORDINATOR to a folder every grader on this machine "
                                   "can use (docs/coordinator.md)",
                                   problem)
                         : NULL;
    /* Absolute and without links, as /proc shows the files other processes hold open. */
    char *real = problem ? NULL : realpath(dir, NULL);
    t->dir = problem ? NULL : real ? real : xstrdup(dir);
    presence_join(t->dir);
    free(dir);
    free(problem);
}

void turns_place(struct turns *t, int lane, const char *gpu_key)
{
    t->lane = lane < 0 ? 0 : lane;
    split_lane(t);
    free(t->gpu);
    t->gpu = gpu_key && *gpu_key ? xstrdup(gpu_key) : NULL;
    work_setup(t);
}

void turns_place_all(struct turns *t)
{
    t->cpus = t->allowed;
    t->n_cpus = CPU_COUNT(&t->allowed);
    free(t->gpu);
    t->gpu = NULL;
    work_setup(t);
}

void turns_pin_self(const struct turns *t)
{
    if (t->n_cpus < 1 || t->n_cpus >= CPU_COUNT(&t->allowed))
        return;
    /* Best effort: where the kernel refuses, the work runs where it did (docs/coordinator.md). */
    (void)sched_setaffinity(0, sizeof(t->cpus), &t->cpus);
}

int turns_lane_of(const char *gpu_key, char *const *keys, size_t n_keys)
{
    int rank = 0;
    bool found = false;
    for (size_t i = 0; gpu_key && i < n_keys; i++) {
        if (!keys[i])
            continue;
        if (!strcmp(keys[i], gpu_key))
            found = true;
        else if (strcmp(keys[i], gpu_key) < 0)
            rank++;
    }
    return found ? rank : 0;
}

/* A key safe as a file name: letters, digits, '.', '-' and '_'; others become '_'. */
static char *file_key(const char *key)
{
    char *s = xstrdup(key);
    for (char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '-' || *p == '_'))
            *p = '_';
    return s;
}

static void add_lock(struct turns_locks *l, char *path, enum sb_lock_mode idle,
                     enum sb_lock_mode timed, bool preemptible)
{
    l->locks = xrealloc(l->locks, (l->n + 1) * sizeof(*l->locks));
    l->paths = xrealloc(l->paths, (l->n + 1) * sizeof(*l->paths));
    l->paths[l->n] = path;
    l->locks[l->n] = (struct sb_lock){path, idle, timed, preemptible};
    l->n++;
}

void turns_locks_make(const struct turns *t, enum turns_use use, bool gpu, struct turns_locks *out)
{
    memset(out, 0, sizeof(*out));
    if (!t || !t->dir)
        return;
    if (gpu && t->gpu && use != TURNS_EXCLUSIVE) {
        char *key = file_key(t->gpu);
        add_lock(out, xstrfmt("%s/gpu-%s.lock", t->dir, key), SB_LOCK_SHARED,
                 use == TURNS_GPU_SERIES ? SB_LOCK_EXCLUSIVE : SB_LOCK_SHARED, false);
        free(key);
    }
    bool whole = use == TURNS_EXCLUSIVE;
    enum sb_lock_mode cores = use == TURNS_CPU_SERIES || whole ? SB_LOCK_EXCLUSIVE : SB_LOCK_SHARED;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &t->cpus))
            add_lock(out, xstrfmt("%s/cpu%d.lock", t->dir, c),
                     whole ? SB_LOCK_EXCLUSIVE : SB_LOCK_SHARED, cores, !whole);
}

void turns_join(const struct turns *t, enum turns_use use, bool gpu, struct sandbox_opts *o,
                struct turns_locks *out)
{
    turns_locks_make(t, use, gpu, out);
    o->locks = out->locks;
    o->n_locks = out->n;
    if (!t)
        return;
    o->coord_dir = t->dir;
    o->cpus = &t->cpus;
    o->gpu_key = gpu ? t->gpu : NULL;
    o->cpu_series = use == TURNS_CPU_SERIES;
    o->timing_wait_s = turns_wait_bound(t);
    /* Untimed work of a grader alone (a student's check) keeps its priority: a machine whose
     * other programs keep every core busy would otherwise starve it. Nor does a run that holds
     * its GPU shared go to the background: no GPU series runs beside it, and every GPU series
     * of the lane waits for it to let go, so starving it would only make them all wait. */
    presence_join(t->dir);
    o->background = use == TURNS_UNTIMED && !gpu && t->dir && presence_others();
    o->on_wait = t->on_wait;
    o->on_wait_arg = t->on_wait_arg;
}

void turns_locks_release(struct turns_locks *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    free(l->locks);
    memset(l, 0, sizeof(*l));
}

/* flock without waiting; EINTR retried. */
static bool try_flock(int fd, int op)
{
    int rc;
    while ((rc = flock(fd, op | LOCK_NB)) != 0 && errno == EINTR)
        ;
    return rc == 0;
}

/* One core's lock shared, through its turnstile (a waiting series goes first), polled for at
 * most max_s: false when it never came. */
static bool hold_one(int fd, int tf, double max_s)
{
    struct timespec pause = {0, 5 * 1000 * 1000};
    for (double waited = 0;; waited += 0.005) {
        bool through = tf < 0 || try_flock(tf, LOCK_EX);
        bool got = through && try_flock(fd, LOCK_SH);
        if (through && tf >= 0)
            flock(tf, LOCK_UN);
        if (got)
            return true;
        if (max_s > 0 && waited > max_s)
            return false;
        nanosleep(&pause, NULL);
    }
}

int *turns_hold_cores(const struct turns *t, size_t *n)
{
    struct turns_locks l;
    *n = 0;
    /* Held here, not by a section of the grader's own work the caller may be in (work.h). */
    work_pause();
    turns_locks_make(t, TURNS_UNTIMED, false, &l);
    int *fds = l.n ? xcalloc(l.n, sizeof(int)) : NULL;
    double bound = turns_wait_bound(t);
    for (size_t i = 0; i < l.n; i++) {
        char *turn = xstrfmt("%s.turn", l.paths[i]);
        int tf = phaselock_open_file(turn, NULL);
        int fd = phaselock_open_file(l.paths[i], NULL);
        free(turn);
        /* Held past the wait by someone else: the work goes on without it. */
        if (fd >= 0 && hold_one(fd, tf, bound))
            fds[(*n)++] = fd;
        else if (fd >= 0)
            close(fd);
        if (tf >= 0)
            close(tf);
    }
    turns_locks_release(&l);
    return fds;
}

void turns_let_go(int *fds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        close(fds[i]);
    free(fds);
    work_resume();
}

/* ---- who holds a lock: /proc/locks ---- */

struct seen {
    dev_t dev;
    ino_t ino;
};

/* "pid (user: command)" of a process, from /proc. */
static void describe_pid(struct strbuf *sb, long pid)
{
    char path[64], cmd[256] = "";
    struct stat st;
    snprintf(path, sizeof(path), "/proc/%ld", pid);
    const char *user = NULL;
    if (stat(path, &st) == 0) {
        struct passwd *pw = getpwuid(st.st_uid);
        user = pw ? pw->pw_name : NULL;
    }
    snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "re");
    if (f) {
        size_t n = fread(cmd, 1, sizeof(cmd) - 1, f);
        fclose(f);
        cmd[n] = '\0';
        /* Arguments, and any line breaks or tabs inside them, as single spaces. */
        size_t k = 0;
        for (size_t i = 0; i + 1 < n; i++) {
            char ch = (unsigned char)cmd[i] < ' ' ? ' ' : cmd[i];
            if (ch != ' ' || (k > 0 && cmd[k - 1] != ' '))
                cmd[k++] = ch;
        }
        cmd[k] = '\0';
    }
    strbuf_addf(sb, "pid %ld", pid);
    if (user || cmd[0])
        strbuf_addf(sb, " (%s%s%.80s)", user ? user : "", user && cmd[0] ? ": " : "", cmd);
}

/* Whether a /proc/locks line is an exclusive flock held (not waited for) on one of `files`;
 * its pid in *pid. */
static bool line_holds(const char *line, const struct seen *files, size_t n, long *pid)
{
    struct phaselock_holder h;
    if (!phaselock_holder_parse(line, &h) || !h.exclusive)
        return false;
    *pid = h.pid;
    for (size_t i = 0; i < n; i++)
        if (files[i].ino == h.ino && files[i].dev == h.dev)
            return true;
    return false;
}

char *turns_holders(const struct sb_lock *locks, size_t n)
{
    struct seen *files = xcalloc(2 * n + 1, sizeof(*files));
    size_t nf = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        char *turn = xstrfmt("%s.turn", locks[i].path);
        if (stat(locks[i].path, &st) == 0)
            files[nf++] = (struct seen){st.st_dev, st.st_ino};
        if (stat(turn, &st) == 0)
            files[nf++] = (struct seen){st.st_dev, st.st_ino};
        free(turn);
    }
    FILE *f = fopen("/proc/locks", "re");
    struct strbuf sb = STRBUF_INIT;
    char line[256];
    long seen[4];
    int n_seen = 0;
    while (f && fgets(line, sizeof(line), f) && n_seen < 4) {
        long pid;
        bool again = false;
        if (!line_holds(line, files, nf, &pid) || pid <= 0 || pid == getpid())
            continue;
        for (int k = 0; k < n_seen; k++)
            again = again || seen[k] == pid;
        if (again)
            continue;
        if (n_seen)
            strbuf_addstr(&sb, ", ");
        describe_pid(&sb, pid);
        seen[n_seen++] = pid;
    }
    if (f)
        fclose(f);
    free(files);
    if (!sb.len) {
        strbuf_release(&sb);
        return NULL;
    }
    return strbuf_detach(&sb);
}

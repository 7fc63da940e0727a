/*
 * memwatch: the memory limit where no cgroup enforces it (run/sandbox_internal.h).
 *
 * Every interval the supervisor adds up what the run's processes hold: the main child and
 * all its descendants (found through /proc/<pid>/task/<tid>/children, or a scan of /proc
 * where the kernel lacks that file), and the escaped descendants re-parented to the grader
 * (a child subreaper). For each process it counts resident anonymous memory, resident shared
 * memory (shmem, memfd, SysV) and swap: what an allocation bomb grows, and none of the
 * program's mapped files or libraries. Above the limit the supervisor kills the whole run,
 * which reads as SB_MEMORY_LIMIT.
 *
 * What it cannot see: pages shared between processes count once per process (a fork that has
 * not exec'd yet counts its parent's memory again), files written to a tmpfs, and whatever
 * the run touches within one interval (25 ms, longer when sampling gets expensive) before
 * the kill. A delegated cgroup v2 (memory.max) has none of these gaps and is used instead
 * wherever it exists.
 */
#include "run/sandbox_internal.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MEMWATCH_INTERVAL_S 0.025
#define MEMWATCH_MAX_INTERVAL_S 0.5
/* Sampling takes at most about this share of one core: a fork bomb stretches the interval. */
#define MEMWATCH_CPU_SHARE 0.05

struct proc_mem {
    pid_t pid;
    long long bytes;
};

/* A process to visit, and the parent it was found under. */
struct queued {
    pid_t pid, parent;
};

/* The processes of one sample: a work queue (processes still to expand) and what each
 * holds. */
struct tree {
    struct queued *queue;
    size_t n_queue, alloc_queue, next;
    struct proc_mem *mem;
    size_t n_mem, alloc_mem;
};

static void tree_push(struct tree *t, pid_t pid, pid_t parent)
{
    ALLOC_GROW(t->queue, t->n_queue + 1, t->alloc_queue);
    t->queue[t->n_queue++] = (struct queued){pid, parent};
}

static void tree_release(struct tree *t)
{
    free(t->queue);
    free(t->mem);
}

static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n;
    do
        n = read(fd, buf, size - 1);
    while (n < 0 && errno == EINTR);
    close(fd);
    if (n >= 0)
        buf[n] = '\0';
    return n;
}

/* The number after "key:" in a /proc/<pid>/status text; -1 when absent. */
static long long status_field(const char *text, const char *key)
{
    size_t klen = strlen(key);
    const char *line = text;
    while (line && *line) {
        if (!strncmp(line, key, klen) && line[klen] == ':')
            return strtoll(line + klen + 1, NULL, 10);
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return -1;
}

struct status_mem {
    long long bytes;
    long ppid, threads;
};

/* What one process holds; false when it is gone (a zombie is there, and holds nothing). */
static bool status_read(pid_t pid, struct status_mem *m)
{
    char path[64], buf[8192];
    proc_path(path, pid, "status");
    if (read_small(path, buf, sizeof(buf)) <= 0)
        return false;
    m->ppid = (long)status_field(buf, "PPid");
    m->threads = (long)status_field(buf, "Threads");
    long long kib = 0;
    static const char *const keys[] = {"RssAnon", "RssShmem", "VmSwap"};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        long long v = status_field(buf, keys[i]);
        if (v > 0)
            kib += v;
    }
    m->bytes = kib * 1024;
    return true;
}

/* Queues the pids of a "children" file ("12 34 56 "), found under parent. */
static void push_children_file(struct tree *t, const char *path, pid_t parent)
{
    struct strbuf sb = STRBUF_INIT;
    if (read_file(path, &sb, NULL) == 0) {
        for (char *p = sb.buf, *end; *p; p = end) {
            long v = strtol(p, &end, 10);
            if (end == p)
                break;
            if (v > 0)
                tree_push(t, (pid_t)v, parent);
        }
    }
    strbuf_release(&sb);
}

/* The children of every thread of pid (a thread's children are listed under it alone). */
static void push_children(struct tree *t, pid_t pid, long threads)
{
    char path[96];
    if (threads <= 1) {
        char leaf[48];
        snprintf(leaf, sizeof(leaf), "task/%ld/children", (long)pid);
        proc_path(path, pid, leaf);
        push_children_file(t, path, pid);
        return;
    }
    proc_path(path, pid, "task");
    DIR *d = opendir(path);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] < '0' || de->d_name[0] > '9')
            continue;
        char leaf[48];
        snprintf(leaf, sizeof(leaf), "task/%.16s/children", de->d_name);
        proc_path(path, pid, leaf);
        push_children_file(t, path, pid);
    }
    closedir(d);
}

static bool children_files_exist(void)
{
    static int state; /* 0 unknown, 1 yes, -1 no */
    if (state == 0) {
        char path[96], leaf[48];
        snprintf(leaf, sizeof(leaf), "task/%ld/children", (long)getpid());
        proc_path(path, getpid(), leaf);
        state = access(path, R_OK) == 0 ? 1 : -1;
    }
    return state > 0;
}

/* The escaped descendants: our children that are neither the main child nor from before the
 * run (run/sweep.c). */
static void push_escapee(const struct proc_info *pi, void *ctx)
{
    struct tree *t = ctx;
    if (pi->pid != t->queue[0].pid && !sweep_is_preexisting(pi))
        tree_push(t, pi->pid, pi->ppid);
}

/* The same from our own children files, without a scan of /proc: every thread's list (any
 * thread of the grader may have forked), the main child and older children left out. */
static void push_own_escapees(struct tree *t)
{
    struct tree own = {0};
    push_children(&own, getpid(), 2);
    for (size_t i = 0; i < own.n_queue; i++) {
        struct proc_info pi;
        if (proc_info_read(own.queue[i].pid, &pi))
            push_escapee(&pi, t);
    }
    tree_release(&own);
}

static void record(struct tree *t, pid_t pid, long long bytes)
{
    ALLOC_GROW(t->mem, t->n_mem + 1, t->alloc_mem);
    t->mem[t->n_mem++] = (struct proc_mem){pid, bytes};
}

/* Walks the queue: each process's memory, and its children queued in turn. A pid whose
 * parent is no longer the one it was found under was re-parented or reused meanwhile: it is
 * found under its new parent (the grader, or the pid namespace's init), or it is a
 * stranger. */
static void walk_children_files(struct tree *t)
{
    while (t->next < t->n_queue) {
        struct queued q = t->queue[t->next++];
        struct status_mem m;
        if (!status_read(q.pid, &m) || m.ppid != (long)q.parent)
            continue;
        record(t, q.pid, m.bytes);
        push_children(t, q.pid, m.threads);
    }
}

struct scan {
    struct proc_info *all;
    size_t n, alloc;
};

static void scan_add(const struct proc_info *pi, void *ctx)
{
    struct scan *s = ctx;
    ALLOC_GROW(s->all, s->n + 1, s->alloc);
    s->all[s->n++] = *pi;
}

/* Without children files: one scan of /proc, and the tree found from the parent links. */
static void walk_scan(struct tree *t)
{
    struct scan s = {0};
    proc_for_each(scan_add, &s);
    while (t->next < t->n_queue) {
        pid_t pid = t->queue[t->next++].pid;
        struct status_mem m;
        if (!status_read(pid, &m))
            continue;
        record(t, pid, m.bytes);
        for (size_t k = 0; k < s.n; k++)
            if (s.all[k].ppid == pid)
                tree_push(t, s.all[k].pid, pid);
    }
    free(s.all);
}

static int mem_cmp(const void *pa, const void *pb)
{
    const struct proc_mem *a = pa, *b = pb;
    return (a->pid > b->pid) - (a->pid < b->pid);
}

/* One sample: the bytes the tree of root holds, with the re-parented escapees. */
static long long memwatch_sample(pid_t root)
{
    struct tree t = {0};
    tree_push(&t, root, getpid());
    if (children_files_exist()) {
        push_own_escapees(&t);
        walk_children_files(&t);
    } else {
        proc_for_each_child(getpid(), push_escapee, &t);
        walk_scan(&t);
    }
    /* A process re-parented during the walk may have been found twice. */
    qsort(t.mem, t.n_mem, sizeof(*t.mem), mem_cmp);
    long long total = 0;
    for (size_t i = 0; i < t.n_mem; i++)
        if (i == 0 || t.mem[i].pid != t.mem[i - 1].pid)
            total += t.mem[i].bytes;
    tree_release(&t);
    return total;
}

void memwatch_start(struct memwatch *w, pid_t root, long long limit_bytes)
{
    memset(w, 0, sizeof(*w));
    w->limit_bytes = limit_bytes > 0 ? limit_bytes : 0;
    w->root = root;
    w->interval_s = MEMWATCH_INTERVAL_S;
    w->next_s = now_seconds();
}

bool memwatch_poll(struct memwatch *w, double now)
{
    if (!w->limit_bytes || w->exceeded)
        return w->exceeded;
    if (now < w->next_s)
        return false;
    long long bytes = memwatch_sample(w->root);
    double after = now_seconds();
    if (bytes > w->peak_bytes)
        w->peak_bytes = bytes;
    if (bytes > w->limit_bytes)
        w->exceeded = true;
    double cost = after - now;
    w->interval_s =
        fmax(MEMWATCH_INTERVAL_S, fmin(MEMWATCH_MAX_INTERVAL_S, cost / MEMWATCH_CPU_SHARE));
    w->next_s = after + w->interval_s;
    return w->exceeded;
}

int memwatch_wait_ms(const struct memwatch *w, double now)
{
    if (!w->limit_bytes || w->exceeded)
        return -1;
    double left = w->next_s - now;
    return left <= 0 ? 0 : (int)ceil(left * 1000.0);
}

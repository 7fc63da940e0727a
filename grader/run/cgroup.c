/*
 * cgroup: the run's cgroup v2 (labgrader-<pid>-<n> under the grader's own cgroup, or under
 * LABGRADER_CGROUP): every process of the run, whatever it does with sessions and parents,
 * is in it and dies with one write to cgroup.kill; memory.max and pids.max where the parent
 * lets its controllers be enabled; CPU time and peak memory of all processes
 * (run/sandbox_internal.h).
 */
#include "run/sandbox_internal.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned cgroup_counter;

/* Mount point of the cgroup2 hierarchy plus our own cgroup path. Caller frees. */
static char *cgroup_own_dir(void)
{
    struct strbuf cg = STRBUF_INIT, mi = STRBUF_INIT;
    struct error err;
    char *result = NULL, *own = NULL;
    error_init(&err);
    if (read_file("/proc/self/cgroup", &cg, &err) != 0)
        goto out;
    for (char *line = cg.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (strncmp(line, "0::", 3) == 0) {
            own = line + 3;
            break;
        }
        line = nl ? nl + 1 : NULL;
    }
    if (!own || read_file("/proc/self/mountinfo", &mi, &err) != 0)
        goto out;
    for (char *line = mi.buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        char *sep = strstr(line, " - ");
        if (sep && strncmp(sep + 3, "cgroup2 ", 8) == 0) {
            /* fields: id parent major:minor root mountpoint ... */
            char *fields[5] = {0};
            char *save = NULL, *tok = strtok_r(line, " ", &save);
            for (int i = 0; tok && i < 5; i++, tok = strtok_r(NULL, " ", &save))
                fields[i] = tok;
            if (fields[3] && fields[4] && !strchr(fields[4], '\\')) {
                const char *root = fields[3];
                const char *rel = own;
                if (strcmp(root, "/") != 0) {
                    if (!sb_path_is_under(own, root))
                        goto next;
                    rel = own + strlen(root);
                }
                result = xstrfmt("%s%s", fields[4], strcmp(rel, "/") == 0 ? "" : rel);
                break;
            }
        }
    next:
        line = nl ? nl + 1 : NULL;
    }
out:
    strbuf_release(&cg);
    strbuf_release(&mi);
    return result;
}

void cgroup_kill_all(const char *dir, int kill_fd)
{
    if (kill_fd >= 0) {
        ssize_t w = write(kill_fd, "1", 1);
        if (w == 1)
            return;
    }
    /* Kernels before 5.14 have no cgroup.kill: kill the members one by one. */
    char *procs = path_join(dir, "cgroup.procs");
    for (int pass = 0; pass < 100; pass++) {
        struct strbuf sb = STRBUF_INIT;
        struct error err;
        error_init(&err);
        if (read_file(procs, &sb, &err) != 0 || sb.len == 0) {
            strbuf_release(&sb);
            break;
        }
        for (char *p = sb.buf; *p;) {
            char *end;
            long pid = strtol(p, &end, 10);
            if (end == p)
                break;
            if (pid > 0)
                kill((pid_t)pid, SIGKILL);
            p = end;
            while (*p == '\n')
                p++;
        }
        strbuf_release(&sb);
        sb_sleep_ms(1);
    }
    free(procs);
}

static bool cgroup_populated(const char *dir)
{
    char *events = path_join(dir, "cgroup.events");
    long long v = sb_read_keyed_value(events, "populated");
    free(events);
    return v != 0; /* unreadable counts as populated: keep waiting until the deadline */
}

void cgroup_wait_empty(const char *dir, double deadline)
{
    while (cgroup_populated(dir) && now_seconds() < deadline)
        sb_sleep_ms(1);
}

static void cgroup_remove_dir(const char *dir)
{
    for (int i = 0; i < 200; i++) {
        if (rmdir(dir) == 0 || errno == ENOENT)
            return;
        if (errno != EBUSY)
            return;
        sb_sleep_ms(5);
    }
}

/* Groups left behind by graders that died (SIGKILL, power loss of the node is not our
 * problem): their processes may still run, so kill them and remove the group. */
static void cgroup_remove_stale(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *de;
    while ((de = readdir(d))) {
        long pid;
        unsigned n;
        char tail;
        if (sscanf(de->d_name, "labgrader-%ld-%u%c", &pid, &n, &tail) != 2 || pid <= 0)
            continue;
        if (pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char *dir = path_join(parent, de->d_name);
        cgroup_kill_all(dir, -1);
        cgroup_wait_empty(dir, now_seconds() + 1.0);
        cgroup_remove_dir(dir);
        free(dir);
    }
    closedir(d);
}

static void cgroup_enable_controller(const char *parent, const char *name)
{
    char *ctl = path_join(parent, "cgroup.subtree_control");
    char *avail = path_join(parent, "cgroup.controllers");
    struct strbuf enabled = STRBUF_INIT, available = STRBUF_INIT;
    struct error err;
    error_init(&err);
    if (read_file(ctl, &enabled, &err) == 0 && read_file(avail, &available, &err) == 0) {
        size_t n = strlen(name);
        bool on = false, can = false;
        for (char *p = enabled.buf; (p = strstr(p, name)); p += n)
            if ((p == enabled.buf || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
                on = true;
        for (char *p = available.buf; (p = strstr(p, name)); p += n)
            if ((p == available.buf || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || !p[n]))
                can = true;
        if (!on && can) {
            char *cmd = xstrfmt("+%s", name);
            /* Fails (EBUSY) when the parent holds processes itself; the limit is then
             * simply not enforced, as documented. */
            if (sb_write_text_file(ctl, cmd) != 0) {
                /* nothing to do */
            }
            free(cmd);
        }
    }
    strbuf_release(&enabled);
    strbuf_release(&available);
    free(ctl);
    free(avail);
}

void cgroup_create(const struct sandbox_opts *o, struct cgroup *cg)
{
    cg->dir = NULL;
    cg->kill_fd = -1;
    cg->memory_limited = false;
    cg->pids_limited = false;

    const char *env = getenv("LABGRADER_CGROUP");
    if (env && (!strcmp(env, "off") || !strcmp(env, "none") || !strcmp(env, "0")))
        return;
    char *parent = env && *env ? xstrdup(env) : cgroup_own_dir();
    if (!parent)
        return;
    char *procs = path_join(parent, "cgroup.procs");
    bool usable = dir_exists(parent) && access(parent, W_OK) == 0 && access(procs, W_OK) == 0;
    free(procs);
    if (!usable) {
        free(parent);
        return;
    }
    /* Once per grader: a group whose processes will not die (D state) must not cost
     * every later run the wait. */
    static bool stale_checked;
    if (!stale_checked) {
        stale_checked = true;
        cgroup_remove_stale(parent);
    }
    if (o->memory_limit_bytes > 0)
        cgroup_enable_controller(parent, "memory");
    if (o->max_processes > 0)
        cgroup_enable_controller(parent, "pids");

    char *dir = xstrfmt("%s/labgrader-%ld-%u", parent, (long)getpid(), cgroup_counter++);
    free(parent);
    if (mkdir(dir, 0755) != 0) {
        free(dir);
        return;
    }
    if (o->memory_limit_bytes > 0) {
        char *max = path_join(dir, "memory.max");
        char *val = xstrfmt("%lld", o->memory_limit_bytes);
        cg->memory_limited = sb_write_text_file(max, val) == 0;
        free(max);
        free(val);
        /* Without this a memory hog swaps instead of hitting the limit. */
        char *swap = path_join(dir, "memory.swap.max");
        if (sb_path_exists(swap) && sb_write_text_file(swap, "0") != 0) {
            /* best effort */
        }
        free(swap);
    }
    if (o->max_processes > 0) {
        char *max = path_join(dir, "pids.max");
        char *val = xstrfmt("%d", o->max_processes);
        /* Fails where the controller is not delegated: not enforced, and recorded so. */
        cg->pids_limited = sb_write_text_file(max, val) == 0;
        free(max);
        free(val);
    }
    char *killp = path_join(dir, "cgroup.kill");
    cg->kill_fd = open(killp, O_WRONLY | O_CLOEXEC);
    free(killp);
    cg->dir = dir;
}

void cgroup_destroy(struct cgroup *cg)
{
    if (!cg->dir)
        return;
    if (cg->kill_fd >= 0)
        close(cg->kill_fd);
    cg->kill_fd = -1;
    cgroup_remove_dir(cg->dir);
    free(cg->dir);
    cg->dir = NULL;
}

bool cgroup_attach(struct cgroup *cg, pid_t pid)
{
    char *procs = path_join(cg->dir, "cgroup.procs");
    char *val = xstrfmt("%ld", (long)pid);
    bool ok = sb_write_text_file(procs, val) == 0;
    free(procs);
    free(val);
    return ok;
}

void cgroup_usage_read(const struct cgroup *cg, struct cgroup_usage *u)
{
    u->cpu_s = -1;
    u->peak_bytes = -1;
    u->oom_kills = 0;
    if (!cg->dir)
        return;
    char *stat = path_join(cg->dir, "cpu.stat");
    long long usec = sb_read_keyed_value(stat, "usage_usec");
    free(stat);
    if (usec >= 0)
        u->cpu_s = (double)usec / 1e6;
    char *peak = path_join(cg->dir, "memory.peak");
    u->peak_bytes = sb_read_number_file(peak);
    free(peak);
    if (cg->memory_limited) {
        char *events = path_join(cg->dir, "memory.events");
        u->oom_kills = sb_read_keyed_value(events, "oom_kill");
        free(events);
    }
}

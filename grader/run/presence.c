#include "run/presence.h"

#include "base/alloc.h"
#include "run/phaselock.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's hold: the folder's file, and who took it (a forked child inherits the
 * descriptor, whose lock is its parent's). */
static struct {
    int fd;
    pid_t pid;
    dev_t dev;
    ino_t ino;
    char *dir;
} held = {.fd = -1};

void presence_leave(void)
{
    /* In a forked child the descriptor is the parent's too: closing it leaves the parent's
     * lock, which lives while any descriptor of it is open. */
    if (held.fd >= 0)
        close(held.fd);
    held.fd = -1;
    held.pid = 0;
    free(held.dir);
    held.dir = NULL;
}

void presence_join(const char *dir)
{
    if (!dir)
        return;
    if (held.fd >= 0 && held.pid == getpid() && held.dir && !strcmp(held.dir, dir))
        return;
    presence_leave();
    char *path = xstrfmt("%s/%s", dir, PRESENCE_FILE);
    int fd = phaselock_open_file(path, NULL);
    free(path);
    struct stat st;
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0 || flock(fd, LOCK_SH) != 0) {
        close(fd);
        return;
    }
    held.fd = fd;
    held.pid = getpid();
    held.dev = st.st_dev;
    held.ino = st.st_ino;
    held.dir = xstrdup(dir);
}

/* A /proc/locks line that holds (not waits for) a flock on the presence file: its pid. */
static long holder_of(const char *line)
{
    struct phaselock_holder h;
    return phaselock_holder_parse(line, &h) && h.ino == held.ino && h.dev == held.dev ? h.pid : 0;
}

bool presence_others(void)
{
    if (held.fd < 0)
        return false;
    /* A forked child asks with a hold of its own, so that its parent sees it as well. */
    if (held.pid != getpid()) {
        char *dir = xstrdup(held.dir);
        presence_join(dir);
        free(dir);
        if (held.fd < 0)
            return false;
    }
    FILE *f = fopen("/proc/locks", "re");
    if (!f)
        return false;
    char line[256];
    bool others = false;
    long me = (long)getpid();
    while (!others && fgets(line, sizeof(line), f)) {
        long pid = holder_of(line);
        others = pid > 0 && pid != me;
    }
    fclose(f);
    return others;
}

#include "class/lock.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

void out_lock_init(struct out_lock *l)
{
    l->lab_fd = l->shard_fd = -1;
    l->file = NULL;
    l->stale_holder = NULL;
}

/* "grade (pid 123 on node7, started 2026-11-25T00:22:03+01:00)" from a holder's note, or
 * NULL when the note is empty. Caller frees. */
static char *holder_words(int fd)
{
    char buf[1024], command[64] = "a grader", host[256] = "?", started[64] = "?";
    long pid = 0;
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        if (sscanf(line, "pid %ld", &pid) != 1 && sscanf(line, "host %255s", host) != 1 &&
            sscanf(line, "started %63s", started) != 1)
            sscanf(line, "command %63s", command);
        line = nl ? nl + 1 : NULL;
    }
    if (pid <= 0)
        return NULL;
    return xstrfmt("%s (pid %ld on %s, started %s)", command, pid, host, started);
}

static int write_note(int fd, const char *command)
{
    char host[256] = "localhost", date[64];
    gethostname(host, sizeof(host) - 1);
    host[sizeof(host) - 1] = '\0';
    iso_datetime(date, sizeof(date));
    char *note =
        xstrfmt("pid %ld\nhost %s\nstarted %s\ncommand %s\n", (long)getpid(), host, date, command);
    size_t len = strlen(note);
    int rc = ftruncate(fd, 0) == 0 && pwrite(fd, note, len, 0) == (ssize_t)len ? 0 : -1;
    free(note);
    return rc;
}

/* flock without waiting, but through the instant another grader's look at a lock (see
 * holders) holds it shared. 0, or -1 with errno EWOULDBLOCK when it stays taken. */
static int try_flock(int fd, int op)
{
    for (int tries = 0;; tries++) {
        if (flock(fd, op | LOCK_NB) == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK || tries >= 10)
            return -1;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static int open_lock(const char *path, struct error *err)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        error_set_at(err, path, 0, 0, "cannot open the lock file: %s", strerror(errno));
    return fd;
}

/* The shards holding lab_out now, one "; "-separated description each. */
static void shard_holders(const char *lab_out, struct strbuf *out)
{
    DIR *d = opendir(lab_out);
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, ".lock-shard-", 12) != 0)
            continue;
        char *p = path_join(lab_out, de->d_name);
        int fd = open(p, O_RDONLY | O_CLOEXEC);
        free(p);
        if (fd < 0)
            continue;
        /* Only a held lock refuses a shared one. */
        if (flock(fd, LOCK_SH | LOCK_NB) != 0) {
            char *who = holder_words(fd);
            strbuf_addf(out, "%s%s, shard %s", out->len ? "; " : "", who ? who : "a grader",
                        de->d_name + 12);
            free(who);
        }
        close(fd);
    }
    if (d)
        closedir(d);
}

/* Who holds lab_out's lock (fd: its .lock), as words for the refusal. */
static char *holders(const char *lab_out, int fd)
{
    struct strbuf sb = STRBUF_INIT;
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
        /* Shared: shards hold it, each described in its own file. */
        flock(fd, LOCK_UN);
        shard_holders(lab_out, &sb);
    } else {
        char *who = holder_words(fd);
        if (who)
            strbuf_addstr(&sb, who);
        free(who);
    }
    if (!sb.len)
        strbuf_addstr(&sb, "another grader");
    return strbuf_detach(&sb);
}

static int refuse(struct error *err, const char *lab_out, int fd, const char *shard)
{
    char *who = holders(lab_out, fd);
    error_set(err,
              "%s%s is in use by %s: two graders on one output folder would replace each "
              "other's work. Wait for it to finish (or stop it), or give this one another "
              "--out folder",
              lab_out, shard, who);
    free(who);
    return -1;
}

/* Exclusive hold of fd, with its note taken over or written. */
static int hold(struct out_lock *l, int fd, const char *path, const char *command,
                struct error *err)
{
    l->stale_holder = holder_words(fd);
    if (write_note(fd, command) != 0)
        return error_set_at(err, path, 0, 0, "cannot write the lock file: %s", strerror(errno));
    l->file = xstrdup(path);
    return 0;
}

int out_lock_take(struct out_lock *l, const char *lab_out, int shard_k, int shard_n,
                  const char *command, struct error *err)
{
    out_lock_init(l);
    if (mkdir_p(lab_out, err) != 0)
        return -1;
    char *path = path_join(lab_out, ".lock");
    int rc = -1;
    l->lab_fd = open_lock(path, err);
    if (l->lab_fd < 0)
        goto out;
    if (try_flock(l->lab_fd, shard_n ? LOCK_SH : LOCK_EX) != 0) {
        refuse(err, lab_out, l->lab_fd, "");
        goto out;
    }
    if (!shard_n) {
        rc = hold(l, l->lab_fd, path, command, err);
        goto out;
    }
    free(path);
    path = xstrfmt("%s/.lock-shard-%d-of-%d", lab_out, shard_k, shard_n);
    l->shard_fd = open_lock(path, err);
    if (l->shard_fd < 0)
        goto out;
    if (try_flock(l->shard_fd, LOCK_EX) != 0) {
        char *what = xstrfmt(" (shard %d/%d)", shard_k, shard_n);
        char *who = holder_words(l->shard_fd);
        error_set(err,
                  "%s%s is in use by %s: wait for it to finish (or stop it) before grading "
                  "this shard again",
                  lab_out, what, who ? who : "another grader");
        free(who);
        free(what);
        goto out;
    }
    rc = hold(l, l->shard_fd, path, command, err);
out:
    free(path);
    if (rc != 0)
        out_lock_release(l);
    return rc;
}

void out_lock_release(struct out_lock *l)
{
    /* An empty note says the last holder finished; one left behind (the truncate failed)
     * only reads as a grader that stopped. */
    int mine = l->shard_fd >= 0 ? l->shard_fd : l->lab_fd;
    if (l->file && mine >= 0 && ftruncate(mine, 0) != 0)
        mine = -1;
    if (l->shard_fd >= 0)
        close(l->shard_fd);
    if (l->lab_fd >= 0)
        close(l->lab_fd);
    free(l->file);
    free(l->stale_holder);
    out_lock_init(l);
}

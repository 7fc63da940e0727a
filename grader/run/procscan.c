/*
 * procscan: reading /proc without allocating (raw syscalls, fixed buffers), so that
 * sandbox_kill_running() can use it from a signal handler (run/sandbox_internal.h).
 */
#include "run/sandbox_internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static size_t format_uint(char *out, unsigned long v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < sizeof(tmp));
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

void proc_path(char *out, pid_t pid, const char *leaf)
{
    size_t len = 6;
    memcpy(out, "/proc/", 6);
    len += format_uint(out + len, (unsigned long)pid);
    out[len++] = '/';
    size_t ll = strlen(leaf);
    if (ll > 40)
        ll = 40;
    memcpy(out + len, leaf, ll);
    out[len + ll] = '\0';
}

bool proc_info_read(pid_t pid, struct proc_info *pi)
{
    char path[64];
    proc_path(path, pid, "stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    char buf[1024];
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0';
    /* The command name may contain spaces and parentheses: fields start after the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return false;
    p++;
    int field = 2; /* the comm field */
    unsigned long long num = 0;
    pi->pid = pid;
    pi->ppid = 0;
    pi->state = '?';
    pi->start = 0;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        field++;
        if (field == 3) {
            pi->state = *p;
        } else if (field == 4 || field == 22) {
            num = 0;
            for (const char *q = p; *q >= '0' && *q <= '9'; q++)
                num = num * 10 + (unsigned long long)(*q - '0');
            if (field == 4)
                pi->ppid = (pid_t)num;
            else {
                pi->start = num;
                return true;
            }
        }
        while (*p && *p != ' ')
            p++;
    }
    return false;
}

struct linux_dirent64_head {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
};

/* Calls fn for every process of /proc whose parent is `parent` (any parent when 0). */
static void proc_scan(pid_t parent, proc_visit_fn fn, void *ctx)
{
    int dfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    _Alignas(8) char buf[8192];
    for (;;) {
        long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
        if (n <= 0)
            break;
        for (long off = 0; off < n;) {
            struct linux_dirent64_head head;
            memcpy(&head, buf + off, sizeof(head));
            const char *name = buf + off + offsetof(struct linux_dirent64_head, d_type) + 1;
            off += head.d_reclen;
            if (head.d_reclen == 0)
                break;
            unsigned long pid = 0;
            bool numeric = name[0] != '\0';
            for (const char *q = name; *q; q++) {
                if (*q < '0' || *q > '9') {
                    numeric = false;
                    break;
                }
                pid = pid * 10 + (unsigned long)(*q - '0');
            }
            struct proc_info pi;
            if (numeric && proc_info_read((pid_t)pid, &pi) && (parent == 0 || pi.ppid == parent))
                fn(&pi, ctx);
        }
    }
    close(dfd);
}

void proc_for_each_child(pid_t parent, proc_visit_fn fn, void *ctx)
{
    proc_scan(parent, fn, ctx);
}

void proc_for_each(proc_visit_fn fn, void *ctx)
{
    proc_scan(0, fn, ctx);
}

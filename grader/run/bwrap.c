/*
 * bwrap: the bubblewrap command line of a run (run/sandbox_internal.h): user, mount, pid,
 * ipc, uts, cgroup and (unless opts->network) network namespaces; no capabilities; a
 * read-only system (/usr, /bin, /lib*, a few files of /etc, the CUDA toolkit), fresh /proc,
 * minimal /dev, a private /tmp; only the workdir and rw_paths writable, ro_paths visible
 * read-only, /dev/nvidia* and /sys for GPU runs; and the command's exit status read back
 * from --json-status-fd.
 */
#include "run/sandbox_internal.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void bwrap_add_system_dir(struct argvec *a, const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    if (S_ISLNK(st.st_mode)) {
        /* Merged /usr: /bin -> usr/bin. Keep it a symlink when its target is inside /usr,
         * which is bound anyway. */
        char *real = realpath(path, NULL);
        char target[PATH_MAX];
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (real && n > 0 && sb_path_is_under(real, "/usr")) {
            target[n] = '\0';
            argvec_push3(a, "--symlink", target, path);
        } else if (real && dir_exists(real)) {
            argvec_push3(a, "--ro-bind", path, path);
        }
        free(real);
        return;
    }
    if (S_ISDIR(st.st_mode))
        argvec_push3(a, "--ro-bind", path, path);
}

/* Read-only bind of a host path unless /usr already covers it. */
static void bwrap_add_ro_unless_usr(struct argvec *a, const char *path)
{
    if (!path || !sb_path_exists(path))
        return;
    char *real = realpath(path, NULL);
    if (!real)
        return;
    if (!sb_path_is_under(path, "/usr") || !sb_path_is_under(real, "/usr"))
        argvec_push3(a, "--ro-bind", real, path);
    free(real);
}

struct user_bind {
    const char *kind;
    char *path;
    int depth;
};

static int user_bind_cmp(const void *pa, const void *pb)
{
    const struct user_bind *a = pa, *b = pb;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return a < b ? -1 : a > b; /* stable: keep the given order */
}

static int path_depth(const char *p)
{
    int d = 0;
    for (; *p; p++)
        if (*p == '/' && p[1] && p[1] != '/')
            d++;
    return d;
}

/* The read-only system, the CUDA toolkit, and fresh /proc, /dev and /tmp. */
static void bwrap_add_system(struct argvec *a)
{
    static const char *const system_dirs[] = {"/usr",   "/bin",   "/sbin",  "/lib",
                                              "/lib64", "/lib32", "/libx32"};
    for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
        bwrap_add_system_dir(a, system_dirs[i]);
    static const char *const etc_files[] = {"/etc/alternatives", "/etc/ld.so.cache",
                                            "/etc/ld.so.conf", "/etc/ld.so.conf.d"};
    for (size_t i = 0; i < sizeof(etc_files) / sizeof(etc_files[0]); i++)
        if (sb_path_exists(etc_files[i]))
            argvec_push3(a, "--ro-bind", etc_files[i], etc_files[i]);
    const char *cuda = sb_cuda_home();
    if (cuda) {
        bwrap_add_ro_unless_usr(a, cuda);
        char *real = realpath(cuda, NULL);
        if (real && strcmp(real, cuda) != 0)
            bwrap_add_ro_unless_usr(a, real);
        free(real);
    }
    argvec_push2(a, "--proc", "/proc");
    argvec_push2(a, "--dev", "/dev");
    argvec_push2(a, "--tmpfs", "/tmp");
}

static void bwrap_add_gpu(struct argvec *a)
{
    DIR *d = opendir("/dev");
    if (d) {
        struct dirent *de;
        while ((de = readdir(d))) {
            if (strncmp(de->d_name, "nvidia", 6) != 0)
                continue;
            char *dev = path_join("/dev", de->d_name);
            argvec_push3(a, "--dev-bind", dev, dev);
            free(dev);
        }
        closedir(d);
    }
    if (dir_exists("/sys"))
        argvec_push3(a, "--ro-bind", "/sys", "/sys");
    if (dir_exists("/proc/driver/nvidia"))
        argvec_push3(a, "--ro-bind", "/proc/driver/nvidia", "/proc/driver/nvidia");
    bwrap_add_ro_unless_usr(a, "/usr/local/nvidia");
}

/* The caller's paths, parents before children so that a writable workdir inside a
 * read-only lab folder (or the reverse) ends up as asked. */
static int bwrap_add_user_binds(const struct sandbox_opts *o, const char *workdir, struct argvec *a,
                                struct error *err)
{
    size_t nbinds = 1;
    for (const char *const *p = o->ro_paths; p && *p; p++)
        nbinds++;
    for (const char *const *p = o->rw_paths; p && *p; p++)
        nbinds++;
    struct user_bind *binds = xcalloc(nbinds, sizeof(*binds));
    size_t k = 0;
    int rc = 0;
    binds[k++] = (struct user_bind){"--bind", xstrdup(workdir), path_depth(workdir)};
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        const char *const *list = pass == 0 ? o->rw_paths : o->ro_paths;
        for (const char *const *p = list; p && *p; p++) {
            char *real = realpath(*p, NULL);
            if (!real) {
                rc = error_set(err, "%s path %s: %s", pass == 0 ? "writable" : "read-only", *p,
                               strerror(errno));
                break;
            }
            binds[k++] =
                (struct user_bind){pass == 0 ? "--bind" : "--ro-bind", real, path_depth(real)};
        }
    }
    if (rc == 0) {
        qsort(binds, k, sizeof(*binds), user_bind_cmp);
        for (size_t i = 0; i < k; i++)
            argvec_push3(a, binds[i].kind, binds[i].path, binds[i].path);
    }
    for (size_t i = 0; i < k; i++)
        free(binds[i].path);
    free(binds);
    return rc;
}

int bwrap_build(const struct sandbox_opts *o, const char *bwrap, const char *workdir, int json_fd,
                struct argvec *a, struct error *err)
{
    argvec_push(a, bwrap);
    argvec_push(a, "--unshare-all");
    if (o->network)
        argvec_push(a, "--share-net");
    argvec_push(a, "--die-with-parent");
    argvec_push(a, "--new-session");
    /* bwrap started by root hands all capabilities to the command otherwise. */
    argvec_push2(a, "--cap-drop", "ALL");
    char fdbuf[16];
    snprintf(fdbuf, sizeof(fdbuf), "%d", json_fd);
    argvec_push2(a, "--json-status-fd", fdbuf);
    bwrap_add_system(a);
    if (o->gpu)
        bwrap_add_gpu(a);
    if (bwrap_add_user_binds(o, workdir, a, err) != 0)
        return -1;
    argvec_push2(a, "--chdir", workdir);
    argvec_push(a, "--");
    for (const char *const *p = o->argv; *p; p++)
        argvec_push(a, *p);
    return 0;
}

bool bwrap_exit_code(int fd, int *code)
{
    struct strbuf sb = STRBUF_INIT;
    char buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof(buf));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        strbuf_add(&sb, buf, (size_t)n);
    }
    bool found = false;
    const char *key = "\"exit-code\"";
    for (const char *p = sb.buf; p && (p = strstr(p, key)); p += strlen(key)) {
        const char *q = p + strlen(key);
        while (*q == ' ' || *q == ':')
            q++;
        char *end;
        long v = strtol(q, &end, 10);
        if (end != q) {
            *code = (int)v;
            found = true;
        }
    }
    strbuf_release(&sb);
    return found;
}

void bwrap_failure_text(const char *output, int status, char *buf, size_t size)
{
    const char *msg = strstr(output ? output : "", "bwrap: ");
    if (msg) {
        size_t len = strcspn(msg, "\n");
        snprintf(buf, size, "%.*s", (int)len, msg);
    } else {
        snprintf(buf, size, "bubblewrap failed before starting the command (status %d)", status);
    }
}

/* toolchain: the compilers found, their flags, and the environment every sandboxed command
 * gets (run/build.h). */
#include "run/build_internal.h"

#include "base/alloc.h"
#include "base/fs.h"
#include "base/strbuf.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void toolchain_init(struct toolchain *tc)
{
    memset(tc, 0, sizeof(*tc));
    tc->isolation = ISOLATION_AUTO;
    tc->compile_timeout_s = 120;
}

void toolchain_release(struct toolchain *tc)
{
    free(tc->cc);
    free(tc->nvcc);
    free(tc->cuda_home);
    free(tc->cc_version);
    free(tc->nvcc_version);
    free(tc->harness_dir);
    free(tc->harness_include);
    free(tc->gpu_arch);
    free(tc->gpu_codes);
    free(tc->no_cuda_reason);
    for (size_t i = 0; tc->env && tc->env[i]; i++)
        free(tc->env[i]);
    free(tc->env);
    for (size_t i = 0; tc->ro_paths && tc->ro_paths[i]; i++)
        free(tc->ro_paths[i]);
    free(tc->ro_paths);
    toolchain_init(tc);
}

/* The line of `prog --version` (run under the supervisor) that contains `prefer` (nvcc's
 * "Cuda compilation tools, release 13.0, V13.0.88"), else its first line. */
static char *tool_version(const char *prog, const char *prefer)
{
    const char *argv[] = {prog, "--version", NULL};
    struct sandbox_opts o;
    struct sandbox_result r;
    struct error err;
    char *res = NULL;
    sandbox_opts_init(&o);
    sandbox_result_init(&r);
    o.argv = argv;
    o.workdir = "/tmp";
    o.wall_limit_s = 30;
    o.isolation = ISOLATION_SUPERVISOR;
    if (sandbox_run(&o, &r, &err) == 0 && r.status == SB_EXITED && r.exit_code == 0 && r.output)
        res = text_pick_line(r.output, prefer);
    sandbox_result_release(&r);
    return res;
}

static char *find_nvcc(char **cuda_home)
{
    const char *env = getenv("NVCC");
    const char *home = getenv("CUDA_HOME");
    char *p;
    if (env && *env && (p = find_program(env)))
        goto found;
    if (home && *home) {
        p = path_join(home, "bin/nvcc");
        if (access(p, X_OK) == 0)
            goto found;
        free(p);
    }
    p = xstrdup("/usr/local/cuda/bin/nvcc");
    if (access(p, X_OK) == 0)
        goto found;
    free(p);
    p = find_program("nvcc");
    if (!p)
        return NULL;
found : {
    char *real = realpath(p, NULL);
    char *dir = xstrdup(real ? real : p);
    free(real);
    /* <home>/bin/nvcc */
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    *cuda_home = dir;
}
    return p;
}

static void push_owned(char ***list, size_t *n, size_t *alloc, char *s)
{
    ALLOC_GROW(*list, *n + 2, *alloc);
    (*list)[(*n)++] = s;
    (*list)[*n] = NULL;
}

/* Search paths of this machine travel into the sandbox (e.g. libraries unpacked
 * outside /usr on a machine without a package manager). */
static void collect_passthrough(struct toolchain *tc)
{
    static const char *const vars[] = {"CPATH",
                                       "LIBRARY_PATH",
                                       "LD_LIBRARY_PATH",
                                       "CUDA_VISIBLE_DEVICES",
                                       "OPENBLAS_NUM_THREADS",
                                       "OPENBLAS_CORETYPE",
                                       "OMP_NUM_THREADS"};
    size_t ne = 0, ae = 0, np = 0, ap = 0;
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v)
            continue;
        push_owned(&tc->env, &ne, &ae, xstrfmt("%s=%s", vars[i], v));
        if (!strcmp(vars[i], "CUDA_VISIBLE_DEVICES") || strncmp(vars[i], "OPENBLAS_", 9) == 0 ||
            strstr(vars[i], "THREADS"))
            continue;
        char *copy = xstrdup(v), *save = NULL;
        for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
            bool dup = false;
            if (d[0] != '/' || !dir_exists(d) || !strncmp(d, "/usr/", 5))
                continue;
            for (size_t k = 0; k < np; k++)
                dup = dup || !strcmp(tc->ro_paths[k], d);
            if (!dup)
                push_owned(&tc->ro_paths, &np, &ap, xstrdup(d));
        }
        free(copy);
    }
    if (!tc->env)
        push_owned(&tc->env, &ne, &ae, xstrdup("LG_SANDBOX=1"));
    if (!tc->ro_paths) {
        tc->ro_paths = xcalloc(1, sizeof(char *));
    }
}

void toolchain_setenv(struct toolchain *tc, const char *key, const char *value)
{
    size_t n = 0, klen = strlen(key);
    while (tc->env && tc->env[n]) {
        if (!strncmp(tc->env[n], key, klen) && tc->env[n][klen] == '=') {
            free(tc->env[n]);
            tc->env[n] = xstrfmt("%s=%s", key, value);
            return;
        }
        n++;
    }
    size_t alloc = n + 1;
    push_owned(&tc->env, &n, &alloc, xstrfmt("%s=%s", key, value));
}

const char **toolchain_ro_paths(const struct toolchain *tc, const char *const *extra)
{
    size_t n = 0, m = 0;
    while (tc->ro_paths && tc->ro_paths[n])
        n++;
    while (extra && extra[m])
        m++;
    const char **list = xcalloc(n + m + 1, sizeof(char *));
    for (size_t i = 0; i < n; i++)
        list[i] = tc->ro_paths[i];
    for (size_t i = 0; i < m; i++)
        list[n + i] = extra[i];
    return list;
}

/* A compiler installed outside /usr (e.g. /opt/gcc/bin/gcc) must be visible in the
 * sandbox, with its whole prefix (libexec, include, lib), and first in PATH so that
 * nvcc finds the same host compiler. */
static void add_tool_prefix(struct toolchain *tc, const char *tool, struct strbuf *path)
{
    char *real = realpath(tool, NULL);
    const char *cands[2] = {tool, real};
    for (int i = 0; i < 2; i++) {
        if (!cands[i])
            continue;
        char *dir = xstrdup(cands[i]);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        if (i == 0 && !strstr(strbuf_str(path), dir))
            strbuf_addf(path, "%s:", dir);
        char *prefix = xstrdup(dir);
        slash = strrchr(prefix, '/');
        if (slash && slash != prefix)
            *slash = '\0';
        if (strncmp(prefix, "/usr", 4) != 0 && strcmp(prefix, "/") != 0 &&
            strncmp(prefix, "/bin", 4) != 0) {
            size_t n = 0, alloc = 0;
            bool dup = false;
            while (tc->ro_paths && tc->ro_paths[n]) {
                dup = dup || !strcmp(tc->ro_paths[n], prefix);
                n++;
            }
            alloc = n + 1;
            if (!dup)
                push_owned(&tc->ro_paths, &n, &alloc, xstrdup(prefix));
        }
        free(prefix);
        free(dir);
    }
    free(real);
}

int toolchain_detect(struct toolchain *tc, const char *harness_dir, const char *include_dir,
                     struct error *err)
{
    const char *cc = getenv("CC");
    char *probe;
    collect_passthrough(tc);
    tc->cc = find_program(cc && *cc ? cc : "cc");
    if (!tc->cc)
        tc->cc = find_program("gcc");
    if (!tc->cc)
        return error_set(err, "no C compiler found (CC, cc, gcc): install gcc with "
                              "'sudo apt-get install build-essential'");
    tc->cc_version = tool_version(tc->cc, NULL);
    /* Real paths: the sandbox binds exactly these folders, and a symlink's target would
     * stay outside. */
    tc->harness_dir = realpath(harness_dir, NULL);
    tc->harness_include = realpath(include_dir, NULL);
    if (!tc->harness_dir || !tc->harness_include)
        return error_set_at(err, tc->harness_dir ? include_dir : harness_dir, 0, 0,
                            "labgrader's harness is missing: run 'make'");
    probe = path_join(harness_dir, "libharness.a");
    if (!file_exists(probe)) {
        free(probe);
        return error_set_at(err, harness_dir, 0, 0,
                            "the harness is not built (libharness.a missing): run 'make'");
    }
    free(probe);
    tc->nvcc = find_nvcc(&tc->cuda_home);
    {
        struct strbuf path = STRBUF_INIT;
        size_t n = 0, alloc = 0;
        add_tool_prefix(tc, tc->cc, &path);
        if (tc->nvcc)
            add_tool_prefix(tc, tc->nvcc, &path);
        strbuf_addstr(&path, "/usr/local/bin:/usr/bin:/bin");
        while (tc->env && tc->env[n])
            n++;
        alloc = n + 1;
        char *entry = xstrfmt("PATH=%s", path.buf);
        push_owned(&tc->env, &n, &alloc, entry);
        strbuf_release(&path);
    }
    if (!tc->nvcc) {
        tc->no_cuda_reason = xstrdup("no CUDA toolkit: nvcc not found in $CUDA_HOME/bin, "
                                     "/usr/local/cuda/bin or PATH");
    } else {
        tc->nvcc_version = tool_version(tc->nvcc, "release");
        probe = path_join(harness_dir, "harness_gpu.o");
        if (!file_exists(probe))
            tc->no_cuda_reason = xstrdup("labgrader was built without CUDA (harness_gpu.o "
                                         "missing): run 'make clean all' with nvcc available");
        free(probe);
    }
    return 0;
}

char *toolchain_cflags(const struct toolchain *tc, const struct lab *lab)
{
    (void)tc;
    return xstrfmt("%s%s%s", BASE_CFLAGS, lab && lab->cflags ? " " : "",
                   lab && lab->cflags ? lab->cflags : "");
}

char *toolchain_nvccflags(const struct toolchain *tc, const struct lab *lab)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addstr(&sb, BASE_NVCCFLAGS);
    for (const char *c = tc->gpu_codes; c && *c;) {
        size_t len = strcspn(c, ",");
        if (len > 3 && !strncmp(c, "sm_", 3))
            strbuf_addf(&sb, " -gencode=arch=compute_%.*s,code=sm_%.*s", (int)len - 3, c + 3,
                        (int)len - 3, c + 3);
        c += len + (c[len] == ',');
    }
    if (tc->gpu_arch && !tc->gpu_codes)
        strbuf_addf(&sb, " -arch=%s", tc->gpu_arch);
    if (lab && lab->nvccflags)
        strbuf_addf(&sb, " %s", lab->nvccflags);
    return strbuf_detach(&sb);
}

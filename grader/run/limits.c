/*
 * limits: what the child starts with (run/sandbox_internal.h): a clean environment, the
 * program as the sandbox's PATH finds it, and its rlimits: CPU time, file size, 256 open
 * files, no core dumps, and RLIMIT_AS only where asked (compilers: CUDA reserves ~12 GiB of
 * address space at start-up). Never RLIMIT_NPROC (it counts every process of the user) and
 * never RLIMIT_DATA: on Linux >= 4.7 it counts private writable mappings (malloc, brk; not
 * PROT_NONE reservations, not shared mappings), but an allocation it refuses surfaces as NULL
 * from malloc, i.e. as a crash or the program's own error rather than "memory limit", and
 * AddressSanitizer's shadow (private, writable, NORESERVE) alone exceeds any sensible limit.
 * Memory is limited by the cgroup or by the supervisor's watcher (memwatch.c) instead.
 */
#include "run/sandbox_internal.h"
#include "run/control.h"
#include "base/alloc.h"
#include "base/fs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void env_set(struct argvec *env, const char *entry)
{
    size_t klen = strcspn(entry, "=");
    if (entry[klen] != '=' || klen == 0)
        return;
    for (size_t i = 0; i < env->n; i++) {
        if (strncmp(env->v[i], entry, klen + 1) == 0) {
            free(env->v[i]);
            env->v[i] = xstrdup(entry);
            return;
        }
    }
    argvec_push(env, entry);
}

const char *limits_env_get(const struct argvec *env, const char *key)
{
    size_t klen = strlen(key);
    for (size_t i = 0; i < env->n; i++)
        if (strncmp(env->v[i], key, klen) == 0 && env->v[i][klen] == '=')
            return env->v[i] + klen + 1;
    return NULL;
}

char *limits_resolve_program(const char *name, const char *path, const char *workdir)
{
    if (strchr(name, '/')) {
        char *cand = name[0] == '/' ? xstrdup(name) : path_join(workdir, name);
        if (sb_is_executable_file(cand))
            return cand;
        free(cand);
        return NULL;
    }
    char *copy = xstrdup(path ? path : SB_SAFE_PATH);
    char *result = NULL;
    for (char *dir = copy, *end; dir; dir = end ? end + 1 : NULL) {
        end = strchr(dir, ':');
        if (end)
            *end = '\0';
        char *base = *dir == '/' ? xstrdup(dir) : path_join(workdir, dir);
        char *cand = path_join(base, name);
        free(base);
        if (sb_is_executable_file(cand)) {
            result = cand;
            break;
        }
        free(cand);
    }
    free(copy);
    return result;
}

void limits_environment(const struct sandbox_opts *o, const char *workdir, int ctl_target,
                        struct argvec *env)
{
    const char *cuda = sb_cuda_home();
    char *cuda_bin = cuda ? path_join(cuda, "bin") : NULL;
    char *path_entry = cuda_bin && dir_exists(cuda_bin)
                           ? xstrfmt("PATH=" SB_SAFE_PATH ":%s", cuda_bin)
                           : xstrdup("PATH=" SB_SAFE_PATH);
    free(cuda_bin);
    char *home_entry = xstrfmt("HOME=%s", workdir);
    char *tmp_entry = xstrfmt("TMPDIR=%s", workdir);
    env_set(env, path_entry);
    env_set(env, home_entry);
    env_set(env, tmp_entry);
    env_set(env, "LANG=C.UTF-8");
    free(path_entry);
    free(home_entry);
    free(tmp_entry);
    for (const char *const *e = o->env; e && *e; e++)
        env_set(env, *e);
    if (ctl_target >= 0) {
        char *ctl_entry = xstrfmt(SB_CONTROL_ENV "=%d", ctl_target);
        char *grant_entry = xstrfmt(SB_GRANT_ENV "=%d", ctl_target + 1);
        env_set(env, ctl_entry);
        env_set(env, grant_entry);
        free(ctl_entry);
        free(grant_entry);
    }
}

/* Never ask for more than a hard limit the grader itself runs under: setrlimit would refuse
 * it (Slurm jobs, ulimit -H). */
static void clamp_to_own_limits(struct child_limits *l)
{
    struct rlimit cur;
    if (getrlimit(RLIMIT_NOFILE, &cur) == 0 && cur.rlim_max < l->nofile.rlim_max)
        l->nofile.rlim_cur = l->nofile.rlim_max = cur.rlim_max;
    if (getrlimit(RLIMIT_FSIZE, &cur) == 0 && cur.rlim_max < l->fsize.rlim_max)
        l->fsize.rlim_cur = l->fsize.rlim_max = cur.rlim_max;
    if (l->has_cpu_limit && getrlimit(RLIMIT_CPU, &cur) == 0 && cur.rlim_max < l->cpu.rlim_max) {
        l->cpu.rlim_max = cur.rlim_max;
        if (l->cpu.rlim_cur > cur.rlim_max)
            l->cpu.rlim_cur = cur.rlim_max;
    }
}

void limits_plan(const struct sandbox_opts *o, struct child_limits *l)
{
    memset(l, 0, sizeof(*l));
    long long fsize = o->file_limit_bytes > 0 ? o->file_limit_bytes : SB_DEFAULT_FILE_LIMIT;
    l->fsize.rlim_cur = l->fsize.rlim_max = (rlim_t)fsize;
    l->nofile.rlim_cur = l->nofile.rlim_max = SB_CHILD_NOFILE;
    l->core.rlim_cur = l->core.rlim_max = 0;
    if (o->address_space_bytes > 0) {
        /* Never ask for more than an inherited hard limit allows: setrlimit would fail. */
        struct rlimit inherited;
        rlim_t want = (rlim_t)o->address_space_bytes;
        if (getrlimit(RLIMIT_AS, &inherited) == 0 && inherited.rlim_max != RLIM_INFINITY &&
            inherited.rlim_max < want)
            want = inherited.rlim_max;
        l->has_as_limit = true;
        l->as.rlim_cur = l->as.rlim_max = want;
    }
    if (o->cpu_limit_s > 0) {
        double secs = ceil(o->cpu_limit_s);
        l->has_cpu_limit = true;
        l->cpu.rlim_cur = (rlim_t)(secs < 1 ? 1 : secs);
        l->cpu.rlim_max = l->cpu.rlim_cur + 1;
    }
    clamp_to_own_limits(l);
}

#include "run/build.h"
#include "run/objcache.h"

#include "run/symbols.h"
#include "spec/driver.h"
#include "base/messages.h"
#include "base/alloc.h"
#include "base/fs.h"
#include "base/sha256.h"
#include "base/space.h"
#include "base/util.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BASE_CFLAGS "-std=gnu11 -O2 -Wall -Wextra"
/* -lineinfo: compute-sanitizer's reports name the source file and line (sanitizer.h); it
 * adds line tables only, and changes neither the code nor its speed. */
#define BASE_NVCCFLAGS "-O2 -lineinfo -Xcompiler -Wall"
#define SUBMISSION_MAX_BYTES (64LL << 20)
#define SUBMISSION_MAX_FILES 500
/* What a compile or link step may need to write (objects, nvcc's intermediate files in
 * TMPDIR, which is the build folder): with less free, a failed step is the disk's doing. */
#define BUILD_SPACE_NEEDED (32LL << 20)

struct build_obj {
    char *source; /* as named in the spec */
    char *flags;  /* the extra flags it was compiled with */
    char *object; /* relative to the build folder */
    enum build_status status;
    char *message;
    char *log;
    int n_warnings;
};

/* argv: a NULL-terminated growable list of owned strings. */
struct argv_list {
    char **v;
    size_t n, alloc;
};

static void argv_push(struct argv_list *a, const char *s)
{
    ALLOC_GROW(a->v, a->n + 2, a->alloc);
    a->v[a->n++] = xstrdup(s);
    a->v[a->n] = NULL;
}

/* Whitespace-separated flags; labs and environment give flags without shell quoting. */
static void argv_push_split(struct argv_list *a, const char *flags)
{
    char *copy, *save = NULL;
    if (!flags)
        return;
    copy = xstrdup(flags);
    for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
        argv_push(a, t);
    free(copy);
}

static void argv_release(struct argv_list *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->alloc = 0;
}

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

void build_result_init(struct build_result *r)
{
    memset(r, 0, sizeof(*r));
    strbuf_init(&r->log);
}

void build_result_release(struct build_result *r)
{
    free(r->message);
    strbuf_release(&r->log);
    free(r->runner);
    build_result_init(r);
}

/* Copy regular files of the submission (no links, no devices) within limits. */
static int copy_tree(const char *src, const char *dst, long long *bytes, long *files,
                     struct error *err)
{
    DIR *d = opendir(src);
    struct dirent *de;
    int rc = 0;
    if (!d)
        return error_set_at(err, src, 0, 0, "cannot read the submission folder: %s",
                            strerror(errno));
    if (mkdir_p(dst, err) != 0) {
        closedir(d);
        return -1;
    }
    while (rc == 0 && (de = readdir(d))) {
        struct stat st;
        if (de->d_name[0] == '.')
            continue;
        char *s = path_join(src, de->d_name), *t = path_join(dst, de->d_name);
        if (lstat(s, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                rc = copy_tree(s, t, bytes, files, err);
            else if (S_ISREG(st.st_mode)) {
                *bytes += st.st_size;
                if (++*files > SUBMISSION_MAX_FILES || *bytes > SUBMISSION_MAX_BYTES)
                    rc = error_set_at(err, src, 0, 0,
                                      "the submission is too large (over %d files or %lld MiB)",
                                      SUBMISSION_MAX_FILES, SUBMISSION_MAX_BYTES >> 20);
                else
                    rc = copy_file(s, t, err);
            }
        }
        free(s);
        free(t);
    }
    closedir(d);
    return rc;
}

static int digest_tree(struct sha256 *h, const char *dir, const char *rel, struct error *err)
{
    struct dirent **list = NULL;
    int n = scandir(dir, &list, NULL, alphasort);
    int rc = 0;
    if (n < 0)
        return error_set_at(err, dir, 0, 0, "cannot read: %s", strerror(errno));
    for (int i = 0; i < n; i++) {
        const char *name = list[i]->d_name;
        struct stat st;
        if (rc == 0 && name[0] != '.') {
            char *p = path_join(dir, name);
            char *r = *rel ? xstrfmt("%s/%s", rel, name) : xstrdup(name);
            if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
                rc = digest_tree(h, p, r, err);
            } else if (lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
                sha256_update(h, r, strlen(r) + 1);
                rc = sha256_file(h, p, err);
            }
            free(p);
            free(r);
        }
        free(list[i]);
    }
    free(list);
    return rc;
}

int submission_files_digest(const char *dir, char out[65], struct error *err)
{
    struct sha256 h;
    sha256_init(&h);
    if (digest_tree(&h, dir, "", err) != 0)
        return -1;
    sha256_final_hex(&h, out);
    return 0;
}

int build_ctx_init(struct build_ctx *b, const struct toolchain *tc, const struct lab *lab,
                   bool reference, const char *src_dir, const char *dir, struct error *err)
{
    struct strbuf hdr = STRBUF_INIT;
    memset(b, 0, sizeof(*b));
    b->tc = tc;
    b->lab = lab;
    b->reference = reference;
    b->dir = xstrdup(dir);
    b->src_dir = src_dir ? xstrdup(src_dir) : NULL;
    if (mkdir_p(dir, err) != 0)
        return -1;
    driver_prototypes_header(lab, reference, &hdr);
    char *hpath = path_join(dir, "lg_prototypes.h");
    struct strbuf cur = STRBUF_INIT;
    int rc = 0;
    if (read_file(hpath, &cur, NULL) != 0 || strcmp(strbuf_str(&cur), strbuf_str(&hdr)))
        rc = write_file_atomic(hpath, hdr.buf, hdr.len, err);
    strbuf_release(&cur);
    free(hpath);
    strbuf_release(&hdr);
    if (rc != 0)
        return -1;
    if (!reference) {
        /* A folder built earlier from the same files (batch grading builds ahead in
         * parallel, then runs) is reused as it is. */
        char digest[65];
        char *stamp = path_join(dir, "src.digest");
        struct strbuf old = STRBUF_INIT;
        if (submission_files_digest(src_dir, digest, err) != 0) {
            free(stamp);
            return -1;
        }
        memcpy(b->src_digest, digest, sizeof(b->src_digest));
        if (read_file(stamp, &old, NULL) == 0 && !strcmp(strbuf_str(&old), digest)) {
            strbuf_release(&old);
            free(stamp);
            return 0;
        }
        strbuf_release(&old);
        char *dst = path_join(dir, "src");
        long long bytes = 0;
        long files = 0;
        remove_tree(dst, NULL);
        rc = copy_tree(src_dir, dst, &bytes, &files, err);
        free(dst);
        if (rc == 0)
            rc = write_file_atomic(stamp, digest, strlen(digest), err);
        free(stamp);
        if (rc != 0)
            return -1;
    }
    return 0;
}

void build_ctx_release(struct build_ctx *b)
{
    for (size_t i = 0; i < b->n_objs; i++) {
        free(b->objs[i].source);
        free(b->objs[i].flags);
        free(b->objs[i].object);
        free(b->objs[i].message);
        free(b->objs[i].log);
    }
    free(b->objs);
    free(b->dir);
    free(b->src_dir);
    memset(b, 0, sizeof(*b));
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && !strcmp(s + n - m, suffix);
}

/* A .cu source, or a reference compiled from one (x.cu.o): linked by nvcc. */
static bool is_cuda_source(const char *path)
{
    return ends_with(path, ".cu") || ends_with(path, ".cu.o");
}

static int count_warnings(const char *log)
{
    int n = 0;
    for (const char *p = log; (p = strstr(p, "warning")); p++)
        if (p > log && (p[-1] == ' ' || p[-1] == ':') && (p[7] == ':' || p[7] == ' '))
            n++;
    return n;
}

/*
 * A compile or link step failed: was the build folder's disk full? Then the compiler's
 * complaint is about the grader's disk, and the failure is the grader's (XX), never the
 * submission's CE. *message gets the reason, in the student's language.
 */
static bool build_disk_full(const struct build_ctx *b, char **message)
{
    struct error e;
    error_init(&e);
    if (space_probe(b->dir, BUILD_SPACE_NEEDED, &e) != SPACE_FULL)
        return false;
    *message = xstrfmt(messages_get(b->messages, "the build failed because the grader's disk is "
                                                 "full (not the submission's fault): %s"),
                       e.msg);
    return true;
}

/* The environment of one build command: the toolchain's, with TMPDIR a folder of its own.
 * nvcc names its intermediate files after its process id, and in a sandbox of its own every
 * nvcc is pid 2: two compiles sharing one TMPDIR (two variants of one source built at once)
 * overwrote each other's files and linked objects without their kernels' host stubs. *tmp
 * is the folder (the caller removes it), NULL where none could be made. */
static void tool_env(const struct build_ctx *b, struct argv_list *env, char **tmp)
{
    char *templ = path_join(b->dir, ".tmp-XXXXXX");
    *tmp = mkdtemp(templ) ? templ : NULL;
    if (!*tmp)
        free(templ);
    for (char **e = b->tc->env; e && *e; e++)
        if (!*tmp || strncmp(*e, "TMPDIR=", 7) != 0)
            argv_push(env, *e);
    if (*tmp) {
        char *entry = xstrfmt("TMPDIR=%s", *tmp);
        argv_push(env, entry);
        free(entry);
    }
}

/* Run a build command in the sandbox; the output is appended to log. */
static int run_tool(struct build_ctx *b, struct argv_list *cmd, struct strbuf *log, bool *ok,
                    struct error *err)
{
    const char *extra[] = {b->tc->harness_include, b->tc->harness_dir,
                           b->reference ? b->lab->dir : NULL, b->reference ? b->lab->root : NULL,
                           NULL};
    const char **ro = toolchain_ro_paths(b->tc, extra);
    struct sandbox_opts o;
    struct sandbox_result r;
    char desc[512];
    int rc = 0;
    sandbox_opts_init(&o);
    sandbox_result_init(&r);
    o.argv = (const char *const *)cmd->v;
    o.workdir = b->dir;
    o.ro_paths = ro;
    struct argv_list env = {0};
    char *tmp;
    tool_env(b, &env, &tmp);
    o.env = (const char *const *)env.v;
    o.wall_limit_s = b->tc->compile_timeout_s;
    o.cpu_limit_s = b->tc->compile_timeout_s;
    o.file_limit_bytes = 512LL << 20;
    o.output_cap = 256 * 1024;
    o.isolation = b->tc->isolation;
    /* The compile is untrusted too (template and macro bombs): half the machine's memory
     * and a few hundred tasks (nvcc runs cicc, ptxas, fatbinary) where cgroups are
     * delegated; the wall and CPU limits hold everywhere. */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        o.memory_limit_bytes = (long long)pages * page / 2;
    o.max_processes = 512;
    /* Without delegated cgroups nothing else stops a macro bomb (exponential #define
     * doubling): cc1 grows by hundreds of MiB a second. Compilers never start CUDA, so
     * the address-space limit the runs cannot have is safe here. Per process (cc1plus,
     * cicc, ptxas each get it) and fixed: scaled down to a small laptop's memory it would
     * refuse honest template-heavy CUDA (thrust, CUB), which needs a few GiB. */
    o.address_space_bytes = 4LL << 30;
    *ok = false;
    if (sandbox_run(&o, &r, err) != 0) {
        error_prefix(err, "cannot run %s: ", cmd->v[0]);
        rc = -1;
    } else {
        if (r.output_len)
            strbuf_add(log, r.output, r.output_len);
        if (r.output_truncated)
            strbuf_addstr(log, "\n[... compiler output truncated ...]\n");
        if (r.status == SB_EXITED && r.exit_code == 0)
            *ok = true;
        else if (r.status != SB_EXITED) {
            sandbox_describe(&r, desc, sizeof(desc));
            strbuf_addf(log, "\n%s: %s\n", path_base(cmd->v[0]), desc);
        }
    }
    sandbox_result_release(&r);
    free(ro);
    argv_release(&env);
    if (tmp)
        remove_tree(tmp, NULL);
    free(tmp);
    return rc;
}

static void lib_flags(const char *lib, bool compile, struct argv_list *out)
{
    /* openblas ships a pkg-config file whose include dir is not on the default path. */
    if (!strcmp(lib, "openblas")) {
        if (compile) {
            argv_push(out, "-I/usr/include/x86_64-linux-gnu/openblas-pthread");
            argv_push(out, "-I/usr/include/openblas");
            const char *cpath = getenv("LG_OPENBLAS_CFLAGS");
            argv_push_split(out, cpath);
        } else {
            argv_push(out, "-L/usr/lib/x86_64-linux-gnu/openblas-pthread");
            argv_push(out, "-lopenblas");
        }
        return;
    }
    if (!compile) {
        char *l = xstrfmt("-l%s", lib);
        argv_push(out, l);
        free(l);
    }
}

/* One CUDA runtime in a process: the runner and the paired reference's shared object both link
 * the shared libcudart (two static copies would keep two runtime states), found at run time
 * through an rpath to the toolkit's library folder. */
static void cudart_shared(const struct toolchain *tc, struct argv_list *cmd)
{
    argv_push(cmd, "-cudart");
    argv_push(cmd, "shared");
    const char *subdirs[] = {"lib64", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"};
    for (size_t i = 0; tc->cuda_home && i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
        char *dir = xstrfmt("%s/%s", tc->cuda_home, subdirs[i]);
        if (dir_exists(dir)) {
            char *opt = xstrfmt("-Xlinker=-rpath=%s", dir);
            argv_push(cmd, opt);
            free(opt);
        }
        free(dir);
    }
}

static const struct impl_spec *impl_of(const struct build_ctx *b, const struct variant_spec *v)
{
    return b->reference ? &v->reference : &v->student;
}

/* nvcc's flags; for a reference's shared object, position-independent, hidden, and machine
 * code only: -arch=sm_XX would embed PTX too, which reads almost like source. */
static void push_nvcc_flags(const struct build_ctx *b, const char *flags, struct argv_list *cmd)
{
    char *copy = xstrdup(flags), *save = NULL;
    for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
        if (b->pic && !strncmp(t, "-arch=sm_", 9)) {
            char *g = xstrfmt("-gencode=arch=compute_%s,code=sm_%s", t + 9, t + 9);
            argv_push(cmd, g);
            free(g);
        } else {
            argv_push(cmd, t);
        }
    }
    free(copy);
    if (b->pic) {
        argv_push(cmd, "-Xcompiler");
        argv_push(cmd, "-fPIC,-fvisibility=hidden");
    }
}

/* Compile one source (cached per source + flags within this build folder). */
/* What else decides an object besides its command and sources: the compilers and the
 * environment they search (objcache.h). */
static char *compile_versions(const struct toolchain *tc)
{
    struct strbuf sb = STRBUF_INIT;
    strbuf_addf(&sb, "%s\n%s\n%s\n%s\n", tc->cc ? tc->cc : "-",
                tc->cc_version ? tc->cc_version : "-", tc->nvcc ? tc->nvcc : "-",
                tc->nvcc_version ? tc->nvcc_version : "-");
    for (size_t i = 0; tc->env && tc->env[i]; i++)
        strbuf_addf(&sb, "%s\n", tc->env[i]);
    return strbuf_detach(&sb);
}

/* Run a compile, or take its object from the cache (student builds with a cache only). A
 * compile that succeeds is kept for the next build, with the files it read. */
static int compile_cached(struct build_ctx *b, struct argv_list *cmd, const char *src_path,
                          struct build_obj *o, struct strbuf *log, bool *ok, struct error *err)
{
    struct objcache_entry e;
    char *versions = NULL, *cached = NULL, *dep = NULL;
    bool use = !b->reference && b->cache_dir;
    if (use) {
        /* A source the cache cannot read is left to the compiler to complain about. */
        struct error ignored;
        error_init(&ignored);
        versions = compile_versions(b->tc);
        use = objcache_entry_init(&e, b->cache_dir, b->dir, (const char *const *)cmd->v, o->object,
                                  src_path, versions, &ignored) == 0;
        free(versions);
    }
    if (use && objcache_load(&e, o->object, &cached)) {
        strbuf_addstr(log, cached);
        free(cached);
        objcache_entry_release(&e);
        *ok = true;
        return 0;
    }
    if (use) {
        dep = xstrfmt("%s.d", o->object);
        argv_push(cmd, "-MD");
        argv_push(cmd, "-MF");
        argv_push(cmd, dep);
    }
    int rc = run_tool(b, cmd, log, ok, err);
    if (use && rc == 0 && *ok)
        objcache_store(&e, o->object, dep, strbuf_str(log));
    if (use)
        objcache_entry_release(&e);
    free(dep);
    return rc;
}

/* The object a source compiles to with the variant's libraries: the one already built here,
 * or a new slot (*fresh). */
static struct build_obj *obj_slot(struct build_ctx *b, const struct impl_spec *impl,
                                  const char *source, bool *fresh)
{
    struct strbuf flags = STRBUF_INIT;
    for (size_t i = 0; i < impl->n_libs; i++)
        strbuf_addf(&flags, " %s", impl->libs[i]);
    if (b->pic)
        strbuf_addstr(&flags, " (pic)");
    *fresh = false;
    for (size_t i = 0; i < b->n_objs; i++)
        if (!strcmp(b->objs[i].source, source) && !strcmp(b->objs[i].flags, strbuf_str(&flags))) {
            strbuf_release(&flags);
            return &b->objs[i];
        }
    ALLOC_GROW(b->objs, b->n_objs + 1, b->alloc_objs);
    struct build_obj *o = &b->objs[b->n_objs++];
    memset(o, 0, sizeof(*o));
    o->source = xstrdup(source);
    o->flags = strbuf_detach(&flags);
    *fresh = true;
    return o;
}

/* An object that could not even be compiled: its status, and the message as its log. */
static struct build_obj *obj_not_built(struct build_obj *o, enum build_status status, char *message)
{
    o->status = status;
    o->message = message;
    o->log = xstrdup(message);
    return o;
}

/* The compiler's command line for src_path (relative to the build folder) into o->object;
 * false when the source is CUDA and there is no nvcc. */
static bool compile_command(struct build_ctx *b, const struct impl_spec *impl,
                            const struct build_obj *o, const char *src_path, const char *src_dir,
                            struct argv_list *cmd)
{
    if (is_cuda_source(o->source)) {
        if (!b->tc->nvcc)
            return false;
        char *f = toolchain_nvccflags(b->tc, b->lab);
        argv_push(cmd, b->tc->nvcc);
        push_nvcc_flags(b, f, cmd);
        free(f);
    } else {
        char *f = toolchain_cflags(b->tc, b->lab);
        argv_push(cmd, b->tc->cc);
        argv_push_split(cmd, f);
        if (b->pic) {
            argv_push(cmd, "-fPIC");
            argv_push(cmd, "-fvisibility=hidden");
        }
        free(f);
    }
    for (size_t i = 0; i < impl->n_libs; i++)
        lib_flags(impl->libs[i], true, cmd);
    const char *tail[] = {"-include", "lg_prototypes.h", "-I", src_dir,
                          "-c",       src_path,          "-o", o->object};
    for (size_t i = 0; i < sizeof(tail) / sizeof(tail[0]); i++)
        argv_push(cmd, tail[i]);
    return true;
}

/* Compile o's source (its path relative to the build folder) and record how it went; -1 only
 * when the grader itself failed. */
static int compile_object(struct build_ctx *b, const struct impl_spec *impl, struct build_obj *o,
                          const char *src_path, const char *src_dir, struct error *err)
{
    struct argv_list cmd = {0};
    struct strbuf log = STRBUF_INIT;
    bool ok;
    if (!compile_command(b, impl, o, src_path, src_dir, &cmd)) {
        argv_release(&cmd);
        obj_not_built(o, BUILD_NO_TOOLCHAIN, xstrdup(b->tc->no_cuda_reason));
        return 0;
    }
    int rc = compile_cached(b, &cmd, src_path, o, &log, &ok, err);
    argv_release(&cmd);
    if (rc != 0) {
        strbuf_release(&log);
        return -1;
    }
    o->n_warnings = count_warnings(strbuf_str(&log));
    o->log = strbuf_detach(&log);
    if (!ok && build_disk_full(b, &o->message)) {
        o->status = BUILD_GRADER_ERROR;
    } else if (!ok) {
        o->status = BUILD_COMPILE_ERROR;
        o->message = xstrfmt(messages_get(b->messages, "%s does not compile"), o->source);
    }
    return 0;
}

static struct build_obj *compile_source(struct build_ctx *b, const struct variant_spec *v,
                                        const char *source, struct error *err)
{
    const struct impl_spec *impl = impl_of(b, v);
    bool fresh;
    struct build_obj *o = obj_slot(b, impl, source, &fresh);
    if (!fresh)
        return o;
    /* A reference shipped compiled (a student kit's, kit.h): linked as it is. */
    if (b->reference && ends_with(source, ".o")) {
        o->object = xstrdup(source);
        return o;
    }
    /* Named after the variant too: variants are built in parallel processes (grade/), and two of
     * them compiling one source must not write one file. */
    o->object = xstrfmt("obj/%s%s%zu-%s.o", b->variant ? b->variant : "", b->variant ? "-" : "",
                        b->n_objs, path_base(source));
    char *objdir = path_join(b->dir, "obj");
    int made = mkdir_p(b->dir, err) == 0 ? mkdir_p(objdir, err) : -1;
    free(objdir);
    if (made != 0)
        return NULL;
    char *src_path = b->reference ? xstrdup(source) : xstrfmt("src/%s", source);
    char *abs_src = path_join(b->dir, src_path);
    char *src_dir = xstrdup(b->reference ? source : abs_src), *slash = strrchr(src_dir, '/');
    int rc = 0;
    if (slash)
        *slash = '\0';
    if (!file_exists(b->reference ? source : abs_src))
        obj_not_built(
            o, BUILD_MISSING_FUNCTION,
            xstrfmt(messages_get(b->messages, "source file '%s' is missing from the submission"),
                    source));
    else
        rc = compile_object(b, impl, o, src_path, src_dir, err);
    free(src_path);
    free(abs_src);
    free(src_dir);
    return rc == 0 ? o : NULL;
}

int build_reference_object(struct build_ctx *b, const struct variant_spec *v, const char *source,
                           char **object, struct build_result *r, struct error *err)
{
    b->pic = true;
    struct build_obj *o = compile_source(b, v, source, err);
    b->pic = false;
    *object = NULL;
    if (!o)
        return -1;
    r->status = o->status;
    free(r->message);
    r->message = o->message ? xstrdup(o->message) : NULL;
    if (o->log)
        strbuf_addstr(&r->log, o->log);
    if (o->status == BUILD_OK)
        *object = o->object[0] == '/' ? xstrdup(o->object) : path_join(b->dir, o->object);
    return 0;
}

static bool link_log_misses(const char *log, const char *function)
{
    char *pat1 = xstrfmt("undefined reference to `%s'", function);
    char *pat2 = xstrfmt("undefined reference to '%s'", function);
    bool r = strstr(log, pat1) || strstr(log, pat2);
    free(pat1);
    free(pat2);
    return r;
}

/* build.txt + build.log in the variant's folder: the outcome of an earlier build. A grader
 * error is not recorded: the next build tries again. */
int build_record_save(const char *vdir, const struct build_result *r, struct error *err)
{
    if (r->status == BUILD_GRADER_ERROR)
        return 0;
    char *txt = xstrfmt("status %d\nwarnings %d\nmessage %s\n", (int)r->status, r->n_warnings,
                        r->message ? r->message : "");
    char *p = path_join(vdir, "build.log");
    int rc = write_file_atomic(p, strbuf_str(&r->log), r->log.len, err);
    free(p);
    p = path_join(vdir, "build.txt");
    if (rc == 0)
        rc = write_file_atomic(p, txt, strlen(txt), err);
    free(p);
    free(txt);
    return rc;
}

bool build_record_load(const char *vdir, struct build_result *r)
{
    struct strbuf txt = STRBUF_INIT;
    char *p = path_join(vdir, "build.txt");
    int status = -1, warnings = 0;
    bool ok = false;
    if (read_file(p, &txt, NULL) == 0 &&
        sscanf(strbuf_str(&txt), "status %d\nwarnings %d\n", &status, &warnings) == 2 &&
        status >= BUILD_OK && status <= BUILD_GRADER_ERROR) {
        const char *m = strstr(txt.buf, "message ");
        char *runner = path_join(vdir, "runner");
        if (status != BUILD_OK || file_exists(runner)) {
            r->status = (enum build_status)status;
            r->n_warnings = warnings;
            if (m) {
                m += 8;
                size_t len = strcspn(m, "\n");
                r->message = len ? xstrndup(m, len) : NULL;
            }
            char *lp = path_join(vdir, "build.log");
            read_file(lp, &r->log, NULL);
            free(lp);
            if (status == BUILD_OK)
                r->runner = xstrdup(runner);
            ok = true;
        }
        free(runner);
    }
    free(p);
    strbuf_release(&txt);
    return ok;
}

/* ---- what the student's objects may define and use (run/symbols.h) ---- */

static struct symbol_set reserved;
static bool reserved_ready;

static void allowed_names(const struct lab *lab, struct symbol_set *allowed)
{
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++)
            symbol_set_add(allowed, lab->exercises[e].variants[v].student.function, "lab");
    for (size_t i = 0; i < lab->n_allow_symbols; i++)
        symbol_set_add(allowed, lab->allow_symbols[i], "lab");
}

static char *refusal(const struct messages *msgs, const char *source, const char *name,
                     enum symbol_verdict why, bool defines, const char *origin)
{
    if (!defines)
        return why == SYMBOL_LOADER
                   ? xstrfmt(messages_get(msgs, "%s uses %s: the dynamic loader is not allowed in "
                                                "a submission (it could reach the grader's own "
                                                "code)"),
                             source, name)
                   : xstrfmt(messages_get(msgs, "%s uses %s, a name of the grader's harness"),
                             source, name);
    switch (why) {
    case SYMBOL_TIMES_YOU:
        return xstrfmt(messages_get(msgs, "%s defines %s, which the grader uses to time you: "
                                          "rename it"),
                       source, name);
    case SYMBOL_HARNESS:
        return xstrfmt(messages_get(msgs, "%s defines %s, a name of the grader's harness: rename "
                                          "it"),
                       source, name);
    case SYMBOL_LOADER:
        return xstrfmt(messages_get(msgs, "%s defines %s, the dynamic loader's: rename it"), source,
                       name);
    default:
        return xstrfmt(messages_get(msgs, "%s defines %s, which %s provides and the grader "
                                          "links: rename yours"),
                       source, name, origin ? origin : "a library");
    }
}

/* The first refused symbol of one object, or NULL. Caller frees. */
static char *object_refusal(const struct build_ctx *b, const struct build_obj *o,
                            struct symbol_set *allowed)
{
    struct symbol_set def, use;
    struct error err;
    char *path = path_join(b->dir, o->object), *why = NULL;
    symbol_set_init(&def);
    symbol_set_init(&use);
    error_init(&err);
    if (symbols_read_object(path, &def, &use, &err) != 0)
        why = xstrfmt(messages_get(b->messages, "%s: the compiler's output cannot be read: %s"),
                      o->source, err.msg);
    for (size_t i = 0; !why && i < def.n; i++) {
        const char *origin;
        enum symbol_verdict v =
            symbols_check_definition(def.entries[i].name, &reserved, allowed, &origin);
        if (v != SYMBOL_OK)
            why = refusal(b->messages, o->source, def.entries[i].name, v, true, origin);
    }
    for (size_t i = 0; !why && i < use.n; i++) {
        enum symbol_verdict v = symbols_check_use(use.entries[i].name);
        if (v != SYMBOL_OK)
            why = refusal(b->messages, o->source, use.entries[i].name, v, false, NULL);
    }
    symbol_set_release(&def);
    symbol_set_release(&use);
    free(path);
    return why;
}

/* A student variant's objects before they are linked: CE naming the first refused symbol. */
static bool symbols_refused(struct build_ctx *b, const struct argv_list *objs,
                            struct build_result *r)
{
    struct symbol_set allowed;
    char *why = NULL;
    if (b->reference)
        return false;
    if (!reserved_ready) {
        symbols_reserved(b->tc->cuda_home, &reserved);
        reserved_ready = true;
    }
    symbol_set_init(&allowed);
    allowed_names(b->lab, &allowed);
    for (size_t k = 0; k < b->n_objs && !why; k++)
        for (size_t i = 0; i < objs->n && !why; i++)
            if (!strcmp(objs->v[i], b->objs[k].object))
                why = object_refusal(b, &b->objs[k], &allowed);
    symbol_set_release(&allowed);
    if (!why)
        return false;
    r->status = BUILD_COMPILE_ERROR;
    free(r->message);
    r->message = why;
    strbuf_addf(&r->log, "$ check symbols\n%s\n", why);
    return true;
}

/* Compile the variant's sources: fills objs; r gets the first failure (the grader's own
 * first, since a CE may be the disk's doing). -1 only when the grader failed. */
static int variant_objects(struct build_ctx *b, const struct variant_spec *v,
                           struct argv_list *objs, bool *any_cuda, struct build_result *r,
                           struct error *err)
{
    const struct impl_spec *impl = impl_of(b, v);
    for (size_t i = 0; i < impl->n_sources; i++) {
        struct build_obj *o = compile_source(b, v, impl->sources[i], err);
        if (!o)
            return -1;
        if (o->log && *o->log) {
            strbuf_addf(&r->log, "$ compile %s\n%s", o->source, o->log);
            if (r->log.len && r->log.buf[r->log.len - 1] != '\n')
                strbuf_addch(&r->log, '\n');
        }
        r->n_warnings += o->n_warnings;
        *any_cuda |= is_cuda_source(o->source);
        if (o->status != BUILD_OK &&
            (o->status == BUILD_GRADER_ERROR ||
             (r->status != BUILD_COMPILE_ERROR && r->status != BUILD_MISSING_FUNCTION))) {
            free(r->message);
            r->status = o->status;
            r->message = xstrdup(o->message);
        }
        argv_push(objs, o->object);
    }
    return 0;
}

/* The generated driver: from the spec and trusted, but compiled the same way. Its object's
 * path (relative to the build folder) in *relo. -1 when the grader failed; a full disk is
 * BUILD_GRADER_ERROR in r. */
static int variant_driver(struct build_ctx *b, const struct exercise_spec *ex,
                          const struct variant_spec *v, const char *vdir, char **relo,
                          struct build_result *r, struct error *err)
{
    struct strbuf drv = STRBUF_INIT, log = STRBUF_INIT;
    struct argv_list cmd = {0};
    char *path = xstrfmt("%s/driver.c", vdir), *rel = xstrfmt("%s-%s/driver.c", ex->id, v->id);
    bool ok = false;
    *relo = xstrfmt("%s-%s/driver.o", ex->id, v->id);
    driver_source(ex, v, b->reference, &drv);
    int rc = write_file_atomic(path, drv.buf, drv.len, err);
    if (rc == 0) {
        argv_push(&cmd, b->tc->cc);
        argv_push_split(&cmd, "-std=gnu11 -O2 -Wall");
        argv_push(&cmd, "-I");
        argv_push(&cmd, b->tc->harness_include);
        argv_push_split(&cmd, "-I . -c");
        argv_push(&cmd, rel);
        argv_push(&cmd, "-o");
        argv_push(&cmd, *relo);
        rc = run_tool(b, &cmd, &log, &ok, err);
    }
    if (rc == 0 && !ok && build_disk_full(b, &r->message)) {
        /* A full disk is the grader's error, said in r (not recorded: the next run retries). */
        r->status = BUILD_GRADER_ERROR;
    } else if (rc == 0 && !ok) {
        /* Only the lab's own declarations can break the generated driver. */
        rc = error_set(err, "the generated driver for %s/%s does not compile:\n%s", ex->id, v->id,
                       strbuf_str(&log));
        r->status = BUILD_GRADER_ERROR;
    }
    argv_release(&cmd);
    strbuf_release(&drv);
    strbuf_release(&log);
    free(path);
    free(rel);
    return rc;
}

/* Link the runner: driver, objects, harness, libraries. A failure names the missing function
 * when that is what the linker says. */
static int variant_link(struct build_ctx *b, const struct exercise_spec *ex,
                        const struct variant_spec *v, const char *relo,
                        const struct argv_list *objs, bool any_cuda, struct build_result *r,
                        struct error *err)
{
    const struct impl_spec *impl = impl_of(b, v);
    struct argv_list cmd = {0};
    struct strbuf log = STRBUF_INIT;
    char *runner_rel = xstrfmt("%s-%s/runner", ex->id, v->id);
    bool ok = false;
    argv_push(&cmd, any_cuda ? b->tc->nvcc : b->tc->cc);
    if (any_cuda && b->tc->gpu_arch) {
        char *a = xstrfmt("-arch=%s", b->tc->gpu_arch);
        argv_push(&cmd, a);
        free(a);
    }
    argv_push(&cmd, "-o");
    argv_push(&cmd, runner_rel);
    argv_push(&cmd, relo);
    for (size_t i = 0; i < objs->n; i++)
        argv_push(&cmd, objs->v[i]);
    const char *hobjs[] = {"libharness.a",
                           v->target == TARGET_GPU ? "harness_gpu.o" : "harness_nogpu.o"};
    for (size_t i = 0; i < 2; i++) {
        char *p = path_join(b->tc->harness_dir, hobjs[i]);
        argv_push(&cmd, p);
        free(p);
    }
    for (size_t i = 0; i < impl->n_libs; i++)
        lib_flags(impl->libs[i], false, &cmd);
    if (b->lab->ldflags)
        argv_push_split(&cmd, b->lab->ldflags);
    if (any_cuda)
        cudart_shared(b->tc, &cmd);
    argv_push_split(&cmd, "-ldl -lpthread -lm");
    int rc = run_tool(b, &cmd, &log, &ok, err);
    if (rc == 0 && log.len)
        strbuf_addf(&r->log, "$ link %s\n%s", runner_rel, log.buf);
    if (rc == 0 && !ok && link_log_misses(strbuf_str(&log), impl->function)) {
        r->status = BUILD_MISSING_FUNCTION;
        r->message = xstrfmt(
            messages_get(b->messages, "function '%s' is not defined in %s"), impl->function,
            impl->n_sources == 1 ? impl->sources[0] : messages_get(b->messages, "the sources"));
    } else if (rc == 0 && !ok && build_disk_full(b, &r->message)) {
        r->status = BUILD_GRADER_ERROR;
    } else if (rc == 0 && !ok) {
        r->status = BUILD_COMPILE_ERROR;
        r->message = xstrfmt(messages_get(b->messages, "linking %s failed"), impl->function);
    } else if (rc == 0) {
        r->runner = path_join(b->dir, runner_rel);
    }
    argv_release(&cmd);
    strbuf_release(&log);
    free(runner_rel);
    return rc;
}

int build_variant(struct build_ctx *b, const struct exercise_spec *ex, const struct variant_spec *v,
                  struct build_result *r, struct error *err)
{
    struct argv_list objs = {0};
    bool any_cuda = v->target == TARGET_GPU;
    char *vdir = xstrfmt("%s/%s-%s", b->dir, ex->id, v->id), *relo = NULL;
    int rc = 0;
    r->status = BUILD_OK;
    b->variant = vdir + strlen(b->dir) + 1;
    if (build_record_load(vdir, r))
        goto out;
    if (v->target == TARGET_GPU && b->tc->no_cuda_reason) {
        r->status = BUILD_NO_TOOLCHAIN;
        r->message = xstrdup(b->tc->no_cuda_reason);
        /* Still compile CUDA sources when nvcc exists: a student without a GPU wants to know
         * whether the code compiles. */
        if (!b->tc->nvcc)
            goto out;
    }
    if (variant_objects(b, v, &objs, &any_cuda, r, err) != 0 || mkdir_p(vdir, err) != 0) {
        rc = -1;
        goto out;
    }
    if (r->status == BUILD_OK && variant_driver(b, ex, v, vdir, &relo, r, err) != 0)
        rc = -1;
    else if (r->status == BUILD_OK && !symbols_refused(b, &objs, r))
        rc = variant_link(b, ex, v, relo, &objs, any_cuda, r, err);
    if (rc == 0 && r->status == BUILD_OK && v->target == TARGET_GPU && b->tc->no_cuda_reason) {
        r->status = BUILD_NO_TOOLCHAIN;
        r->message = xstrdup(b->tc->no_cuda_reason);
    }
    if (rc == 0)
        rc = build_record_save(vdir, r, err);
out:
    b->variant = NULL;
    argv_release(&objs);
    free(vdir);
    free(relo);
    return rc;
}

/* The reference's objects for a shared object: PIC, hidden. Fills objs; false on failure
 * (r says why). */
static bool library_objects(struct build_ctx *b, const struct variant_spec *v,
                            struct argv_list *objs, bool *any_cuda, struct build_result *r,
                            struct error *err, int *rc)
{
    b->pic = true;
    for (size_t i = 0; i < v->reference.n_sources; i++) {
        struct build_obj *o = compile_source(b, v, v->reference.sources[i], err);
        if (!o) {
            *rc = -1;
            break;
        }
        *any_cuda |= is_cuda_source(o->source);
        if (o->status != BUILD_OK) {
            r->status = o->status;
            r->message = xstrdup(o->message);
            strbuf_addstr(&r->log, o->log ? o->log : "");
            break;
        }
        argv_push(objs, o->object);
    }
    b->pic = false;
    return *rc == 0 && r->status == BUILD_OK;
}

/* The generated entry point, compiled like the reference. */
static int library_entry(struct build_ctx *b, const struct exercise_spec *ex,
                         const struct variant_spec *v, const char *vrel, struct argv_list *objs,
                         struct build_result *r, struct error *err)
{
    struct strbuf src = STRBUF_INIT, log = STRBUF_INIT;
    struct argv_list cmd = {0};
    char *c_rel = xstrfmt("%s/ref_entry.c", vrel), *o_rel = xstrfmt("%s/ref_entry.o", vrel);
    char *c_abs = path_join(b->dir, c_rel);
    bool ok = false;
    driver_reference_entry(ex, v, &src);
    int rc = write_file_atomic(c_abs, src.buf, src.len, err);
    if (rc == 0) {
        argv_push(&cmd, b->tc->cc);
        argv_push_split(&cmd, "-std=gnu11 -O2 -Wall -fPIC -fvisibility=hidden -I .");
        argv_push_split(&cmd, "-c");
        argv_push(&cmd, c_rel);
        argv_push(&cmd, "-o");
        argv_push(&cmd, o_rel);
        rc = run_tool(b, &cmd, &log, &ok, err);
    }
    if (rc == 0 && !ok)
        rc = error_set(err, "the generated reference entry for %s/%s does not compile:\n%s", ex->id,
                       v->id, strbuf_str(&log));
    if (rc == 0)
        argv_push(objs, o_rel);
    (void)r;
    argv_release(&cmd);
    strbuf_release(&src);
    strbuf_release(&log);
    free(c_rel);
    free(o_rel);
    free(c_abs);
    return rc;
}

static int library_link(struct build_ctx *b, const struct variant_spec *v, const char *vrel,
                        const struct argv_list *objs, bool any_cuda, struct build_result *r,
                        struct error *err)
{
    struct argv_list cmd = {0};
    struct strbuf log = STRBUF_INIT;
    char *lib = xstrfmt("%s/libref.so", vrel);
    bool ok = false;
    argv_push(&cmd, any_cuda ? b->tc->nvcc : b->tc->cc);
    argv_push(&cmd, "-shared");
    argv_push(&cmd, "-o");
    argv_push(&cmd, lib);
    for (size_t i = 0; i < objs->n; i++)
        argv_push(&cmd, objs->v[i]);
    for (size_t i = 0; i < v->reference.n_libs; i++)
        lib_flags(v->reference.libs[i], false, &cmd);
    if (any_cuda) {
        cudart_shared(b->tc, &cmd);
        argv_push_split(&cmd, "-Xlinker=-Bsymbolic -Xlinker=--strip-all");
    } else {
        argv_push_split(&cmd, "-Wl,-Bsymbolic -s");
    }
    argv_push(&cmd, "-lm");
    int rc = run_tool(b, &cmd, &log, &ok, err);
    if (log.len)
        strbuf_addf(&r->log, "$ link %s\n%s", lib, log.buf);
    if (rc == 0 && !ok) {
        r->status = BUILD_COMPILE_ERROR;
        r->message = xstrfmt("linking the reference %s failed", v->reference.function);
    } else if (rc == 0) {
        r->runner = path_join(b->dir, lib);
    }
    argv_release(&cmd);
    strbuf_release(&log);
    free(lib);
    return rc;
}

int build_reference_library(struct build_ctx *b, const struct exercise_spec *ex,
                            const struct variant_spec *v, struct build_result *r, struct error *err)
{
    struct argv_list objs = {0};
    bool any_cuda = v->target == TARGET_GPU;
    int rc = 0;
    char *vrel = xstrfmt("%s-%s", ex->id, v->id), *vdir = path_join(b->dir, vrel);
    r->status = BUILD_OK;
    if (!b->reference || !v->has_reference) {
        rc = error_set(err, "%s/%s: only a reference builds as a shared object", ex->id, v->id);
    } else if (v->target == TARGET_GPU && b->tc->no_cuda_reason) {
        r->status = BUILD_NO_TOOLCHAIN;
        r->message = xstrdup(b->tc->no_cuda_reason);
    } else if (mkdir_p(vdir, err) != 0) {
        rc = -1;
    } else if (library_objects(b, v, &objs, &any_cuda, r, err, &rc)) {
        rc = library_entry(b, ex, v, vrel, &objs, r, err);
        if (rc == 0)
            rc = library_link(b, v, vrel, &objs, any_cuda, r, err);
    }
    argv_release(&objs);
    free(vrel);
    free(vdir);
    return rc;
}

int build_environment_digest(const struct build_ctx *b, struct sha256 *h, struct error *err)
{
    const struct toolchain *tc = b->tc;
    const char *parts[] = {"labgrader-student-build-2",
                           tc->cc,
                           tc->cc_version,
                           tc->nvcc,
                           tc->nvcc_version,
                           tc->gpu_arch,
                           b->lab->cflags,
                           b->lab->nvccflags,
                           b->lab->ldflags};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const char *p = parts[i] ? parts[i] : "-";
        sha256_update(h, p, strlen(p) + 1);
    }
    /* A compile stopped by the limit is a CE kept with the build: another limit, another
     * build. */
    char limit[64];
    snprintf(limit, sizeof(limit), "compile limit %.17g", tc->compile_timeout_s);
    sha256_update(h, limit, strlen(limit) + 1);
    struct strbuf hdr = STRBUF_INIT;
    driver_prototypes_header(b->lab, false, &hdr);
    sha256_update(h, hdr.buf, hdr.len);
    strbuf_release(&hdr);
    const char *hobjs[] = {"libharness.a", "harness_gpu.o", "harness_nogpu.o"};
    for (size_t i = 0; i < 3; i++) {
        char *p = path_join(tc->harness_dir, hobjs[i]);
        int rc = file_exists(p) ? sha256_file(h, p, err) : 0;
        free(p);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int build_reference_digest(const struct toolchain *tc, const struct lab *lab, char out[65],
                           struct error *err)
{
    struct sha256 s;
    struct strbuf hdr = STRBUF_INIT;
    sha256_init(&s);
    sha256_update(&s, "labgrader-ref-1", 15);
    driver_prototypes_header(lab, true, &hdr);
    sha256_update(&s, hdr.buf, hdr.len);
    strbuf_release(&hdr);
    const char *parts[] = {tc->cc,       tc->cc_version, tc->nvcc,       tc->nvcc_version,
                           tc->gpu_arch, lab->cflags,    lab->nvccflags, lab->ldflags};
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const char *p = parts[i] ? parts[i] : "-";
        sha256_update(&s, p, strlen(p) + 1);
    }
    const char *hobjs[] = {"libharness.a", "harness_gpu.o", "harness_nogpu.o"};
    for (size_t i = 0; i < 3; i++) {
        char *p = path_join(tc->harness_dir, hobjs[i]);
        if (file_exists(p) && sha256_file(&s, p, err) != 0) {
            free(p);
            return -1;
        }
        free(p);
    }
    for (size_t e = 0; e < lab->n_exercises; e++)
        for (size_t v = 0; v < lab->exercises[e].n_variants; v++) {
            const struct variant_spec *var = &lab->exercises[e].variants[v];
            if (!var->has_reference)
                continue;
            for (size_t i = 0; i < var->reference.n_sources; i++)
                if (sha256_file(&s, var->reference.sources[i], err) != 0)
                    return -1;
            for (size_t i = 0; i < var->reference.n_libs; i++)
                sha256_update(&s, var->reference.libs[i], strlen(var->reference.libs[i]) + 1);
        }
    sha256_final_hex(&s, out);
    return 0;
}

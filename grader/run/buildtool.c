/* buildtool: one compile or link step in the sandbox, and the flags it takes
 * (build_internal.h). */
#include "run/build_internal.h"

#include "run/turns.h"
#include "base/alloc.h"
#include "base/messages.h"
#include "base/fs.h"
#include "base/space.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void argv_list_push(struct argv_list *a, const char *s)
{
    ALLOC_GROW(a->v, a->n + 2, a->alloc);
    a->v[a->n++] = xstrdup(s);
    a->v[a->n] = NULL;
}

void argv_list_push_split(struct argv_list *a, const char *flags)
{
    char *copy, *save = NULL;
    if (!flags)
        return;
    copy = xstrdup(flags);
    for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save))
        argv_list_push(a, t);
    free(copy);
}

void argv_list_release(struct argv_list *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i]);
    free(a->v);
    a->v = NULL;
    a->n = a->alloc = 0;
}

bool build_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && !strcmp(s + n - m, suffix);
}

/* A .cu source, or a reference compiled from one (x.cu.o): linked by nvcc. */
bool build_is_cuda_source(const char *path)
{
    return build_ends_with(path, ".cu") || build_ends_with(path, ".cu.o");
}

int build_count_warnings(const char *log)
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
bool build_disk_full(const struct build_ctx *b, char **message)
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
            argv_list_push(env, *e);
    if (*tmp) {
        char *entry = xstrfmt("TMPDIR=%s", *tmp);
        argv_list_push(env, entry);
        free(entry);
    }
}

/* The limits of a compile: it is untrusted too (template and macro bombs). */
static void tool_limits(const struct build_ctx *b, struct sandbox_opts *o)
{
    o->wall_limit_s = b->tc->compile_timeout_s;
    o->cpu_limit_s = b->tc->compile_timeout_s;
    o->file_limit_bytes = 512LL << 20;
    o->output_cap = 256 * 1024;
    o->isolation = b->tc->isolation;
    /* Half the machine's memory and a few hundred tasks (nvcc runs cicc, ptxas, fatbinary)
     * where cgroups are delegated; the wall and CPU limits hold everywhere. */
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0)
        o->memory_limit_bytes = (long long)pages * page / 2;
    o->max_processes = 512;
    /* Without delegated cgroups nothing else stops a macro bomb (exponential #define
     * doubling): cc1 grows by hundreds of MiB a second. Compilers never start CUDA, so
     * the address-space limit the runs cannot have is safe here. Per process (cc1plus,
     * cicc, ptxas each get it) and fixed: scaled down to a small laptop's memory it would
     * refuse honest template-heavy CUDA (thrust, CUB), which needs a few GiB. */
    o->address_space_bytes = 4LL << 30;
}

/* The compiler's output into log, and whether it succeeded. */
static bool tool_output(const struct sandbox_result *r, const char *tool, struct strbuf *log)
{
    if (r->output_len)
        strbuf_add(log, r->output, r->output_len);
    if (r->output_truncated)
        strbuf_addstr(log, "\n[... compiler output truncated ...]\n");
    if (r->status == SB_EXITED)
        return r->exit_code == 0;
    char desc[512];
    sandbox_describe(r, desc, sizeof(desc));
    strbuf_addf(log, "\n%s: %s\n", path_base(tool), desc);
    return false;
}

/* Run a build command in the sandbox; the output is appended to log. */
int build_tool_run(struct build_ctx *b, struct argv_list *cmd, struct strbuf *log, bool *ok,
                   struct error *err)
{
    const char *extra[] = {b->tc->harness_include, b->tc->harness_dir,
                           b->reference ? b->lab->dir : NULL, b->reference ? b->lab->root : NULL,
                           NULL};
    const char **ro = toolchain_ro_paths(b->tc, extra);
    struct sandbox_opts o;
    struct sandbox_result r;
    sandbox_opts_init(&o);
    sandbox_result_init(&r);
    o.argv = (const char *const *)cmd->v;
    o.workdir = b->dir;
    o.ro_paths = ro;
    struct argv_list env = {0};
    char *tmp;
    tool_env(b, &env, &tmp);
    o.env = (const char *const *)env.v;
    tool_limits(b, &o);
    /* The compilers hold the lane's cores (run/turns.h), given up while a series waits. */
    struct turns_locks locks;
    turns_join(b->tc->turns, TURNS_UNTIMED, false, &o, &locks);
    int rc = sandbox_run(&o, &r, err);
    if (r.uncoordinated)
        turns_note_busy();
    if (rc != 0)
        error_prefix(err, "cannot run %s: ", cmd->v[0]);
    *ok = rc == 0 && tool_output(&r, cmd->v[0], log);
    sandbox_result_release(&r);
    turns_locks_release(&locks);
    free(ro);
    argv_list_release(&env);
    if (tmp)
        remove_tree(tmp, NULL);
    free(tmp);
    return rc == 0 ? 0 : -1;
}

void build_lib_flags(const char *lib, bool compile, struct argv_list *out)
{
    /* openblas ships a pkg-config file whose include dir is not on the default path. */
    if (!strcmp(lib, "openblas")) {
        if (compile) {
            argv_list_push(out, "-I/usr/include/x86_64-linux-gnu/openblas-pthread");
            argv_list_push(out, "-I/usr/include/openblas");
            const char *cpath = getenv("LG_OPENBLAS_CFLAGS");
            argv_list_push_split(out, cpath);
        } else {
            argv_list_push(out, "-L/usr/lib/x86_64-linux-gnu/openblas-pthread");
            argv_list_push(out, "-lopenblas");
        }
        return;
    }
    if (!compile) {
        char *l = xstrfmt("-l%s", lib);
        argv_list_push(out, l);
        free(l);
    }
}

/* One CUDA runtime in a process: the runner and the paired reference's shared object both link
 * the shared libcudart (two static copies would keep two runtime states), found at run time
 * through an rpath to the toolkit's library folder. */
void build_cudart_shared(const struct toolchain *tc, struct argv_list *cmd)
{
    argv_list_push(cmd, "-cudart");
    argv_list_push(cmd, "shared");
    const char *subdirs[] = {"lib64", "targets/x86_64-linux/lib", "targets/sbsa-linux/lib"};
    for (size_t i = 0; tc->cuda_home && i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
        char *dir = xstrfmt("%s/%s", tc->cuda_home, subdirs[i]);
        if (dir_exists(dir)) {
            char *opt = xstrfmt("-Xlinker=-rpath=%s", dir);
            argv_list_push(cmd, opt);
            free(opt);
        }
        free(dir);
    }
}

const struct impl_spec *build_impl_of(const struct build_ctx *b, const struct variant_spec *v)
{
    return b->reference ? &v->reference : &v->student;
}

/* nvcc's flags; for a reference's shared object, position-independent, hidden, and machine
 * code only: -arch=sm_XX would embed PTX too, which reads almost like source. */
void build_push_nvcc_flags(const struct build_ctx *b, const char *flags, struct argv_list *cmd)
{
    char *copy = xstrdup(flags), *save = NULL;
    for (char *t = strtok_r(copy, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
        if (b->pic && !strncmp(t, "-arch=sm_", 9)) {
            char *g = xstrfmt("-gencode=arch=compute_%s,code=sm_%s", t + 9, t + 9);
            argv_list_push(cmd, g);
            free(g);
        } else {
            argv_list_push(cmd, t);
        }
    }
    free(copy);
    if (b->pic) {
        argv_list_push(cmd, "-Xcompiler");
        argv_list_push(cmd, "-fPIC,-fvisibility=hidden");
    }
}
